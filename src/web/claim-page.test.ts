// The claim page in headless Chromium: the human follows the agent's link, signs up, confirms the
// e-mail from the outbox, types the code, confirms; the agent's poll then gets its tokens. No JavaScript is involved on the pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { startTestServer } from '../../test/support/harness.ts';
import { CLAIM_GRANT, TEST_PASSWORD, postJson, tokenRequest, verificationLinkFromOutbox } from '../../test/support/auth-flow.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

test('claim page in headless Chromium: sign up from the link, verify the e-mail from the outbox, a wrong code, the right code, then the poll succeeds', {
  skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`,
}, async () => {
  const svc = await startTestServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const email = 'browser.human@example.com';
    const reg = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: email });
    assert.equal(reg.status, 201);
    const { verification_uri: link, user_code: code } = reg.json.claim as { verification_uri: string; user_code: string };

    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(link);
    assert.match(page.url(), /\/signin\?next=%2Fclaim%2F/);
    await page.click('text=Sign up');
    await page.fill('#email', email);
    await page.fill('#password', TEST_PASSWORD);
    await Promise.all([page.waitForURL(/\/claim\//), page.click('button[type=submit]')]);
    assert.equal(new URL(page.url()).pathname, new URL(link).pathname, 'back on the claim page after signing up');
    assert.match((await page.textContent('main')) ?? '', /browser\.human@example\.com/);

    // A new account confirms its e-mail first: the link from the (development) outbox, then back to the claim.
    assert.match((await page.textContent('#email-unverified')) ?? '', /Confirm your e-mail address first/);
    assert.equal(await page.locator('#user_code').count(), 0);
    const verify = await verificationLinkFromOutbox(svc.url, email);
    assert.ok(verify);
    await page.goto(verify);
    await Promise.all([page.waitForLoadState('load'), page.click('#confirm-email')]);
    assert.match((await page.textContent('#email-verified')) ?? '', /browser\.human@example\.com is verified/);
    await page.goto(link);

    // A wrong code is refused on the page; the agent keeps waiting.
    await page.fill('#user_code', code === '123456' ? '654321' : '123456');
    await Promise.all([page.waitForLoadState('load'), page.click('#confirm')]);
    assert.match((await page.textContent('#claim-error')) ?? '', /not right\. 4 attempt/);
    assert.equal((await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: reg.json.claim_token })).json.error, 'authorization_pending');

    await page.fill('#user_code', code);
    await Promise.all([page.waitForLoadState('load'), page.click('#confirm')]);
    assert.match((await page.textContent('#claim-done')) ?? '', /agent is now linked to browser\.human@example\.com/);

    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'sl_session');
    assert.ok(session?.httpOnly && session.sameSite === 'Lax');

    const poll = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: reg.json.claim_token });
    assert.equal(poll.status, 200, JSON.stringify(poll.json));
    assert.equal(poll.json.scope, 'mcp');
    assert.ok(poll.json.identity_assertion);
    await context.close();
  } finally {
    await browser.close();
    await svc.close();
  }
});
