// @engine-independent: Chromium's CSP and redirects; the OAuth storage runs on PostgreSQL in auth-oauth.test.ts.
// Browser OAuth the way Claude, Cursor, VS Code and MCP Inspector do it, in headless Chromium: the
// official SDK client's transport meets a 401 on a gated tool, runs discovery and Dynamic Client
// Registration, and hands us the authorization URL; Chromium signs up and clicks Allow; the browser
// lands on the client's loopback redirect_uri (an HTTP server of this test); the SDK exchanges the code,
// calls getFeasibilitySnapshot with the token, then refreshes. Fetch-driven tests cannot see what
// Chromium enforces (CSP form-action applies to the whole redirect chain of the consent form).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Page } from 'playwright-core';
import { Client, StreamableHTTPClientTransport, UnauthorizedError, auth, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { startTestServer } from './support/harness.ts';
import { onServer, TEST_PASSWORD, verificationLinkFromOutbox } from './support/auth-flow.ts';
import { MemoryOAuthClient } from './support/oauth-flow.ts';
import { MODERN } from './mcp-support.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const skip = !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`;

/** The client's loopback callback: records every request's query and answers a small page. */
async function loopbackCallback(
  host = '127.0.0.1',
): Promise<{ url: string; hits: URLSearchParams[]; next(): Promise<URLSearchParams>; close(): Promise<void> }> {
  const hits: URLSearchParams[] = [];
  let waiting: ((p: URLSearchParams) => void) | undefined;
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (u.pathname !== '/callback') return void res.writeHead(204).end(); // the browser's /favicon.ico
    const params = u.searchParams;
    hits.push(params);
    waiting?.(params);
    waiting = undefined;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Done</title><p id="done">You can close this window.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/callback`,
    hits,
    next: () => new Promise((resolve) => (waiting = resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function connect(serverUrl: string, provider: OAuthClientProvider): { client: Client; transport: StreamableHTTPClientTransport } {
  const client = new Client({ name: 'browser-oauth-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider });
  return { client, transport };
}

/** Console errors of the page, and every CSP violation Chromium reports. */
function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return errors;
}

/**
 * Opens the authorization URL in Chromium, signs a new account up from the sign-in page, meets the
 * consent page asking for a verified e-mail (no Allow yet), confirms the address through the mailed
 * link in the same browser, and comes back to the consent page, now with Allow.
 */
async function signUpToConsent(page: Page, authorizationUrl: string, email: string, svcUrl: string, consoleErrors: string[]): Promise<void> {
  await page.goto(authorizationUrl);
  await page.click('text=Sign up');
  await page.fill('#email', email);
  await page.fill('#password', TEST_PASSWORD);
  await verifyFromConsent(page, email, svcUrl, consoleErrors);
}

/** On the unverified consent page: no Allow; the mailed link confirmed in this browser; back to the page, which now allows. */
async function verifyFromConsent(page: Page, email: string, svcUrl: string, consoleErrors: string[]): Promise<void> {
  // consent waits for a verified address: the consent page answers 403 with what to do
  const waiting = page.waitForResponse((r) => r.url().includes('/api/auth/oauth/interaction/') && r.status() === 403, { timeout: 15_000 });
  await Promise.all([waiting, page.waitForSelector('#email-unverified'), page.click('button[type=submit]')]);
  // Chromium logs that expected 403 as a console error; it is the only one allowed.
  const expected = consoleErrors.findIndex((e) => /status of 403/.test(e));
  if (expected >= 0) consoleErrors.splice(expected, 1);
  assert.equal(await page.$('#allow'), null, 'no Allow before the address is confirmed');
  const consentUrl = page.url();
  const link = await verificationLinkFromOutbox(svcUrl, email);
  assert.ok(link, 'the verification mail is in the outbox');
  await page.goto(onServer(svcUrl, link));
  await Promise.all([page.waitForSelector('#email-verified'), page.click('#confirm-email')]);
  await page.goto(consentUrl);
  await page.waitForSelector('#allow');
}

/** Clicks a consent button and returns the query the browser brings to the redirect_uri, or fails after 15 s naming what it saw. */
async function answerConsent(
  page: Page,
  button: '#allow' | '#deny',
  callback: { next(): Promise<URLSearchParams> },
  consoleErrors: string[],
): Promise<URLSearchParams> {
  const landed = callback.next();
  await page.click(button);
  return Promise.race([
    landed,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`the browser never reached the redirect_uri; console: ${consoleErrors.join(' | ')}; at ${page.url()}`)), 15_000),
    ),
  ]);
}

const snapshotArgs = { address: '57 Inman St, Cambridge, MA', source: 'full' };

test('Chromium: SDK OAuth client, sign-up, consent Allow, loopback callback, token, gated tool, refresh', { skip }, async () => {
  const svc = await startTestServer({ places: ['cambridge-ma'] });
  const callback = await loopbackCallback();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const serverUrl = `${svc.ctx.config.baseUrl}/api/mcp`;
    const provider = new MemoryOAuthClient(callback.url, 'Browser MCP client');

    // 1. The gated tool without a token: 401 -> the SDK discovers, registers (DCR) and asks for a redirect.
    const first = connect(serverUrl, provider);
    await first.client.connect(first.transport);
    await assert.rejects(first.client.callTool({ name: 'getFeasibilitySnapshot', arguments: snapshotArgs }), UnauthorizedError);
    assert.ok(provider.info?.client_id, 'dynamic client registration happened');
    const authz = provider.authorizationUrl;
    assert.ok(authz, 'the SDK asked to open the authorization URL');
    assert.equal(authz.searchParams.get('redirect_uri'), callback.url);

    // 2. The human in Chromium: sign up from the sign-in page, then Allow on the consent page.
    const context = await browser.newContext();
    const page = await context.newPage();
    const consoleErrors = watchConsole(page);
    await page.goto(authz.href);
    assert.match(page.url(), /\/signin\?next=/);
    await page.click('text=Sign up');
    await page.fill('#email', 'chromium.oauth@example.com');
    await page.fill('#password', TEST_PASSWORD);
    const consentResponse = page.waitForResponse((r) => r.url().includes('/api/auth/oauth/interaction/') && r.status() === 200);
    await verifyFromConsent(page, 'chromium.oauth@example.com', svc.url, consoleErrors);
    assert.match((await page.textContent('#client-name')) ?? '', /Browser MCP client/);
    // The consent form may post to this site and end at this client's redirect origin, nowhere else.
    const csp = (await consentResponse).headers()['content-security-policy'] ?? '';
    assert.match(csp, new RegExp(`form-action 'self' ${new URL(callback.url).origin.replace(/\./g, '\\.')};`));
    const params = await answerConsent(page, '#allow', callback, consoleErrors);
    await page.waitForSelector('#done');
    assert.equal(new URL(page.url()).origin, new URL(callback.url).origin, 'the browser ends on the client redirect_uri');
    const code = params.get('code');
    assert.ok(code, `no code in ${params}`);
    assert.equal(params.get('iss'), svc.ctx.config.baseUrl);
    assert.deepEqual(
      consoleErrors.filter((e) => /Content Security Policy|form-action/i.test(e)),
      [],
      'no CSP violation',
    );
    assert.deepEqual(consoleErrors, [], 'no console errors');
    await context.close();

    // 3. The SDK exchanges the code and calls the gated tool with the token.
    await first.transport.finishAuth(params);
    assert.ok(provider.saved?.access_token && provider.saved?.refresh_token);
    const second = connect(serverUrl, provider);
    await second.client.connect(second.transport);
    const r = (await second.client.callTool({ name: 'getFeasibilitySnapshot', arguments: snapshotArgs })) as any;
    assert.notEqual(r.isError, true, JSON.stringify(r).slice(0, 300));
    assert.equal(r.structuredContent.answered, true);
    await second.client.close();
    await first.client.close();

    // 4. Refresh: a new access token and a rotated refresh token; the new token calls the tool.
    const before = provider.saved;
    assert.equal(await auth(provider, { serverUrl }), 'AUTHORIZED');
    assert.notEqual(provider.saved.refresh_token, before.refresh_token, 'refresh tokens rotate');
    assert.notEqual(provider.saved.access_token, before.access_token);
    const third = connect(serverUrl, provider);
    await third.client.connect(third.transport);
    const again = (await third.client.callTool({ name: 'getFeasibilitySnapshot', arguments: snapshotArgs })) as any;
    assert.equal(again.structuredContent.answered, true);
    await third.client.close();
    assert.equal(callback.hits.length, 1, 'the redirect_uri was reached exactly once');
  } finally {
    await browser.close();
    await callback.close();
    await svc.close();
  }
});

test('Chromium: Deny on the consent page returns access_denied to the redirect_uri', { skip }, async () => {
  const svc = await startTestServer();
  const callback = await loopbackCallback();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const serverUrl = `${svc.ctx.config.baseUrl}/api/mcp`;
    const provider = new MemoryOAuthClient(callback.url, 'Denied MCP client');
    assert.equal(await auth(provider, { serverUrl }), 'REDIRECT');
    const context = await browser.newContext();
    const page = await context.newPage();
    const consoleErrors = watchConsole(page);
    await signUpToConsent(page, provider.authorizationUrl!.href, 'chromium.deny@example.com', svc.url, consoleErrors);
    const params = await answerConsent(page, '#deny', callback, consoleErrors);
    assert.equal(params.get('error'), 'access_denied');
    assert.deepEqual(consoleErrors, [], 'no console errors');
    await context.close();
  } finally {
    await browser.close();
    await callback.close();
    await svc.close();
  }
});

test('Chromium: an IPv6 loopback redirect_uri (which CSP cannot name) still receives its code', { skip }, async () => {
  const svc = await startTestServer();
  const callback = await loopbackCallback('::1');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const serverUrl = `${svc.ctx.config.baseUrl}/api/mcp`;
    const provider = new MemoryOAuthClient(callback.url, 'IPv6 MCP client');
    assert.equal(await auth(provider, { serverUrl }), 'REDIRECT');
    const context = await browser.newContext();
    const page = await context.newPage();
    const consoleErrors = watchConsole(page);
    await signUpToConsent(page, provider.authorizationUrl!.href, 'chromium.ipv6@example.com', svc.url, consoleErrors);
    const params = await answerConsent(page, '#allow', callback, consoleErrors);
    assert.ok(params.get('code'));
    assert.deepEqual(consoleErrors, [], 'no console errors');
    assert.equal(await auth(provider, { serverUrl, authorizationCode: params.get('code')!, iss: params.get('iss')! }), 'AUTHORIZED');
    assert.ok(provider.saved?.access_token);
    await context.close();
  } finally {
    await browser.close();
    await callback.close();
    await svc.close();
  }
});
