// The browser OAuth flow an MCP client runs, over real HTTP with the official SDK's auth(): DCR, PKCE,
// sign-in (the jar's session), consent on our page, and the code on the loopback callback.
import assert from 'node:assert/strict';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { type CookieJar, csrfFrom, getPage, postForm } from './auth-flow.ts';
import { noteSecret } from './log-capture.ts';

export class MemoryOAuthClient implements OAuthClientProvider {
  info: any;
  saved: any;
  verifier = '';
  authorizationUrl: URL | undefined;
  discovery: any;
  constructor(
    public redirect: string,
    readonly name = 'Test MCP client',
  ) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata() {
    return {
      client_name: this.name,
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
    noteSecret(t?.access_token, t?.refresh_token);
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
  saveDiscoveryState(s: any) {
    this.discovery = s;
  }
  discoveryState() {
    return this.discovery;
  }
}

/** Follows redirects with the jar until `stopAt` (the client's callback, which is not fetched). */
export async function browse(
  start: string,
  jar: CookieJar,
  svcUrl: string,
  base: string,
  stopAt: string,
): Promise<{ url: string; body: string; status: number }> {
  let url = start;
  for (let i = 0; i < 20; i++) {
    if (url.startsWith(stopAt)) return { url, body: '', status: 0 };
    const r = await getPage(url.replace(base, svcUrl), jar);
    if (r.status !== 302 && r.status !== 303) return { url, body: r.body, status: r.status };
    url = new URL(r.location!, url).href;
  }
  throw new Error('too many redirects');
}

/** Registers, authorizes and consents as the jar's account; returns the client and the code (not yet exchanged). */
export async function authorizeWithConsent(svcUrl: string, base: string, jar: CookieJar, redirect = 'http://127.0.0.1:4567/callback') {
  const serverUrl = `${base}/api/mcp`;
  const client = new MemoryOAuthClient(redirect);
  assert.equal(await auth(client, { serverUrl }), 'REDIRECT');
  const consent = await browse(client.authorizationUrl!.href, jar, svcUrl, base, redirect);
  assert.equal(consent.status, 200, consent.body.slice(0, 400));
  const allow = await postForm(consent.url.replace(base, svcUrl), jar, { csrf: csrfFrom(consent.body), decision: 'allow' });
  assert.equal(allow.status, 303);
  const cb = await browse(new URL(allow.location!, consent.url).href, jar, svcUrl, base, redirect);
  const callback = new URL(cb.url);
  const code = callback.searchParams.get('code');
  assert.ok(code, `no code in ${cb.url}`);
  noteSecret(code);
  return { client, serverUrl, code, iss: callback.searchParams.get('iss')! };
}
