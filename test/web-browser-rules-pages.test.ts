/// <reference lib="dom" />
// The rules pages in headless Chromium (issue 49, item 1): every district and building type is a
// section the reader opens; closed, Somerville's page is under 15,000 px at 1280 px; opened, every
// table fits its box at 1280 and 390 px with no word broken inside a cell; each standard reads under a
// human label, each cited value with its quote and the link to check it; an address in a place with
// rules but no answer links to that place's rules page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './support/harness.ts';
import { TEST_PASSWORD, signUpOrIn } from './support/auth-flow.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const EMAIL = 'rules.reader@example.com';
const CLOSED_LIMIT_PX = 15_000;

/** The page's height and width as the browser lays it out. */
const size = (page: Page) =>
  page.evaluate(() => ({
    height: document.documentElement.scrollHeight,
    scrollWidth: document.documentElement.scrollWidth,
    width: document.documentElement.clientWidth,
  }));

/**
 * Every rules table cell that may break a word or does not fit: a cell whose style lets a word break
 * anywhere (`overflow-wrap: anywhere | break-word`, `word-break: break-all | break-word`) or whose
 * content is wider than the cell; a table wider than its box.
 */
function brokenCells(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const table of document.querySelectorAll<HTMLTableElement>('table.rules-table')) {
      const box = table.parentElement!;
      if (table.getBoundingClientRect().width > box.clientWidth + 1)
        out.push(`table in ${table.closest('details')?.id}: ${table.getBoundingClientRect().width} px in a ${box.clientWidth} px box`);
      for (const cell of table.querySelectorAll<HTMLElement>('th, td, td *')) {
        const st = getComputedStyle(cell);
        const text = (cell.textContent ?? '').trim().slice(0, 40);
        if (st.overflowWrap === 'anywhere' || st.overflowWrap === 'break-word' || st.wordBreak === 'break-all' || st.wordBreak === 'break-word')
          out.push(`"${text}": ${st.overflowWrap} / ${st.wordBreak}`);
        if ((cell.tagName === 'TD' || cell.tagName === 'TH') && cell.scrollWidth > cell.clientWidth + 1)
          out.push(`"${text}": ${cell.scrollWidth} > ${cell.clientWidth}`);
      }
    }
    return out;
  });
}

describe('rules pages in headless Chromium at 1280 and 390 px', { skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, () => {
  let svc: TestServer;
  let browser: Browser;
  before(async () => {
    svc = await startTestServer({ places: ['cambridge-ma', 'somerville-ma'] });
    await signUpOrIn(svc.url, EMAIL);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
  });

  for (const width of [1280, 390]) {
    test(`${width} px: Somerville's and Cambridge's rules pages open district by district; every table fits, no word broken in a cell; labels, quotes and links`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const problems: string[] = [];
      for (const slug of ['somerville-ma', 'cambridge-ma']) {
        await page.goto(`${svc.url}/coverage/${slug}`);
        const closed = await size(page);
        console.log(`# /coverage/${slug} at ${width} px, sections closed: ${closed.height} px`);
        if (width === 1280 && closed.height >= CLOSED_LIMIT_PX) problems.push(`${slug}: ${closed.height} px tall closed`);
        const districts = await page.locator('details.district').count();
        if (districts < 6) problems.push(`${slug}: ${districts} district sections`);
        if (await page.locator('details[open]').count()) problems.push(`${slug}: a section is open before the reader opens it`);
        // The reader opens one district with the summary; it shows its building types, closed.
        await page.locator('details.district > summary').first().click();
        if ((await page.locator('details.district[open]').count()) !== 1) problems.push(`${slug}: a click on the summary does not open the district`);
        await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
        const opened = await size(page);
        if (opened.scrollWidth > opened.width) problems.push(`${slug}: horizontal scroll opened (${opened.scrollWidth} > ${opened.width})`);
        for (const b of await brokenCells(page)) problems.push(`${slug}: ${b}`);
        const rows = await page.evaluate(() =>
          [...document.querySelectorAll<HTMLTableRowElement>('table.rules-table tbody tr')].map((tr) => ({
            label: tr.querySelector('th')?.textContent ?? '',
            status: tr.querySelector('[data-status]')?.getAttribute('data-status') ?? '',
            quote: tr.querySelector('q')?.textContent ?? '',
            link: tr.querySelector('q')?.parentElement?.querySelector('a')?.getAttribute('href') ?? '',
          })),
        );
        if (rows.length < 20) problems.push(`${slug}: ${rows.length} rows`);
        for (const r of rows) {
          if (!/^[A-Z][a-z]+( [a-z-]+| \(?[A-Za-z-]+\)?)*$/.test(r.label) || /[a-z][A-Z]/.test(r.label))
            problems.push(`${slug}: label "${r.label}" is not words`);
          if (r.status.startsWith('cited') && (!r.quote || !r.link.startsWith('/sources/')))
            problems.push(`${slug}: ${r.label} (${r.status}) without its quote and link`);
        }
        const cited = rows.filter((r) => r.status.startsWith('cited')).length;
        if (slug === 'somerville-ma' && cited < 250) problems.push(`${slug}: ${cited} cited rows with quotes`);
        if (width === 390) {
          await page.evaluate(AXE_SOURCE);
          const axe = await page.evaluate(async () => {
            const r = await (
              window as unknown as { axe: { run: (d: Document, o: object) => Promise<{ violations: { id: string; impact: string }[] }> } }
            ).axe.run(document, { resultTypes: ['violations'] });
            return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
          });
          if (axe.length) problems.push(`${slug}: axe ${axe.join(', ')}`);
        }
      }
      await context.close();
      assert.deepEqual(problems, []);
    });
  }

  test('an address in a place with rules but no answer links to its rules page', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${svc.url}/signin?next=%2Fsites`);
    await page.fill('#email', EMAIL);
    await page.fill('#password', TEST_PASSWORD);
    await Promise.all([page.waitForURL(/\/sites$/), page.click('#content button[type=submit]')]);
    await page.goto(`${svc.url}/sites?${new URLSearchParams({ address: '99999 Highland Ave, Somerville, MA' })}`);
    assert.equal(await page.locator('#lot-summary, #summary').count(), 0, 'not answered');
    const link = page.locator('#rules-link a');
    assert.equal(await link.getAttribute('href'), '/coverage/somerville-ma');
    await Promise.all([page.waitForURL(/\/coverage\/somerville-ma$/), link.click()]);
    assert.ok((await page.locator('details.district').count()) >= 6);
    // A place without rules (a city siteline does not catalogue) gets no such link.
    await page.goto(`${svc.url}/sites?${new URLSearchParams({ address: '1 Main St, Springfield, IL' })}`);
    assert.equal(await page.locator('#rules-link').count(), 0);
    await context.close();
  });
});
