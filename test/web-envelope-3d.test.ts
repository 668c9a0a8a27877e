// The envelope in 3D on the snapshot and project pages, in headless Chromium (WebGL is SwiftShader there) against
// the real HTTP server. Cambridge's values are all unverified, so its page says which values keep the
// solid from being drawn and draws nothing. A synthetic city whose RS-3 height and setbacks are cited
// from a synthetic bylaw it holds gets the solid: the map's fill-extrusion layer stands at the
// height (in metres) and over the footprint that the page's data-envelope-3d attribute states, and the
// legend states each value with its status; without JavaScript the words are all still there.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { startTestServer, type TestServer } from './support/harness.ts';
import { TEST_PASSWORD, csrfFrom, getPage, postForm, signUpOrIn } from './support/auth-flow.ts';
import { loadSyntheticCity, sampleSyntheticAddresses, writeSyntheticPlacesDir, SYNTHETIC_SLUG } from '../bench/synthetic-city.ts';
import { FT_PER_M, SQFT_PER_M2, multiPolygonAreaM2, type MultiPolygonCoords } from '../src/core/geo/primitives.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const EMAIL = 'envelope.viewer@example.com';
const sites = (address: string) => `/sites?${new URLSearchParams({ address })}`;

async function signedInContext(browser: Browser, url: string, opts: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
  await signUpOrIn(url, EMAIL);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...opts });
  const page = await context.newPage();
  await page.goto(`${url}/signin?next=%2Faccount`);
  await page.fill('#email', EMAIL);
  await page.fill('#password', TEST_PASSWORD);
  await Promise.all([page.waitForURL(/\/account$/), page.click('#content button[type=submit]')]);
  await page.close();
  return context;
}

/**
 * The synthetic city's own bylaw (synthetic words, like the city): RS-3's section states its height and
 * yards in one table, so every value is cited from its district's own section, as the citation checker
 * requires (src/rules/verify-citations.ts). The Somerville ordinance the bench's synthetic place borrows
 * has no such section: its height in feet is stated only in the mid-rise districts, whose side and rear
 * setbacks depend on what the lot abuts, and a value cited from another district's section is refused.
 */
const BYLAW = `# Synthetic Bench City Zoning Bylaw

Synthetic: written for siteline's tests, not the law of any place.

## 4 Residence Districts

### 4.3 Residence Single-Unit 3 (RS-3)

| Standard | RS-3 |
| --- | --- |
| Building Height, Feet (max) | 38 ft |
| Number of Stories (max) | 2.5 |
| Lot Coverage (max) | 60% |
| Front Setback (min) | 10 ft |
| Side Setback (min) | 5 ft |
| Rear Setback (min) | 20 ft |
`;

/**
 * A places directory and a source directory with the synthetic city holding that bylaw (document `sbz`),
 * its RS-3 maximum height, storeys, lot coverage and front, side and rear setbacks cited from §4.3.
 */
function placesWithCitedEnvelope(root: string): { placesDir: string; sourceDir: string } {
  const placesDir = writeSyntheticPlacesDir(path.join(root, 'places'));
  const sourceDir = path.join(root, 'sources');
  fs.mkdirSync(path.join(sourceDir, SYNTHETIC_SLUG), { recursive: true });
  fs.writeFileSync(path.join(sourceDir, SYNTHETIC_SLUG, 'bylaw.md'), BYLAW);
  const manifestFile = path.join(placesDir, SYNTHETIC_SLUG, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
  Object.assign(manifest, {
    sourceFolder: SYNTHETIC_SLUG,
    documents: [
      {
        id: 'sbz',
        file: 'bylaw.md',
        sha256: crypto.createHash('sha256').update(BYLAW).digest('hex'),
        role: 'ordinance text (synthetic, for tests)',
        title: 'Synthetic Bench City Zoning Bylaw',
        format: 'markdown',
        edition: 'synthetic',
        retrieved: '2026-01-01',
        licence: 'none (synthetic)',
        url: 'https://example.org/synthetic-bench-bylaw',
      },
    ],
  });
  fs.writeFileSync(manifestFile, JSON.stringify(manifest));
  const file = path.join(placesDir, SYNTHETIC_SLUG, 'rules.json');
  const rules = JSON.parse(fs.readFileSync(file, 'utf8')) as { districts: Record<string, { section?: string; standards: Record<string, unknown> }> };
  const cite = (quote: string) => ({ document: 'sbz', section: '4.3', quote });
  rules.districts['RS-3']!.section = '4.3';
  Object.assign(rules.districts['RS-3']!.standards, {
    maxHeightFt: { status: 'cited', value: 38, citation: cite('Building Height, Feet (max) | 38 ft') },
    maxHeightStoreys: { status: 'cited', value: 2.5, citation: cite('Number of Stories (max) | 2.5') },
    maxLotCoveragePct: { status: 'cited', value: 60, citation: cite('Lot Coverage (max) | 60%') },
    minFrontYardFt: { status: 'cited', value: 10, citation: cite('Front Setback (min) | 10 ft') },
    minSideYardFt: { status: 'cited', value: 5, citation: cite('Side Setback (min) | 5 ft') },
    minRearYardFt: { status: 'cited', value: 20, citation: cite('Rear Setback (min) | 20 ft') },
  });
  fs.writeFileSync(file, JSON.stringify(rules));
  return { placesDir, sourceDir };
}

describe('the envelope in 3D on the snapshot and project pages', { skip: !fs.existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, () => {
  let browser: Browser;
  before(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  });
  after(async () => {
    await browser?.close();
  });

  test('Cambridge (11 Acorn St, C-1): unverified values are named, each with its status, and nothing is drawn', async () => {
    const svc = await startTestServer({ places: ['cambridge-ma'] });
    try {
      const context = await signedInContext(browser, svc.url);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${svc.url}${sites('11 Acorn St, Cambridge, MA')}`);
      await page.waitForSelector('[data-map-view][data-state=ready]', { timeout: 60_000 }); // the page's own 2D map
      const section = page.locator('#envelope-3d');
      assert.equal(await section.count(), 1, 'the 3D section is on the page');
      assert.equal(await section.locator('h2').textContent(), 'Envelope in 3D');
      const statement = (await section.locator('.envelope-3d-statement').textContent()) ?? '';
      assert.equal(
        statement,
        'No 3D envelope: the maximum height, the front setback, the side setback and the rear setback are indicative, unverified, so they are not drawn as if known.',
      );
      assert.equal(await section.locator('[data-map-view]').count(), 0, 'no 3D map is drawn');
      assert.equal(await section.locator('[data-envelope-3d]').count(), 0);
      // The legend states each needed value with its status badge (statuses stay visible).
      const rows = await section
        .locator('.envelope-3d-legend dd')
        .evaluateAll((dds) => dds.map((d) => [d.getAttribute('data-member'), d.querySelector('.badge')?.getAttribute('data-status'), d.textContent]));
      assert.deepEqual(rows.map((r) => r[0]).sort(), ['maxHeightFt', 'minFrontYardFt', 'minRearYardFt', 'minSideYardFt']);
      const height = rows.find((r) => r[0] === 'maxHeightFt')!;
      assert.equal(height[1], 'unverified_default');
      assert.match(String(height[2]), /^45 ft indicative, unverified not drawn$/);
      assert.deepEqual(errors, []);
      await context.close();
    } finally {
      await svc.close();
    }
  });

  describe('a synthetic city whose RS-3 height and setbacks are cited', () => {
    const PARCELS = 400;
    let svc: TestServer;
    let root: string;
    let address: string;
    before(async () => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-env3d-'));
      svc = await startTestServer({ config: placesWithCitedEnvelope(root) });
      await loadSyntheticCity(svc.testDb.db, PARCELS);
      // An RS-3 lot: the first sampled address whose page draws the solid (the districts cut across the grid).
      const jar = await signUpOrIn(svc.url, EMAIL);
      for (const a of sampleSyntheticAddresses(PARCELS, 40)) {
        const res = await getPage(`${svc.url}${sites(a)}`, jar);
        assert.equal(res.status, 200, a);
        if (res.body.includes('data-envelope-3d=')) {
          address = a;
          break;
        }
      }
      assert.ok(address, 'a sampled address in RS-3 draws the solid');
    });
    after(async () => {
      await svc?.close();
      fs.rmSync(root, { recursive: true, force: true });
    });

    test('the map extrudes the footprint to the height the page states, tilted, from our own tiles; the legend states each value', async () => {
      const context = await signedInContext(browser, svc.url);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(`${svc.url}${sites(address)}`);
      await page.waitForSelector('#envelope-3d-map[data-state=ready]', { timeout: 60_000 });
      const stated = JSON.parse((await page.locator('#envelope-3d [data-envelope-3d]').getAttribute('data-envelope-3d'))!) as {
        heightFt: number;
        heightM: number;
        areaSqft: number;
        footprint: { type: string; coordinates: MultiPolygonCoords };
      };
      assert.equal(stated.heightFt, 38);
      assert.ok(Math.abs(stated.heightM - 38 / FT_PER_M) < 0.01, `height ${stated.heightM} m`);
      // A 15 m x 30 m lot less 5 ft on each side, 10 ft in front and 20 ft behind.
      const expected = (15 * FT_PER_M - 10) * (30 * FT_PER_M - 30);
      const area = multiPolygonAreaM2(stated.footprint.coordinates) * SQFT_PER_M2;
      assert.ok(Math.abs(area - expected) < 5 && Math.abs(stated.areaSqft - expected) < 5, `footprint ${area} / ${stated.areaSqft} sq ft vs ${expected}`);

      const drawn = await page.evaluate(() => {
        type M = {
          getContainer(): HTMLElement;
          getLayer(id: string): { type: string; source: string } | undefined;
          getPaintProperty(id: string, p: string): unknown;
          getSource(id: string): { serialize(): { data: { features: { geometry: unknown }[] } } } | undefined;
          getPitch(): number;
          getStyle(): { sources: Record<string, { type: string; tiles?: string[] }> };
          queryRenderedFeatures(o: object): unknown[];
        };
        const m = (window as unknown as { sitelineMaps: M[] }).sitelineMaps.find((x) => x.getContainer().id === 'envelope-3d-map')!;
        const layer = m.getLayer('envelope-extrusion');
        return {
          type: layer?.type,
          source: layer?.source,
          height: m.getPaintProperty('envelope-extrusion', 'fill-extrusion-height'),
          geometry: m.getSource('envelope')?.serialize().data.features[0]?.geometry,
          pitch: m.getPitch(),
          sources: Object.entries(m.getStyle().sources).map(([id, s]) => [id, s.type, (s.tiles ?? []).join(' ')]),
          rendered: m.queryRenderedFeatures({ layers: ['envelope-extrusion'] }).length,
          lots: m.queryRenderedFeatures({ layers: ['lots-line'] }).length,
        };
      });
      assert.equal(drawn.type, 'fill-extrusion');
      assert.equal(drawn.source, 'envelope');
      assert.equal(drawn.height, stated.heightM, 'the extrusion stands at the stated height in metres');
      assert.deepEqual(drawn.geometry, stated.footprint, 'the extrusion is the stated footprint');
      assert.ok(Math.abs(drawn.pitch - 50) < 1, `pitch ${drawn.pitch}`);
      assert.ok(drawn.rendered > 0, 'the extrusion is rendered in view');
      assert.ok(drawn.lots > 0, 'the lot outline is on the ground');
      // Only our own sources: the tiles from this origin and GeoJSON; no basemap.
      for (const [id, type, tiles] of drawn.sources)
        assert.ok(type === 'geojson' || (type === 'vector' && String(tiles).startsWith(svc.url)), `source ${id}: ${type} ${tiles}`);
      assert.ok(
        requests.every((u) => u.startsWith(svc.url) || u.startsWith('data:') || u.startsWith('blob:')),
        `requests elsewhere: ${requests.filter((u) => !u.startsWith(svc.url)).join(', ')}`,
      );

      const legend = await page
        .locator('#envelope-3d .envelope-3d-legend dd[data-member]')
        .evaluateAll((dds) => dds.map((d) => [d.getAttribute('data-member'), d.querySelector('.badge')?.getAttribute('data-status'), d.textContent?.trim()]));
      assert.deepEqual(legend, [
        ['maxHeightFt', 'cited', '38 ft cited from the bylaw'],
        ['minFrontYardFt', 'cited', '10 ft cited from the bylaw'],
        ['minSideYardFt', 'cited', '5 ft cited from the bylaw'],
        ['minRearYardFt', 'cited', '20 ft cited from the bylaw'],
      ]);
      assert.match((await page.locator('#envelope-3d .envelope-3d-statement').textContent()) ?? '', /raised to the maximum height of 38 ft\.$/);
      assert.deepEqual(errors, []);
      await context.close();
    });

    test('the project page: before an analysis it says so; after, one 3D view per build lot at the analysed height', async () => {
      const jar = await signUpOrIn(svc.url, EMAIL);
      const list = await getPage(`${svc.url}/projects`, jar);
      const made = await postForm(`${svc.url}/projects`, jar, { csrf: csrfFrom(list.body), name: 'Envelope in 3D', address });
      assert.equal(made.status, 303, made.body.slice(0, 300));
      const projectPath = made.location!;
      const first = await getPage(`${svc.url}${projectPath}`, jar);
      assert.match(first.body, /<section id="envelope-3d"[\s\S]*No 3D envelope yet: it is drawn from a finished analysis; run the analysis\./);
      assert.doesNotMatch(first.body, /data-envelope-3d=/);
      await postForm(`${svc.url}${projectPath}/analyze`, jar, { csrf: csrfFrom(first.body) });
      let body = '';
      for (let i = 0; i < 240 && !/Status: <code class="status">current<\/code>/.test(body); i++) {
        await new Promise((r) => setTimeout(r, 500));
        body = (await getPage(`${svc.url}${projectPath}`, jar)).body;
      }
      assert.match(body, /Status: <code class="status">current<\/code>/, 'the analysis finished');

      const context = await signedInContext(browser, svc.url);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${svc.url}${projectPath}`);
      await page.waitForSelector('#envelope-3d-map-1[data-state=ready]', { timeout: 60_000 });
      assert.equal(await page.locator('#envelope-3d [data-envelope-3d]').count(), 1, 'one view for the one build lot');
      const stated = JSON.parse((await page.locator('#envelope-3d [data-envelope-3d]').getAttribute('data-envelope-3d'))!) as {
        lot: string;
        heightFt: number;
        heightM: number;
        footprint: unknown;
      };
      assert.equal(stated.heightFt, 38);
      assert.equal(await page.locator('#envelope-3d h3').textContent(), `Lot ${stated.lot}`);
      const drawn = await page.evaluate(() => {
        type M = {
          getContainer(): HTMLElement;
          getPaintProperty(id: string, p: string): unknown;
          getSource(id: string): { serialize(): { data: { features: { geometry: unknown }[] } } } | undefined;
        };
        const m = (window as unknown as { sitelineMaps: M[] }).sitelineMaps.find((x) => x.getContainer().id === 'envelope-3d-map-1')!;
        return {
          height: m.getPaintProperty('envelope-extrusion', 'fill-extrusion-height'),
          geometry: m.getSource('envelope')?.serialize().data.features[0]?.geometry,
        };
      });
      assert.equal(drawn.height, stated.heightM);
      assert.deepEqual(drawn.geometry, stated.footprint);
      assert.deepEqual(errors, []);
      await context.close();
    });

    test('without WebGL the map says it cannot be drawn, and the statement and legend stay', async () => {
      const noGl = await chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS, '--disable-3d-apis'], headless: true });
      try {
        const context = await signedInContext(noGl, svc.url);
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${svc.url}${sites(address)}`);
        await page.waitForSelector('#envelope-3d-map[data-state=unavailable]', { timeout: 60_000 });
        assert.match((await page.locator('#envelope-3d-map').textContent()) ?? '', /cannot be drawn in this browser \(it needs WebGL\)/);
        const text = (await page.locator('#envelope-3d').innerText()).replace(/\s+/g, ' ');
        assert.match(text, /raised to the maximum height of 38 ft\./);
        assert.match(text, /Maximum height 38 ft cited from the bylaw/);
        assert.deepEqual(errors, [], 'no script error: the page script carries on without WebGL');
        await context.close();
      } finally {
        await noGl.close();
      }
    });

    test('at a phone width (390 px) the view and its legend fit: no horizontal scroll', async () => {
      const context = await signedInContext(browser, svc.url);
      const page = await context.newPage();
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${svc.url}${sites(address)}`);
      await page.waitForSelector('#envelope-3d-map[data-state=ready]', { timeout: 60_000 });
      const scroll = await page.evaluate(() => ({
        sw: document.documentElement.scrollWidth,
        cw: document.documentElement.clientWidth,
        map: document.getElementById('envelope-3d-map')!.getBoundingClientRect().width,
      }));
      assert.ok(scroll.sw <= scroll.cw, `horizontal scroll ${scroll.sw} > ${scroll.cw}`);
      assert.ok(scroll.map > 300 && scroll.map <= scroll.cw, `the 3D map is ${scroll.map} px wide`);
      await context.close();
    });

    test('without JavaScript the statement and the legend are all there, and the page says the view needs JavaScript and WebGL', async () => {
      const context = await signedInContext(browser, svc.url, { javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(`${svc.url}${sites(address)}`);
      const text = (await page.locator('#envelope-3d').innerText()).replace(/\s+/g, ' ');
      assert.match(text, /The 3D view needs JavaScript and WebGL; what it draws is stated below\./);
      assert.match(text, /raised to the maximum height of 38 ft\./);
      assert.match(text, /Rear setback 20 ft cited from the bylaw/);
      assert.equal(await page.locator('#envelope-3d-map canvas').count(), 0);
      await context.close();
    });
  });
});
