// Two server instances on one PostgreSQL database: the credit ledger never double-spends, an
// idempotent retry charges once, a webhook redelivered to both instances credits once, and a revoked
// key is refused at once everywhere. PostgreSQL only (skipped without DATABASE_URL); the PGlite
// single-instance variant of the burst is in rest-api.test.ts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Stripe from 'stripe';
import { startTestServer, ROOT, type TestServer } from './support/harness.ts';
import { getUserToken } from './support/auth-flow.ts';
import { openDatabase, type Db } from '../src/db/database.ts';
import { startService, type RunningService } from '../src/service.ts';
import { createLogger } from '../src/logger.ts';
import { creditBalance, ledgerSum } from '../src/billing/credit-ledger.ts';
import { COVERED, COVERED_2, accountIdOf, api, checkPath, createKey, grant } from './rest-support.ts';

const PG = process.env.DATABASE_URL;
const skip = PG ? false : 'PostgreSQL only: set DATABASE_URL';
const WEBHOOK_SECRET = 'whsec_rest_postgres_test';

let one: TestServer;
let two: RunningService;
let db2: Db;
let dataDir2: string;

before(async () => {
  if (!PG) return;
  const stripe = { secretKey: 'sk_test_unused', webhookSecret: WEBHOOK_SECRET, apiBase: 'http://127.0.0.1:9' };
  one = await startTestServer({ places: ['cambridge-ma'], config: { stripe } });
  const name = (await one.ctx.db.query<{ name: string }>('SELECT current_database() AS name'))[0]!.name;
  const url = new URL(PG);
  url.pathname = `/${name}`;
  db2 = await openDatabase({ databaseUrl: url.toString() }); // its own pool: a second instance, not a shared client
  dataDir2 = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'data-'));
  two = await startService({ ...one.ctx.config, port: 0, dataDir: dataDir2 }, { db: db2, logger: createLogger('silent'), skipAutoImport: true });
});
after(async () => {
  await two?.close();
  await db2?.close();
  await one?.close();
  if (dataDir2) fs.rmSync(dataDir2, { recursive: true, force: true });
});

test('300 concurrent paid calls over two instances and 3 keys, 100 credits: exactly 100 charged, 200 answered 402', { skip }, async () => {
  const email = 'pg-burst@example.com';
  const jwt = await getUserToken(one.url, email);
  const id = await accountIdOf(one.ctx, email);
  const keys = await Promise.all([1, 2, 3].map((i) => createKey(one.url, jwt, `burst ${i}`)));
  await grant(one.ctx, id, 100);
  const urls = [one.url, two.url];
  const replies = await Promise.all(
    Array.from({ length: 300 }, (_, i) => api(urls[i % 2]!, checkPath(i % 3 ? COVERED : COVERED_2), { token: keys[i % 3]!.key })),
  );
  assert.equal(replies.filter((r) => r.status === 200).length, 100);
  assert.equal(replies.filter((r) => r.status === 402).length, 200);
  assert.ok(replies.filter((r) => r.status === 200).every((r) => r.headers.get('siteline-credits-charged') === '1'));
  const remaining = replies.filter((r) => r.status === 200).map((r) => Number(r.headers.get('siteline-credits-remaining')));
  assert.deepEqual(
    [...remaining].sort((a, b) => a - b),
    Array.from({ length: 100 }, (_, i) => i),
    'each credit spent once: balances 99..0',
  );
  assert.equal(await creditBalance(one.ctx.db, id), 0);
  assert.equal(await ledgerSum(one.ctx.db, id), 0, 'the ledger sums to the balance');
  const spends = await one.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'spend'`, [id]);
  assert.equal(spends[0]!.n, 100);
});

test('the same burst with every answer already cached (key, limit and charge in one statement): exactly 100 charged', { skip }, async () => {
  const email = 'pg-burst-cached@example.com';
  const jwt = await getUserToken(one.url, email);
  const id = await accountIdOf(one.ctx, email);
  const keys = await Promise.all([1, 2, 3].map((i) => createKey(one.url, jwt, `cached ${i}`)));
  const urls = [one.url, two.url];
  // Another account asks first on both instances, so every call of the burst finds its snapshot cached.
  const warmerJwt = await getUserToken(one.url, 'pg-warmer@example.com');
  await grant(one.ctx, await accountIdOf(one.ctx, 'pg-warmer@example.com'), 10);
  for (const u of urls) for (const a of [COVERED, COVERED_2]) assert.equal((await api(u, checkPath(a), { token: warmerJwt })).status, 200);
  await grant(one.ctx, id, 100);
  const replies = await Promise.all(
    Array.from({ length: 300 }, (_, i) => api(urls[i % 2]!, checkPath(i % 3 ? COVERED : COVERED_2), { token: i % 4 === 3 ? jwt : keys[i % 3]!.key })),
  );
  assert.equal(replies.filter((r) => r.status === 200).length, 100);
  assert.equal(replies.filter((r) => r.status === 402).length, 200);
  const remaining = replies.filter((r) => r.status === 200).map((r) => Number(r.headers.get('siteline-credits-remaining')));
  assert.deepEqual(
    [...remaining].sort((a, b) => a - b),
    Array.from({ length: 100 }, (_, i) => i),
    'each credit spent once: balances 99..0',
  );
  assert.equal(await creditBalance(one.ctx.db, id), 0);
  assert.equal(await ledgerSum(one.ctx.db, id), 0, 'the ledger sums to the balance');
  const spends = await one.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'spend'`, [id]);
  assert.equal(spends[0]!.n, 100);
});

test('idempotent retries racing on both instances charge once and answer the same body', { skip }, async () => {
  const email = 'pg-idem@example.com';
  const jwt = await getUserToken(one.url, email);
  const id = await accountIdOf(one.ctx, email);
  const key = await createKey(one.url, jwt, 'idem');
  await grant(one.ctx, id, 10);
  const urls = [one.url, two.url];
  for (const idem of ['race-a', 'race-b']) {
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        api(urls[i % 2]!, '/api/v1/sites/check', { token: key.key, body: { address: COVERED }, headers: { 'idempotency-key': idem } }),
      ),
    );
    assert.deepEqual([...new Set(replies.map((r) => r.status))], [200]);
    assert.equal(new Set(replies.map((r) => r.text)).size, 1);
    assert.equal(replies.filter((r) => r.headers.get('siteline-credits-charged') === '1').length, 1);
  }
  assert.equal(await creditBalance(one.ctx.db, id), 8);
  assert.equal(await ledgerSum(one.ctx.db, id), 8);
});

test('a webhook event delivered 3 times, to both instances at once, credits once', { skip }, async () => {
  const email = 'pg-buyer@example.com';
  await getUserToken(one.url, email);
  const id = await accountIdOf(one.ctx, email);
  const payload = JSON.stringify({
    id: 'evt_pg_redelivered',
    object: 'event',
    type: 'checkout.session.completed',
    data: { object: { id: 'cs_test_pg', object: 'checkout.session', payment_status: 'paid', metadata: { siteline_account: id, siteline_credits: '1000' } } },
  });
  const stripe = new Stripe('sk_test_unused');
  const deliver = (url: string) =>
    fetch(`${url}/api/billing/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) },
      body: payload,
    });
  const replies = await Promise.all([deliver(one.url), deliver(two.url), deliver(one.url)]);
  assert.deepEqual(
    replies.map((r) => r.status),
    [200, 200, 200],
  );
  const bodies = await Promise.all(replies.map((r) => r.json() as Promise<{ credited: boolean }>));
  assert.equal(bodies.filter((b) => b.credited).length, 1);
  assert.equal(await creditBalance(one.ctx.db, id), 1000);
  assert.equal(await ledgerSum(one.ctx.db, id), 1000);
});

test('a revoked key is refused at once on both instances', { skip }, async () => {
  const email = 'pg-revoke@example.com';
  const jwt = await getUserToken(one.url, email);
  const key = await createKey(one.url, jwt, 'short-lived');
  for (const url of [one.url, two.url]) assert.equal((await api(url, '/api/v1/usage', { token: key.key })).status, 200);
  assert.equal((await api(two.url, `/api/v1/keys/${key.id}`, { token: jwt, method: 'DELETE' })).status, 204);
  for (const url of [one.url, two.url]) {
    const r = await api(url, '/api/v1/usage', { token: key.key });
    assert.equal(r.status, 401);
    assert.match(r.json.detail, /revoked/);
    assert.ok(r.headers.get('www-authenticate'));
  }
});
