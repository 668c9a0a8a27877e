// `siteline check` as a client of a running service: the real binary, the real server on a random
// port, a login earned through the real endpoints and claim page, the MCP tool over HTTP. The same
// question asked with --local, on a database cloned from the same data, gives the same answer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPlacesEnv, ROOT, startTestServer, type TestServer } from './support/harness.ts';
import { loginThroughCli, runSiteline } from './support/cli.ts';

const PLACES = ['cambridge-ma', 'chicago-il'];
let svc: TestServer;
let local: { env: Record<string, string>; close(): Promise<void> };
let configDir: string;
let remoteEnv: Record<string, string>;
let localEnv: Record<string, string>;

before(async () => {
  svc = await startTestServer({ places: PLACES });
  local = await createPlacesEnv(PLACES);
  fs.mkdirSync(path.join(ROOT, '.siteline-test'), { recursive: true });
  configDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'cli-remote-'));
  // The remote runs get no database settings at all: they can only answer through the service.
  remoteEnv = { SITELINE_CONFIG_DIR: configDir, SITELINE_URL: svc.url, SITELINE_DATA_DIR: path.join(configDir, 'no-database-here'), DATABASE_URL: '' };
  localEnv = { ...local.env, SITELINE_CONFIG_DIR: configDir };
});

after(async () => {
  await svc?.close().catch(() => undefined);
  await local?.close();
  fs.rmSync(configDir, { recursive: true, force: true });
});

/** generatedAt is the moment each process computed the answer; everything else must match. */
const withoutTime = (s: string) => {
  const o = JSON.parse(s);
  assert.equal(typeof o.generatedAt, 'string');
  delete o.generatedAt;
  return o;
};

test('not logged in: exit 4, a message to run `siteline login` on stderr, nothing on stdout', async () => {
  const r = await runSiteline(['check', '11 Acorn St, Cambridge, MA', '--json'], remoteEnv);
  assert.equal(r.code, 4, r.stderr);
  assert.match(r.stderr, /Not logged in\. Run `siteline login/);
  assert.equal(r.stdout, '');
});

test('logged in: check asks the service as the user and answers exactly what --local answers', async () => {
  const login = await loginThroughCli(svc.url, 'cli.check@example.com', remoteEnv);
  assert.equal(login.code, 0, login.stderr);
  const stored = JSON.parse(fs.readFileSync(path.join(configDir, 'credentials.json'), 'utf8'));
  assert.equal(stored.server, svc.url, 'the service URL is remembered at login');

  const address = '11 Acorn St, Cambridge, MA';
  const remote = await runSiteline(['check', address, '--json'], remoteEnv);
  assert.equal(remote.code, 0, remote.stderr);
  const offline = await runSiteline(['check', '--local', address, '--json'], localEnv);
  assert.equal(offline.code, 0, offline.stderr);
  assert.equal(JSON.parse(remote.stdout).answered, true);
  assert.deepEqual(withoutTime(remote.stdout), withoutTime(offline.stdout), 'same JSON remote and --local');
  // The readable view is made from that JSON and shows no time: byte for byte the same.
  const remoteText = await runSiteline(['check', address], remoteEnv);
  const localText = await runSiteline(['check', '--local', address], localEnv);
  assert.equal(remoteText.code, 0, remoteText.stderr);
  assert.equal(localText.code, 0, localText.stderr);
  assert.equal(remoteText.stdout, localText.stdout);
  assert.match(remoteText.stdout, /Envelope/);

  // The answer is the MCP tool's own structuredContent.
  const { connectClient } = await import('./mcp-support.ts');
  const { access_token: token } = JSON.parse(fs.readFileSync(path.join(configDir, 'credentials.json'), 'utf8'));
  const client = await connectClient(svc.url, 'modern', token);
  try {
    // The CLI asks for the place's sources inline (docs/snapshot.md, "Sources").
    const res = await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address, source: 'full', includeSources: true } });
    assert.deepEqual(withoutTime(remote.stdout), withoutTime(JSON.stringify(res.structuredContent)), "exactly the tool's structuredContent");
  } finally {
    await client.close();
  }
});

test('not covered is exit 3 and bad input exit 2, remote as --local', async () => {
  const nc = await runSiteline(['check', '233 S Wacker Dr, Chicago, IL', '--json'], remoteEnv);
  assert.equal(nc.code, 3, nc.stderr);
  const ncLocal = await runSiteline(['check', '--local', '233 S Wacker Dr, Chicago, IL', '--json'], localEnv);
  assert.equal(ncLocal.code, 3, ncLocal.stderr);
  assert.deepEqual(withoutTime(nc.stdout), withoutTime(ncLocal.stdout));
  assert.equal(JSON.parse(nc.stdout).coverage.status, 'planned_not_live');

  const bad = await runSiteline(['check', '\u0007\u0008', '--json'], remoteEnv);
  const badLocal = await runSiteline(['check', '--local', '\u0007\u0008', '--json'], localEnv);
  assert.equal(bad.code, 2, bad.stderr);
  assert.equal(badLocal.code, 2, badLocal.stderr);
  assert.match(bad.stderr, /Cannot check that address/);
  assert.deepEqual(JSON.parse(bad.stdout), JSON.parse(badLocal.stdout), 'the same error object');
  assert.equal(JSON.parse(bad.stdout).error.code, 'bad_input');
});

test('--lot names the lot meant: remote as --local, the picked lot answered; an id the place lacks is exit 2', async () => {
  const address = '57 Inman St, Cambridge, MA';
  const weak = await runSiteline(['check', address, '--json'], remoteEnv);
  assert.equal(weak.code, 6, weak.stderr);
  const matched = JSON.parse(weak.stdout).lot.parcelExternalId as string;
  const golden = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/golden/cambridge-addresses.json'), 'utf8')).addresses as { parcelExternalId: string }[];
  const lot = golden.find((g) => g.parcelExternalId !== matched)!.parcelExternalId;
  const remote = await runSiteline(['check', address, '--lot', lot, '--json'], remoteEnv);
  const offline = await runSiteline(['check', '--local', address, '--lot', lot, '--json'], localEnv);
  assert.equal(remote.code, 0, remote.stderr);
  assert.equal(offline.code, 0, offline.stderr);
  assert.deepEqual(withoutTime(remote.stdout), withoutTime(offline.stdout), 'same JSON remote and --local');
  assert.equal(JSON.parse(remote.stdout).lot.parcelExternalId, lot);
  const missing = await runSiteline(['check', address, '--lot', 'no-such-lot', '--json'], remoteEnv);
  assert.equal(missing.code, 2, missing.stderr);
  assert.match(missing.stderr, /has no lot "no-such-lot"/);
});

test('a cached token the service refuses is renewed once through the jwt-bearer exchange', async () => {
  const file = path.join(configDir, 'credentials.json');
  const creds = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.writeFileSync(file, JSON.stringify({ ...creds, access_token: 'not-a-token', access_token_expires_at: new Date(Date.now() + 3_600_000).toISOString() }), {
    mode: 0o600,
  });
  const r = await runSiteline(['check', '11 Acorn St, Cambridge, MA', '--json'], remoteEnv);
  assert.equal(r.code, 0, r.stderr);
  assert.notEqual(JSON.parse(fs.readFileSync(file, 'utf8')).access_token, 'not-a-token', 'the renewed token is stored');
});

test('--url naming another service than the login: exit 4, told how to log in there', async () => {
  const r = await runSiteline(['check', '--url', 'http://127.0.0.1:9', '11 Acorn St, Cambridge, MA'], remoteEnv);
  assert.equal(r.code, 4);
  assert.match(r.stderr, /logged in to http:\/\/127\.0\.0\.1:\d+, not http:\/\/127\.0\.0\.1:9\. Run `siteline login --url http:\/\/127\.0\.0\.1:9`/);
});

test('service not running: exit 5, the URL, how to start it and --local, on stderr', async () => {
  await svc.close();
  const r = await runSiteline(['check', '11 Acorn St, Cambridge, MA', '--json'], remoteEnv);
  assert.equal(r.code, 5, r.stderr);
  assert.equal(r.stdout, '');
  assert.ok(r.stderr.includes(`cannot reach the siteline service at ${svc.url}`), r.stderr);
  assert.match(r.stderr, /npm start/);
  assert.match(r.stderr, /siteline check --local "11 Acorn St, Cambridge, MA"/);
});
