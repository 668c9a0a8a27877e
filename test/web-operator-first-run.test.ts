// An operator's first run (issue 49, item 5), in headless Chromium through the real server: a person
// signs up and the home page says to check the e-mail and offers a new link; the keys page of a fresh
// install (no staff) names the one command that makes the first staff member, and that command, run
// by the real `siteline` binary as the machine's operator while the service runs, opens /staff without
// a restart, where credit is granted. The claim page tells the CLI from an agent and says the expiry
// in words; an agent registered with /connect's curl shows as what registered it; times on the
// account pages are words, never ISO; every revoke (API key, agent, CLI login, connected app) confirms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { auth } from '@modelcontextprotocol/client';
import { startTestServer } from './support/harness.ts';
import { CookieJar, TEST_PASSWORD, onServer, verificationLinkFromOutbox } from './support/auth-flow.ts';
import { authorizeWithConsent } from './support/oauth-flow.ts';
import { runSiteline } from './support/cli.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const EMAIL = 'first.operator@example.com';
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d/;

/** What `curl -H 'content-type: application/json' -d '{...}'` sends: its own User-Agent, no label. */
async function register(url: string, body: Record<string, unknown>, userAgent: string) {
  const res = await fetch(`${url}/api/auth/agent/identity`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': userAgent },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 201);
  return (await res.json()) as { claim: { verification_uri: string; user_code: string } };
}

async function claimInBrowser(page: Page, link: string, code: string): Promise<{ title: string; main: string; expiry: string; done: string }> {
  await page.goto(link);
  const title = (await page.textContent('h1')) ?? '';
  const main = (await page.textContent('main')) ?? '';
  const expiry = (await page.textContent('#claim-expiry')) ?? '';
  await page.fill('#user_code', code);
  await Promise.all([page.waitForLoadState('load'), page.click('#confirm')]);
  return { title, main, expiry, done: (await page.textContent('#claim-done')) ?? '' };
}

test("an operator's first run in Chromium: check your e-mail, the first staff by `siteline staff add` without a restart, labels, times in words, a confirmation after every revoke", {
  skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`,
  timeout: 300_000,
}, async () => {
  const svc = await startTestServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();

    // Sign-up lands on the home page, which says to check the e-mail and offers a new link.
    await page.goto(`${svc.url}/signup?next=%2F`);
    await page.fill('#email', EMAIL);
    await page.fill('#password', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${svc.url}/`), page.click('button[type=submit]')]);
    assert.match((await page.textContent('#check-your-email')) ?? '', /Check your e-mail\.[\s\S]*first\.operator@example\.com/);
    await Promise.all([page.waitForLoadState('load'), page.click('#check-your-email #resend-verification')]);
    // Sign-up has just sent one, so the resend says when another may be asked for.
    assert.match(
      (await page.textContent('#verification-not-sent')) ?? '',
      /A verification e-mail was sent recently\. Check your mailbox, or ask for a new one in /,
    );
    const link = await verificationLinkFromOutbox(svc.url, EMAIL);
    assert.ok(link);
    await page.goto(link);
    await Promise.all([page.waitForLoadState('load'), page.click('#confirm-email')]);
    await page.goto(`${svc.url}/`);
    assert.equal(await page.locator('#check-your-email').count(), 0, 'verified: nothing to check');

    // A fresh install has no staff: the keys page names the command, and no restart.
    await page.goto(`${svc.url}/account/api-keys`);
    assert.match((await page.textContent('#no-staff-yet')) ?? '', /no staff yet[\s\S]*while it runs \(no restart/);
    const command = ((await page.textContent('#staff-add-command')) ?? '').trim();
    assert.equal(command, `siteline staff add ${EMAIL}`);
    assert.equal((await page.goto(`${svc.url}/staff`))!.status(), 403);
    const operatorEnv = {
      SITELINE_DATA_DIR: svc.ctx.config.dataDir,
      DATABASE_URL: '',
      SITELINE_CONFIG_DIR: path.join(svc.ctx.config.dataDir, 'operator-cli'),
      LOG_LEVEL: 'warn',
    };
    const added = await runSiteline([...command.split(' ').slice(1), '--operator'], operatorEnv);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /is staff now \(no restart needed/);
    assert.equal((await page.goto(`${svc.url}/staff`))!.status(), 200, 'the staff pages open on the same running service');
    await page.fill('#grant-form [name=email]', EMAIL);
    await page.fill('#credits', '25');
    await page.fill('#grant-reason', 'first credit of this install');
    await Promise.all([page.waitForLoadState('load'), page.click('#grant-form button[type=submit]')]);
    await page.goto(`${svc.url}/account/api-keys`);
    assert.equal((await page.textContent('#balance'))?.trim(), '25');
    assert.equal(await page.locator('#no-staff-yet').count(), 0, 'with staff, the first-run command is not shown');

    // An API key: made, listed with times in words, revoked with a confirmation.
    await page.fill('#name', 'laptop');
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Create key")')]);
    await page.goto(`${svc.url}/account/api-keys`);
    const keys = (await page.textContent('#keys')) ?? '';
    assert.match(keys, /just now/);
    assert.doesNotMatch(keys, ISO);
    assert.doesNotMatch(keys, /\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    await Promise.all([page.waitForLoadState('load'), page.click('#keys button:has-text("Revoke")')]);
    assert.match((await page.textContent('#page-message')) ?? '', /The key "laptop" \(sl_live_[^)]*…\) is revoked/);
    await page.reload();
    assert.equal(await page.locator('#page-message').count(), 0, 'shown once');

    // An agent registered with /connect's curl (no label): the claim page says the expiry in words, the account page what registered it.
    const agent = await register(svc.url, { type: 'service_auth', login_hint: EMAIL }, 'curl/8.5.0');
    const agentClaim = await claimInBrowser(page, onServer(svc.url, agent.claim.verification_uri), agent.claim.user_code);
    assert.equal(agentClaim.title, 'Link an agent');
    assert.match(agentClaim.main, /An agent \(Agent registered with curl 8\.5\.0\) asked to act for your account/);
    assert.match(agentClaim.expiry, /^in \d+ minutes?, (tomorrow )?at \d\d:\d\d UTC$/);
    assert.doesNotMatch(agentClaim.main, ISO);
    assert.match(agentClaim.done, /the agent is now linked/);

    // The CLI (`siteline login` registers as "CLI on <host>"): not "Link an agent".
    const cli = await register(svc.url, { type: 'service_auth', login_hint: EMAIL, label: 'CLI on studio-mac' }, 'node');
    const cliClaim = await claimInBrowser(page, onServer(svc.url, cli.claim.verification_uri), cli.claim.user_code);
    assert.equal(cliClaim.title, 'Sign in the siteline CLI');
    assert.doesNotMatch(cliClaim.main, /Link an agent|Link this agent/);
    assert.match(cliClaim.main, /The siteline command-line tool \(CLI on studio-mac\)/);
    assert.match(cliClaim.expiry, /^in \d+ minutes?, (tomorrow )?at \d\d:\d\d UTC$/);
    assert.match(cliClaim.done, /the CLI is now signed in as first\.operator@example\.com/);

    // A connected app (the SDK's OAuth flow with this browser's session).
    const jar = new CookieJar();
    const session = (await context.cookies()).find((c) => c.name === 'sl_session')!;
    jar.store(new Response(null, { headers: [['set-cookie', `sl_session=${session.value}; Path=/`]] }));
    const { client, serverUrl, code, iss } = await authorizeWithConsent(svc.url, svc.ctx.config.baseUrl, jar);
    assert.equal(await auth(client, { serverUrl, authorizationCode: code, iss }), 'AUTHORIZED');

    await page.goto(`${svc.url}/account`);
    const names = await page.locator('.agent-name').allTextContents();
    assert.deepEqual(names.sort(), ['Agent registered with curl 8.5.0', 'CLI on studio-mac']);
    const account = (await page.textContent('main')) ?? '';
    assert.doesNotMatch(account, ISO);
    assert.doesNotMatch(account, /\d{4}-\d\d-\d\d/, 'no date in ISO form on the account page');
    assert.match(account, /linked (just now|\d+ minutes? ago)/);

    const revoke = async (selector: string) => {
      await Promise.all([page.waitForLoadState('load'), page.click(selector)]);
      return (await page.textContent('#page-message')) ?? '';
    };
    assert.match(await revoke('button[aria-label="Revoke Agent registered with curl 8.5.0"]'), /The agent "Agent registered with curl 8\.5\.0" is revoked/);
    assert.match(await revoke('button[aria-label="Revoke CLI on studio-mac"]'), /The CLI login "CLI on studio-mac" is revoked/);
    assert.match(await revoke('button[aria-label="Revoke Test MCP client"]'), /The app "Test MCP client" is revoked/);
    await page.reload();
    assert.equal(await page.locator('#page-message').count(), 0, 'shown once');
    await context.close();
  } finally {
    await browser.close();
    await svc.close();
  }
});
