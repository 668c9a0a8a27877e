// The MCP conformance suite's authorization-server scenarios against a running siteline, offline:
// registers a public client by DCR (redirect http://127.0.0.1:<port>/callback), runs
// `conformance authorization`, and plays the person at the browser: when the suite prints the
// authorization URL, it signs up (the e-mail verified through the development outbox a loopback
// server serves), allows consent and follows the redirects to the suite's callback server.
// Usage (scripts/conformance.sh runs it): node --import tsx scripts/conformance-authorization.ts
//   <base-url> <node22> <suite-index.js> <callback-port>     exit code: the suite's
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';

const [base, node22, suite, portArg] = process.argv.slice(2);
if (!base || !node22 || !suite || !portArg) {
  console.error('usage: conformance-authorization.ts <base-url> <node22> <suite-index.js> <callback-port>');
  process.exit(2);
}
const callbackOrigin = `http://127.0.0.1:${portArg}`;

/** A browser's cookies, enough for our own pages. */
const cookies = new Map<string, string>();
async function go(url: string, form?: Record<string, string>): Promise<{ status: number; body: string; location: string | null }> {
  const res = await fetch(url, {
    method: form ? 'POST' : 'GET',
    headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    redirect: 'manual',
  });
  for (const line of res.headers.getSetCookie()) {
    const pair = line.split(';')[0]!;
    const i = pair.indexOf('=');
    const value = pair.slice(i + 1).trim();
    if (value === '' || /max-age=0/i.test(line)) cookies.delete(pair.slice(0, i).trim());
    else cookies.set(pair.slice(0, i).trim(), value);
  }
  return { status: res.status, body: await res.text(), location: res.headers.get('location') };
}
const csrf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';

/** Follows redirects from `url` until a page (returned) or the client's callback (delivered to the suite). */
async function follow(url: string): Promise<{ url: string; status: number; body: string }> {
  for (let i = 0; i < 20; i++) {
    if (url.startsWith(callbackOrigin)) {
      await fetch(url); // the suite's callback server
      return { url, status: 0, body: '' };
    }
    const r = await go(url);
    if (r.status !== 302 && r.status !== 303) return { url, ...r };
    url = new URL(r.location!, url).href;
  }
  throw new Error('too many redirects');
}

async function signUp(): Promise<void> {
  const email = `conformance-${crypto.randomUUID()}@example.com`;
  const password = crypto.randomBytes(18).toString('base64url');
  const form = await go(`${base}/signup`);
  const up = await go(`${base}/signup`, { csrf: csrf(form.body), email, password, next: '/account' });
  if (up.status !== 303) throw new Error(`sign-up failed: ${up.status}`);
  const outbox = await fetch(`${base}/dev/outbox?to=${encodeURIComponent(email)}`);
  const link = /https?:\/\/[^\s<"]+\/verify-email\/[A-Za-z0-9_.-]+/.exec(await outbox.text())?.[0];
  if (!link) throw new Error('no verification link in the development outbox (a loopback base URL serves it)');
  const shown = await go(link);
  const done = await go(link, { csrf: csrf(shown.body) });
  if (done.status !== 200 && done.status !== 303) throw new Error(`e-mail verification failed: ${done.status}`);
}

async function authorizeAsPerson(authorizationUrl: string): Promise<void> {
  const consent = await follow(authorizationUrl);
  if (consent.status === 0) return; // the authorization server answered the client straight away (an error)
  if (consent.status !== 200 || !/id="allow"/.test(consent.body)) throw new Error(`no consent page (${consent.status}) at ${consent.url}`);
  const allowed = await go(consent.url, { csrf: csrf(consent.body), decision: 'allow' });
  if (!allowed.location) throw new Error(`consent answered ${allowed.status} without a redirect`);
  await follow(new URL(allowed.location, consent.url).href);
}

const reg = await fetch(`${base}/api/auth/oauth/register`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    client_name: 'MCP conformance suite',
    redirect_uris: [`${callbackOrigin}/callback`],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  }),
});
const client = (await reg.json()) as { client_id?: string };
if (reg.status !== 201 || !client.client_id) {
  console.error(`client registration failed: ${reg.status} ${JSON.stringify(client)}`);
  process.exit(1);
}
await signUp();

const child = spawn(node22, [suite, 'authorization', '--url', base, '--client-id', client.client_id, '--port', portArg, '--resource', `${base}/api/mcp`], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let driving: Promise<void> | undefined;
let pending = '';
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  pending += chunk.toString('utf8');
  const lines = pending.split('\n');
  pending = lines.pop()!;
  for (const line of lines) {
    const url = line.trim();
    if (!driving && url.startsWith(`${base}/api/auth/oauth/authorize?`)) {
      driving = authorizeAsPerson(url).catch((err: unknown) => {
        console.error(`conformance-authorization: the browser step failed: ${err instanceof Error ? err.message : String(err)}`);
      });
    }
  }
});
const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
await driving;
process.exit(code);
