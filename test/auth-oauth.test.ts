// Browser OAuth for MCP clients, end to end with the MCP SDK client's own auth(): discovery, Dynamic
// Client Registration, PKCE S256, sign-in and consent on our pages, code exchange, a rotating refresh,
// revocation. The access tokens it gets must pass the one token check (here through /api/auth/me).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { startTestServer } from './support/harness.ts';
import { CookieJar, TEST_PASSWORD, csrfFrom, followVerificationLink, getPage, postForm, signUpOrIn, verificationLinkFromOutbox } from './support/auth-flow.ts';

class MemoryClient implements OAuthClientProvider {
  info: any;
  saved: any;
  verifier = '';
  authorizationUrl: URL | undefined;
  constructor(readonly redirect: string) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      client_name: 'Test MCP client',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(i: any) {
    this.info = i;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: any) {
    this.saved = t;
  }
  redirectToAuthorization(u: URL) {
    this.authorizationUrl = u;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  discovery: any;
  saveDiscoveryState(s: any) {
    this.discovery = s;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** Follows redirects with the jar until the client's loopback callback (which is not fetched). */
async function browse(start: string, jar: CookieJar, svcUrl: string, base: string, stopAt: string): Promise<{ url: string; body: string; status: number }> {
  let url = start;
  for (let i = 0; i < 20; i++) {
    if (url.startsWith(stopAt)) return { url, body: '', status: 0 };
    const r = await getPage(url.replace(base, svcUrl), jar);
    if (r.status !== 302 && r.status !== 303) return { url, body: r.body, status: r.status };
    url = new URL(r.location!, url).href;
  }
  throw new Error('too many redirects');
}

async function me(baseUrl: string, token: string) {
  const res = await fetch(`${baseUrl}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

test('MCP SDK client: DCR, PKCE, sign-in, consent, code exchange, rotating refresh, revocation', async () => {
  const svc = await startTestServer();
  try {
    const base = svc.ctx.config.baseUrl;
    const serverUrl = `${base}/api/mcp`;
    const jar = await signUpOrIn(base, 'oauth.user@example.com');

    // Registered with port 1234; the callback actually used has another port (loopback: any port).
    const client = new MemoryClient('http://127.0.0.1:1234/callback');
    assert.equal(await auth(client, { serverUrl }), 'REDIRECT');
    assert.ok(client.info?.client_id, 'dynamic client registration happened');
    const authz = client.authorizationUrl!;
    assert.equal(authz.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(authz.searchParams.get('resource'), serverUrl);
    authz.searchParams.set('redirect_uri', 'http://127.0.0.1:5678/callback');
    // The token request must use the same redirect_uri as the authorization request.
    (client as any).redirect = 'http://127.0.0.1:5678/callback';

    const consent = await browse(authz.href, jar, svc.url, base, 'http://127.0.0.1:5678/');
    assert.equal(consent.status, 200, consent.body.slice(0, 400));
    assert.match(consent.body, /Test MCP client/);
    assert.match(consent.body, /mcp/);
    const allow = await postForm(consent.url.replace(base, svc.url), jar, { csrf: csrfFrom(consent.body), decision: 'allow' });
    assert.equal(allow.status, 303);
    const cb = await browse(new URL(allow.location!, consent.url).href, jar, svc.url, base, 'http://127.0.0.1:5678/');
    const callback = new URL(cb.url);
    const code = callback.searchParams.get('code');
    assert.ok(code, `no code in ${cb.url}`);
    assert.equal(callback.searchParams.get('iss'), base);

    assert.equal(await auth(client, { serverUrl, authorizationCode: code!, iss: callback.searchParams.get('iss')! }), 'AUTHORIZED');
    const first = client.saved;
    assert.ok(first.access_token && first.refresh_token);
    const who = await me(svc.url, first.access_token);
    assert.equal(who.status, 200, JSON.stringify(who.json));
    assert.equal(who.json.email, 'oauth.user@example.com');
    assert.ok(who.json.scopes.includes('mcp'));
    assert.equal(who.json.token_type, 'jwt');
    assert.equal(who.json.client_id, client.info.client_id);

    // Refresh: the SDK uses the refresh token; the refresh token rotates; the old one is dead.
    assert.equal(await auth(client, { serverUrl }), 'AUTHORIZED');
    const second = client.saved;
    assert.notEqual(second.refresh_token, first.refresh_token, 'refresh tokens rotate');
    assert.notEqual(second.access_token, first.access_token);
    assert.equal((await me(svc.url, second.access_token)).status, 200);

    // Revocation of the refresh token (RFC 7009): a later refresh fails.
    const rev = await fetch(`${svc.url}/api/auth/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: second.refresh_token, token_type_hint: 'refresh_token', client_id: client.info.client_id }).toString(),
    });
    assert.equal(rev.status, 200);
    const again = await fetch(`${svc.url}/api/auth/mcp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: client.info.client_id }).toString(),
    });
    assert.equal(again.status, 400);
    assert.equal(((await again.json()) as { error: string }).error, 'invalid_grant');
    const reuse = await fetch(`${svc.url}/api/auth/mcp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: client.info.client_id }).toString(),
    });
    assert.equal(reuse.status, 400, 'a rotated-out refresh token is dead');
    assert.equal(((await reuse.json()) as { error: string }).error, 'invalid_grant');
    assert.equal(reuse.headers.get('cache-control'), 'no-store');

    // Signing out of the web app ends the provider's login too: the next person on this browser who
    // authorizes the same client gets their own account, not the previous one.
    const account = await getPage(`${svc.url}/account`, jar);
    assert.equal((await postForm(`${svc.url}/signout`, jar, { csrf: csrfFrom(account.body) })).status, 303);
    await signUpOrIn(base, 'second.user@example.com', jar);
    (client as any).saved = undefined;
    assert.equal(await auth(client, { serverUrl }), 'REDIRECT');
    const next = client.authorizationUrl!;
    const page2 = await browse(next.href, jar, svc.url, base, 'http://127.0.0.1:5678/');
    let landing = page2;
    if (page2.status === 200) {
      assert.match(page2.body, /second\.user@example\.com/);
      const ok2 = await postForm(page2.url.replace(base, svc.url), jar, { csrf: csrfFrom(page2.body), decision: 'allow' });
      landing = await browse(new URL(ok2.location!, page2.url).href, jar, svc.url, base, 'http://127.0.0.1:5678/');
    }
    const code2 = new URL(landing.url).searchParams.get('code');
    assert.ok(code2, landing.url);
    assert.equal(await auth(client, { serverUrl, authorizationCode: code2!, iss: base }), 'AUTHORIZED');
    assert.equal((await me(svc.url, client.saved.access_token)).json.email, 'second.user@example.com');

    // Another resource is refused (resource indicators with an audience check).
    const bad = new URL(authz.href);
    bad.searchParams.set('resource', 'https://other.example/api/mcp');
    const refused = await getPage(bad.href.replace(base, svc.url), new CookieJar());
    assert.ok(refused.status === 400 || /invalid_target/.test(refused.location ?? ''), `status ${refused.status} ${refused.location}`);
  } finally {
    await svc.close();
  }
});

test('a person not yet signed in: authorize -> sign-in page -> back to consent -> code', async () => {
  const svc = await startTestServer();
  try {
    const base = svc.ctx.config.baseUrl;
    const serverUrl = `${base}/api/mcp`;
    await signUpOrIn(base, 'later@example.com', new CookieJar());
    const jar = new CookieJar();
    const client = new MemoryClient('http://127.0.0.1:7777/cb');
    assert.equal(await auth(client, { serverUrl }), 'REDIRECT');
    const signin = await browse(client.authorizationUrl!.href, jar, svc.url, base, 'http://127.0.0.1:7777/');
    assert.equal(signin.status, 200);
    assert.match(signin.url, /\/signin\?next=%2Fapi%2Fauth%2Foauth%2Finteraction%2F/);
    const next = /name="next" value="([^"]+)"/.exec(signin.body)![1]!;
    const done = await postForm(`${svc.url}/signin`, jar, { csrf: csrfFrom(signin.body), email: 'later@example.com', password: TEST_PASSWORD, next });
    assert.equal(done.status, 303);
    const consent = await browse(`${base}${done.location}`, jar, svc.url, base, 'http://127.0.0.1:7777/');
    assert.equal(consent.status, 200, consent.body.slice(0, 300));
    const allow = await postForm(consent.url.replace(base, svc.url), jar, { csrf: csrfFrom(consent.body), decision: 'allow' });
    const cb = await browse(new URL(allow.location!, consent.url).href, jar, svc.url, base, 'http://127.0.0.1:7777/');
    const code = new URL(cb.url).searchParams.get('code');
    assert.ok(code, cb.url);
    assert.equal(await auth(client, { serverUrl, authorizationCode: code!, iss: base }), 'AUTHORIZED');
    assert.equal((await me(svc.url, client.saved.access_token)).json.email, 'later@example.com');
  } finally {
    await svc.close();
  }
});

test('consent: Deny returns access_denied to the client; missing PKCE is refused', async () => {
  const svc = await startTestServer();
  try {
    const base = svc.ctx.config.baseUrl;
    const serverUrl = `${base}/api/mcp`;
    const jar = await signUpOrIn(base, 'deny.user@example.com');
    const client = new MemoryClient('http://localhost:4321/cb');
    assert.equal(await auth(client, { serverUrl }), 'REDIRECT');
    const consent = await browse(client.authorizationUrl!.href, jar, svc.url, base, 'http://localhost:4321/');
    assert.equal(consent.status, 200);
    const deny = await postForm(consent.url.replace(base, svc.url), jar, { csrf: csrfFrom(consent.body), decision: 'deny' });
    const cb = await browse(new URL(deny.location!, consent.url).href, jar, svc.url, base, 'http://localhost:4321/');
    assert.equal(new URL(cb.url).searchParams.get('error'), 'access_denied');

    const noPkce = new URL(client.authorizationUrl!.href);
    noPkce.searchParams.delete('code_challenge');
    noPkce.searchParams.delete('code_challenge_method');
    const r = await getPage(noPkce.href.replace(base, svc.url), new CookieJar());
    const loc = r.location ?? '';
    assert.ok(r.status === 400 || /error=invalid_request/.test(loc), `PKCE is required: ${r.status} ${loc}`);

    // A Client ID Metadata Document client_id (an https URL) is fetched by the provider; one that cannot be
    // fetched (here: loopback, blocked as SSRF) is a clear error page, never a crash.
    const cimd = new URL(client.authorizationUrl!.href);
    cimd.searchParams.set('client_id', 'https://127.0.0.1:9/client.json');
    const cimdRes = await getPage(cimd.href.replace(base, svc.url), new CookieJar());
    assert.equal(cimdRes.status, 400);
    assert.match(cimdRes.body, /invalid_client/);

    // Not a registered redirect (other path) is refused.
    const wrong = new URL(client.authorizationUrl!.href);
    wrong.searchParams.set('redirect_uri', 'http://localhost:4321/elsewhere');
    assert.equal((await getPage(wrong.href.replace(base, svc.url), new CookieJar())).status, 400);
  } finally {
    await svc.close();
  }
});

test('consent waits for a verified e-mail: the page says so without Allow, a forged Allow writes no grant, and after the link Allow works', async () => {
  const svc = await startTestServer();
  try {
    const base = svc.ctx.config.baseUrl;
    const serverUrl = `${base}/api/mcp`;
    // Sign up through the form, and do not open the verification link yet.
    const jar = new CookieJar();
    const form = await getPage(`${svc.url}/signup`, jar);
    const up = await postForm(`${svc.url}/signup`, jar, {
      csrf: csrfFrom(form.body),
      email: 'unverified.oauth@example.com',
      password: TEST_PASSWORD,
      next: '/account',
    });
    assert.equal(up.status, 303);
    const client = new MemoryClient('http://127.0.0.1:7788/cb');
    assert.equal(await auth(client, { serverUrl }), 'REDIRECT');
    const waiting = await browse(client.authorizationUrl!.href, jar, svc.url, base, 'http://127.0.0.1:7788/');
    assert.equal(waiting.status, 403);
    assert.match(waiting.body, /id="email-unverified"/);
    assert.match(waiting.body, /Confirm your e-mail address first/);
    assert.doesNotMatch(waiting.body, /id="allow"/);
    // A hand-made Allow is refused the same way: nothing reaches the client.
    const forged = await postForm(waiting.url.replace(base, svc.url), jar, { csrf: csrfFrom(waiting.body), decision: 'allow' });
    assert.equal(forged.status, 403);
    assert.match(forged.body, /id="email-unverified"/);
    const grants = await svc.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM oidc_models WHERE model = 'Grant'`);
    assert.equal(grants[0]!.n, 0, 'no grant written');
    // The person opens the mailed link; the same consent page now offers Allow, and the code arrives.
    const link = await verificationLinkFromOutbox(svc.url, 'unverified.oauth@example.com');
    assert.equal((await followVerificationLink(svc.url, link!)).status, 200);
    const consent = await browse(waiting.url, jar, svc.url, base, 'http://127.0.0.1:7788/');
    assert.equal(consent.status, 200, consent.body.slice(0, 300));
    const allow = await postForm(consent.url.replace(base, svc.url), jar, { csrf: csrfFrom(consent.body), decision: 'allow' });
    const cb = await browse(new URL(allow.location!, consent.url).href, jar, svc.url, base, 'http://127.0.0.1:7788/');
    const code = new URL(cb.url).searchParams.get('code');
    assert.ok(code, cb.url);
    assert.equal(await auth(client, { serverUrl, authorizationCode: code!, iss: base }), 'AUTHORIZED');
  } finally {
    await svc.close();
  }
});

/** Registers a public client by DCR over HTTP; returns the response. */
async function register(svcUrl: string, meta: Record<string, unknown>) {
  const r = await fetch(`${svcUrl}/api/auth/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(meta) });
  return { status: r.status, json: (await r.json()) as Record<string, any> };
}

test('issue 25: no scope gets the documented default (mcp) and a code; an unknown scope is invalid_scope; consent says in words what the client may do and labels a product name as unverified', async () => {
  const svc = await startTestServer();
  try {
    const base = svc.ctx.config.baseUrl;
    const { DEFAULT_AUTHORIZATION_SCOPE } = await import('../src/oauth/oauth-provider.ts');
    assert.equal(DEFAULT_AUTHORIZATION_SCOPE, 'mcp');
    const jar = await signUpOrIn(base, 'noscope@example.com');
    const redirect = 'http://127.0.0.1:4444/cb';
    const reg = await register(svc.url, {
      client_name: 'Claude Desktop (official)',
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    assert.equal(reg.status, 201, JSON.stringify(reg.json));
    const clientId = reg.json.client_id as string;
    const crypto = await import('node:crypto');
    const verifier = crypto.randomBytes(32).toString('base64url');
    const authorize = (extra: Record<string, string>) =>
      `${base}/api/auth/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirect, state: 'st-1', code_challenge: crypto.createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', ...extra })}`;

    // An unknown scope: invalid_scope at the client's redirect URI, with state and iss, before any consent.
    const unknown = await browse(authorize({ scope: 'mcp admin' }), jar, svc.url, base, 'http://127.0.0.1:4444/');
    const err = new URL(unknown.url);
    assert.equal(err.searchParams.get('error'), 'invalid_scope', unknown.url);
    assert.match(err.searchParams.get('error_description') ?? '', /"admin"/);
    assert.equal(err.searchParams.get('state'), 'st-1');
    assert.equal(err.searchParams.get('iss'), base);

    // No scope at all (the conformance suite's authorization-code-grant request): consent, then a code.
    const consent = await browse(authorize({}), jar, svc.url, base, 'http://127.0.0.1:4444/');
    assert.equal(consent.status, 200, consent.body.slice(0, 400));
    // Consent in words, the product-like name labelled unverified, the redirect host shown.
    assert.match(consent.body, /id="unverified-client"/);
    assert.match(consent.body, /Unverified client/);
    assert.match(consent.body, /<strong id="redirect-host">127\.0\.0\.1:4444<\/strong>/);
    assert.match(consent.body, /<ul id="scopes"><li>use siteline&#39;s tools as you|<ul id="scopes"><li>use siteline's tools as you/);
    assert.match(consent.body, /monthly exports/);
    const allow = await postForm(consent.url.replace(base, svc.url), jar, { csrf: csrfFrom(consent.body), decision: 'allow' });
    assert.equal(allow.status, 303);
    const cb = await browse(new URL(allow.location!, consent.url).href, jar, svc.url, base, 'http://127.0.0.1:4444/');
    const back = new URL(cb.url);
    assert.equal(back.searchParams.get('error'), null, cb.url);
    const code = back.searchParams.get('code');
    assert.ok(code, cb.url);
    assert.equal(back.searchParams.get('state'), 'st-1');
    const tok = await fetch(`${svc.url}/api/auth/mcp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: redirect,
        code_verifier: verifier,
        client_id: clientId,
      }).toString(),
    });
    assert.equal(tok.status, 200);
    assert.equal(tok.headers.get('cache-control'), 'no-store');
    const t = (await tok.json()) as { access_token: string; token_type: string; scope: string };
    assert.equal(t.token_type, 'Bearer');
    const who = await me(svc.url, t.access_token);
    assert.equal(who.status, 200, JSON.stringify(who.json));
    assert.ok(who.json.scopes.includes('mcp'), `the default scope was granted: ${who.json.scopes}`);

    // A plain name is not labelled.
    const plain = await register(svc.url, { client_name: 'Acme site tool', redirect_uris: ['http://127.0.0.1:4545/cb'], token_endpoint_auth_method: 'none' });
    const plainConsent = await browse(
      `${base}/api/auth/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: plain.json.client_id, redirect_uri: 'http://127.0.0.1:4545/cb', scope: 'mcp.public', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`,
      jar,
      svc.url,
      base,
      'http://127.0.0.1:4545/',
    );
    assert.equal(plainConsent.status, 200);
    assert.doesNotMatch(plainConsent.body, /unverified-client/);
    assert.match(plainConsent.body, /public tools/);

    // Registration refuses wildcard hosts and http off loopback.
    for (const bad of ['https://*.example.com/cb', 'http://app.example.com/cb', 'https://%2A.example.com/cb']) {
      const r = await register(svc.url, { client_name: 'x', redirect_uris: [bad], token_endpoint_auth_method: 'none' });
      assert.equal(r.status, 400, bad);
      assert.equal(r.json.error, 'invalid_redirect_uri', bad);
    }
  } finally {
    await svc.close();
  }
});
