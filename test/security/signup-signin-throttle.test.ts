// Sign-up: cheap checks before any hash, a limit per client and for the whole service, and argon2 in
// a bounded pool so a flood cannot take the request loop. Sign-in: the failure throttle is counted
// before the password check, atomically, so parallel guesses cannot exceed it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/harness.ts';
import { logLines } from '../support/log-capture.ts';
import { CookieJar, TEST_PASSWORD, csrfFrom, getPage, signUpOrIn } from '../support/auth-flow.ts';
import { ARGON_CONCURRENCY, ARGON_QUEUE, Semaphore, argonSlots } from '../../src/auth/accounts.ts';

async function formSession(url: string): Promise<{ jar: CookieJar; csrf: string }> {
  const jar = new CookieJar();
  return { jar, csrf: csrfFrom((await getPage(`${url}/signup`, jar)).body) };
}

function post(url: string, path: string, s: { jar: CookieJar; csrf: string }, fields: Record<string, string>, ip?: string) {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { cookie: s.jar.header(), 'content-type': 'application/x-www-form-urlencoded', ...(ip ? { 'x-forwarded-for': ip } : {}) },
    body: new URLSearchParams({ csrf: s.csrf, ...fields }).toString(),
    redirect: 'manual',
  });
}

test('sign-up: refused input costs nothing; the per-client limit answers 429 with Retry-After; another client still signs up', async () => {
  const svc = await startTestServer({ config: { trustedProxies: ['loopback'], signUpsPerClientHourly: 3, signUpsHourly: 5 } });
  try {
    const s = await formSession(svc.url);
    // Bad e-mails, control characters and short passwords are refused before the throttle and the hash.
    for (let i = 0; i < 10; i++) {
      assert.equal((await post(svc.url, '/signup', s, { email: `not-an-email-${i}`, password: TEST_PASSWORD }, '198.51.100.1')).status, 400);
      assert.equal((await post(svc.url, '/signup', s, { email: `ctl${i}\u0007@example.com`, password: TEST_PASSWORD }, '198.51.100.1')).status, 400);
      assert.equal((await post(svc.url, '/signup', s, { email: `short${i}@example.com`, password: 'short' }, '198.51.100.1')).status, 400);
    }
    for (let i = 0; i < 3; i++)
      assert.equal((await post(svc.url, '/signup', s, { email: `c1.${i}@example.com`, password: TEST_PASSWORD }, '198.51.100.1')).status, 303);
    const limited = await post(svc.url, '/signup', s, { email: 'c1.x@example.com', password: TEST_PASSWORD }, '198.51.100.1');
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.match(await limited.text(), /Too many sign-ups from your network/);
    // Another client has its own budget, until the service-wide limit (5) is reached.
    for (let i = 0; i < 2; i++)
      assert.equal((await post(svc.url, '/signup', s, { email: `c2.${i}@example.com`, password: TEST_PASSWORD }, '198.51.100.2')).status, 303);
    const global = await post(svc.url, '/signup', s, { email: 'c3.0@example.com', password: TEST_PASSWORD }, '198.51.100.3');
    assert.equal(global.status, 429);
    assert.match(await global.text(), /Too many sign-ups right now/);
    // Signing in is not a sign-up: the accounts made still sign in.
    assert.ok(await signUpOrIn(svc.url, 'c1.0@example.com'));
  } finally {
    await svc.close();
  }
});

test('the hashing pool: at most its slots run, at most its queue waits, the rest is refused at once', async () => {
  const pool = new Semaphore(2, 3);
  let running = 0;
  let most = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const all = Array.from({ length: 8 }, () =>
    pool.run(async () => {
      running++;
      most = Math.max(most, running);
      await gate;
      running--;
      return 'ran';
    }),
  );
  const refused = await Promise.all(all.slice(5));
  assert.deepEqual(refused, [undefined, undefined, undefined], 'beyond 2 running + 3 waiting: refused without running');
  release();
  assert.deepEqual(await Promise.all(all.slice(0, 5)), ['ran', 'ran', 'ran', 'ran', 'ran']);
  assert.equal(most, 2);
  assert.equal(pool.peak, 2);
});

test('a sign-up flood: argon2 runs in a bounded pool, every sign-up is created or refused as busy (503), and /readyz answers meanwhile', async () => {
  const svc = await startTestServer({ config: { signUpsPerClientHourly: 1000, signUpsHourly: 1000 } });
  try {
    const s = await formSession(svc.url);
    const n = ARGON_CONCURRENCY + ARGON_QUEUE + 16;
    let signUpsDone = 0;
    const hashing = argonSlots.nextStart();
    const flood = Array.from({ length: n }, (_, i) =>
      post(svc.url, '/signup', s, { email: `flood${i}@example.com`, password: TEST_PASSWORD }).then(async (r) => {
        signUpsDone++;
        return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.text() };
      }),
    );
    await hashing; // the first sign-up is hashing: the pool is at work
    // This server holds no places, so /readyz is 503 "unavailable"; what matters is that it answers meanwhile.
    const health = await fetch(`${svc.url}/readyz`);
    assert.equal(health.status, 503);
    assert.equal(((await health.json()) as { status: string }).status, 'unavailable');
    assert.ok(signUpsDone < n, 'the health check was answered while sign-ups were still hashing');
    const results = await Promise.all(flood);
    const busy = results.filter((r) => r.status === 503);
    const created = results.filter((r) => r.status === 303);
    assert.equal(busy.length + created.length, n, JSON.stringify(results.map((r) => r.status)));
    assert.ok(argonSlots.peak >= 1 && argonSlots.peak <= ARGON_CONCURRENCY, `peak ${argonSlots.peak} hashes at once`);
    assert.ok(busy.every((r) => Number(r.retryAfter) > 0 && /busy/.test(r.body)));
    const count = await svc.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
    assert.equal(count[0]!.n, created.length, 'a refused sign-up leaves no account behind');
  } finally {
    await svc.close();
  }
});

test('40 parallel wrong passwords: at most 5 reach the password check', async () => {
  const svc = await startTestServer();
  try {
    await signUpOrIn(svc.url, 'target@example.com');
    const s = await formSession(svc.url);
    const from = logLines.length;
    const results = await Promise.all(
      Array.from({ length: 40 }, () => post(svc.url, '/signin', s, { email: 'target@example.com', password: 'wrong password!!' })),
    );
    const statuses = results.map((r) => r.status);
    const checks = logLines.slice(from).filter((l) => l.includes('"msg":"password check"')).length;
    assert.ok(checks <= 5, `${checks} password checks ran`);
    assert.equal(statuses.filter((x) => x === 401).length, checks);
    assert.equal(statuses.filter((x) => x === 429).length, 40 - checks);
    // Parallel attempts that counted each other are refused without being recorded, so the burst may have
    // left fewer than 5 failures: top the window up one wrong password at a time until it refuses.
    for (let i = checks; i < 5; i++)
      assert.equal((await post(svc.url, '/signin', s, { email: 'target@example.com', password: 'wrong password!!' })).status, 401);
    assert.equal((await post(svc.url, '/signin', s, { email: 'target@example.com', password: 'wrong password!!' })).status, 429);
    // The right password now waits out the window too.
    assert.equal((await post(svc.url, '/signin', s, { email: 'target@example.com', password: TEST_PASSWORD })).status, 429);
    // No trusted proxies (the default): a forged X-Forwarded-For names no other client, so it does not escape the throttle.
    assert.equal((await post(svc.url, '/signin', s, { email: 'target@example.com', password: TEST_PASSWORD }, '198.51.100.99')).status, 429);
  } finally {
    await svc.close();
  }
});
