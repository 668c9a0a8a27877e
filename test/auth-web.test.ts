// Web sign-up / sign-in / sign-out over real HTTP: cookies, CSRF, throttling, redirects, and logs
// that never carry a secret.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { ROOT, createTestDb, startTestServer } from './support/harness.ts';
import { ManualClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startService } from '../src/service.ts';
import {
  CLAIM_GRANT,
  JWT_BEARER_GRANT,
  CookieJar,
  TEST_PASSWORD,
  claimUserIdentity,
  csrfFrom,
  getPage,
  postForm,
  postJson,
  tokenRequest,
} from './support/auth-flow.ts';

test('sign up, account page, sign out: HttpOnly SameSite cookies, CSRF on every form, safe redirects', async () => {
  const svc = await startTestServer();
  try {
    const jar = new CookieJar();
    const form = await getPage(`${svc.url}/signup?next=//evil.example/x`, jar);
    assert.equal(form.status, 200);
    assert.match(form.body, /<form method="post" action="\/signup">/);
    assert.doesNotMatch(form.body, /<script/i, 'pages need no JavaScript');
    const csrf = csrfFrom(form.body);

    assert.equal((await postForm(`${svc.url}/signup`, jar, { email: 'a@example.com', password: TEST_PASSWORD })).status, 403, 'no CSRF token');
    const foreign = await fetch(`${svc.url}/signup`, {
      method: 'POST',
      headers: { cookie: jar.header(), origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, email: 'a@example.com', password: TEST_PASSWORD }).toString(),
      redirect: 'manual',
    });
    assert.equal(foreign.status, 403, 'a cross-site Origin is refused');
    assert.equal((await postForm(`${svc.url}/signup`, jar, { csrf, email: 'nope', password: TEST_PASSWORD })).status, 400);
    const weak = await postForm(`${svc.url}/signup`, jar, { csrf, email: 'a@example.com', password: 'short' });
    assert.equal(weak.status, 400);
    assert.match(weak.body, /at least 10|10 to 256/);

    const res = await fetch(`${svc.url}/signup`, {
      method: 'POST',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, email: 'A@Example.com', password: TEST_PASSWORD, next: '//evil.example/x' }).toString(),
      redirect: 'manual',
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), '/', 'an off-site next is ignored (goes to /)');
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('sl_session='));
    assert.ok(session);
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Lax/);
    assert.doesNotMatch(session, /Secure/, 'plain http on localhost: no Secure flag');
    jar.store(res);

    const account = await getPage(`${svc.url}/account`, jar);
    assert.equal(account.status, 200);
    assert.match(account.body, /a@example\.com/);
    const hashes = await svc.ctx.db.query<{ password_hash: string }>('SELECT password_hash FROM accounts');
    assert.match(hashes[0]!.password_hash, /^\$argon2id\$/);

    const dup = await postForm(`${svc.url}/signup`, new CookieJar(), { csrf: 'x'.repeat(32), email: 'a@example.com', password: TEST_PASSWORD });
    assert.equal(dup.status, 403, 'a made-up CSRF token without its cookie is refused');
    const jar2 = new CookieJar();
    const f2 = await getPage(`${svc.url}/signup`, jar2);
    assert.equal((await postForm(`${svc.url}/signup`, jar2, { csrf: csrfFrom(f2.body), email: 'a@example.com', password: TEST_PASSWORD })).status, 409);

    assert.equal((await postForm(`${svc.url}/signout`, jar, {})).status, 403, 'sign-out needs its CSRF token too');
    const out = await postForm(`${svc.url}/signout`, jar, { csrf: csrfFrom(account.body) });
    assert.equal(out.status, 303);
    const after = await getPage(`${svc.url}/account`, jar);
    assert.equal(after.status, 303);
    assert.match(after.location ?? '', /^\/signin/);

    // Bad input on the forms never crashes the server.
    const junk = await fetch(`${svc.url}/signin`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '\u0000\u0001' });
    assert.equal(junk.status, 403);
    const big = await fetch(`${svc.url}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a='.padEnd(100_000, 'x'),
    });
    assert.equal(big.status, 413);
  } finally {
    await svc.close();
  }
});

test('failed sign-ins are throttled per e-mail, then allowed again after the window', async () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const svc = await startTestServer({ clock, config: { trustedProxies: ['loopback'] } });
  try {
    const jar = new CookieJar();
    const f = await getPage(`${svc.url}/signup`, jar);
    assert.equal((await postForm(`${svc.url}/signup`, jar, { csrf: csrfFrom(f.body), email: 'b@example.com', password: TEST_PASSWORD })).status, 303);

    const other = new CookieJar();
    const csrf = csrfFrom((await getPage(`${svc.url}/signin`, other)).body);
    for (let i = 0; i < 5; i++) {
      const r = await postForm(`${svc.url}/signin`, other, { csrf, email: 'b@example.com', password: 'wrong password!' });
      assert.equal(r.status, 401);
      assert.match(r.body, /do not match/);
    }
    const blocked = await postForm(`${svc.url}/signin`, other, { csrf, email: 'b@example.com', password: TEST_PASSWORD });
    assert.equal(blocked.status, 429, 'even the right password waits out the window');
    assert.match(blocked.body, /Too many failed sign-ins/);
    // Those failures lock this e-mail from this client address only: the owner elsewhere still signs in.
    const owner = await fetch(`${svc.url}/signin`, {
      method: 'POST',
      headers: { cookie: other.header(), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '198.51.100.23' },
      body: new URLSearchParams({ csrf, email: 'b@example.com', password: TEST_PASSWORD }).toString(),
      redirect: 'manual',
    });
    assert.equal(owner.status, 303, 'five failures from one address do not lock the account everywhere');
    assert.equal(
      (await postForm(`${svc.url}/signin`, other, { csrf, email: 'b@example.com', password: TEST_PASSWORD })).status,
      429,
      'the guessing address still waits',
    );
    clock.advance(15 * 60_000 + 1000);
    const ok = await postForm(`${svc.url}/signin`, other, { csrf, email: 'B@example.com', password: TEST_PASSWORD });
    assert.equal(ok.status, 303);
    assert.equal((await getPage(`${svc.url}/account`, other)).status, 200);
    // A forged CSRF token is refused before any password check.
    const forged = await postForm(`${svc.url}/signin`, new CookieJar(), { csrf: 'x', email: 'ghost@example.com', password: 'whatever-long' });
    assert.equal(forged.status, 403);

    // Sessions end after 7 days.
    clock.advance(7 * 24 * 3600_000 + 1000);
    assert.equal((await getPage(`${svc.url}/account`, other)).status, 303);

    // Per address of the client: 20 failures over many e-mails, then 429 for any e-mail.
    const csrf2 = csrfFrom((await getPage(`${svc.url}/signin`, other)).body);
    assert.notEqual(csrf2, csrf, 'signing in set a new CSRF secret');
    for (let i = 0; i < 20; i++) {
      const r = await postForm(`${svc.url}/signin`, other, { csrf: csrf2, email: `spray${i}@example.com`, password: 'wrong password!' });
      assert.equal(r.status, 401);
    }
    const sprayed = await postForm(`${svc.url}/signin`, other, { csrf: csrf2, email: 'b@example.com', password: TEST_PASSWORD });
    assert.equal(sprayed.status, 429);
    // Behind a trusted local reverse proxy the forwarded client address is what counts: another client is not blocked.
    const viaProxy = await fetch(`${svc.url}/signin`, {
      method: 'POST',
      headers: { cookie: other.header(), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.7' },
      body: new URLSearchParams({ csrf: csrf2, email: 'b@example.com', password: TEST_PASSWORD }).toString(),
      redirect: 'manual',
    });
    assert.equal(viaProxy.status, 303);
  } finally {
    await svc.close();
  }
});

test('failed sign-ins for one e-mail spread over many addresses: 100 in the window, then 429 from anywhere', async () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const svc = await startTestServer({ clock, config: { trustedProxies: ['loopback'] } });
  try {
    const jar = new CookieJar();
    const f = await getPage(`${svc.url}/signup`, jar);
    assert.equal((await postForm(`${svc.url}/signup`, jar, { csrf: csrfFrom(f.body), email: 'c@example.com', password: TEST_PASSWORD })).status, 303);
    const client = new CookieJar();
    const csrf = csrfFrom((await getPage(`${svc.url}/signin`, client)).body);
    const from = (ip: string, password: string) =>
      fetch(`${svc.url}/signin`, {
        method: 'POST',
        headers: { cookie: client.header(), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
        body: new URLSearchParams({ csrf, email: 'c@example.com', password }).toString(),
        redirect: 'manual',
      });
    for (let a = 0; a < 25; a++) for (let i = 0; i < 4; i++) assert.equal((await from(`203.0.113.${a + 1}`, 'wrong password!')).status, 401);
    assert.equal((await from('198.51.100.77', TEST_PASSWORD)).status, 429, 'the hundredth failure slows every address');
    clock.advance(15 * 60_000 + 1000);
    assert.equal((await from('198.51.100.77', TEST_PASSWORD)).status, 303);
  } finally {
    await svc.close();
  }
});

test('cookies are Secure when the base URL is https', async () => {
  const svc = await startTestServer({ config: { baseUrl: 'https://siteline.example' } });
  try {
    const res = await fetch(`${svc.url}/signin`);
    const cookies = res.headers.getSetCookie();
    assert.ok(cookies.length > 0);
    for (const c of cookies) assert.match(c, /; Secure/);
    assert.equal((await fetch(`${svc.url}/dev/outbox`)).status, 404, 'the dev outbox is not served on a public base URL');
  } finally {
    await svc.close();
  }
});

test('secrets never appear in the logs, and the dev outbox is also written to files', async () => {
  const lines: string[] = [];
  const logged = new EventEmitter();
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      logged.emit('line', String(chunk));
      cb();
    },
  });
  // The request line is written when the answer has gone out: awaited, not slept for.
  const requestLogged = (p: string) =>
    new Promise<void>((resolve) => {
      const isIt = (l: string) => l.includes('"msg":"request"') && l.includes(`"path":"${p}"`);
      if (lines.some(isIt)) return resolve();
      const on = (l: string) => isIt(l) && (logged.off('line', on), resolve());
      logged.on('line', on);
    });
  const t = await createTestDb();
  const dataDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'data-'));
  const config = loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'debug' }, { port: 0, host: '127.0.0.1', autoImport: false, dataDir });
  const svc = await startService(config, { db: t.db, logger: createLogger('debug', sink), skipAutoImport: true });
  try {
    const secrets: string[] = [TEST_PASSWORD];
    const { accessToken, identityAssertion } = await claimUserIdentity(svc.url, 'logs@example.com');
    secrets.push(accessToken, identityAssertion);
    const anon = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'anonymous' });
    secrets.push(anon.json.claim_token, anon.json.identity_assertion);
    const pub = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: anon.json.identity_assertion });
    secrets.push(pub.json.access_token);
    const claim = await postJson(`${svc.url}/api/auth/agent/identity/claim`, { claim_token: anon.json.claim_token, email: 'x@example.com' });
    secrets.push(claim.json.claim.user_code);
    await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: anon.json.claim_token });
    await fetch(`${svc.url}/api/auth/me?token=${pub.json.access_token}`, { headers: { authorization: `Bearer ${pub.json.access_token}` } });
    const revokeLogged = requestLogged('/api/auth/agent/revoke');
    await postJson(`${svc.url}/api/auth/agent/revoke`, { token: pub.json.access_token });
    await revokeLogged;
    const log = lines.join('');
    assert.ok(log.includes('"msg":"request"'), 'requests were logged');
    for (const s of secrets) assert.ok(!log.includes(s), `a secret leaked into the logs: ${s.slice(0, 8)}...`);

    const files = fs.readdirSync(path.join(dataDir, 'outbox'));
    assert.ok(files.length >= 2);
    const text = files.map((f) => fs.readFileSync(path.join(dataDir, 'outbox', f), 'utf8')).join('\n');
    assert.match(text, /To: logs@example\.com/);
    assert.match(text, /To: x@example\.com/);
  } finally {
    await svc.close();
    await t.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
