/// <reference lib="dom" />
// Every page in headless Chromium at desktop and phone (390 px) widths: no console errors, no
// horizontal scroll, every control reachable by keyboard, no serious or critical axe-core violation;
// on the snapshot page the map renders (the canvas has pixels of the lot's outline colour) and its
// lot layer holds the lot. WebGL here is SwiftShader (software), which headless Chromium picks even
// with --disable-gpu.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from './harness.ts';
import { TEST_PASSWORD, claimUserIdentity } from './auth-flow.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const EMAIL = 'browser.consultant@example.com';

const sites = (address: string) => `/sites?${new URLSearchParams({ address })}`;
const PUBLIC_PAGES = ['/', '/coverage', '/signin', '/signup', '/reset-password', '/no-such-page', '/docs/api'];
// The snapshot (a whole lot, and a split lot), "did you mean", the bare form, the account page and its password and e-mail forms.
const ACORN = sites('11 Acorn St, Cambridge, MA');
// ... a misspelt city and a street not found in a covered city, and the public map (with the signed-in header).
const SIGNED_IN_PAGES = [
  '/sites',
  ACORN,
  sites('57 Inman St, Cambridge, MA'),
  sites('1 Elm Strreet, Cambridge, MA'),
  sites('11 Acorn St, Cambrige, MA'),
  sites('11 Zzyzx St, Cambridge, MA'),
  '/account',
  '/account/password',
  '/account/email',
  '/map',
];

interface PageReport {
  consoleErrors: string[];
}

async function open(context: BrowserContext, url: string): Promise<{ page: Page; report: PageReport }> {
  const page = await context.newPage();
  const report: PageReport = { consoleErrors: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') report.consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => report.consoleErrors.push(`pageerror: ${e.message}`));
  await page.goto(url);
  if (await page.$('[data-map-view]')) await page.waitForSelector('[data-map-view][data-state=ready]', { timeout: 60_000 });
  return { page, report };
}

/** Tabs through the page; returns how many visible focusable elements it has and those never reached. */
async function unreachableByKeyboard(page: Page): Promise<{ count: number; missed: string[] }> {
  const count = await page.evaluate(() => {
    const sel = 'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select, textarea, summary, [tabindex]:not([tabindex="-1"])';
    // checkVisibility: also false inside a closed <details> (its content is hidden, not unlaid: getClientRects still has boxes).
    const els = [...document.querySelectorAll<HTMLElement>(sel)].filter(
      (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden' && e.checkVisibility(),
    );
    els.forEach((e, i) => e.setAttribute('data-kb', String(i)));
    return els.length;
  });
  // The page records what takes focus; the keyboard does the rest.
  await page.evaluate(() => {
    const seen = new Set<string>();
    (window as unknown as { kbSeen: Set<string> }).kbSeen = seen;
    document.addEventListener('focusin', (e) => {
      const k = (e.target as HTMLElement).getAttribute?.('data-kb');
      if (k !== null && k !== undefined) seen.add(k);
    });
    (document.activeElement as HTMLElement | null)?.blur();
  });
  for (let i = 0; i < count + 10; i++) await page.keyboard.press('Tab');
  const missed = await page.evaluate(() => {
    const seen = (window as unknown as { kbSeen: Set<string> }).kbSeen;
    return [...document.querySelectorAll<HTMLElement>('[data-kb]')]
      .filter((e) => !seen.has(e.getAttribute('data-kb')!))
      .map((e) => `${e.tagName} ${e.id || e.className || e.textContent?.slice(0, 30)}`);
  });
  return { count, missed };
}

const AXE_SOURCE = fs.readFileSync(AXE, 'utf8');

/** Serious and critical axe-core violations. axe is evaluated through the DevTools protocol, which the page's CSP does not govern. */
async function axeSerious(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: { run: (d: Document, o: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe.run(document, { resultTypes: ['violations'] });
    if (!result.violations) return ['axe did not run'];
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id} (${v.impact}): ${v.nodes
            .slice(0, 3)
            .map((n) => n.target.join(' '))
            .join(' | ')}`,
      );
  });
}

/** What the snapshot map drew: distinct colours, pixels of the lot's outline colour, and what its layers hold. */
async function mapReport(page: Page) {
  return page.evaluate(() => {
    const m = (
      window as unknown as { sitelineMaps: { getCanvas(): HTMLCanvasElement; queryRenderedFeatures(o: object): { properties: Record<string, unknown> }[] }[] }
    ).sitelineMaps[0]!;
    const canvas = m.getCanvas();
    const off = document.createElement('canvas');
    off.width = canvas.width;
    off.height = canvas.height;
    const g = off.getContext('2d')!;
    g.drawImage(canvas, 0, 0);
    const data = g.getImageData(0, 0, off.width, off.height).data;
    const colours = new Set<number>();
    let outline = 0;
    for (let i = 0; i < data.length; i += 4) {
      colours.add((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!);
      // The lot's outline colour #0b3d91 (11, 61, 145), with a little tolerance for antialiasing.
      if (Math.abs(data[i]! - 11) < 12 && Math.abs(data[i + 1]! - 61) < 12 && Math.abs(data[i + 2]! - 145) < 12) outline++;
    }
    return {
      colours: colours.size,
      outline,
      lots: m.queryRenderedFeatures({ layers: ['lots-fill'] }).map((f) => String(f.properties.lot)),
      zoning: m.queryRenderedFeatures({ layers: ['zoning-fill'] }).map((f) => String(f.properties.code)),
      parcels: m.queryRenderedFeatures({ layers: ['parcels-line'] }).length,
    };
  });
}

/** `public`: the signed-out pages at every width given; `member`: the signed-in pages and the map. */
export function browserSuite(WIDTHS: number[], group: 'public' | 'member'): void {
  describe(`${group} pages in headless Chromium at ${WIDTHS.join(', ')} px`, { skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, () => {
    let svc: TestServer;
    let browser: Browser;
    before(async () => {
      svc = await startTestServer({ places: ['cambridge-ma'] });
      if (group === 'member') await claimUserIdentity(svc.url, EMAIL); // an account with a linked agent, for the account page
      browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
    });
    after(async () => {
      await browser?.close();
      await svc?.close();
    });

    for (const width of WIDTHS) {
      test(`${width} px: no console errors, no horizontal scroll, keyboard reaches every control, no serious axe violation${group === 'member' ? '; the map draws the lot from our tiles' : ''}`, async () => {
        const context = await browser.newContext({ viewport: { width, height: 900 } });
        if (group === 'member') {
          const signIn = await context.newPage();
          await signIn.goto(`${svc.url}/signin?next=%2Faccount`);
          await signIn.fill('#email', EMAIL);
          await signIn.fill('#password', TEST_PASSWORD);
          await Promise.all([signIn.waitForURL(/\/account$/), signIn.click('#content button[type=submit]')]);
          await signIn.close();
        }
        const problems: string[] = [];
        for (const path of group === 'public' ? PUBLIC_PAGES : SIGNED_IN_PAGES) {
          const { page, report } = await open(context, `${svc.url}${path}`);
          if (path === ACORN) {
            const map = await mapReport(page);
            if (map.colours <= 5) problems.push(`map: the canvas is blank (${map.colours} colours)`);
            if (map.outline <= 50) problems.push(`map: the lot outline is not drawn (${map.outline} pixels)`);
            if (!map.lots.includes('97-120')) problems.push(`map: lot layer holds ${map.lots.join(', ') || 'nothing'}`);
            if (!map.zoning.includes('C-1')) problems.push(`map: zoning from our tiles holds ${[...new Set(map.zoning)].join(', ') || 'nothing'}`);
            if (map.parcels === 0) problems.push('map: no neighbouring parcels from our tiles');
            // Above the fold on a desktop: the matched address, the map and the summary's district.
            if (width > 1000) {
              for (const sel of ['#matched-address', '#map', '#primary-zone']) {
                const box = await page.locator(sel).boundingBox();
                if (!box || box.y >= 900) problems.push(`${sel} not above the fold (y=${box?.y})`);
              }
            }
          }
          if (group === 'member' && !((await page.textContent('.who')) ?? '').includes(`Signed in as ${EMAIL}`))
            problems.push(`${path}: not the signed-in header`);
          if (path === '/docs/api') {
            // Headings wrap between words only (never mid-word), and none is wider than its box.
            const broken = await page.evaluate(() =>
              [...document.querySelectorAll<HTMLElement>('main h2, main h3')]
                .filter((h) => getComputedStyle(h).overflowWrap !== 'normal' || h.scrollWidth > h.clientWidth)
                .map((h) => h.textContent ?? ''),
            );
            if (broken.length) problems.push(`/docs/api: headings that may break mid-word or overflow: ${broken.slice(0, 5).join(' | ')}`);
            if ((await page.locator('pre.curl').count()) < 8) problems.push('/docs/api: a curl example per operation');
          }
          const scroll = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, cw: document.documentElement.clientWidth }));
          if (scroll.sw > scroll.cw) problems.push(`${path}: horizontal scroll (${scroll.sw} > ${scroll.cw})`);
          const violations = await axeSerious(page);
          if (violations.length) problems.push(`${path}: axe ${violations.join('; ')}`);
          const { count, missed } = await unreachableByKeyboard(page);
          if (count < 3) problems.push(`${path}: only ${count} focusable controls found (the check itself is broken?)`);
          if (missed.length) problems.push(`${path}: not reachable by keyboard: ${missed.join(', ')}`);
          // The 404 page's own status is reported by Chromium as a failed resource; nothing else may be.
          const errors = report.consoleErrors.filter((e) => !(path === '/no-such-page' && /status of 404/.test(e)));
          if (errors.length) problems.push(`${path}: console errors ${errors.join(' / ')}`);
          await page.close();
        }
        await context.close();
        assert.deepEqual(problems, []);
      });
    }
  });
}
