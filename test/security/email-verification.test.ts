// E-mail verification on sign-up (issue 13): an account that has not followed the link mailed to it
// (the development outbox) cannot link an agent or buy credit, and is told what to do; everything
// else works. The link is signed, expires, works once; the resend button is throttled. All over real
// HTTP: the web forms, the outbox page, the agent endpoints, and a local stand-in for Stripe's API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { ManualClock } from '../../src/clock.ts';
import {
  CLAIM_GRANT,
  CookieJar,
  TEST_PASSWORD,
  csrfFrom,
  followVerificationLink,
  getPage,
  onServer,
  postForm,
  postJson,
  tokenRequest,
  verificationLinkFromOutbox,
} from '../support/auth-flow.ts';
import { noteSecret } from '../support/log-capture.ts';

const EMAIL = 'unverified.owner@example.com';
const clock = new ManualClock(Date.UTC(2026, 2, 2, 9));
let svc: TestServer;
let fakeStripe: http.Server;
const stripeCalls: string[] = [];
const jar = new CookieJar();

before(async () => {
  fakeStripe = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      stripeCalls.push(req.url ?? '');
      const id = `cs_test_${stripeCalls.length}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, object: 'checkout.session', mode: 'payment', url: `https://checkout.stripe.test/c/pay/${id}`, metadata: {} }));
    });
  });
  await new Promise<void>((r) => fakeStripe.listen(0, '127.0.0.1', r));
  const apiBase = `http://127.0.0.1:${(fakeStripe.address() as AddressInfo).port}`;
  svc = await startTestServer({ clock, config: { stripe: { secretKey: 'sk_test_verify', webhookSecret: 'whsec_verify', apiBase } } });
});
after(async () => {
  await svc?.close();
  await new Promise((r) => fakeStripe?.close(r));
});

async function registerAgent(): Promise<{ claimToken: string; verificationUri: string; code: string }> {
  const reg = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: EMAIL });
  assert.equal(reg.status, 201, JSON.stringify(reg.json));
  return { claimToken: reg.json.claim_token, verificationUri: reg.json.claim.verification_uri, code: reg.json.claim.user_code };
}

async function buy(): Promise<{ status: number; body: string; location: string | null }> {
  const keys = await getPage(`${svc.url}/account/api-keys`, jar);
  return postForm(`${svc.url}/account/credits/checkout`, jar, { csrf: csrfFrom(keys.body), packs: '1' });
}

async function resend(): Promise<{ status: number; body: string; retryAfter?: string }> {
  const account = await getPage(`${svc.url}/account`, jar);
  return postForm(`${svc.url}/account/verify-email`, jar, { csrf: csrfFrom(account.body), next: '/account' });
}

test('before verification: sign-up signs in and the account works, but claiming an agent, making an API key and buying credit are refused with what to do', async () => {
  const form = await getPage(`${svc.url}/signup`, jar);
  const up = await postForm(`${svc.url}/signup`, jar, { csrf: csrfFrom(form.body), email: EMAIL, password: TEST_PASSWORD, next: '/account' });
  assert.equal(up.status, 303, 'sign-up still signs the user in');
  const account = await getPage(`${svc.url}/account`, jar);
  assert.equal(account.status, 200);
  assert.match(account.body, /E-mail address not verified yet/);
  assert.match(account.body, /id="resend-verification"/);
  assert.ok(await verificationLinkFromOutbox(svc.url, EMAIL), 'sign-up mailed a verification link to the outbox');

  // Everything that is not claiming, a key or buying works unverified: the projects page, the keys page.
  assert.equal((await getPage(`${svc.url}/projects`, jar)).status, 200);
  const keysPage = await getPage(`${svc.url}/account/api-keys`, jar);
  assert.equal(keysPage.status, 200);
  // No API key before the address is verified (issue 45): the page says why instead of the form, and a form posted anyway makes none.
  assert.match(keysPage.body, /id="keys-need-verified"/);
  assert.doesNotMatch(keysPage.body, /Create key/);
  const key = await postForm(`${svc.url}/account/api-keys`, jar, { csrf: csrfFrom(keysPage.body), name: 'unverified key' });
  assert.equal(key.status, 403);
  assert.match(key.body, /No API key was created: this account&#39;s e-mail address is not verified yet/);
  assert.doesNotMatch(key.body, /id="new-key"/);
  assert.match(key.body, /No keys yet/);

  // The claim page asks for verification instead of the code; a code posted anyway is refused and not counted.
  const agent = await registerAgent();
  const claimUrl = onServer(svc.url, agent.verificationUri);
  const claimPage = await getPage(claimUrl, jar);
  assert.equal(claimPage.status, 403);
  assert.match(claimPage.body, /Confirm your e-mail address first/);
  assert.match(claimPage.body, /id="resend-verification"/);
  assert.doesNotMatch(claimPage.body, /name="user_code"/);
  const posted = await postForm(claimUrl, jar, { csrf: csrfFrom(claimPage.body), user_code: agent.code });
  assert.equal(posted.status, 403);
  assert.match(posted.body, /Confirm your e-mail address first/);
  const poll = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: agent.claimToken });
  assert.equal(poll.status, 400);
  assert.equal(poll.json.error, 'authorization_pending');
  const [row] = await svc.ctx.db.query<{ account_id: string | null; failed_code_attempts: number }>(
    'SELECT account_id, failed_code_attempts FROM agent_registrations WHERE ceremony_id = $1',
    [new URL(agent.verificationUri).pathname.split('/').pop()],
  );
  assert.deepEqual(row, { account_id: null, failed_code_attempts: 0 });

  // Buying: the page shows what to do instead of the button; a checkout posted anyway never reaches Stripe.
  assert.match(keysPage.body, /id="email-unverified"/);
  assert.doesNotMatch(keysPage.body, /Buy with Stripe Checkout/);
  const refused = await buy();
  assert.equal(refused.status, 403);
  assert.match(refused.body, /Nothing was bought: this account's e-mail address is not verified yet/);
  assert.match(refused.body, /Confirm your e-mail address first/);
  assert.deepEqual(stripeCalls, []);
});

test('the link: altered, expired and reused links are refused; the resend button is throttled; a fresh link verifies, then claim and purchase go through', async () => {
  const first = (await verificationLinkFromOutbox(svc.url, EMAIL))!;
  const [prefix, token] = [first.slice(0, first.lastIndexOf('/') + 1), first.slice(first.lastIndexOf('/') + 1)];
  const [linkId, expires, sig] = token.split('.') as [string, string, string];
  const flip = (s: string) => s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A');
  const altered = [
    `${linkId}.${expires}.${flip(sig)}`, // the signature
    `${linkId}.${Number(expires) + 86_400}.${sig}`, // a later expiry
    `${flip(linkId)}.${expires}.${sig}`, // another link id
    `${linkId}.${expires}`, // cut short
  ];
  for (const t of altered) {
    const shown = await getPage(`${svc.url}/verify-email/${t}`, new CookieJar());
    assert.equal(shown.status, 400, t);
    assert.match(shown.body, /not valid \(it may have been altered or cut short\)/);
    assert.equal((await postForm(`${svc.url}/verify-email/${t}`, new CookieJar(), {})).status, 400);
  }

  // Resend right after sign-up: throttled (one a minute), with Retry-After.
  const tooSoon = await resend();
  assert.equal(tooSoon.status, 429);
  assert.match(tooSoon.body, /sent recently/);

  // A day later the first link has expired: refused, and the account is still unverified.
  clock.advance(24 * 3600_000 + 1000);
  const late = await followVerificationLink(svc.url, first);
  assert.equal(late.status, 410);
  assert.match(late.body, /has expired/);
  assert.equal((await postForm(onServer(svc.url, first), new CookieJar(), {})).status, 410);
  assert.match((await getPage(`${svc.url}/account`, jar)).body, /not verified yet/);

  const again = await resend();
  assert.equal(again.status, 200);
  assert.match(again.body, /id="verification-sent"/);
  const second = (await verificationLinkFromOutbox(svc.url, EMAIL))!;
  assert.notEqual(second, first);
  assert.ok(second.startsWith(prefix));

  // Opening the link shows a button; only pressing it uses the link (a mail scanner's GET does not).
  const shown = await getPage(onServer(svc.url, second), new CookieJar());
  assert.equal(shown.status, 200);
  assert.match(shown.body, /id="confirm-email"/);
  assert.match((await getPage(`${svc.url}/account`, jar)).body, /not verified yet/);
  const used = await postForm(onServer(svc.url, second), new CookieJar(), {});
  assert.equal(used.status, 200);
  assert.match(used.body, /id="email-verified"/);
  assert.match((await getPage(`${svc.url}/account`, jar)).body, /E-mail address verified on 3 Mar 2026/);

  // Single use: the same link again is refused (GET and POST).
  const reused = await followVerificationLink(svc.url, second);
  assert.equal(reused.status, 410);
  assert.match(reused.body, /already used/);
  assert.equal((await postForm(onServer(svc.url, second), new CookieJar(), {})).status, 410);
  clock.advance(120_000);
  const none = await resend();
  assert.equal(none.status, 200);
  assert.match(none.body, /already verified/);

  // Verified: the claim goes through on the page, the agent gets its token, and checkout reaches Stripe.
  const agent = await registerAgent();
  const claimUrl = onServer(svc.url, agent.verificationUri);
  const claimPage = await getPage(claimUrl, jar);
  assert.equal(claimPage.status, 200);
  assert.match(claimPage.body, /name="user_code"/);
  const done = await postForm(claimUrl, jar, { csrf: csrfFrom(claimPage.body), user_code: agent.code });
  assert.equal(done.status, 200);
  assert.match(done.body, /id="claim-done"/);
  clock.advance(10_000);
  const poll = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: agent.claimToken });
  assert.equal(poll.status, 200, JSON.stringify(poll.json));
  assert.equal(poll.json.scope, 'mcp');

  // Verified: a key is made.
  const keysNow = await getPage(`${svc.url}/account/api-keys`, jar);
  const key = await postForm(`${svc.url}/account/api-keys`, jar, { csrf: csrfFrom(keysNow.body), name: 'verified key' });
  assert.equal(key.status, 201);
  noteSecret(/<pre id="new-key">([^<]+)<\/pre>/.exec(key.body)?.[1]);

  const bought = await buy();
  assert.equal(bought.status, 303);
  assert.equal(bought.location, 'https://checkout.stripe.test/c/pay/cs_test_1');
  assert.deepEqual(stripeCalls, ['/v1/checkout/sessions']);
});
