// The small traps (issue 49, item 6), in headless Chromium through the real server:
// - /docs/api's Idempotency-Key example makes a fresh key each time it runs: the example copied from
//   the page, run by a shell twice for two addresses, answers 200 both times (one printed key gave 422);
//   the page names no internal function and is short on a phone, its folded parts open from a link;
// - the phone snapshot page keeps its sections folded under 8,000 px until opened, and a footnote
//   link opens the section it points into.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFile } from 'node:child_process';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { startTestServer, type TestServer } from './support/harness.ts';
import { getUserToken, signUpOrIn } from './support/auth-flow.ts';
import { accountIdOf, api, grant } from './rest-support.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const skip = !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`;
const PHONE = { width: 390, height: 844 };
const PHONE_PAGE_MAX_PX = 8_000;

let svc: TestServer;
let browser: Browser;
before(async () => {
  if (skip) return;
  svc = await startTestServer({ places: ['cambridge-ma'] });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
});
after(async () => {
  await browser?.close();
  await svc?.close();
});

const pageHeight = (ctx: BrowserContext, url: string) =>
  ctx.newPage().then(async (p) => {
    await p.goto(url);
    return { page: p, height: await p.evaluate(() => document.documentElement.scrollHeight) };
  });

async function signedInPhone(email: string): Promise<BrowserContext> {
  const jar = await signUpOrIn(svc.url, email);
  const context = await browser.newContext({ viewport: PHONE });
  await context.addCookies([{ name: 'sl_session', value: jar.get('sl_session')!, url: svc.url }]);
  return context;
}

const run = (cmd: string, env: Record<string, string>) =>
  new Promise<{ stdout: string; stderr: string }>((resolve) => execFile('sh', ['-c', cmd], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } }, (_e, stdout, stderr) => resolve({ stdout, stderr })));

test('/docs/api on a phone: the Idempotency-Key example, pasted twice for two addresses, answers 200 twice; no internal name; short until opened', { skip }, async () => {
  const context = await browser.newContext({ viewport: PHONE });
  const { page, height } = await pageHeight(context, `${svc.url}/docs/api`);
  assert.ok(height < PHONE_PAGE_MAX_PX, `/docs/api is ${height} px tall at 390 px (at most ${PHONE_PAGE_MAX_PX} until opened)`);
  const text = (await page.textContent('main')) ?? '';
  assert.doesNotMatch(text, /produceProjectReport/);

  // The example as a person copies it from the page (innerText: what the screen shows).
  const example = await page.locator('#checkSite pre.curl').innerText();
  assert.match(example, /Idempotency-Key: \$\(/, 'the shell makes the key');
  const jwt = await getUserToken(svc.url, 'docs.paster@example.com');
  const key = (await api(svc.url, '/api/v1/keys', { token: jwt, body: { name: 'docs' } })).json.key as string;
  await grant(svc.ctx, await accountIdOf(svc.ctx, 'docs.paster@example.com'), 10);
  const example2 = example.replace('11 Acorn St, Cambridge, MA', '57 Inman St, Cambridge, MA');
  assert.notEqual(example2, example, 'the example names an address to change');
  for (const cmd of [example, example2]) {
    const r = await run(`${cmd} -o /dev/null -w '%{http_code}'`, { SITELINE_API_KEY: key });
    assert.equal(r.stdout, '200', `${cmd}\n${r.stderr}`);
  }

  // A link to a folded schema opens it.
  const link = page.locator('#checkSite a[href^="#schema-"]').first();
  const target = (await link.getAttribute('href'))!;
  await page.locator('#checkSite details.op-fields > summary').click();
  assert.equal(await page.locator(`${target} dl`).first().isVisible(), false, 'folded before the link');
  await link.click();
  assert.equal(await page.locator(`${target} dl`).first().isVisible(), true, 'the link opened it');
  await context.close();
});

test('the phone snapshot page: under 8,000 px with its sections folded; opening them shows everything; a footnote link opens its section', { skip }, async () => {
  const context = await signedInPhone('phone.folds@example.com');
  const url = `${svc.url}/sites?${new URLSearchParams({ address: '11 Acorn St, Cambridge, MA' })}`;
  const { page, height } = await pageHeight(context, url);
  assert.ok(height < PHONE_PAGE_MAX_PX, `the phone snapshot page is ${height} px tall (at most ${PHONE_PAGE_MAX_PX} until opened)`);
  const folds = page.locator('details.fold');
  assert.ok((await folds.count()) >= 5, 'the sections below the summary are folded');
  assert.equal(await page.locator('#envelope .std').first().isVisible(), false);

  // A footnote in the summary points into the folded citations: following it opens them.
  const footnote = page.locator('#summary sup a[href^="#cite-"]').first();
  if (await footnote.count()) {
    const href = (await footnote.getAttribute('href'))!;
    await footnote.click();
    assert.equal(await page.locator(href).isVisible(), true, `${href} is shown after its link`);
  }

  const closed = page.locator('details.fold:not([open]) > summary');
  while (await closed.count()) await closed.first().click();
  const opened = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(opened > height + 2_000, `opened, the page shows the rest (${height} -> ${opened} px)`);
  assert.equal(await page.locator('#envelope .std').first().isVisible(), true);
  await context.close();
});
