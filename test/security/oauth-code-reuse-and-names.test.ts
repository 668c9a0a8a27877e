// Issue 45, two OAuth holes, through the real server:
// - Using an authorization code a second time must revoke every token first issued from it (RFC 6749
//   §4.1.2). oidc-provider revokes the grant's stored rows (refresh tokens); the access tokens are JWTs
//   nobody stores, so the grant's revocation now records theirs too. A real OAuth client flow: the MCP
//   SDK's auth() with DCR, PKCE, sign-in and consent on our pages, then the same code again.
// - A client may register any name. One that claims to be a known product or official, however it is
//   spelled (look-alike letters, full-width forms, invisible characters, no spaces), is shown on the
//   consent page as its own claim beside the host that receives access, on the e-mail-unverified
//   consent page too; an ordinary name is shown plainly.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { auth } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { CookieJar, TEST_PASSWORD, csrfFrom, getPage, postForm, signUpOrIn, tokenRequest } from '../support/auth-flow.ts';
import { authorizeWithConsent, browse } from '../support/oauth-flow.ts';

let svc: TestServer;
before(async () => {
  svc = await startTestServer();
});
after(async () => {
  await svc?.close();
});

async function me(baseUrl: string, token: string): Promise<number> {
  return (await fetch(`${baseUrl}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } })).status;
}

test('an authorization code used twice: the second use is refused and the access and refresh tokens first issued from it stop working', async () => {
  {
    const base = svc.ctx.config.baseUrl;
    const jar = await signUpOrIn(base, 'code.reuse@example.com');
    const redirect = 'http://127.0.0.1:4599/callback';
    const { client, serverUrl, code, iss } = await authorizeWithConsent(svc.url, base, jar, redirect);
    assert.equal(await auth(client, { serverUrl, authorizationCode: code, iss }), 'AUTHORIZED');
    const first = client.saved as { access_token: string; refresh_token: string };
    assert.ok(first.access_token && first.refresh_token);
    assert.equal(await me(svc.url, first.access_token), 200, 'the first exchange works');

    // An access token from a refresh of the same grant, and the refresh token it rotated to.
    const refreshed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.info.client_id });
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
    assert.equal(await me(svc.url, refreshed.json.access_token), 200);

    // The same code again (what an attacker who intercepted it would send, with the verifier).
    const again = await tokenRequest(svc.url, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      code_verifier: client.verifier,
      client_id: client.info.client_id,
    });
    assert.equal(again.status, 400);
    assert.equal(again.json.error, 'invalid_grant');

    assert.equal(await me(svc.url, first.access_token), 401, 'the access token first issued from the code is revoked');
    assert.equal(await me(svc.url, refreshed.json.access_token), 401, 'so is the one its grant issued on refresh');
    const refresh = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: refreshed.json.refresh_token, client_id: client.info.client_id });
    assert.equal(refresh.status, 400, 'the refresh token is revoked');
    assert.equal(refresh.json.error, 'invalid_grant');
    const recorded = await svc.ctx.db.query<{ scope: string; reason: string }>('SELECT scope, reason FROM token_revocations');
    assert.deepEqual(
      recorded.map((r) => r.scope),
      [`client:${client.info.client_id}`],
    );
  }
});

/** Registers a public client by DCR over HTTP, opens its authorization request with `jar`, returns the consent page. */
async function consentFor(jar: CookieJar, name: string, port: number): Promise<{ status: number; body: string }> {
  const base = svc.ctx.config.baseUrl;
  const redirect = `http://127.0.0.1:${port}/cb`;
  const r = await fetch(`${svc.url}/api/auth/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  });
  const reg = (await r.json()) as { client_id: string };
  assert.equal(r.status, 201, JSON.stringify(reg));
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: reg.client_id,
    redirect_uri: redirect,
    scope: 'mcp',
    code_challenge: 'x'.repeat(43),
    code_challenge_method: 'S256',
  });
  return browse(`${base}/api/auth/oauth/authorize?${q}`, jar, svc.url, base, redirect);
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

test('consent: a client name that claims a known product or official status, however spelled, is shown as its own claim beside the host that receives access', async () => {
  const jar = await signUpOrIn(svc.ctx.config.baseUrl, 'consent.names@example.com');
  const claims = [
    'Claude Desktop (official)',
    '\u0421laude Desktop', // Cyrillic Es for the C
    'ClaudeDesktop',
    'ＣｈａｔＧＰＴ', // full-width
    '0penAI helper', // a zero for the O
    'Cur\u200bsor', // a zero-width space inside
    'Siteline\u0435 agent', // siteline with a Cyrillic e
    'Anthropic',
    'Verified MCP tool',
    'GPT-4o bridge',
    'A\u0301nthropic', // a combining accent
  ];
  let port = 4610;
  for (const name of claims) {
    const page = await consentFor(jar, name, port++);
    assert.equal(page.status, 200, `${name}: ${page.body.slice(0, 300)}`);
    assert.match(page.body, /id="unverified-client"/, `${name} is not shown as a claim`);
    assert.ok(
      page.body.includes(`It calls itself <strong id="client-name">&ldquo;${esc(name)}&rdquo;</strong>, a name it chose itself`),
      `${name}: ${page.body}`,
    );
    assert.match(page.body, new RegExp(`<strong id="redirect-host">127\\.0\\.0\\.1:${port - 1}</strong>`), name);
  }
  for (const name of ['Acme site tool', 'Authorized uploader', 'Zoning helper for Cambridge']) {
    const page = await consentFor(jar, name, port++);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /unverified-client/, `${name} is an ordinary name`);
    assert.match(page.body, new RegExp(`<strong id="client-name">${name}</strong> asks to use siteline`));
  }
});

test("consent waiting for a verified e-mail also shows a product-like name as the client's own claim", async () => {
  const jar = new CookieJar();
  const form = await getPage(`${svc.url}/signup`, jar);
  assert.equal(
    (
      await postForm(`${svc.url}/signup`, jar, {
        csrf: csrfFrom(form.body),
        email: 'consent.unverified@example.com',
        password: TEST_PASSWORD,
        next: '/account',
      })
    ).status,
    303,
  );
  const page = await consentFor(jar, 'Claude Desktop (official)', 4690);
  assert.equal(page.status, 403);
  assert.match(page.body, /id="email-unverified"/);
  assert.match(page.body, /id="unverified-client"/);
  assert.match(page.body, /<strong id="redirect-host">127\.0\.0\.1:4690<\/strong>/);
});
