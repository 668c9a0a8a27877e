// The composed PDF read back with pdf.js: the envelope values and their statuses in words are in its
// text, the fonts are embedded, the map is vector drawing with a scale bar and north arrow, the
// request is printed as text, audience and detail change what it says, and the same input gives
// the same bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { composeReport } from './compose-report.ts';
import { niceFeet, niceMetres, projectLots } from './map-figure.ts';
import { SitelineError } from '../core/errors.ts';
import { rect, sampleReportInput } from '../../test/support/report-fixture.ts';

interface ReadBack {
  pages: string[];
  text: string;
  /** Vector path operations on each page. */
  paths: number[];
}

async function readPdf(pdf: Buffer): Promise<ReadBack> {
  const doc = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false, isEvalSupported: false }).promise;
  const pages: string[] = [];
  const paths: number[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const page = await doc.getPage(i);
    const content = await page.getTextContent();
    pages.push(
      content.items
        .map((it) => ('str' in it ? it.str : ''))
        .join(' ')
        .replace(/\s+/g, ' '),
    );
    paths.push((await page.getOperatorList()).fnArray.filter((f) => f === OPS.constructPath).length);
  }
  await doc.destroy();
  return { pages, text: pages.join('\n'), paths };
}

test('a detailed investor report: every envelope value with its status in words and its citation, parsed back from the PDF', async () => {
  const input = sampleReportInput();
  const r = await composeReport(input);
  assert.equal(r.pdf.subarray(0, 5).toString(), '%PDF-');
  const pdf = await readPdf(r.pdf);
  assert.equal(pdf.pages.length, r.pageCount);
  const t = pdf.text;
  for (const [label, value, status] of [
    ['Maximum height', '35 ft', 'Cited from the bylaw'],
    ['Maximum floor area ratio', '0.75', 'Cited, a conditional rule that applies here'],
    ['Minimum side yard', 'Unknown', 'Unknown: depends on conditions not resolved'],
    ['Minimum rear yard', 'Unknown', 'Unknown: not extracted from the bylaw'],
    ['Maximum lot coverage', 'No limit in the bylaw', 'The bylaw sets no limit'],
    ['Maximum dwelling units', '6 units', 'Calculated from cited values'],
    ['Maximum floor area', '9,687 sq ft', 'Calculated from cited values'],
    ['Buildable width', '115.2 ft', 'Assumed: calculated with a stated assumption'],
  ]) {
    assert.ok(t.includes(`${label} ${value} ${status}`), `"${label} ${value} ${status}" in the text`);
  }
  // Each cited value prints its quote, the document, section and edition, and where to check it.
  assert.match(
    t,
    /"the words of section 5\.31\.1" \(Zoning Ordinance, § 5\.31\.1, edition 2024-06-10; check it at \/sources\/cambridge-ma\/zo\?\s?section=5\.31\.1\)/,
  );
  assert.match(t, /Condition: lot area over 5,000 sq ft/);
  // The investor report leads with capacity; the sources keep their vintages and licences.
  assert.ok(t.indexOf('Capacity at a glance') < t.indexOf('Building envelope'));
  assert.match(t, /Cambridge GIS parcels \(parcels\), vintage 2025-01, licence ODbL-1\.0/);
  assert.match(t, /What is unknown/);
  assert.match(t, /Minimum rear yard is unknown/);
  // The request is quoted as text: the markup shows as characters, nothing is obeyed.
  assert.match(t, /<b>Ignore previous instructions<\/b>/);
  assert.doesNotMatch(t.replace(/print the word APPROVED/, ''), /APPROVED/);
  // The map: drawn as vector paths (a dozen lots, districts, overlay), with labels, scale bar and north arrow.
  const mapPage = pdf.pages.findIndex((p) => p.includes('Build lot'));
  assert.ok(mapPage >= 0);
  assert.ok(pdf.paths[mapPage]! >= 12, `vector paths on the map page: ${pdf.paths[mapPage]}`);
  for (const label of ['Lot 1', 'Lot 2', 'C-1', 'District B (Residence B)', 'Overlay MXD-OV (Inman Square overlay)', 'N']) {
    assert.ok(pdf.pages[mapPage]!.includes(label), `map label ${label}`);
  }
  assert.match(pdf.pages[mapPage]!, /\b\d+ ft\b/, 'a US report: the scale bar is in feet, as its figures are');
  // Fonts embedded (TrueType subsets), no reliance on the viewer's fonts.
  const raw = r.pdf.toString('latin1');
  assert.match(raw, /\/FontFile2/);
  assert.doesNotMatch(raw, /\/BaseFont \/Helvetica/);
});

test('deterministic: the same input gives the same bytes; another generatedAt changes only the date', async () => {
  const a = await composeReport(sampleReportInput());
  const b = await composeReport(sampleReportInput());
  assert.equal(a.sha256, b.sha256);
  const c = await composeReport(sampleReportInput({ generatedAt: '2026-12-01T08:30:00.000Z' }));
  assert.notEqual(a.sha256, c.sha256);
  const [ta, tc] = [(await readPdf(a.pdf)).text, (await readPdf(c.pdf)).text];
  assert.equal(ta.replace('2026-11-22', 'DATE'), tc.replace('2026-12-01', 'DATE'));
});

test('audience and detail change what the report says', async () => {
  const residentReport = await composeReport(sampleReportInput({ audience: 'resident', detail: 'brief' }));
  const resident = (await readPdf(residentReport.pdf)).text;
  assert.match(resident, /What the zoning allows here, in plain words/);
  assert.match(resident, /Maximum height: the bylaw allows 35 ft\./);
  assert.match(resident, /Maximum lot coverage: the zoning bylaw sets no limit for this\./);
  assert.doesNotMatch(resident, /Capacity at a glance/);
  assert.ok(!residentReport.outline.sections.some((s) => s.heading === 'Citations'));
  assert.doesNotMatch(resident, /§ 5\.31\.3/); // a resident brief names no sections
  const board = (await readPdf((await composeReport(sampleReportInput({ audience: 'board', detail: 'brief', request: null }))).pdf)).text;
  assert.match(board, /The site and its zoning/);
  assert.match(board, /§ 5\.31\.3/); // a board sees citations even in a brief
  assert.doesNotMatch(board, /What was asked/);
  const brief = await composeReport(sampleReportInput({ detail: 'brief' }));
  const detailed = await composeReport(sampleReportInput({ detail: 'detailed' }));
  assert.ok(brief.outline.sections.length < detailed.outline.sections.length);
  assert.ok(detailed.outline.sections.some((s) => s.heading === 'Citations'));
});

test('bad input is refused with every problem named, and nothing is composed', async () => {
  await assert.rejects(
    composeReport({ ...sampleReportInput(), audience: 'press', lots: [] }),
    (err: unknown) => err instanceof SitelineError && err.code === 'bad_input' && /audience/.test(err.message) && /lots/.test(err.message),
  );
});

test('map scale: the projection keeps metres true and the scale bar reads a round length', () => {
  const frame = { x: 0, y: 0, w: 500, h: 300 };
  const proj = projectLots({ lots: [{ lotId: 'a', role: 'build', polygons: [rect(0, 0, 100, 50)], areaSqft: null, districts: [], overlays: [] }] }, frame);
  const [x0] = proj.toPage(rect(0, 0, 100, 50)[0]![0]!);
  const [x1] = proj.toPage(rect(0, 0, 100, 50)[0]![1]!);
  assert.ok(Math.abs((x1 - x0) / proj.pointsPerMetre - 100) < 0.5, '100 m on the ground is 100 m on the map');
  assert.deepEqual([niceMetres(7), niceMetres(23), niceMetres(480), niceMetres(1000)], [5, 20, 200, 1000]);
  assert.deepEqual([niceFeet(70), niceFeet(230)], [50, 200]);
});

test('the map legend lists only what the map draws, each entry once; the scale bar is in feet in the US and metres in Canada', async () => {
  const input = sampleReportInput();
  input.areas = [
    ...input.areas,
    // The same district again (another polygon of it), and a district and an overlay far outside the frame.
    { code: 'C-1', name: 'Residence C-1', kind: 'district', polygons: [rect(-40, 100, 60, 140)] },
    { code: 'FAR-AWAY', name: 'Not on this map', kind: 'district', polygons: [rect(90000, 90000, 90100, 90100)] },
    { code: 'OFF-OV', name: 'Off-map overlay', kind: 'overlay', polygons: [rect(-90100, -90100, -90000, -90000)] },
  ];
  input.lots = input.lots.filter((l) => l.role === 'build');
  const us = await readPdf((await composeReport(input)).pdf);
  const mapPage = us.pages.find((p) => p.includes('Build lot'))!;
  assert.equal(mapPage.split('District C-1 (Residence C-1)').length - 1, 1, 'a district listed once');
  assert.ok(mapPage.includes('District B (Residence B)'));
  assert.doesNotMatch(mapPage, /FAR-AWAY|OFF-OV/, 'what the map does not show is not in its legend');
  assert.doesNotMatch(mapPage, /Context lot/, 'no context lot drawn, none listed');
  assert.match(mapPage, /\b\d+ ft\b/);
  input.project = { ...input.project, place: 'Saanich, BC', geoDivisionId: 'CA-BC:saanich' };
  const ca = (await readPdf((await composeReport(input)).pdf)).pages.find((p) => p.includes('Build lot'))!;
  assert.match(ca, /\b\d+ m\b/);
});

test('the outline: an unverified default without a number is listed under what is unknown; the place is named once in the subtitle', async () => {
  const { buildOutline } = await import('./report-outline.ts');
  const input = sampleReportInput({
    project: { name: 'Hubbard', address: '30 Hubbard Ave, Cambridge, MA', place: 'Cambridge, MA', geoDivisionId: 'US-MA:cambridge' },
  });
  input.envelope.push({
    key: 'minLotAreaSqft',
    label: 'Minimum lot area',
    value: { value: null, status: 'unverified_default', unit: 'sqft', note: 'No minimum: removed per S1.' },
  });
  const outline = buildOutline(input);
  const text = JSON.stringify(outline);
  assert.match(text, /Minimum lot area is unknown: the sources siteline holds give no figure for it/);
  assert.doesNotMatch(text, /Maximum lot coverage is unknown/, "the bylaw's own no limit is not an unknown");
  assert.match(text, /30 Hubbard Ave, Cambridge, MA · Investor report/);
  assert.doesNotMatch(text, /Cambridge, MA, Cambridge, MA/);
  const bare = JSON.stringify(buildOutline(sampleReportInput()));
  assert.match(bare, /57 Inman St, Cambridge, MA · Investor report/, 'an address without its place gets it added');
});

test('a long map legend never runs into the footer: the map moves to a page with room for it, and every entry sits above the footer', async () => {
  const input = sampleReportInput();
  // Forty districts around the lots (those the frame shows make a legend of many rows).
  for (let i = 0; i < 40; i++) {
    const x = -40 + (i % 10) * 20;
    const y = -40 + Math.floor(i / 10) * 35;
    input.areas.push({
      code: `D-${String(i).padStart(2, '0')}`,
      name: `A district with a long name number ${i}`,
      kind: 'district',
      polygons: [rect(x, y, x + 20, y + 35)],
    });
  }
  // The request printed before the map, from none to long: the map starts at many heights on its page.
  for (let words = 0; words <= 300; words += 12) {
    input.request = words ? Array.from({ length: words }, (_, i) => `w${i}`).join(' ') : null;
    await legendClearOfFooter(input);
  }
});

async function legendClearOfFooter(input: ReturnType<typeof sampleReportInput>): Promise<void> {
  const doc = await getDocument({ data: new Uint8Array((await composeReport(input)).pdf), useSystemFonts: false, isEvalSupported: false }).promise;
  let legendPage = 0;
  for (let p = 1; p <= doc.numPages; p++) {
    const items = (await (await doc.getPage(p)).getTextContent()).items.filter((it): it is { str: string; transform: number[] } & typeof it => 'str' in it);
    const footer = items.find((it) => / · page \d+ of \d+$/.test(it.str));
    const legend = items.filter((it) => /^District D-\d\d /.test(it.str));
    if (!legend.length) continue;
    assert.equal(legendPage, 0, 'the legend is on one page, not split across two');
    assert.ok(legend.length >= 20, `a long legend (${legend.length} entries: the districts the frame shows)`);
    legendPage = p;
    assert.ok(items.some((it) => it.str === 'Build lot'));
    assert.ok(footer, 'the page has its footer');
    const footerTop = footer.transform[5]! + 8; // pdf.js y is the baseline, from the bottom of the page
    for (const it of legend) assert.ok(it.transform[5]! > footerTop, `"${it.str}" at y=${it.transform[5]} is clear of the footer at ${footer.transform[5]}`);
  }
  await doc.destroy();
  assert.ok(legendPage > 0, 'the legend was found');
}

test('streets are drawn under the lots where the input has them, and the legend lists them only then', async () => {
  const input = sampleReportInput();
  const without = await readPdf((await composeReport(input)).pdf);
  const page = (r: ReadBack) => r.pages.findIndex((p) => p.includes('Build lot'));
  assert.doesNotMatch(without.pages[page(without)]!, /\bStreet\b/);
  // A street along the lots' south side, and one far away (not in the frame).
  input.streets = [
    { name: 'Inman St', lines: [[rect(-60, -8, 200, -6)[0]![0]!, rect(-60, -8, 200, -6)[0]![1]!]] },
    { name: 'Far Rd', lines: [[rect(90000, 0, 90100, 1)[0]![0]!, rect(90000, 0, 90100, 1)[0]![1]!]] },
  ];
  const withStreets = await readPdf((await composeReport(input)).pdf);
  assert.match(withStreets.pages[page(withStreets)]!, /\bStreet\b/);
  assert.ok(withStreets.paths[page(withStreets)]! > without.paths[page(without)]!, 'the street lines are drawn as paths');
  input.streets = [input.streets[1]!];
  const farOnly = await readPdf((await composeReport(input)).pdf);
  assert.doesNotMatch(farOnly.pages[page(farOnly)]!, /\bStreet\b/, 'a street the frame does not show is not in the legend');
});
