/// <reference lib="dom" />
// No internal name on any page (issue 49, item 2): a crawler in headless Chromium opens every page it
// can reach by following links, signed out and then signed in (a staff account with a project that has
// a finished analysis and is listed on the map), and reads each page's visible text for camelCase keys
// (`minSideYardFt`, `lot.areaSqft`), snake_case codes (`planned_not_live`, `unverified_default`) and file
// names (`RULES-FACTS.md`). Text shown as code on purpose (`<pre>`, `<code>`: a curl command, a CLI line
// to type) is left out, as are URLs and e-mail addresses, the held bylaw text (`/sources/…`, the
// city's own words) and the API's reference pages (/docs/api, /connect), whose subject is the API's names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { startTestServer, type TestServer } from './support/harness.ts';
import { TEST_PASSWORD, getUserToken, signUpOrIn } from './support/auth-flow.ts';
import { connectClient } from './mcp-support.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const EMAIL = 'names.crawler@example.com';
const MAX_PAGES = 70;

const sites = (address: string) => `/sites?${new URLSearchParams({ address })}`;
const PUBLIC_SEEDS = [
  '/',
  '/coverage',
  '/coverage/somerville-ma',
  '/coverage/cambridge-ma',
  '/map',
  '/feedback',
  '/signin',
  '/signup',
  '/reset-password',
  '/docs/api',
  '/connect',
  '/no-such-page',
];
const MEMBER_SEEDS = [
  sites('11 Acorn St, Cambridge, MA'),
  sites('57 Inman St, Cambridge, MA'),
  sites('1 Elm Strreet, Cambridge, MA'),
  sites('11 Acorn St, Cambrige, MA'),
  sites('11 Zzyzx St, Cambridge, MA'),
  sites('99999 Highland Ave, Somerville, MA'),
  sites('233 S Wacker Dr, Chicago, IL'),
  `${sites('11 Windom St, Somerville, MA')}&district=NR&buildingType=Detached+House`,
  '/sites',
  '/projects',
  '/account',
  '/staff',
];

/** Names that are camel- or snake-cased in their own right: a product, and the city's own name for its data in the attribution its licence asks for. */
const ALLOWED = new Set(['enCodePlus', 'iPhone', 'iPad', 'macOS', 'cambridgegis_data']);
/** The API's reference pages: their subject is the API's own names, for a developer or an agent to type. */
const REFERENCE_PAGES = /^\/(docs\/api|connect)\b/;

/** Internal names in a text: camelCase keys (also dotted), snake_case codes, file names. */
export function internalNames(text: string): string[] {
  const clean = text
    .replace(/\bhttps?:\/\/\S+/g, ' ')
    .replace(/\S+@\S+\.\w+/g, ' ')
    .replace(/(^|\s)\/[\w/.?=&%-]+/g, ' '); // a path shown as a path
  const out = new Set<string>();
  for (const m of clean.matchAll(/\b(?:[a-z]+\.)?[a-z]+(?:[A-Z][a-z0-9]*)+\b/g)) if (!ALLOWED.has(m[0])) out.add(m[0]);
  for (const m of clean.matchAll(/\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g)) if (!ALLOWED.has(m[0])) out.add(m[0]);
  for (const m of clean.matchAll(/\b[\w-]+\.(?:md|json|ts|js|mjs|csv|zip|shp|dbf|geojson|txt|sql)\b/gi)) out.add(m[0]);
  return [...out];
}

interface Found {
  path: string;
  names: string[];
}

/** Opens pages breadth-first from the seeds, following same-origin links (not sign-out, downloads or the held bylaw text). */
async function crawl(context: BrowserContext, base: string, seeds: string[], seen: Set<string>): Promise<Found[]> {
  const queue = [...seeds];
  const found: Found[] = [];
  const perPath = new Map<string, number>();
  const page = await context.newPage();
  while (queue.length && seen.size < MAX_PAGES) {
    const path = queue.shift()!;
    // One page per shape: /projects/<id> once, /coverage/x?district=… once per place.
    const shape = path.replace(/[0-9a-f]{8}-[0-9a-f-]{27,}/g, ':id').replace(/\?district=.*/, '?district');
    if (seen.has(shape)) continue;
    // "Did you mean" offers many addresses of one kind: a dozen answers are enough of them.
    const pathname = shape.split('?')[0]!;
    perPath.set(pathname, (perPath.get(pathname) ?? 0) + 1);
    if (perPath.get(pathname)! > 14) continue;
    seen.add(shape);
    const res = await page.goto(`${base}${path}`);
    if (!res || !(res.headers()['content-type'] ?? '').includes('text/html')) continue;
    const { text, links } = await page.evaluate(() => {
      const body = document.body.cloneNode(true) as HTMLElement;
      body.querySelectorAll('pre, code, script, style, [hidden]').forEach((e) => e.remove());
      document.body.appendChild(body);
      body.style.position = 'absolute';
      const text = body.innerText;
      body.remove();
      const links = [...document.querySelectorAll<HTMLAnchorElement>('a[href]')].map((a) => a.href);
      return { text, links };
    });
    const names = REFERENCE_PAGES.test(path) ? [] : internalNames(text);
    if (names.length) found.push({ path, names });
    for (const href of links) {
      const u = new URL(href);
      if (
        u.origin !== base ||
        /^\/(signout|sources\/|assets\/|dev\/|api\/|\.well-known)/.test(u.pathname) ||
        /\.(json|pdf|js|css|png)$/.test(u.pathname) ||
        /\/(report|export)/.test(u.pathname)
      )
        continue;
      queue.push(`${u.pathname}${u.search}`);
    }
  }
  await page.close();
  return found;
}

describe('no internal names on any page, signed out and signed in', { skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, () => {
  let svc: TestServer;
  let browser: Browser;
  before(async () => {
    svc = await startTestServer({ places: ['cambridge-ma', 'somerville-ma'], analysisWorkers: { concurrency: 0 }, env: { SITELINE_STAFF_EMAILS: EMAIL } });
    await signUpOrIn(svc.url, EMAIL);
    // A project with a finished analysis: its page shows the derived values and the analysis's notes.
    const client = await connectClient(svc.url, 'modern', await getUserToken(svc.url, EMAIL));
    try {
      const created = (await client.callTool({
        name: 'saveToProject',
        arguments: { action: 'create', name: 'Acorn crawl', address: '11 Acorn St, Cambridge, MA', preview: false },
      })) as { structuredContent: { project: { projectId: string } } };
      await client.callTool({ name: 'runFeasibilityAnalysis', arguments: { projectId: created.structuredContent.project.projectId } });
    } finally {
      await client.close();
    }
    const { startAnalysisWorkers, workerOptions } = await import('../src/analysis/analysis-workers.ts');
    const workers = startAnalysisWorkers(svc.ctx, workerOptions(svc.ctx.config, { concurrency: 1, pollMs: 50 }));
    for (let i = 0; i < 240; i++) {
      const rows = await svc.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM analysis_runs WHERE status = 'succeeded'");
      if (rows[0]!.n) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    await workers.stop();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
  });

  test("the crawler finds no camelCase key, snake_case code or file name in any page's text", async () => {
    const seen = new Set<string>();
    const signedOut = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const found = await crawl(signedOut, svc.url, PUBLIC_SEEDS, seen);
    await signedOut.close();
    const member = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const signIn = await member.newPage();
    await signIn.goto(`${svc.url}/signin?next=%2Fprojects`);
    await signIn.fill('#email', EMAIL);
    await signIn.fill('#password', TEST_PASSWORD);
    await Promise.all([signIn.waitForURL(/\/projects$/), signIn.click('#content button[type=submit]')]);
    // List the project on the public map (the page's own form), so /map shows a listing.
    await signIn.locator('#content a[href^="/projects/"]').first().click();
    await signIn.waitForURL(/\/projects\/[0-9a-f-]+$/);
    const list = signIn.locator('form[action$="/listing"]');
    if (await list.locator('input[name=confirm]').count()) {
      await list.locator('input[name=confirm]').check();
      await Promise.all([signIn.waitForLoadState('load'), list.locator('button[type=submit]').click()]);
    }
    const projectPath = new URL(signIn.url()).pathname;
    // The listing reads its lifecycle in words ("Prospect"), not the stored value ("prospect").
    await signIn.goto(`${svc.url}/map`);
    const row = (await signIn.locator('tr', { hasText: 'Acorn crawl' }).innerText()).split('\t').map((c) => c.trim());
    assert.ok(row.includes('Prospect') && !row.includes('prospect'), row.join(' | '));
    await signIn.close();
    const signedInSeen = new Set<string>();
    found.push(...(await crawl(member, svc.url, [projectPath, ...MEMBER_SEEDS, ...PUBLIC_SEEDS], signedInSeen)));
    await member.close();
    console.log(`# crawled ${seen.size} page shapes signed out, ${signedInSeen.size} signed in`);
    assert.ok(seen.size >= 10 && signedInSeen.size >= 20, `the crawl reached too few pages (${seen.size}, ${signedInSeen.size})`);
    assert.ok(signedInSeen.has('/projects/:id') && signedInSeen.has('/map'), 'the project page and the map were read');
    assert.deepEqual(found, []);
  });

  test('the detector itself: it finds the known leaks and passes words', () => {
    assert.deepEqual(internalNames('Status: live planned_not_live'), ['planned_not_live']);
    assert.deepEqual(internalNames('Worked out from: minSideYardFt, lot.areaSqft.'), ['minSideYardFt', 'lot.areaSqft']);
    assert.deepEqual(internalNames("defined in this place's notes (RULES-FACTS.md)"), ['RULES-FACTS.md']);
    assert.deepEqual(
      internalNames(
        'Maximum floor area ratio (FAR): No limit, per S1 — indicative, unverified. See https://x.example/a_b.json or ask a.b_c@example.com; published on enCodePlus.',
      ),
      [],
    );
  });
});
