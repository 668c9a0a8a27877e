// Buying credit and managing keys through the web account page: Stripe Checkout (the `stripe`
// client pointed at a local HTTP endpoint standing in for Stripe's API, so no network), the webhook
// signed with stripe's own test-header helper and redelivered, and the page without Stripe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { startTestServer, type TestServer } from './support/harness.ts';
import { csrfFrom, getPage, postForm, signUpOrIn } from './support/auth-flow.ts';
import { creditBalance, ledgerSum } from '../src/billing/credit-ledger.ts';
import { accountIdOf, api } from './rest-support.ts';

const WEBHOOK_SECRET = 'whsec_local_test_secret';
const SECRET_KEY = 'sk_test_local_siteline';

interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  form: URLSearchParams;
}
let fakeStripe: http.Server;
const seen: SeenRequest[] = [];
let withStripe: TestServer;
let without: TestServer;

before(async () => {
  // Stands in for api.stripe.com: answers a Checkout Session create as Stripe documents it.
  fakeStripe = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      seen.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, form });
      const id = `cs_test_${seen.length}`;
      const body = JSON.stringify({ id, object: 'checkout.session', mode: 'payment', url: `https://checkout.stripe.test/c/pay/${id}`, metadata: {} });
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${seen.length}` });
      res.end(body);
    });
  });
  await new Promise<void>((r) => fakeStripe.listen(0, '127.0.0.1', r));
  const apiBase = `http://127.0.0.1:${(fakeStripe.address() as AddressInfo).port}`;
  withStripe = await startTestServer({ config: { stripe: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, apiBase } } });
  without = await startTestServer({ config: { stripe: undefined } });
});
after(async () => {
  await withStripe?.close();
  await without?.close();
  await new Promise((r) => fakeStripe?.close(r));
});

function signedEvent(payload: string, secret = WEBHOOK_SECRET): string {
  return new Stripe('sk_test_unused').webhooks.generateTestHeaderString({ payload, secret });
}

async function deliver(baseUrl: string, payload: string, signature: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${baseUrl}/api/billing/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  });
  return { status: res.status, json: await res.json() };
}

function completedEvent(eventId: string, sessionId: string, accountId: string, credits: number, paymentStatus = 'paid'): string {
  return JSON.stringify({
    id: eventId,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: sessionId,
        object: 'checkout.session',
        payment_status: paymentStatus,
        metadata: { siteline_account: accountId, siteline_credits: String(credits) },
      },
    },
  });
}

test('buying: the page starts Stripe Checkout for the account; the webhook, delivered 3 times, credits once', async () => {
  const email = 'buyer@example.com';
  const jar = await signUpOrIn(withStripe.url, email);
  const id = await accountIdOf(withStripe.ctx, email);
  const pageRes = await getPage(`${withStripe.url}/account/api-keys`, jar);
  assert.equal(pageRes.status, 200);
  assert.match(pageRes.body, /Buy with Stripe Checkout/);
  assert.doesNotMatch(pageRes.body, /Purchasing is not set up/);

  const bad = await postForm(`${withStripe.url}/account/credits/checkout`, jar, { csrf: csrfFrom(pageRes.body), packs: '0' });
  assert.equal(bad.status, 400);
  assert.equal(seen.length, 0, 'bad input never reaches the provider');
  const buy = await postForm(`${withStripe.url}/account/credits/checkout`, jar, { csrf: csrfFrom(pageRes.body), packs: '2' });
  assert.equal(buy.status, 303);
  assert.equal(buy.location, 'https://checkout.stripe.test/c/pay/cs_test_1');
  const call = seen[0]!;
  assert.equal(call.method, 'POST');
  assert.equal(call.path, '/v1/checkout/sessions');
  assert.equal(call.authorization, `Bearer ${SECRET_KEY}`);
  assert.equal(call.form.get('mode'), 'payment');
  assert.equal(call.form.get('metadata[siteline_account]'), id);
  assert.equal(call.form.get('metadata[siteline_credits]'), '2000');
  assert.equal(call.form.get('line_items[0][quantity]'), '2');
  assert.equal(call.form.get('customer_email'), email);

  // Stripe confirms the payment; it redelivers the same event (here 3 times).
  const payload = completedEvent('evt_paid_1', 'cs_test_1', id, 2000);
  const replies = [];
  for (let i = 0; i < 3; i++) replies.push(await deliver(withStripe.url, payload, signedEvent(payload)));
  assert.deepEqual(
    replies.map((r) => r.status),
    [200, 200, 200],
  );
  assert.deepEqual(
    replies.map((r) => r.json.credited),
    [true, false, false],
  );
  assert.equal(await creditBalance(withStripe.ctx.db, id), 2000);
  assert.equal(await ledgerSum(withStripe.ctx.db, id), 2000);
  const entries = await withStripe.ctx.db.query<{ kind: string; event_id: string }>('SELECT kind, event_id FROM credit_ledger WHERE account_id = $1', [id]);
  assert.deepEqual(entries, [{ kind: 'purchase', event_id: 'stripe:evt_paid_1' }]);
  const after = await getPage(`${withStripe.url}/account/api-keys`, jar);
  assert.match(after.body, /<strong id="balance">2000<\/strong>/);
});

test('the webhook refuses a bad signature and ignores unpaid sessions and other events; nothing is credited', async () => {
  const email = 'not-a-buyer@example.com';
  await signUpOrIn(withStripe.url, email);
  const id = await accountIdOf(withStripe.ctx, email);
  const payload = completedEvent('evt_forged', 'cs_forged', id, 1_000_000);
  const forged = await deliver(withStripe.url, payload, signedEvent(payload, 'whsec_someone_else'));
  assert.equal(forged.status, 400);
  assert.equal(forged.json.code, 'bad_request');
  const altered = await deliver(withStripe.url, payload.replace('1000000', '9000000'), signedEvent(payload));
  assert.equal(altered.status, 400);
  const unpaid = completedEvent('evt_unpaid', 'cs_unpaid', id, 1000, 'unpaid');
  assert.match((await deliver(withStripe.url, unpaid, signedEvent(unpaid))).json.ignored, /payment status unpaid/);
  const other = JSON.stringify({ id: 'evt_other', object: 'event', type: 'customer.created', data: { object: {} } });
  assert.match((await deliver(withStripe.url, other, signedEvent(other))).json.ignored, /customer.created/);
  assert.equal(await creditBalance(withStripe.ctx.db, id), 0);
});

test('without Stripe: the page says purchasing is not set up and names the grant command; the webhook is 404', async () => {
  const email = 'no-stripe@example.com';
  const jar = await signUpOrIn(without.url, email);
  const account = await getPage(`${without.url}/account`, jar);
  assert.match(account.body, /href="\/account\/api-keys"/);
  const pageRes = await getPage(`${without.url}/account/api-keys`, jar);
  assert.match(pageRes.body, /Purchasing is not set up on this service/);
  assert.match(pageRes.body, /siteline credits grant no-stripe@example.com/);
  const buy = await postForm(`${without.url}/account/credits/checkout`, jar, { csrf: csrfFrom(pageRes.body), packs: '1' });
  assert.equal(buy.status, 404);
  const payload = completedEvent('evt_x', 'cs_x', 'acc', 10);
  assert.equal((await deliver(without.url, payload, signedEvent(payload))).status, 404);
});

test('keys on the account page: created once-shown, used on /api/v1, revoked from the page -> 401; signed-out and CSRF-less posts refused', async () => {
  const email = 'page-keys@example.com';
  const jar = await signUpOrIn(without.url, email);
  const pageRes = await getPage(`${without.url}/account/api-keys`, jar);
  const created = await postForm(`${without.url}/account/api-keys`, jar, { csrf: csrfFrom(pageRes.body), name: 'laptop' });
  assert.equal(created.status, 201);
  const key = /<pre id="new-key">(sl_live_[0-9A-Za-z]+)<\/pre>/.exec(created.body)?.[1];
  assert.ok(key, 'the new key is shown');
  assert.equal((await api(without.url, '/api/v1/usage', { token: key })).status, 200);
  const listed = await getPage(`${without.url}/account/api-keys`, jar);
  assert.ok(!listed.body.includes(key), 'shown once: the list has the prefix only');
  assert.ok(listed.body.includes(key.slice(0, 12)));
  assert.doesNotMatch(listed.body, /<td>laptop<\/td><td><code>[^<]+<\/code><\/td><td>[^<]+<\/td><td>never<\/td>/, 'last used is recorded');
  const keyId = /name="key_id" value="([^"]+)"/.exec(listed.body)?.[1];
  assert.ok(keyId);
  const noCsrf = await postForm(`${without.url}/account/api-keys/revoke`, jar, { key_id: keyId });
  assert.equal(noCsrf.status, 403);
  assert.equal((await api(without.url, '/api/v1/usage', { token: key })).status, 200);
  const revoked = await postForm(`${without.url}/account/api-keys/revoke`, jar, { csrf: csrfFrom(listed.body), key_id: keyId });
  assert.equal(revoked.status, 303);
  assert.equal((await api(without.url, '/api/v1/usage', { token: key })).status, 401);
  const signedOut = await fetch(`${without.url}/account/api-keys`, { redirect: 'manual' });
  assert.equal(signedOut.status, 303);
  assert.match(signedOut.headers.get('location') ?? '', /^\/signin\?next=/);
});
