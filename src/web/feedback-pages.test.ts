// The feedback form in headless Chromium, as a person uses it: follow cityInventory's link, sign up,
// land on the prefilled form, add a phone number by mistake, send; the page shows what was stored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { startTestServer } from '../../test/support/harness.ts';
import { TEST_PASSWORD } from '../../test/support/auth-flow.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

test('feedback form in headless Chromium: sign up from the link, send a city request, see the scrubbed text stored', {
  skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`,
}, async () => {
  const svc = await startTestServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${svc.url}/feedback?city=Springfield%2C%20IL`);
    assert.match(page.url(), /\/signin\?next=%2Ffeedback/);
    await page.click('text=Sign up');
    await page.fill('#email', 'browser.feedback@example.com');
    await page.fill('#password', TEST_PASSWORD);
    await Promise.all([page.waitForURL(/\/feedback\?city=/), page.click('button[type=submit]')]);
    assert.equal(await page.inputValue('#category'), 'city_request');
    assert.equal(await page.inputValue('#message'), 'Please cover Springfield, IL.');
    await page.fill('#message', 'Please cover Springfield, IL. Call me on 217-555-0199.');
    await page.check('input[name=contactConsent]');
    await Promise.all([page.waitForLoadState('load'), page.click('#send-feedback')]);
    assert.match((await page.textContent('#feedback-received')) ?? '', /your feedback was received/);
    assert.equal(await page.textContent('#stored-message'), 'Please cover Springfield, IL. Call me on [removed: phone].');
    const rows = await svc.ctx.db.query<{ category: string; contact_email: string }>('SELECT category, contact_email FROM service_feedback');
    assert.deepEqual(rows, [{ category: 'city_request', contact_email: 'browser.feedback@example.com' }]);
  } finally {
    await browser.close();
    await svc.close();
  }
});
