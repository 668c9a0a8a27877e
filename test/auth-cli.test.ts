// `siteline login | whoami | logout` as a user runs them: the real binary against the real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startTestServer } from './support/harness.ts';
import os from 'node:os';
import { confirmClaimOnPage, getPage, postJson, signUpOrIn } from './support/auth-flow.ts';
import { runSiteline } from './support/cli.ts';

const run = runSiteline;

test('CLI: login (verification URL + code, polling), whoami, logout revokes; a revoked identity is told to log in again', async () => {
  const svc = await startTestServer();
  const configDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'cli-'));
  const env = { SITELINE_CONFIG_DIR: configDir, SITELINE_URL: svc.url };
  try {
    const email = 'cli.user@example.com';
    const jar = await signUpOrIn(svc.url, email);

    assert.equal((await run(['whoami'], env)).code, 4, 'not logged in yet');
    assert.equal((await run(['login'], env)).code, 2, 'no e-mail and no terminal: usage error');

    let confirming: Promise<unknown> | undefined;
    // The link and the code are messages for the person: stderr, with the wait shown there too.
    const login = await run(['login', '--email', email], env, (err) => {
      const m = /open:\s+(\S+)[\s\S]*type this code there:\s+(\d{6})/.exec(err);
      if (m && !confirming) confirming = confirmClaimOnPage(svc.url, m[1]!, m[2]!, jar);
    });
    assert.equal(login.code, 0, login.stderr);
    assert.ok(confirming);
    const done = (await confirming) as { status: number };
    assert.equal(done.status, 200);
    assert.match(login.stdout, /Logged in as cli\.user@example\.com/);
    assert.match(login.stderr, /Waiting for you to confirm/);
    assert.doesNotMatch(login.stdout, /type this code/);

    const file = path.join(configDir, 'credentials.json');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'credentials are owner-only');
    const creds = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.ok(creds.identity_assertion);

    const who = await run(['whoami'], env);
    assert.equal(who.code, 0, who.stderr);
    assert.match(who.stdout, /cli\.user@example\.com .*scopes: mcp/);

    // With no cached access token, whoami renews through the jwt-bearer exchange.
    delete creds.access_token;
    fs.writeFileSync(file, JSON.stringify(creds), { mode: 0o600 });
    assert.equal((await run(['whoami'], env)).code, 0);
    assert.ok(JSON.parse(fs.readFileSync(file, 'utf8')).access_token, 'the renewed token is cached');

    // The account page names this login by its machine, with its last use (the exchange just now).
    const account = await getPage(`${svc.url}/account`, jar);
    assert.match(
      account.body,
      new RegExp(`class="agent-name">CLI on ${os.hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}<[^\n]*last used (just now|\\d+ minutes? ago)`),
    );

    // Revoked elsewhere: the exchange answers invalid_grant and the user is told to log in again.
    const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
    await postJson(`${svc.url}/api/auth/agent/revoke`, { token: saved.identity_assertion });
    delete saved.access_token;
    fs.writeFileSync(file, JSON.stringify(saved), { mode: 0o600 });
    const stale = await run(['whoami'], env);
    assert.equal(stale.code, 4);
    assert.match(stale.stderr, /log in again|siteline login/);

    // logout revokes the stored assertion and deletes the file.
    fs.writeFileSync(file, JSON.stringify(creds), { mode: 0o600 });
    const out = await run(['logout'], env);
    assert.equal(out.code, 0, out.stderr);
    assert.ok(!fs.existsSync(file));
    const x = await fetch(`${svc.url}/api/auth/mcp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: creds.identity_assertion }).toString(),
    });
    assert.equal(((await x.json()) as { error: string }).error, 'invalid_grant', 'logout revoked the identity on the server');
    assert.equal((await run(['whoami'], env)).code, 4);
  } finally {
    await svc.close();
    fs.rmSync(configDir, { recursive: true, force: true });
  }
});
