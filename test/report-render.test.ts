/// <reference lib="dom" />
// The report's map as it prints: each page rendered to pixels by pdf.js in headless Chromium. Every
// district category prints in the web map's colour for it (laid at the web's opacity over the paper),
// two districts of one category share it, and no two categories share a colour (BA-1 business and OS
// open space used to print the same pale green); neighbouring lots are drawn; page 1 says where the
// district came from.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser } from 'playwright-core';
import { composeReport } from '../src/reports/compose-report.ts';
import { CATEGORY_STYLE, type ZoneCategory } from '../src/maps/zone-category.ts';
import { rect, sampleReportInput } from './support/report-fixture.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PDFJS = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/build/pdf.mjs'));
/** Pixels per PDF point: thin lines (0.35 pt) still cover whole pixels. */
const SCALE = 6;
/** The paper under the map, and the web map's zoning fill opacity without a basemap (src/maps/style.ts). */
const PAPER = [0xfb, 0xfb, 0xf8];
const WEB_OPACITY = 0.45;
/** The neighbouring lots' outline colour. */
const NEIGHBOUR = '168,162,154';

let browser: Browser;
before(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'], headless: true });
});
after(async () => {
  await browser?.close();
});

/** The web colour of a category as the paper shows it at the web's opacity, "r,g,b". */
function printed(category: ZoneCategory): string {
  const hex = CATEGORY_STYLE[category].colour;
  return [1, 3, 5].map((i, k) => Math.round(WEB_OPACITY * parseInt(hex.slice(i, i + 2), 16) + (1 - WEB_OPACITY) * PAPER[k]!)).join(',');
}

/** The first pages of the PDF (the map is on page 1 or 2) rendered by pdf.js: how many pixels have each exact colour ("r,g,b"). */
async function pagePixels(pdf: Buffer, pages = 2): Promise<Map<string, number>[]> {
  const page = await browser.newPage();
  try {
    await page.route('http://pdfjs.test/**', (route) => {
      const file = path.join(PDFJS, path.basename(new URL(route.request().url()).pathname));
      return route.fulfill({ body: fs.readFileSync(file), contentType: 'text/javascript' });
    });
    await page.route('http://pdfjs.test/', (route) => route.fulfill({ body: '<!doctype html><title>render</title>', contentType: 'text/html' }));
    await page.goto('http://pdfjs.test/');
    const counts = await page.evaluate(
      async ({ data, scale, pages }) => {
        const pdfjs = await import('http://pdfjs.test/pdf.mjs' as string);
        pdfjs.GlobalWorkerOptions.workerSrc = 'http://pdfjs.test/pdf.worker.mjs';
        const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const doc = await pdfjs.getDocument({ data: bytes, isEvalSupported: false }).promise;
        const out: [string, number][][] = [];
        for (let n = 1; n <= Math.min(pages, doc.numPages); n++) {
          const p = await doc.getPage(n);
          const viewport = p.getViewport({ scale });
          const canvas = document.createElement('canvas');
          canvas.width = Math.ceil(viewport.width);
          canvas.height = Math.ceil(viewport.height);
          const c2d = canvas.getContext('2d')!;
          await p.render({ canvasContext: c2d, viewport }).promise;
          const px = c2d.getImageData(0, 0, canvas.width, canvas.height).data;
          const hist = new Map<string, number>();
          for (let i = 0; i < px.length; i += 4) {
            const key = `${px[i]},${px[i + 1]},${px[i + 2]}`;
            hist.set(key, (hist.get(key) ?? 0) + 1);
          }
          out.push([...hist].filter(([, k]) => k >= 20));
        }
        return out;
      },
      { data: pdf.toString('base64'), scale: SCALE, pages },
    );
    return counts.map((c) => new Map(c));
  } finally {
    await page.close();
  }
}

/** The districts of the issue: business and open space side by side, two residential districts, industry. */
function categoryInput(withNeighbours: boolean) {
  return sampleReportInput({
    audience: 'board',
    areas: [
      { code: 'BA-1', name: 'Business A-1', kind: 'district', polygons: [rect(-40, -40, 30, 110)] },
      { code: 'OS', name: 'Open Space', kind: 'district', polygons: [rect(30, -40, 70, 110)] },
      { code: 'C-1', name: 'Residence C-1', kind: 'district', polygons: [rect(70, -40, 100, 110)] },
      { code: 'B', name: 'Residence B', kind: 'district', polygons: [rect(100, -40, 125, 110)] },
      { code: 'IB', name: 'Industry B', kind: 'district', polygons: [rect(125, -40, 220, 110)] },
    ],
    ...(withNeighbours ? { neighbours: [0, 1, 2, 3, 4, 5].map((i) => ({ lotId: `170-${i}`, polygons: [rect(i * 20 + 1, 65, i * 20 + 19, 76)] })) } : {}),
  });
}

test("each district category prints in the web map's colour, shared within a category and distinct between categories; neighbouring lots are drawn", async () => {
  const report = await composeReport(categoryInput(true));
  const pages = await pagePixels(report.pdf);
  const mapPage = pages.findIndex((h) => (h.get(printed('open_space')) ?? 0) > 0);
  assert.ok(mapPage >= 0, 'a page prints the open-space colour');
  const hist = pages[mapPage]!;
  const expected: [string, ZoneCategory][] = [
    ['BA-1', 'commercial'],
    ['OS', 'open_space'],
    ['C-1 and B', 'residential'],
    ['IB', 'industrial'],
  ];
  for (const [codes, category] of expected) {
    const n = hist.get(printed(category)) ?? 0;
    // A district's visible area is thousands of pixels at this scale; a stray anti-aliased edge is a few.
    assert.ok(n > 2000, `${codes} (${category}) prints as ${printed(category)}, the web's ${CATEGORY_STYLE[category].colour} on paper (${n} pixels)`);
  }
  const colours = expected.map(([, c]) => printed(c));
  assert.equal(new Set(colours).size, colours.length, `every category its own colour: ${colours.join(' / ')}`);
  // No district prints in any other fill: the colours of the old palette are gone.
  for (const old of ['219,233,246', '227,241,220', '251,232,211', '239,224,243']) assert.equal(hist.get(old) ?? 0, 0, `no district fill ${old}`);

  const drawn = hist.get(NEIGHBOUR) ?? 0;
  assert.ok(drawn > 200, `the neighbouring lots' outlines are drawn (${drawn} pixels)`);
  const without = await pagePixels((await composeReport(categoryInput(false))).pdf);
  assert.equal(
    without.reduce((s, h) => s + (h.get(NEIGHBOUR) ?? 0), 0),
    0,
    'without neighbours, nothing of their colour',
  );
});

test('page 1 says where the district came from: the zoning map, or as stated', async () => {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const firstPage = async (pdf: Buffer) => {
    const doc = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false, isEvalSupported: false }).promise;
    const text = (await (await doc.getPage(1)).getTextContent()).items
      .map((it) => ('str' in it ? it.str : ''))
      .join(' ')
      .replace(/\s+/g, ' ');
    await doc.destroy();
    return text;
  };
  const input = sampleReportInput();
  const mapped = { ...input, lots: input.lots.map((l) => ({ ...l, districtSource: 'from the zoning map (Cambridge zoning districts, vintage 2024-06)' })) };
  assert.match(await firstPage((await composeReport(mapped)).pdf), /District C-1: from the zoning map \(Cambridge zoning districts, vintage 2024-06\)\./);
  const stated = {
    ...input,
    lots: input.lots.map((l) => ({ ...l, districts: ['NR'], districtSource: "stated by the caller; the City's zoning map is not held" })),
  };
  assert.match(await firstPage((await composeReport(stated)).pdf), /District NR: stated by the caller; the City's zoning map is not held\./);
});
