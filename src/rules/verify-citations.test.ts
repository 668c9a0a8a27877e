import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { clearRulesCache, loadPlaceRules, RulesFileError, verifyPlaceRules } from './load-rules.ts';
import { clearDocumentCache, findQuote, normalizeForMatch, sha256Of } from './held-documents.ts';
import { numbersIn, quoteStatesValue } from './verify-citations.ts';
import { knowledgeSectionsOf } from './knowledge-sections.ts';
import { listManifestSlugs } from '../importer/manifest.ts';

const SOURCE_DIR = path.resolve(import.meta.dirname, '../../../shared/data');

test('every shipped place verifies: no value anywhere is cited without a quote found in a held document', async () => {
  for (const slug of listManifestSlugs()) {
    const r = await verifyPlaceRules(slug, { sourceDir: SOURCE_DIR });
    assert.deepEqual(r.failures, [], `${slug}: ${JSON.stringify(r.failures.slice(0, 3))}`);
  }
  const som = await verifyPlaceRules('somerville-ma', { sourceDir: SOURCE_DIR });
  assert.ok(som.verified >= 150, `Somerville serves ${som.verified} verified citations`);
  for (const slug of ['chicago-il', 'paradise-tx', 'cambridge-ma', 'saanich-bc']) assert.equal((await verifyPlaceRules(slug, { sourceDir: SOURCE_DIR })).checked, 0, `${slug} cites nothing`);
});

test('Somerville: NR, UR and MR3-MR6 with every building type, values conditional on the type, each with its quote', async () => {
  const r = await loadPlaceRules('somerville-ma', { sourceDir: SOURCE_DIR });
  assert.deepEqual(Object.keys(r.districts).sort(), ['MR3', 'MR4', 'MR5', 'MR6', 'NR', 'UR']);
  assert.deepEqual(Object.keys(r.districts.NR!.buildingTypes!), ['Cottage', 'Detached House', 'Semi-Detached House', 'Duplex', 'Detached Triple Decker', 'Backyard Cottage']);
  const dh = r.districts.NR!.buildingTypes!['Detached House']!;
  assert.equal(dh.section, '3.1.8');
  const cov = dh.standards.maxLotCoveragePct!;
  assert.deepEqual([cov.status, cov.value, cov.citation!.section, cov.citation!.quote], ['cited_conditional', 60, '3.1.8', 'Lot Coverage (max) | 60%']);
  assert.match(cov.condition!, /Detached House/);
  assert.equal(dh.standards.maxHeightStoreys!.value, 2.5);
  const width = dh.standards.minLotWidthFt!;
  assert.deepEqual(width.tiers!.map((t) => [t.when[0], t.values[0]]), [['No Driveway Access', '32'], ['Side or Rear Driveway Access', '32'], ['Front Driveway Access', '34']]);
  // The loaded citation carries what a reader needs to check it.
  assert.equal(cov.citation!.documentTitle, 'Somerville Zoning Ordinance');
  assert.match(cov.citation!.href, /^\/sources\/somerville-ma\/szo\?section=3\.1\.8&quote=/);
  assert.match(cov.citation!.sectionUuid, /^[0-9a-f-]{36}$/);
  // Knowledge sections are real sections of the held text.
  const ks = knowledgeSectionsOf(r).find((s) => s.section === '3.1.8')!;
  assert.match(ks.title, /Somerville Zoning Ordinance, 3\.1\.8 Detached House/);
  assert.ok(ks.text.includes('| Lot Coverage (max) | 60% |'), 'the section text is the document\'s own');
});

// A small place of our own whose document and rules a test can change.
function town(opts: { doc: string; format?: 'markdown' | 'html' | 'text' | 'pdf'; file?: string; standards: Record<string, unknown>; sha?: string }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-cite-'));
  const places = path.join(root, 'places');
  const src = path.join(root, 'src');
  fs.mkdirSync(path.join(places, 'testtown-ma'), { recursive: true });
  fs.mkdirSync(path.join(src, 'testtown-ma'), { recursive: true });
  const file = opts.file ?? 'bylaw.md';
  const bytes = Buffer.from(opts.doc, opts.format === 'pdf' ? 'base64' : 'utf8');
  fs.writeFileSync(path.join(src, 'testtown-ma', file), bytes);
  const manifest = {
    slug: 'testtown-ma', geoDivisionId: 'US-MA:testtown', name: 'Testtown', region: 'MA', country: 'US', status: 'planned_not_live', bbox: [-71.2, 42.3, -71.1, 42.4],
    sourceFolder: 'testtown-ma', rulesFile: 'rules.json', sources: [],
    documents: [{ id: 'tzb', file, sha256: opts.sha ?? sha256Of(bytes), role: 'ordinance', title: 'Testtown Zoning Bylaw', format: opts.format ?? 'markdown', edition: '2024-01-01', retrieved: '2026-11-27', licence: 'public domain', url: 'https://example.org/tzb' }],
  };
  fs.writeFileSync(path.join(places, 'testtown-ma', 'manifest.json'), JSON.stringify(manifest));
  const rules = { slug: 'testtown-ma', country: 'US', bylaw: { name: 'Testtown Zoning Bylaw', url: 'https://example.org/tzb', date: '2024-01-01' }, districts: { 'R-1': { name: 'Residence 1', standards: opts.standards, uses: [] } } };
  fs.writeFileSync(path.join(places, 'testtown-ma', 'rules.json'), JSON.stringify(rules));
  clearRulesCache();
  clearDocumentCache();
  return { placesDir: places, sourceDir: src };
}

const DOC = `# Testtown Zoning Bylaw

## 4 Dimensional Requirements

### 4.1 Residence 1 District

In the R-1 district the maximum height of a building is 35 feet and no building shall exceed 2½ stories.
The “maximum lot coverage” is 30%.

| Standard | R-1 |
| --- | --- |
| Minimum lot area | 6,000 sq ft |

### 4.2 Residence 2 District

In the R-2 district the maximum height of a building is 45 feet.
`;
const cite = (section: string, quote: string) => ({ document: 'tzb', section, quote });

test('a citation verifies when its quote is in the named section and states the value; white space, typographic quotes and dashes are normalised', async () => {
  const t = town({
    doc: DOC,
    standards: {
      maxHeightFt: { status: 'cited', value: 35, citation: cite('4.1', 'the maximum height of a building is 35 feet') },
      maxLotCoveragePct: { status: 'cited', value: 30, citation: cite('4.1', 'The "maximum lot   coverage" is 30%') },
      minLotAreaSqft: { status: 'cited', value: 6000, citation: cite('4.1', 'Minimum lot area | 6,000 sq ft') },
    },
  });
  const r = await verifyPlaceRules('testtown-ma', t);
  assert.deepEqual([r.checked, r.verified, r.failures], [3, 3, []]);
  const loaded = await loadPlaceRules('testtown-ma', t);
  assert.equal(loaded.districts['R-1']!.standards.maxHeightFt!.citation!.sourceUrl, 'https://example.org/tzb');
  assert.equal(loaded.districts['R-1']!.standards.maxHeightFt!.citation!.date, '2024-01-01');
});

test('each kind of bad citation is refused, with value, district, document, section and why', async () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['a wrong number', { maxHeightFt: { status: 'cited', value: 40, citation: cite('4.1', 'the maximum height of a building is 35 feet') } }, /the value 40 ft is not written in the quote/],
    ['a quote absent from the document', { maxHeightFt: { status: 'cited', value: 35, citation: cite('4.1', 'the maximum height is 35 feet') } }, /the quote does not occur in tzb/],
    ['the quote of another section', { maxHeightFt: { status: 'cited', value: 45, citation: cite('4.1', 'the maximum height of a building is 45 feet') } }, /the quote is not in section 4\.1 \(it is in 4\.2\)/],
    ['a section the document does not have', { maxHeightFt: { status: 'cited', value: 35, citation: cite('9.9', 'the maximum height of a building is 35 feet') } }, /section 9\.9 is not a section of tzb/],
    ['a document the manifest does not declare', { maxHeightFt: { status: 'cited', value: 35, citation: { document: 'other', section: '4.1', quote: 'the maximum height of a building is 35 feet' } } }, /document other is not declared/],
    ['a number that is part of another (3.5 is not 35)', { maxHeightFt: { status: 'cited', value: 5, citation: cite('4.1', 'the maximum height of a building is 35 feet') } }, /the value 5 ft is not written/],
  ];
  for (const [what, standards, why] of cases) {
    const t = town({ doc: DOC, standards });
    const r = await verifyPlaceRules('testtown-ma', t);
    assert.equal(r.failures.length, 1, what);
    assert.match(r.failures[0]!.why!, why, what);
    assert.equal(r.failures[0]!.district, 'R-1');
    await assert.rejects(loadPlaceRules('testtown-ma', t), (e: Error) => e instanceof RulesFileError && why.test(e.message) && /R-1 maxHeightFt \(cited\): (tzb|other) § /.test(e.message), what);
  }
  // The document changed after the citations were written: its digest no longer matches the manifest's.
  const changed = town({ doc: DOC, sha: sha256Of(Buffer.from('the text the citations were checked against')), standards: { maxHeightFt: { status: 'cited', value: 35, citation: cite('4.1', 'the maximum height of a building is 35 feet') } } });
  const r = await verifyPlaceRules('testtown-ma', changed);
  assert.equal(r.documents[0]!.ok, false);
  assert.match(r.failures[0]!.why!, /has sha256 [0-9a-f]{64}, the manifest says/);
});

test('HTML and a PDF\'s text layer are held documents too', async () => {
  const html = `<html><body><h2>5 Districts</h2><h3>5.3 Residence A</h3><p>Maximum building height: 40&nbsp;feet.</p><table><tr><th>Lot coverage</th><td>35%</td></tr></table><h3>5.4 Residence B</h3><p>Height: 50 feet.</p></body></html>`;
  const h = town({ doc: html, format: 'html', file: 'bylaw.html', standards: { maxHeightFt: { status: 'cited', value: 40, citation: cite('5.3', 'Maximum building height: 40 feet.') }, maxLotCoveragePct: { status: 'cited', value: 35, citation: cite('5.3', 'Lot coverage | 35%') } } });
  assert.deepEqual((await verifyPlaceRules('testtown-ma', h)).failures, []);
  const wrongSection = town({ doc: html, format: 'html', file: 'bylaw.html', standards: { maxHeightFt: { status: 'cited', value: 50, citation: cite('5.3', 'Height: 50 feet.') } } });
  assert.match((await verifyPlaceRules('testtown-ma', wrongSection)).failures[0]!.why!, /not in section 5\.3/);

  const pdf = await new Promise<Buffer>((resolve) => {
    const d = new PDFDocument();
    const chunks: Buffer[] = [];
    d.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks)));
    d.text('7 Dimensional Standards');
    d.text('7.2 Residence C District');
    d.text('No building in the Residence C district shall exceed 3 stories.');
    d.text('7.3 Business District');
    d.text('No building shall exceed 6 stories.');
    d.end();
  });
  const p = town({ doc: pdf.toString('base64'), format: 'pdf', file: 'bylaw.pdf', standards: { maxHeightStoreys: { status: 'cited', value: 3, citation: cite('7.2', 'shall exceed 3 stories') } } });
  assert.deepEqual((await verifyPlaceRules('testtown-ma', p)).failures, []);
  const pWrong = town({ doc: pdf.toString('base64'), format: 'pdf', file: 'bylaw.pdf', standards: { maxHeightStoreys: { status: 'cited', value: 4, citation: cite('7.2', 'shall exceed 3 stories') } } });
  assert.match((await verifyPlaceRules('testtown-ma', pWrong)).failures[0]!.why!, /value 4 \(storeys\) is not written/);
});

test('numbers as written: separators, decimals, section numbers are not values; units must follow', () => {
  assert.deepEqual(numbersIn('Sec. 3.1.8: 6,000 sq ft, 0.40 and .35 | 2.5').map((n) => n.value), [6000, 0.4, 0.35, 2.5]);
  assert.equal(quoteStatesValue('Lot Width (min) | 32 ft', 32, 'ft'), true);
  assert.equal(quoteStatesValue('Lot Width (min) | 32 ft', 32, 'percent'), false);
  assert.equal(quoteStatesValue('Number of Stories (max) | 3 stories', 3, 'storeys'), true);
  assert.equal(quoteStatesValue('Lot Coverage (max) | 60%', 60, 'storeys'), false, 'a percentage is not a storey count');
  assert.ok(findQuote(normalizeForMatch('| Side Setback (min) | – |  | x | No Driveway Access | 5 ft |'), 'Side Setback (min) | – … No Driveway Access | 5 ft'));
});
