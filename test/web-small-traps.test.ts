// The small traps (issue 49, item 6), in headless Chromium through the real server:
// - /docs/api's Idempotency-Key example makes a fresh key each time it runs: the example copied from
//   the page, run by a shell twice for two addresses, answers 200 both times (one printed key gave 422);
//   the page names no internal function and is short on a phone, its folded parts open from a link;
// - the phone snapshot page keeps its sections folded under 8,000 px until opened, and a footnote
//   link opens the section it points into;
// - a weak match (550 Memorial Dr, Cambridge at 0.45) lets the person pick the lot by its id, and the
//   page answers for that lot, saying what the pick changed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFile } from 'node:child_process';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { startTestServer, type TestServer } from './support/harness.ts';
import { getUserToken, signUpOrIn } from './support/auth-flow.ts';
import { accountIdOf, api, grant } from './rest-support.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { connectClient } from './mcp-support.ts';

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
  new Promise<{ stdout: string; stderr: string }>((resolve) =>
    execFile('sh', ['-c', cmd], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } }, (_e, stdout, stderr) => resolve({ stdout, stderr })),
  );

test('/docs/api on a phone: the Idempotency-Key example, pasted twice for two addresses, answers 200 twice; no internal name; short until opened', {
  skip,
}, async () => {
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

test('the phone snapshot page: under 8,000 px with its sections folded; opening them shows everything; a footnote link opens its section', {
  skip,
}, async () => {
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

test('a weak match lets the person pick the lot, by a click on the map or its id: the page answers for that lot and says what changed; an unknown id is refused in words', {
  skip,
}, async () => {
  const context = await signedInPhone('lot.picker@example.com');
  const address = '550 Memorial Dr, Cambridge, MA';
  const page = await context.newPage();
  await page.goto(`${svc.url}/sites?${new URLSearchParams({ address })}`);
  const confidence = Number(await page.textContent('#match-confidence'));
  assert.ok(confidence < 0.8, `a weak match (${confidence})`);
  const doubt = (await page.textContent('#match-doubt')) ?? '';
  assert.doesNotMatch(doubt, /postcode/, 'no advice that does not work');
  const snapshot = await getFeasibilitySnapshot(svc.ctx, address);
  const matched = snapshot.lot!.parcelExternalId;
  // Another lot nearby: the one the person meant.
  const [other] = await svc.ctx.db.query<{ parcel_ext_id: string; inside_lat: number; inside_lon: number }>(
    `SELECT parcel_ext_id, inside_lat, inside_lon FROM parcels WHERE place_id = $1 AND parcel_ext_id <> $2
      ORDER BY (inside_lat - $3) ^ 2 + (inside_lon - $4) ^ 2 LIMIT 1`,
    [snapshot.coverage.geoDivisionId, matched, snapshot.lot!.latitude, snapshot.lot!.longitude],
  );
  const picked = other!.parcel_ext_id;

  // A click on that lot on the map picks it (the lots around are drawn for it).
  await page.waitForSelector('#map[data-state=ready]', { timeout: 60_000 });
  await page.locator('#map').scrollIntoViewIfNeeded();
  const at = await page.evaluate(
    ([lon, lat]) => {
      const map = (window as unknown as { sitelineMaps: { project(p: [number, number]): { x: number; y: number }; getCanvas(): HTMLCanvasElement }[] })
        .sitelineMaps[0]!;
      const p = map.project([lon!, lat!]);
      const r = map.getCanvas().getBoundingClientRect();
      return { x: r.left + p.x, y: r.top + p.y };
    },
    [other!.inside_lon, other!.inside_lat],
  );
  await Promise.all([page.waitForURL(/[?&]lot=/, { timeout: 30_000 }), page.mouse.click(at.x, at.y)]);
  assert.equal(new URL(page.url()).searchParams.get('lot'), picked, 'the clicked lot is the one asked for');
  assert.equal(await page.locator('#match-doubt').count(), 0, 'the person chose: no doubt box');
  const note = (await page.textContent('#lot-picked')) ?? '';
  assert.match(note, new RegExp(`The lot you picked: ${picked}`));
  assert.ok(note.includes(`You picked lot ${picked}. The address alone matched lot ${matched}, with confidence ${confidence}`), note);
  assert.equal(await page.textContent('#match-confidence'), '1');
  assert.match((await page.locator('#lot dd').first().textContent()) ?? '', new RegExp(`^${picked}$`));

  // The same domain call, with the lot: the lot is the picked one; without it, the answer is the address's as before.
  const withPick = await getFeasibilitySnapshot(svc.ctx, address, { lotId: picked });
  assert.equal(withPick.lot!.parcelExternalId, picked);
  assert.equal(withPick.address!.matchType, 'lot_id');
  // REST takes the same lotId (and bills it like any answer).
  const jwt = await getUserToken(svc.url, 'lot.picker.api@example.com');
  const apiKey = (await api(svc.url, '/api/v1/keys', { token: jwt, body: { name: 'pick' } })).json.key as string;
  await grant(svc.ctx, await accountIdOf(svc.ctx, 'lot.picker.api@example.com'), 5);
  const rest = await api(svc.url, `/api/v1/sites/check?${new URLSearchParams({ address, lotId: picked })}`, { token: apiKey });
  assert.equal(rest.status, 200, rest.text);
  assert.equal(rest.json.lot.parcelExternalId, picked);
  assert.equal(rest.json.address.matchType, 'lot_id');
  // MCP too, through the official SDK client: the same pick, and the link back opens the page on that lot.
  const client = await connectClient(svc.url, 'modern', jwt);
  try {
    const r = await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address, source: 'full', lotId: picked } });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    const structured = r.structuredContent as { lot: { parcelExternalId: string }; address: { matchType: string } };
    assert.equal(structured.lot.parcelExternalId, picked);
    assert.equal(structured.address.matchType, 'lot_id');
    const link = (r._meta as { 'siteline/attribution': { link: string } })['siteline/attribution'].link;
    assert.equal(new URL(link).searchParams.get('lot'), picked);
  } finally {
    await client.close();
  }
  const again = await getFeasibilitySnapshot(svc.ctx, address);
  assert.deepEqual({ ...again, generatedAt: '' }, { ...snapshot, generatedAt: '' }, 'no pick, no change');

  // Back to the address's own match; typing the id gives the same answer as the click.
  await Promise.all([page.waitForLoadState('load'), page.click('#lot-unpick')]);
  assert.equal(await page.locator('#match-doubt').count(), 1);
  await page.fill('#lot-pick', picked);
  await Promise.all([page.waitForURL(/[?&]lot=/), page.click('#lot-pick-form button[type=submit]')]);
  assert.equal((await page.textContent('#lot-picked-h'))?.trim(), `The lot you picked: ${picked}`);

  // An id the place does not hold: refused with what to do, nothing else answered.
  const refused = await page.goto(`${svc.url}/sites?${new URLSearchParams({ address, lot: 'NO-SUCH-LOT' })}`);
  assert.equal(refused!.status(), 400);
  assert.match((await page.textContent('#address-error')) ?? '', /Cambridge, MA has no lot "NO-SUCH-LOT" in its parcel layer/);
  await context.close();
});
