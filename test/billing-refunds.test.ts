// Refunds and disputes take back the credit their purchase granted: Stripe webhook payloads signed with
// the stripe package's own test-header helper, delivered to the real server (redelivered, concurrent,
// forged); credit spent through real paid REST calls; the balance never overdraws (the shortfall is
// owed and paid first out of the next purchase), paid calls answer 402 while the net balance is below
// the price, and every change is a ledger entry. On PostgreSQL a second instance shares the database
// and the same events race across both.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { startTestServer, type TestServer } from './support/harness.ts';
import { testLogger } from './support/log-capture.ts';
import { getUserToken } from './support/auth-flow.ts';
import { COVERED, accountIdOf, api, createKey } from './rest-support.ts';
import { ledgerSum } from '../src/billing/credit-ledger.ts';
import { openDatabase } from '../src/db/database.ts';
import { loadConfig } from '../src/config.ts';
import { startService, type RunningService } from '../src/service.ts';

const WEBHOOK_SECRET = 'whsec_test_refunds';
const STRIPE = { secretKey: 'sk_test_refunds', webhookSecret: WEBHOOK_SECRET };
let svc: TestServer;
let second: { svc: RunningService; close(): Promise<void> } | undefined;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], config: { stripe: STRIPE } });
  if (process.env.DATABASE_URL) {
    // A second instance on the same PostgreSQL database, as two deployed instances run.
    const name = (await svc.ctx.db.query<{ d: string }>('SELECT current_database() AS d'))[0]!.d;
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    const db = await openDatabase({ databaseUrl: url.toString() });
    const config = loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { ...svc.ctx.config, port: 0, host: '127.0.0.1', stripe: STRIPE });
    const other = await startService(config, { db, logger: testLogger() });
    second = { svc: other, close: async () => (await other.close(), await db.close()) };
  }
});
after(async () => {
  await second?.close();
  await svc?.close();
});

const urls = () => [svc.url, ...(second ? [second.svc.url] : [])];
const sign = (payload: string, secret = WEBHOOK_SECRET) => new Stripe('sk_test_unused').webhooks.generateTestHeaderString({ payload, secret });

async function deliver(payload: string, signature = sign(payload), baseUrl = svc.url): Promise<{ status: number; json: any }> {
  const res = await fetch(`${baseUrl}/api/billing/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  });
  return { status: res.status, json: await res.json() };
}

const event = (id: string, type: string, object: Record<string, unknown>) =>
  JSON.stringify({ id, object: 'event', api_version: '2025-01-27.acacia', type, data: { object } });
const completed = (id: string, accountId: string, credits: number, paymentIntent: string | null, cents = credits) =>
  event(id, 'checkout.session.completed', {
    id: `cs_${id}`,
    object: 'checkout.session',
    payment_status: 'paid',
    payment_intent: paymentIntent,
    amount_total: cents,
    metadata: { siteline_account: accountId, siteline_credits: String(credits) },
  });
const refunded = (id: string, paymentIntent: string, amount: number, amountRefunded: number, metadata: Record<string, string> = {}) =>
  event(id, 'charge.refunded', {
    id: `ch_${paymentIntent}`,
    object: 'charge',
    payment_intent: paymentIntent,
    amount,
    amount_refunded: amountRefunded,
    refunded: amountRefunded === amount,
    metadata,
  });
const disputed = (id: string, type: string, paymentIntent: string, amount: number) =>
  event(id, type, {
    id: `dp_${paymentIntent}`,
    object: 'dispute',
    charge: `ch_${paymentIntent}`,
    payment_intent: paymentIntent,
    amount,
    reason: 'fraudulent',
    status: 'needs_response',
  });

async function usage(key: string): Promise<{ balance: number; kinds: string[] }> {
  const r = await api(svc.url, '/api/v1/usage', { token: key });
  assert.equal(r.status, 200, r.text);
  return { balance: r.json.balance, kinds: r.json.recent.map((e: { kind: string }) => e.kind) };
}
const paidCall = (key: string) => api(svc.url, '/api/v1/sites/check', { token: key, body: { address: COVERED } });
const row = async (accountId: string) =>
  (
    await svc.ctx.db.query<{ balance: string | number; owed: string | number }>('SELECT balance, owed FROM credit_accounts WHERE account_id = $1', [accountId])
  ).map((r) => ({ balance: Number(r.balance), owed: Number(r.owed) }))[0];

test("a refund takes the purchase's credit back in proportion, once per event; past the balance it is owed, paid calls answer 402, and the next purchase pays it first", async () => {
  const email = 'refunded@example.com';
  const jwt = await getUserToken(svc.url, email);
  const accountId = await accountIdOf(svc.ctx, email);
  const key = (await createKey(svc.url, jwt, 'refunds')).key;

  assert.equal((await deliver(completed('evt_buy_1', accountId, 1000, 'pi_one', 1000))).json.credited, true);
  for (let i = 0; i < 3; i++) assert.equal((await paidCall(key)).status, 200);
  assert.equal((await usage(key)).balance, 997);

  // A partial refund (a quarter), delivered three times: 250 taken once.
  const partial = refunded('evt_refund_1', 'pi_one', 1000, 250);
  const replies = [];
  for (let i = 0; i < 3; i++) replies.push(await deliver(partial));
  assert.deepEqual(
    replies.map((r) => r.status),
    [200, 200, 200],
  );
  assert.deepEqual(
    replies.map((r) => r.json.clawedBack.kind),
    ['clawed', 'duplicate_event', 'duplicate_event'],
  );
  assert.equal(replies[0]!.json.clawedBack.credits, 250);
  assert.equal((await usage(key)).balance, 747);

  // The rest is refunded (amount_refunded is cumulative): 750 more, 747 from the balance, 3 owed.
  const full = await deliver(refunded('evt_refund_2', 'pi_one', 1000, 1000));
  assert.deepEqual(
    {
      kind: full.json.clawedBack.kind,
      credits: full.json.clawedBack.credits,
      fromBalance: full.json.clawedBack.fromBalance,
      owed: full.json.clawedBack.owed,
      balance: full.json.clawedBack.balance,
    },
    { kind: 'clawed', credits: 750, fromBalance: 747, owed: 3, balance: -3 },
  );
  assert.deepEqual(await row(accountId), { balance: 0, owed: 3 }, 'the balance row never goes below zero');
  const u = await usage(key);
  assert.equal(u.balance, -3, 'the account sees what it owes');
  assert.deepEqual(u.kinds.slice(0, 2), ['clawback', 'clawback']);
  assert.equal(await ledgerSum(svc.ctx.db, accountId), -3, 'the ledger sums to the net balance');
  const refused = await paidCall(key);
  assert.equal(refused.status, 402);
  assert.equal(refused.json.code, 'out_of_credit');
  assert.equal(refused.json.balance, -3, 'the refusal names the net balance');
  assert.match(refused.json.detail, /has -3 credits/);
  // Nothing more to take: another event for the same, fully refunded payment takes nothing.
  assert.equal((await deliver(refunded('evt_refund_3', 'pi_one', 1000, 1000))).json.clawedBack.kind, 'nothing_to_take');

  // Topping up pays what is owed first.
  assert.equal((await deliver(completed('evt_buy_2', accountId, 1000, 'pi_two', 1000))).json.credited, true);
  assert.deepEqual(await row(accountId), { balance: 997, owed: 0 });
  assert.equal((await paidCall(key)).status, 200);
  assert.equal((await usage(key)).balance, 996);
  assert.equal(await ledgerSum(svc.ctx.db, accountId), 996);
});

test('a dispute takes the disputed share back once (created, then funds withdrawn, redelivered); an unknown payment or a forged event takes nothing', async () => {
  const email = 'disputed@example.com';
  const jwt = await getUserToken(svc.url, email);
  const accountId = await accountIdOf(svc.ctx, email);
  const key = (await createKey(svc.url, jwt, 'disputes')).key;
  assert.equal((await deliver(completed('evt_buy_d', accountId, 2000, 'pi_disp', 2000))).json.credited, true);

  const forgedPayload = disputed('evt_forged_dispute', 'charge.dispute.created', 'pi_disp', 2000);
  const forged = await deliver(forgedPayload, sign(forgedPayload, 'whsec_not_ours'));
  assert.equal(forged.status, 400);
  assert.equal((await usage(key)).balance, 2000, 'a forged event takes nothing');

  const created = await deliver(disputed('evt_dispute_1', 'charge.dispute.created', 'pi_disp', 2000));
  assert.equal(created.json.clawedBack.kind, 'clawed');
  assert.equal(created.json.clawedBack.credits, 2000);
  assert.equal((await deliver(disputed('evt_dispute_1', 'charge.dispute.created', 'pi_disp', 2000))).json.clawedBack.kind, 'duplicate_event');
  assert.equal((await deliver(disputed('evt_dispute_2', 'charge.dispute.funds_withdrawn', 'pi_disp', 2000))).json.clawedBack.kind, 'nothing_to_take');
  assert.equal((await usage(key)).balance, 0);
  assert.equal((await paidCall(key)).status, 402);

  assert.match((await deliver(disputed('evt_dispute_x', 'charge.dispute.created', 'pi_not_ours', 500))).json.ignored, /did not buy siteline credit/);
  assert.equal(await ledgerSum(svc.ctx.db, accountId), 0);
});

test("a refund of a purchase whose session event carried no payment id is still found through the charge's own metadata", async () => {
  const email = 'legacy-refund@example.com';
  const jwt = await getUserToken(svc.url, email);
  const accountId = await accountIdOf(svc.ctx, email);
  const key = (await createKey(svc.url, jwt, 'legacy')).key;
  assert.equal((await deliver(completed('evt_buy_l', accountId, 500, null, 500))).json.credited, true);
  const r = await deliver(refunded('evt_refund_l', 'pi_legacy', 500, 500, { siteline_account: accountId, siteline_credits: '500' }));
  assert.equal(r.json.clawedBack.kind, 'clawed');
  assert.equal((await usage(key)).balance, 0);
});

test('the same refund and dispute events racing (20 deliveries each, across both instances on PostgreSQL) take exactly once', async () => {
  const email = 'racing@example.com';
  await getUserToken(svc.url, email);
  const accountId = await accountIdOf(svc.ctx, email);
  assert.equal((await deliver(completed('evt_buy_r', accountId, 3000, 'pi_race', 3000))).json.credited, true);
  const refund = refunded('evt_race_refund', 'pi_race', 3000, 1000);
  const refund2 = refunded('evt_race_refund_2', 'pi_race', 3000, 1500);
  const dispute = disputed('evt_race_dispute', 'charge.dispute.created', 'pi_race', 3000);
  const all = [refund, refund2, dispute];
  const deliveries = await Promise.all(Array.from({ length: 60 }, (_, i) => deliver(all[i % 3]!, undefined, urls()[i % urls().length])));
  assert.ok(
    deliveries.every((d) => d.status === 200),
    JSON.stringify(deliveries.find((d) => d.status !== 200)),
  );
  // Whatever the order, the whole purchase is taken back exactly once: 3000 credits, no more.
  assert.deepEqual(await row(accountId), { balance: 0, owed: 0 });
  assert.equal(await ledgerSum(svc.ctx.db, accountId), 0);
  const taken = await svc.ctx.db.query<{ n: number; total: string | number }>(
    `SELECT count(*)::int AS n, sum(amount) AS total FROM credit_ledger WHERE account_id = $1 AND kind = 'clawback'`,
    [accountId],
  );
  assert.equal(Number(taken[0]!.total), -3000);
  assert.ok(taken[0]!.n <= 3, 'at most one entry per event');
});
