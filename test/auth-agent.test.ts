// The agent registration flow over real HTTP: every auth row of the spec's error table, with a
// controllable clock for the expiries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from './support/harness.ts';
import { ManualClock } from '../src/clock.ts';
import {
  CLAIM_GRANT,
  JWT_BEARER_GRANT,
  CookieJar,
  confirmClaimOnPage,
  getPage,
  getPublicToken,
  getUserToken,
  postForm,
  csrfFrom,
  onServer,
  postJson,
  signUpOrIn,
  tokenRequest,
} from './support/auth-flow.ts';

async function me(baseUrl: string, token: string) {
  const res = await fetch(`${baseUrl}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, json: (await res.json()) as Record<string, any>, www: res.headers.get('www-authenticate') };
}

test('discovery documents, JWKS, and a 401 that points at the resource metadata', async () => {
  const svc = await startTestServer();
  try {
    const base = svc.ctx.config.baseUrl;
    const pr = (await (await fetch(`${svc.url}/.well-known/oauth-protected-resource/api/mcp`)).json()) as Record<string, any>;
    assert.equal(pr.resource, `${base}/api/mcp`);
    assert.deepEqual(pr.authorization_servers, [base]);
    assert.ok(pr.scopes_supported.includes('mcp') && pr.scopes_supported.includes('mcp.public'));
    assert.deepEqual(pr.bearer_methods_supported, ['header']);
    const root = (await (await fetch(`${svc.url}/.well-known/oauth-protected-resource`)).json()) as Record<string, any>;
    assert.deepEqual(root.authorization_servers, [base]);

    const as = (await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, any>;
    assert.equal(as.issuer, pr.authorization_servers[0]);
    for (const k of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint', 'jwks_uri']) assert.ok(as[k], k);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.ok(as.token_endpoint_auth_methods_supported.includes('none'));
    assert.ok(as.grant_types_supported.includes(CLAIM_GRANT) && as.grant_types_supported.includes(JWT_BEARER_GRANT));
    assert.equal(as.client_id_metadata_document_supported, true);
    assert.equal(as.authorization_response_iss_parameter_supported, true);
    assert.equal(as.agent_auth.register_uri, `${base}/api/auth/agent/identity`);
    assert.equal(as.agent_auth.identity_endpoint, as.agent_auth.register_uri);
    assert.equal(as.agent_auth.claim_uri, `${base}/api/auth/agent/identity/claim`);
    assert.equal(as.agent_auth.claim_endpoint, as.agent_auth.claim_uri);

    const jwks = (await (await fetch(as.jwks_uri.replace(base, svc.url))).json()) as { keys: Record<string, string>[] };
    assert.ok(jwks.keys.length >= 1);
    assert.ok(jwks.keys[0]!.kid && jwks.keys[0]!.alg === 'ES256');
    assert.equal(jwks.keys[0]!.d, undefined);

    const anon = await fetch(`${svc.url}/api/auth/me`);
    assert.equal(anon.status, 401);
    assert.equal(anon.headers.get('www-authenticate'), `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp"`);
    const bad = await me(svc.url, 'slpt_not-a-real-token');
    assert.equal(bad.status, 401);
    assert.match(bad.www ?? '', /resource_metadata="[^"]+", error="invalid_token"/);
  } finally {
    await svc.close();
  }
});

test('registration: refused identity_assertion type, validation, the fields of each type, no user from login_hint', async () => {
  const svc = await startTestServer();
  try {
    const refused = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'identity_assertion' });
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error, 'unsupported_identity_type');
    assert.match(refused.json.error_description, /identity_assertion.*not accepted/);
    assert.equal((await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth' })).json.error, 'invalid_request');
    assert.equal((await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: 'not-an-email' })).status, 400);
    assert.equal((await postJson(`${svc.url}/api/auth/agent/identity`, {})).status, 400);
    const garbage = await fetch(`${svc.url}/api/auth/agent/identity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
    assert.equal(garbage.status, 400);
    assert.equal(((await garbage.json()) as { error: string }).error, 'invalid_request');
    const huge = await fetch(`${svc.url}/api/auth/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'x'.repeat(100_000) }),
    });
    assert.equal(huge.status, 413);

    const anon = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'anonymous' });
    assert.equal(anon.status, 201);
    assert.match(anon.json.claim_token, /^clm_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(anon.json.pre_claim_scopes, ['mcp.public']);
    assert.deepEqual(anon.json.post_claim_scopes, ['mcp']);
    assert.ok(typeof anon.json.identity_assertion === 'string' && anon.json.identity_assertion.length > 40);
    assert.equal(anon.json.claim, undefined);

    const sa = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: 'Ada@Example.com' });
    assert.equal(sa.status, 201);
    assert.match(sa.json.claim_token, /^clm_/);
    assert.match(sa.json.claim.user_code, /^\d{6}$/);
    assert.ok(sa.json.claim.verification_uri.startsWith(`${svc.ctx.config.baseUrl}/claim/`));
    assert.equal(sa.json.claim.interval, 5);
    assert.equal(sa.json.identity_assertion, undefined);
    assert.deepEqual(sa.json.pre_claim_scopes, ['mcp.public']);
    assert.deepEqual(sa.json.post_claim_scopes, ['mcp']);
    const accounts = await svc.ctx.db.query('SELECT 1 FROM accounts');
    assert.equal(accounts.length, 0, 'no user is created from login_hint');
    // The claim token is stored hashed, never in clear.
    const stored = await svc.ctx.db.query<{ claim_token_hash: string }>('SELECT claim_token_hash FROM agent_registrations');
    assert.ok(stored.every((r) => r.claim_token_hash !== sa.json.claim_token && !r.claim_token_hash.startsWith('clm_')));

    // The dev outbox holds the mail to the named address, with the link and without the code.
    const outbox = await (await fetch(`${svc.url}/dev/outbox`)).text();
    assert.match(outbox, /ada@example\.com/);
    assert.ok(outbox.includes(sa.json.claim.verification_uri));
    assert.ok(!outbox.includes(sa.json.claim.user_code) || sa.json.claim.verification_uri.includes(sa.json.claim.user_code));

    // Naming an address over and over does not flood it: at most 5 notices an hour, the ceremonies still start.
    for (let i = 0; i < 6; i++) {
      const again = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: 'flood@example.com' });
      assert.equal(again.status, 201);
    }
    const sent = await svc.ctx.db.query(`SELECT 1 FROM dev_outbox WHERE to_address = 'flood@example.com'`);
    assert.equal(sent.length, 5);
  } finally {
    await svc.close();
  }
});

test('anonymous: public token, refused for scope mcp, pending/slow_down/expired_token, claim revokes the pre-claim token', async () => {
  const clock = new ManualClock(Date.UTC(2026, 3, 1, 12));
  const svc = await startTestServer({ clock });
  try {
    const reg = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'anonymous' });
    const assertion = reg.json.identity_assertion as string;
    const claimToken = reg.json.claim_token as string;

    const pub = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion });
    assert.equal(pub.status, 200);
    assert.equal(pub.headers.get('cache-control'), 'no-store');
    assert.equal(pub.json.scope, 'mcp.public');
    assert.equal(pub.json.token_type, 'Bearer');
    assert.equal(pub.json.refresh_token, undefined, 'no refresh token in the agent flow');
    const preClaim = pub.json.access_token as string;
    const who = await me(svc.url, preClaim);
    assert.equal(who.status, 200);
    assert.deepEqual(who.json.scopes, ['mcp.public']);
    assert.equal(who.json.account_id, null);

    // Pre-claim identity cannot get scope mcp.
    const wantMcp = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion, scope: 'mcp' });
    assert.equal(wantMcp.status, 400);
    assert.equal(wantMcp.json.error, 'invalid_scope');

    // Before any ceremony: pending; then polling too fast: slow_down with a longer interval.
    const p1 = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: claimToken });
    assert.equal(p1.status, 400);
    assert.equal(p1.json.error, 'authorization_pending');
    const p2 = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: claimToken });
    assert.equal(p2.json.error, 'slow_down');
    assert.equal(p2.json.interval, 10);
    clock.advance(10_000);

    const email = 'grace@example.com';
    const claim = await postJson(`${svc.url}/api/auth/agent/identity/claim`, { claim_token: claimToken, email });
    assert.equal(claim.status, 200);
    assert.match(claim.json.claim.user_code, /^\d{6}$/);
    const p3 = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: claimToken });
    assert.equal(p3.json.error, 'authorization_pending');
    clock.advance(5_000);
    assert.equal((await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: claimToken })).json.error, 'authorization_pending');

    // The ceremony lasts 15 minutes: then expired_token, and the claim endpoint restarts it.
    clock.advance(15 * 60_000 + 1000);
    const p4 = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: claimToken });
    assert.equal(p4.json.error, 'expired_token');
    const jar = await signUpOrIn(svc.url, email);
    const stale = await getPage(onServer(svc.url, claim.json.claim.verification_uri), jar);
    assert.equal(stale.status, 410, 'the old ceremony page says it expired');

    const again = await postJson(`${svc.url}/api/auth/agent/identity/claim`, { type: 'login_hint', claim_token: claimToken, login_hint: email });
    assert.equal(again.status, 200);
    assert.notEqual(again.json.claim.verification_uri, claim.json.claim.verification_uri);

    // The human completes the claim on the page: the pre-claim token stops working at once.
    assert.equal((await me(svc.url, preClaim)).status, 200);
    const done = await confirmClaimOnPage(svc.url, again.json.claim.verification_uri, again.json.claim.user_code, jar);
    assert.equal(done.status, 200);
    assert.match(done.body, /claim-done/);
    const revoked = await me(svc.url, preClaim);
    assert.equal(revoked.status, 401, 'completing the claim revokes every pre-claim token');

    const first = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: claimToken });
    assert.equal(first.status, 200, JSON.stringify(first.json));
    // The answer may be lost in flight: a repeated poll within 10 minutes delivers again (three
    // deliveries at most); what was delivered before stays valid, as two polls may overlap.
    clock.advance(60_000);
    const final = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: claimToken });
    assert.equal(final.status, 200, JSON.stringify(final.json));
    assert.notEqual(final.json.identity_assertion, first.json.identity_assertion);
    assert.equal((await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: first.json.identity_assertion })).json.scope, 'mcp');
    assert.equal((await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: claimToken })).status, 200, 'the third delivery');
    const fourth = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: claimToken });
    assert.equal(fourth.json.error, 'invalid_grant');
    assert.match(fourth.json.error_description, /already delivered 3 times/);
    assert.equal(final.json.scope, 'mcp');
    assert.equal(final.json.access_token.split('.').length, 3);
    assert.ok(final.json.identity_assertion);
    const user = await me(svc.url, final.json.access_token);
    assert.equal(user.status, 200);
    assert.equal(user.json.email, email);
    assert.deepEqual(user.json.scopes, ['mcp']);
    clock.advance(9 * 60_000 + 1000);
    const late = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: claimToken });
    assert.equal(late.json.error, 'invalid_grant', 'no delivery more than 10 minutes after the first');
    assert.match(late.json.error_description, /more than 10 minutes ago/);
    assert.equal((await postJson(`${svc.url}/api/auth/agent/identity/claim`, { claim_token: claimToken, email })).status, 409);

    // Claimed assertions (the new one, and the anonymous one now claimed) mint user JWTs.
    for (const a of [final.json.identity_assertion, assertion]) {
      const x = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: a });
      assert.equal(x.status, 200);
      assert.equal(x.json.scope, 'mcp');
      assert.equal(x.json.expires_in, 3600);
      assert.equal((await me(svc.url, x.json.access_token)).json.email, email);
    }

    // Revoke: the assertion stops working (invalid_grant); a JWT is not revocable and says so.
    const r1 = await postForm(`${svc.url}/api/auth/agent/revoke`, new CookieJar(), { token: final.json.identity_assertion });
    assert.equal(r1.status, 200);
    assert.equal(JSON.parse(r1.body).revoked, true);
    const after = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: final.json.identity_assertion });
    assert.equal(after.status, 400);
    assert.equal(after.json.error, 'invalid_grant');
    const rj = await postJson(`${svc.url}/api/auth/agent/revoke`, { token: final.json.access_token });
    assert.equal(rj.status, 200);
    assert.equal(rj.json.revoked, false);
    assert.match(rj.json.message, /not revocable/);
    assert.equal((await me(svc.url, final.json.access_token)).status, 200);
    const unknown = await postJson(`${svc.url}/api/auth/agent/revoke`, { token: 'whatever' });
    assert.equal(unknown.status, 200);
    assert.equal(unknown.json.revoked, false);
    assert.equal((await postJson(`${svc.url}/api/auth/agent/revoke`, {})).status, 400);

    // The user JWT expires after about an hour.
    clock.advance(3601_000);
    assert.equal((await me(svc.url, final.json.access_token)).status, 401);
  } finally {
    await svc.close();
  }
});

test('expiries: 410 claim_expired, stale assertion invalid_grant, pre-claim token after an hour, revoked pre-claim token', async () => {
  const clock = new ManualClock(Date.UTC(2026, 4, 1));
  const svc = await startTestServer({ clock });
  try {
    const sa = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: 'lin@example.com' });
    const anon = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'anonymous' });
    const pub = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: anon.json.identity_assertion });
    const pub2 = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: anon.json.identity_assertion });

    // Revoking a pre-claim token.
    const rv = await postJson(`${svc.url}/api/auth/agent/revoke`, { token: pub2.json.access_token });
    assert.equal(rv.json.revoked, true);
    assert.equal((await me(svc.url, pub2.json.access_token)).status, 401);

    clock.advance(3600_000 + 1000);
    assert.equal((await me(svc.url, pub.json.access_token)).status, 401, 'pre-claim tokens live one hour');

    clock.advance(23 * 3600_000);
    const gone = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: sa.json.claim_token });
    assert.equal(gone.status, 410);
    assert.equal(gone.json.error, 'claim_expired');
    const restart = await postJson(`${svc.url}/api/auth/agent/identity/claim`, { claim_token: sa.json.claim_token, email: 'lin@example.com' });
    assert.equal(restart.status, 410);
    assert.equal(restart.json.error, 'claim_expired');

    // Anonymous assertions live 30 days.
    assert.equal((await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: anon.json.identity_assertion })).status, 200);
    clock.advance(29 * 24 * 3600_000);
    const stale = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: anon.json.identity_assertion });
    assert.equal(stale.status, 400);
    assert.equal(stale.json.error, 'invalid_grant');
    assert.equal((await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: 'slia_unknown' })).json.error, 'invalid_grant');

    // Token endpoint input errors.
    assert.equal((await tokenRequest(svc.url, { grant_type: CLAIM_GRANT })).json.error, 'invalid_request');
    assert.equal((await tokenRequest(svc.url, {})).json.error, 'invalid_request');
    assert.equal((await tokenRequest(svc.url, { grant_type: 'password' })).json.error, 'unsupported_grant_type');
  } finally {
    await svc.close();
  }
});

test('claim page: sign-in required, the named e-mail only, wrong codes lock the ceremony, CSRF checked', async () => {
  const svc = await startTestServer();
  try {
    const email = 'kim@example.com';
    const sa = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: email });
    const url = onServer(svc.url, sa.json.claim.verification_uri);

    const anonymous = await getPage(url, new CookieJar());
    assert.equal(anonymous.status, 303);
    assert.match(anonymous.location ?? '', /^\/signin\?next=%2Fclaim%2F/);

    const other = await signUpOrIn(svc.url, 'mallory@example.com');
    const otherPage = await getPage(url, other);
    assert.equal(otherPage.status, 403);
    assert.match(otherPage.body, /different e-mail/);
    const otherPost = await postForm(url, other, { csrf: csrfFrom(otherPage.body), user_code: sa.json.claim.user_code });
    assert.equal(otherPost.status, 403, 'another account cannot claim even with the right code');

    const jar = await signUpOrIn(svc.url, email);
    const form = await getPage(url, jar);
    assert.equal(form.status, 200);
    // No CSRF token: refused, nothing changes.
    const noCsrf = await postForm(url, jar, { user_code: sa.json.claim.user_code });
    assert.equal(noCsrf.status, 403);
    const wrongCode = sa.json.claim.user_code === '000000' ? '111111' : '000000';
    for (let i = 1; i <= 4; i++) {
      const r = await postForm(url, jar, { csrf: csrfFrom(form.body), user_code: wrongCode });
      assert.equal(r.status, 400);
      assert.match(r.body, new RegExp(`${5 - i} attempt\\(s\\) left`));
    }
    const malformed = await postForm(url, jar, { csrf: csrfFrom(form.body), user_code: 'abc' });
    assert.equal(malformed.status, 400);
    const fifth = await postForm(url, jar, { csrf: csrfFrom(form.body), user_code: wrongCode });
    assert.equal(fifth.status, 423);
    const evenRight = await postForm(url, jar, { csrf: csrfFrom(form.body), user_code: sa.json.claim.user_code });
    assert.equal(evenRight.status, 423, 'a locked ceremony refuses the right code too');
    const poll = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: sa.json.claim_token });
    assert.equal(poll.json.error, 'expired_token');

    // Restarting gives a new link and code that work.
    const again = await postJson(`${svc.url}/api/auth/agent/identity/claim`, { claim_token: sa.json.claim_token, email });
    const ok = await confirmClaimOnPage(svc.url, again.json.claim.verification_uri, again.json.claim.user_code, jar);
    assert.equal(ok.status, 200);
    const done = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: sa.json.claim_token });
    assert.equal(done.status, 200);
    assert.equal((await me(svc.url, done.json.access_token)).json.email, email);
  } finally {
    await svc.close();
  }
});

test('helpers for other surfaces: getPublicToken and getUserToken over real HTTP', async () => {
  const svc = await startTestServer();
  try {
    const pub = await getPublicToken(svc.url);
    assert.deepEqual((await me(svc.url, pub)).json.scopes, ['mcp.public']);
    const user = await getUserToken(svc.url, 'helper@example.com');
    const who = await me(svc.url, user);
    assert.equal(who.json.email, 'helper@example.com');
    assert.deepEqual(who.json.scopes, ['mcp']);
    // A second call for the same address signs in instead of signing up.
    const again = await getUserToken(svc.url, 'helper@example.com');
    assert.equal((await me(svc.url, again)).json.account_id, who.json.account_id);
  } finally {
    await svc.close();
  }
});

test('bad input on every auth endpoint is a clear 4xx, never a 500', async () => {
  const svc = await startTestServer();
  try {
    const json = { 'content-type': 'application/json' };
    const formCt = { 'content-type': 'application/x-www-form-urlencoded' };
    const cases: [string, string, Record<string, string>, string | undefined][] = [
      ['POST', '/api/auth/agent/identity', json, '[]'],
      ['POST', '/api/auth/agent/identity', json, 'null'],
      ['POST', '/api/auth/agent/identity', json, '{"type":{"a":1}}'],
      ['POST', '/api/auth/agent/identity', { 'content-type': 'text/xml' }, '<x/>'],
      ['POST', '/api/auth/agent/identity', formCt, 'type=service_auth&login_hint=%E0%A4%A'],
      ['POST', '/api/auth/agent/identity/claim', json, '{"claim_token":5,"email":"a@b.co"}'],
      ['POST', '/api/auth/agent/identity/claim', json, '{"claim_token":"clm_x","email":"a@b.co"}'],
      ['POST', '/api/auth/agent/identity/claim', json, '{"type":"login_hint","claim_token":"clm_x"}'],
      ['POST', '/api/auth/mcp/token', formCt, 'grant_type=urn%3Asiteline%3Aagent-auth%3Agrant-type%3Aclaim&claim_token=clm_nope'],
      ['POST', '/api/auth/mcp/token', json, '{"grant_type":"urn:ietf:params:oauth:grant-type:jwt-bearer","assertion":["a"]}'],
      ['POST', '/api/auth/mcp/token', formCt, 'grant_type=authorization_code&code=nope&client_id=nope&code_verifier=x'],
      ['POST', '/api/auth/mcp/token', formCt, 'grant_type=refresh_token&refresh_token=nope'],
      ['POST', '/api/auth/mcp/token', formCt, '%%%'],
      ['POST', '/api/auth/agent/revoke', json, '{"token":{"x":1}}'],
      ['GET', '/api/auth/me', { authorization: 'Bearer a.b.c' }, undefined],
      ['GET', '/api/auth/me', { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' }, undefined],
      ['GET', '/claim/%E0%A4%A', {}, undefined],
      ['GET', '/claim/unknown-ceremony', {}, undefined],
      ['POST', '/claim/unknown-ceremony', formCt, 'user_code=123456'],
      ['GET', '/api/auth/oauth/interaction/nope', {}, undefined],
      ['POST', '/api/auth/oauth/interaction/nope', formCt, 'decision=allow'],
      ['GET', '/api/auth/oauth/authorize?client_id=nope&response_type=code', {}, undefined],
      ['POST', '/api/auth/oauth/register', json, '{"redirect_uris":"not-a-list"}'],
      ['POST', '/api/auth/oauth/revoke', formCt, 'token=x'],
      ['GET', '/signin?next=%0d%0aSet-Cookie:x=1', {}, undefined],
      ['POST', '/signin', formCt, 'email=' + 'a'.repeat(5000) + '&password=x'],
    ];
    for (const [method, path, headers, body] of cases) {
      const res = await fetch(`${svc.url}${path}`, { method, headers, body, redirect: 'manual' });
      assert.ok(res.status >= 200 && res.status < 500, `${method} ${path} ${body ?? ''} -> ${res.status}`);
      await res.arrayBuffer();
    }
  } finally {
    await svc.close();
  }
});

test('the human can refuse a claim: the agent gets access_denied until it restarts the ceremony', async () => {
  const svc = await startTestServer();
  try {
    const email = 'refuser@example.com';
    const sa = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: email });
    const jar = await signUpOrIn(svc.url, email);
    const url = onServer(svc.url, sa.json.claim.verification_uri);
    const form = await getPage(url, jar);
    const refused = await postForm(url, jar, { csrf: csrfFrom(form.body), decision: 'deny' });
    assert.equal(refused.status, 200);
    assert.match(refused.body, /claim-refused/);
    const poll = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: sa.json.claim_token });
    assert.equal(poll.status, 400);
    assert.equal(poll.json.error, 'access_denied');
    assert.equal((await getPage(url, jar)).status, 410);
    const late = await postForm(url, jar, { csrf: csrfFrom(form.body), user_code: sa.json.claim.user_code });
    assert.equal(late.status, 410, 'the right code no longer works on a refused ceremony');

    const again = await postJson(`${svc.url}/api/auth/agent/identity/claim`, { claim_token: sa.json.claim_token, email });
    assert.equal(again.status, 200);
    const ok = await confirmClaimOnPage(svc.url, again.json.claim.verification_uri, again.json.claim.user_code, jar);
    assert.equal(ok.status, 200);
    assert.equal((await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: sa.json.claim_token })).status, 200);
  } finally {
    await svc.close();
  }
});
