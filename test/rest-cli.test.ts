// `siteline credits grant|balance` and `siteline keys ...` through the real bin on a PGlite data directory that a real
// server used before (the account was made through the web form) and uses again after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, SHARED_DATA, startTestServer } from './support/harness.ts';
import { claimUserIdentity, csrfFrom, getPage, postForm, signUpOrIn } from './support/auth-flow.ts';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { createLogger } from '../src/logger.ts';
import { api } from './rest-support.ts';

function siteline(dataDir: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', SITELINE_DATA_DIR: dataDir, SITELINE_AUTO_IMPORT: '0', LOG_LEVEL: 'warn' },
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function serve(dataDir: string) {
  const config = loadConfig(
    { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    { port: 0, host: '127.0.0.1', sourceDir: SHARED_DATA, autoImport: false, dataDir, stripe: undefined },
  );
  return startService(config, { logger: createLogger('silent') });
}

test('siteline credits grant: the operator grants credit that the account then spends; bad usage exits 2', {
  skip: process.env.DATABASE_URL ? 'PGlite data directory test' : false,
}, async () => {
  fs.mkdirSync(path.join(ROOT, '.siteline-test'), { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'credits-cli-'));
  try {
    let svc = await serve(dataDir);
    let key: string;
    try {
      const jar = await signUpOrIn(svc.url, 'Operator-Grant@Example.com');
      const pageRes = await getPage(`${svc.url}/account/api-keys`, jar);
      const created = await postForm(`${svc.url}/account/api-keys`, jar, { csrf: csrfFrom(pageRes.body), name: 'cli test' });
      key = /<pre id="new-key">(sl_live_[0-9A-Za-z]+)<\/pre>/.exec(created.body)![1]!;
    } finally {
      await svc.close();
    }

    const usage = siteline(dataDir, 'credits', 'grant', 'operator-grant@example.com', '25');
    assert.equal(usage.code, 2);
    assert.match(usage.err, /--reason/);
    assert.equal(siteline(dataDir, 'credits', 'grant', 'operator-grant@example.com', 'ten', '--reason', 'x').code, 2);
    const nobody = siteline(dataDir, 'credits', 'grant', 'nobody@example.com', '5', '--reason', 'trial');
    assert.equal(nobody.code, 2);
    assert.match(nobody.err, /no account with the e-mail nobody@example.com/i);
    const ok = siteline(dataDir, 'credits', 'grant', 'Operator-Grant@example.com', '25', '--reason', 'pilot customer');
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /Granted 25 credits to operator-grant@example.com; balance 25\./);
    const bal = siteline(dataDir, 'credits', 'balance', 'operator-grant@example.com');
    assert.equal(bal.code, 0, bal.err);
    assert.match(bal.out, /: 25 credits\n$/);

    svc = await serve(dataDir);
    try {
      const u = await api(svc.url, '/api/v1/usage', { token: key });
      assert.equal(u.status, 200, u.text);
      assert.equal(u.json.balance, 25);
      assert.equal(u.json.recent[0].kind, 'grant');
      assert.match(u.json.recent[0].reference, /pilot customer/);
    } finally {
      await svc.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('siteline keys create|list|revoke with the logged-in identity: the key is printed once and revoked at once', async () => {
  const svc = await startTestServer();
  const configDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'keys-cli-'));
  const env = { SITELINE_CONFIG_DIR: configDir, SITELINE_URL: svc.url, DATABASE_URL: '' };
  // Asynchronous: the server under test runs in this process and must keep answering.
  const keys = (...args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'bin/siteline.mjs'), 'keys', ...args], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += String(d)));
      child.stderr.on('data', (d) => (err += String(d)));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out, err }));
    });
  try {
    assert.equal((await keys('list')).code, 4, 'not logged in');
    // What `siteline login` stores, earned through the real claim flow.
    const email = 'keys-cli@example.com';
    const { identityAssertion } = await claimUserIdentity(svc.url, email);
    fs.writeFileSync(path.join(configDir, 'credentials.json'), JSON.stringify({ server: svc.url, email, identity_assertion: identityAssertion }), {
      mode: 0o600,
    });

    const created = await keys('create', 'laptop');
    assert.equal(created.code, 0, created.err);
    const key = created.out.trim();
    assert.match(key, /^sl_live_[0-9A-Za-z]{38}$/);
    assert.match(created.err, /shown this once/);
    assert.equal((await api(svc.url, '/api/v1/usage', { token: key })).status, 200);
    const listed = await keys('list', '--json');
    assert.equal(listed.code, 0, listed.err);
    const [info] = JSON.parse(listed.out) as { id: string; prefix: string }[];
    assert.ok(key.startsWith(info!.prefix));
    assert.ok(!listed.out.includes(key), 'never listed in full');
    assert.equal((listed.out.match(/"id"/g) ?? []).length, 1);
    assert.equal((await keys('revoke', 'key_nope')).code, 2);
    const revoked = await keys('revoke', info!.id);
    assert.equal(revoked.code, 0, revoked.err);
    assert.equal((await api(svc.url, '/api/v1/usage', { token: key })).status, 401);
  } finally {
    await svc.close();
    fs.rmSync(configDir, { recursive: true, force: true });
  }
});
