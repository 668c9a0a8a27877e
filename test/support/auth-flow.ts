// Real-HTTP helpers for tests on every surface: they drive the service's own endpoints and web forms
// (no shortcuts into the database), so a token they return was earned the way a client earns it.
import assert from 'node:assert/strict';
import { noteSecret } from './log-capture.ts';

export const TEST_PASSWORD = 'correct horse battery staple';
export const CLAIM_GRANT = 'urn:siteline:agent-auth:grant-type:claim';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
noteSecret(TEST_PASSWORD);

/** Every credential a response hands out is noted for the log guard (test/support/log-capture.ts). */
function noteCredentials(json: Record<string, any> | undefined): void {
  if (!json || typeof json !== 'object') return;
  noteSecret(json.access_token, json.refresh_token, json.identity_assertion, json.claim_token, json.id_token);
}

/** A minimal cookie jar for fetch (name=value per origin-agnostic test server). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

/** GET a page with the jar; returns status, body, and location (redirects are not followed). */
export async function getPage(url: string, jar: CookieJar): Promise<{ status: number; body: string; location: string | null }> {
  const res = await fetch(url, { headers: { cookie: jar.header() }, redirect: 'manual' });
  jar.store(res);
  return { status: res.status, body: await res.text(), location: res.headers.get('location') };
}

/** POST a form with the jar. */
export async function postForm(
  url: string,
  jar: CookieJar,
  fields: Record<string, string>,
): Promise<{ status: number; body: string; location: string | null }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  jar.store(res);
  return { status: res.status, body: await res.text(), location: res.headers.get('location') };
}

export function csrfFrom(body: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(body);
  assert.ok(m, 'the page carries a CSRF field');
  return m[1]!;
}

/**
 * The newest e-mail verification link mailed to `email`, read from the development outbox page
 * (undefined when the outbox is not served: a non-loopback base URL).
 */
export async function verificationLinkFromOutbox(baseUrl: string, email: string): Promise<string | undefined> {
  const res = await fetch(`${baseUrl}/dev/outbox?to=${encodeURIComponent(email.trim().toLowerCase())}`);
  const body = await res.text();
  if (res.status === 404) return undefined;
  assert.equal(res.status, 200, `outbox: ${res.status}`);
  const link = /https?:\/\/[^\s<"]+\/verify-email\/[A-Za-z0-9_.-]+/.exec(body)?.[0]; // newest first
  if (link) noteSecret(link.slice(link.lastIndexOf('/') + 1));
  return link;
}

/** Every message the development outbox holds for `email`, newest first, as text (subject and body). */
export async function mailFromOutbox(baseUrl: string, email: string): Promise<{ subject: string; text: string }[]> {
  const res = await fetch(`${baseUrl}/dev/outbox?to=${encodeURIComponent(email.trim().toLowerCase())}`);
  assert.equal(res.status, 200, `outbox: ${res.status}`);
  const unescapeHtml = (s: string) =>
    s.replace(/<[^>]+>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
  const mails = [...(await res.text()).matchAll(/<article class="mail"><h2>([\s\S]*?)<\/h2>[\s\S]*?<pre>([\s\S]*?)<\/pre><\/article>/g)].map((m) => ({
    subject: unescapeHtml(m[1]!),
    text: unescapeHtml(m[2]!),
  }));
  for (const m of mails) for (const link of m.text.matchAll(/\/[a-z-]+\/(sl[a-z]{2}_[A-Za-z0-9_-]{43})/g)) noteSecret(link[1]);
  return mails;
}

/** The newest mail to `email` with this subject (waits briefly: mail is queued, then written). */
export async function newestMail(baseUrl: string, email: string, subject: string | RegExp, timeoutMs = 10_000): Promise<{ subject: string; text: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = (await mailFromOutbox(baseUrl, email)).find((m) => (typeof subject === 'string' ? m.subject === subject : subject.test(m.subject)));
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no mail "${subject}" to ${email}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Follows a verification link as a person does: opens it, presses the confirm button. Returns the last page. */
export async function followVerificationLink(baseUrl: string, link: string): Promise<{ status: number; body: string }> {
  const url = onServer(baseUrl, link);
  const jar = new CookieJar();
  const shown = await getPage(url, jar);
  if (shown.status !== 200) return shown;
  return postForm(url, jar, {});
}

/** Signs up through the real web form (or signs in when the account exists); the jar then holds a session.
 * A new account's e-mail is verified by following the link from the development outbox (when served). */
export async function signUpOrIn(baseUrl: string, email: string, jar = new CookieJar(), password = TEST_PASSWORD): Promise<CookieJar> {
  noteSecret(password);
  const form = await getPage(`${baseUrl}/signup`, jar);
  const up = await postForm(`${baseUrl}/signup`, jar, { csrf: csrfFrom(form.body), email, password, next: '/account' });
  if (up.status === 303) {
    const link = await verificationLinkFromOutbox(baseUrl, email);
    if (link) {
      const done = await followVerificationLink(baseUrl, link);
      assert.equal(done.status, 200, `e-mail verification: ${done.status} ${done.body.slice(0, 300)}`);
    }
    return jar;
  }
  assert.equal(up.status, 409, `sign-up failed: ${up.status}`);
  const inForm = await getPage(`${baseUrl}/signin`, jar);
  const signIn = await postForm(`${baseUrl}/signin`, jar, { csrf: csrfFrom(inForm.body), email, password, next: '/account' });
  assert.equal(signIn.status, 303, `sign-in failed: ${signIn.status}`);
  return jar;
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, any>;
  noteCredentials(json);
  return { status: res.status, json };
}

export async function tokenRequest(baseUrl: string, params: Record<string, string>): Promise<{ status: number; json: Record<string, any>; headers: Headers }> {
  const res = await fetch(`${baseUrl}/api/auth/mcp/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  const json = (await res.json()) as Record<string, any>;
  noteCredentials(json);
  return { status: res.status, json, headers: res.headers };
}

/** The claim page URL on the server under test (verification_uri may name another host for the same server). */
export function onServer(baseUrl: string, verificationUri: string): string {
  const u = new URL(verificationUri);
  return `${baseUrl}${u.pathname}${u.search}`;
}

/** A signed-in human types the code on the real claim page. Returns the page's status and body. */
export async function confirmClaimOnPage(baseUrl: string, verificationUri: string, code: string, jar: CookieJar): Promise<{ status: number; body: string }> {
  const url = onServer(baseUrl, verificationUri);
  const pageRes = await getPage(url, jar);
  assert.equal(pageRes.status, 200, `claim page: ${pageRes.status}`);
  return postForm(url, jar, { csrf: csrfFrom(pageRes.body), user_code: code });
}

/** anonymous registration -> jwt-bearer -> an opaque mcp.public token. */
export async function getPublicToken(baseUrl: string): Promise<string> {
  const reg = await postJson(`${baseUrl}/api/auth/agent/identity`, { type: 'anonymous' });
  assert.equal(reg.status, 201, JSON.stringify(reg.json));
  const tok = await tokenRequest(baseUrl, { grant_type: JWT_BEARER_GRANT, assertion: reg.json.identity_assertion });
  assert.equal(tok.status, 200, JSON.stringify(tok.json));
  return tok.json.access_token as string;
}

/** A full service_auth ceremony over real HTTP; returns what the agent ends with. */
export async function claimUserIdentity(baseUrl: string, email: string): Promise<{ accessToken: string; identityAssertion: string; jar: CookieJar }> {
  const jar = await signUpOrIn(baseUrl, email);
  const reg = await postJson(`${baseUrl}/api/auth/agent/identity`, { type: 'service_auth', login_hint: email });
  assert.equal(reg.status, 201, JSON.stringify(reg.json));
  const done = await confirmClaimOnPage(baseUrl, reg.json.claim.verification_uri, reg.json.claim.user_code, jar);
  assert.equal(done.status, 200, `claim confirmation: ${done.status}`);
  const poll = await tokenRequest(baseUrl, { grant_type: CLAIM_GRANT, claim_token: reg.json.claim_token });
  assert.equal(poll.status, 200, JSON.stringify(poll.json));
  return { accessToken: poll.json.access_token, identityAssertion: poll.json.identity_assertion, jar };
}

/** Sign up via the web form, service_auth registration, claim on the real page, poll, exchange -> an `mcp` JWT. */
export async function getUserToken(baseUrl: string, email: string): Promise<string> {
  const { identityAssertion } = await claimUserIdentity(baseUrl, email);
  const tok = await tokenRequest(baseUrl, { grant_type: JWT_BEARER_GRANT, assertion: identityAssertion });
  assert.equal(tok.status, 200, JSON.stringify(tok.json));
  assert.equal(tok.json.scope, 'mcp');
  return tok.json.access_token as string;
}
