// POST /api/billing/stripe/webhook over the real HTTP server: a signed checkout credits the account once,
// a bad signature is refused and credits nothing, and a server without Stripe has no such endpoint
// (src/rest/webhook.ts; the buying journey is test/rest-billing.test.ts). Signatures are made with the
// stripe package's own test-header helper.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { startTestServer, type TestServer } from '../../test/support/harness.ts';
import { getUserToken } from '../../test/support/auth-flow.ts';
import { accountIdOf } from '../../test/rest-support.ts';
import { creditBalance } from '../billing/credit-ledger.ts';

const WEBHOOK_SECRET = 'whsec_route_test';
let withStripe: TestServer;
let without: TestServer;
let accountId: string;

before(async () => {
  // apiBase points nowhere: the webhook never calls Stripe.
  withStripe = await startTestServer({ config: { stripe: { secretKey: 'sk_test_route', webhookSecret: WEBHOOK_SECRET, apiBase: 'http://127.0.0.1:9' } } });
  without = await startTestServer({ config: { stripe: undefined } });
  await getUserToken(withStripe.url, 'route-webhook@example.com');
  accountId = await accountIdOf(withStripe.ctx, 'route-webhook@example.com');
});
after(async () => {
  await withStripe?.close();
  await without?.close();
});

const completed = (eventId: string, credits: number) =>
  JSON.stringify({
    id: eventId,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: `cs_${eventId}`,
        object: 'checkout.session',
        payment_status: 'paid',
        metadata: { siteline_account: accountId, siteline_credits: String(credits) },
      },
    },
  });
const sign = (payload: string, secret = WEBHOOK_SECRET) => new Stripe('sk_test_unused').webhooks.generateTestHeaderString({ payload, secret });
async function deliver(base: string, payload: string, signature: string) {
  const res = await fetch(`${base}/api/billing/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

test('happy: a signed, paid checkout credits the account once, however often it is delivered', async () => {
  const payload = completed('evt_route_1', 100);
  const first = await deliver(withStripe.url, payload, sign(payload));
  assert.equal(first.status, 200, JSON.stringify(first.json));
  assert.equal(first.json['received'], true);
  await deliver(withStripe.url, payload, sign(payload));
  assert.equal(await creditBalance(withStripe.ctx.db, accountId), 100);
});

test('error: a signature made with another secret, or none, is refused and credits nothing', async () => {
  const payload = completed('evt_route_2', 100);
  const forged = await deliver(withStripe.url, payload, sign(payload, 'whsec_someone_else'));
  assert.equal(forged.status, 400, JSON.stringify(forged.json));
  const unsigned = await deliver(withStripe.url, payload, '');
  assert.equal(unsigned.status, 400, JSON.stringify(unsigned.json));
  assert.equal(await creditBalance(withStripe.ctx.db, accountId), 100, 'still only the first event');
});

test('security: a server without Stripe answers 404 and credits nothing, even to a correctly signed event', async () => {
  const payload = completed('evt_route_3', 100);
  const r = await deliver(without.url, payload, sign(payload));
  assert.equal(r.status, 404, JSON.stringify(r.json));
  assert.match(String(r.json['detail']), /Purchasing is not set up/);
});
