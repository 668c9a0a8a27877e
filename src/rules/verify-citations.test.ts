import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import { loadPlaceRules, RulesFileError, verifyPlaceRules } from './load-rules.ts';
import { rulesCaches, rulesIn } from '../../test/support/rules-context.ts';
import { REPO_PLACES_DIR } from '../config.ts';
import { findQuote, normalizeForMatch, sha256Of } from './held-documents.ts';
import { numbersIn, statedWithUnit, unitFollows } from './citation-vocabulary.ts';
import { labelBound } from './verify-citations.ts';
import { knowledgeSectionsOf } from './knowledge-sections.ts';
import { listManifestSlugs } from '../places/manifest.ts';

const SOURCE_DIR = path.resolve(import.meta.dirname, '../../../shared/data');

test('every shipped place verifies: no value anywhere is cited without a quote found in a held document', async () => {
  for (const slug of listManifestSlugs(REPO_PLACES_DIR)) {
    const r = await verifyPlaceRules(slug, { placesDir: REPO_PLACES_DIR, sourceDir: SOURCE_DIR });
    assert.deepEqual(r.failures, [], `${slug}: ${JSON.stringify(r.failures.slice(0, 3))}`);
  }
  const som = await verifyPlaceRules('somerville-ma', { placesDir: REPO_PLACES_DIR, sourceDir: SOURCE_DIR });
  assert.equal(som.checked, 297);
  assert.equal(som.verified, 297, 'Somerville: every citation verifies');
  for (const slug of ['chicago-il', 'paradise-tx', 'cambridge-ma', 'saanich-bc'])
    assert.equal((await verifyPlaceRules(slug, { placesDir: REPO_PLACES_DIR, sourceDir: SOURCE_DIR })).checked, 0, `${slug} cites nothing`);
});

test('Somerville: NR, UR and MR3-MR6 with every building type, values conditional on the type, each with its quote', async () => {
  const r = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'somerville-ma');
  assert.deepEqual(Object.keys(r.districts).sort(), ['MR3', 'MR4', 'MR5', 'MR6', 'NR', 'UR']);
  assert.deepEqual(Object.keys(r.districts.NR!.buildingTypes!), [
    'Cottage',
    'Detached House',
    'Semi-Detached House',
    'Duplex',
    'Detached Triple Decker',
    'Backyard Cottage',
  ]);
  const dh = r.districts.NR!.buildingTypes!['Detached House']!;
  assert.equal(dh.section, '3.1.8');
  const cov = dh.standards.maxLotCoveragePct!;
  assert.deepEqual([cov.status, cov.value, cov.citation!.section, cov.citation!.quote], ['cited_conditional', 60, '3.1.8', 'Lot Coverage (max) | 60%']);
  assert.match(cov.condition!, /Detached House/);
  assert.equal(dh.standards.maxHeightStoreys!.value, 2.5);
  const width = dh.standards.minLotWidthFt!;
  assert.deepEqual(
    width.tiers!.map((t) => [t.when[0], t.values[0]]),
    [
      ['No Driveway Access', '32'],
      ['Side or Rear Driveway Access', '32'],
      ['Front Driveway Access', '34'],
    ],
  );
  // The loaded citation carries what a reader needs to check it.
  assert.equal(cov.citation!.documentTitle, 'Somerville Zoning Ordinance');
  assert.match(cov.citation!.href, /^\/sources\/somerville-ma\/szo\?section=3\.1\.8&quote=/);
  assert.match(cov.citation!.sectionUuid, /^[0-9a-f-]{36}$/);
  // Knowledge sections are real sections of the held text.
  const ks = knowledgeSectionsOf(r).find((s) => s.section === '3.1.8')!;
  assert.match(ks.title, /Somerville Zoning Ordinance, 3\.1\.8 Detached House/);
  assert.ok(ks.text.includes('| Lot Coverage (max) | 60% |'), "the section text is the document's own");
});

// A small place of our own whose document and rules a test can change.
function town(opts: {
  doc: string;
  format?: 'markdown' | 'html' | 'text' | 'pdf';
  file?: string;
  standards: Record<string, unknown>;
  sha?: string;
  section?: string;
  uses?: unknown[];
  extra?: Record<string, unknown>;
}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-cite-'));
  const places = path.join(root, 'places');
  const src = path.join(root, 'src');
  fs.mkdirSync(path.join(places, 'testtown-ma'), { recursive: true });
  fs.mkdirSync(path.join(src, 'testtown-ma'), { recursive: true });
  const file = opts.file ?? 'bylaw.md';
  const bytes = Buffer.from(opts.doc, opts.format === 'pdf' ? 'base64' : 'utf8');
  fs.writeFileSync(path.join(src, 'testtown-ma', file), bytes);
  const manifest = {
    slug: 'testtown-ma',
    geoDivisionId: 'US-MA:testtown',
    name: 'Testtown',
    region: 'MA',
    country: 'US',
    status: 'planned_not_live',
    bbox: [-71.2, 42.3, -71.1, 42.4],
    sourceFolder: 'testtown-ma',
    rulesFile: 'rules.json',
    sources: [],
    documents: [
      {
        id: 'tzb',
        file,
        sha256: opts.sha ?? sha256Of(bytes),
        role: 'ordinance',
        title: 'Testtown Zoning Bylaw',
        format: opts.format ?? 'markdown',
        edition: '2024-01-01',
        retrieved: '2026-11-27',
        licence: 'public domain',
        url: 'https://example.org/tzb',
      },
    ],
  };
  fs.writeFileSync(path.join(places, 'testtown-ma', 'manifest.json'), JSON.stringify(manifest));
  const rules = {
    slug: 'testtown-ma',
    country: 'US',
    bylaw: { name: 'Testtown Zoning Bylaw', url: 'https://example.org/tzb', date: '2024-01-01' },
    ...opts.extra,
    districts: { 'R-1': { name: 'Residence 1', section: opts.section ?? '4.1', standards: opts.standards, uses: opts.uses ?? [] } },
  };
  fs.writeFileSync(path.join(places, 'testtown-ma', 'rules.json'), JSON.stringify(rules));
  rulesCaches.rulesReloaded(); // the rules files and held documents read again
  return { placesDir: places, sourceDir: src };
}

const DOC = `# Testtown Zoning Bylaw

## 4 Dimensional Requirements

### 4.1 Residence 1 District

In the R-1 district the maximum height of a building is 35 feet and no building shall exceed 3 stories.
The “maximum lot coverage” is 30%.
A dwelling may have 2 stories, and one (1) dwelling unit may face each street.
Single-family dwellings are permitted by right. Two-family dwellings require a special permit.

| Standard | R-1 |
| --- | --- |
| Minimum lot area | 6,000 sq ft |
| Max. bldg. ht. | 35 ft |
| Front yard (min/max) | 10 ft | 25 ft |
| Side yard | 5 ft |
| Dwelling units per lot | 2 to 4 units |

The maximum lot coverage is 40% and the height of an accessory building is 15 feet.
There is no minimum lot area per dwelling unit in the R-1 district.

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
      maxUnitsPerLot: { status: 'cited', value: 4, citation: cite('4.1', 'Dwelling units per lot | 2 to 4 units') },
      minLotAreaSqft: { status: 'cited', value: 6000, citation: cite('4.1', 'Minimum lot area | 6,000 sq ft') },
    },
  });
  const r = await verifyPlaceRules('testtown-ma', t);
  assert.deepEqual([r.checked, r.verified, r.failures], [4, 4, []]);
  const loaded = await loadPlaceRules(rulesIn(t), 'testtown-ma');
  assert.equal(loaded.districts['R-1']!.standards.maxHeightFt!.citation!.sourceUrl, 'https://example.org/tzb');
  assert.equal(loaded.districts['R-1']!.standards.maxHeightFt!.citation!.date, '2024-01-01');
});

// Long because: one table of every kind of bad citation with the message each must give, read best whole.
test('each kind of bad citation is refused, with value, district, document, section and why', async () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'a wrong number',
      { maxHeightFt: { status: 'cited', value: 40, citation: cite('4.1', 'the maximum height of a building is 35 feet') } },
      /the value 40 ft is not written in the quote \(it states 35 ft for maxHeightFt\)/,
    ],
    [
      'a quote absent from the document',
      { maxHeightFt: { status: 'cited', value: 35, citation: cite('4.1', 'the maximum height is 35 feet') } },
      /the quote does not occur in tzb/,
    ],
    [
      'the quote of another section',
      { maxHeightFt: { status: 'cited', value: 45, citation: cite('4.1', 'the maximum height of a building is 45 feet') } },
      /the quote is not in section 4\.1 \(it is in 4\.2\)/,
    ],
    [
      'a section of another district',
      { maxHeightFt: { status: 'cited', value: 45, citation: cite('4.2', 'the maximum height of a building is 45 feet') } },
      /§ 4\.2 \(4\.2 Residence 2 District\) is not in district R-1's section 4\.1/,
    ],
    [
      'a section the document does not have',
      { maxHeightFt: { status: 'cited', value: 35, citation: cite('9.9', 'the maximum height of a building is 35 feet') } },
      /section 9\.9 is not a section of tzb/,
    ],
    [
      'a document the manifest does not declare',
      { maxHeightFt: { status: 'cited', value: 35, citation: { document: 'other', section: '4.1', quote: 'the maximum height of a building is 35 feet' } } },
      /document other is not declared/,
    ],
    [
      'a number that is part of another (5 is not in 35)',
      { maxHeightFt: { status: 'cited', value: 5, citation: cite('4.1', '5 feet') } },
      /does not occur in tzb .* as whole words and numbers/,
    ],
    [
      'a sentence that states no bound ("may have 2 stories")',
      { maxHeightStoreys: { status: 'cited', value: 2, citation: cite('4.1', 'A dwelling may have 2 stories') } },
      /the quote does not say that 2 storeys is a maximum/,
    ],
    [
      'a storey count read from feet',
      {
        maxHeightStoreys: {
          status: 'cited',
          value: 35,
          citation: cite('4.1', 'the maximum height of a building is 35 feet and no building shall exceed 3 stories'),
        },
      },
      /the value 35 storeys is not written in the quote \(it states 3 storeys for maxHeightStoreys\)/,
    ],
    [
      "a minimum read from a (min/max) row's maximum",
      { minFrontYardFt: { status: 'cited', value: 25, citation: cite('4.1', 'Front yard (min/max) | 10 ft | 25 ft') } },
      /the value 25 ft is not the number "Front yard \(min\/max\) \| 10 ft \| 25 ft" states for the minimum \(10 ft\)/,
    ],
    [
      'a label this place does not declare ("Max. bldg. ht.")',
      { maxHeightFt: { status: 'cited', value: 35, citation: cite('4.1', 'Max. bldg. ht. | 35 ft') } },
      /is not the row of maxHeightFt/,
    ],
    [
      'the wrong end of a range in a cell ("2 to 4 units" gives a maximum of 4)',
      { maxUnitsPerLot: { status: 'cited', value: 2, citation: cite('4.1', 'Dwelling units per lot | 2 to 4 units') } },
      /the value 2 units is not the number "Dwelling units per lot \| 2 to 4 units" states for the maximum \(4 units\)/,
    ],
    [
      'a bound word that belongs to another standard of the sentence',
      {
        maxHeightFt: {
          status: 'cited',
          value: 15,
          citation: cite('4.1', 'The maximum lot coverage is 40% and the height of an accessory building is 15 feet'),
        },
      },
      /does not say that 15 ft is a maximum/,
    ],
    [
      'an elision across table rows',
      { minLotAreaSqft: { status: 'cited', value: 35, citation: cite('4.1', 'Minimum lot area … 35 ft') } },
      /is not a whole row/,
    ],
    [
      'an elision from a sentence into a table',
      { maxHeightFt: { status: 'cited', value: 35, citation: cite('4.1', 'the maximum height … 35 ft') } },
      /joins words of a sentence and of a table row/,
    ],
  ];
  for (const [what, standards, why] of cases) {
    const t = town({ doc: DOC, standards });
    const r = await verifyPlaceRules('testtown-ma', t);
    assert.equal(r.failures.length, 1, what);
    assert.match(r.failures[0]!.why!, why, what);
    assert.equal(r.failures[0]!.district, 'R-1');
    await assert.rejects(
      loadPlaceRules(rulesIn(t), 'testtown-ma'),
      (e: Error) =>
        e instanceof RulesFileError &&
        why.test(e.message) &&
        /R-1 (maxHeightFt|maxUnitsPerLot|maxHeightStoreys|minFrontYardFt|minLotAreaSqft) \(cited\): (tzb|other) § /.test(e.message),
      what,
    );
  }
  // No limit, read from the bylaw: the sentence names the standard and states no number.
  const noLimit = town({
    doc: DOC,
    standards: {
      minLotAreaPerUnitSqft: {
        status: 'no_limit_in_bylaw',
        value: null,
        citation: cite('4.1', 'There is no minimum lot area per dwelling unit in the R-1 district'),
      },
    },
  });
  assert.deepEqual((await verifyPlaceRules('testtown-ma', noLimit)).failures, []);
  // A district that cites must say which section is its own.
  const noSection = town({
    doc: DOC,
    section: '',
    standards: { maxHeightFt: { status: 'cited', value: 35, citation: cite('4.1', 'the maximum height of a building is 35 feet') } },
  });
  const rules = JSON.parse(fs.readFileSync(path.join(noSection.placesDir, 'testtown-ma', 'rules.json'), 'utf8'));
  delete rules.districts['R-1'].section;
  fs.writeFileSync(path.join(noSection.placesDir, 'testtown-ma', 'rules.json'), JSON.stringify(rules));
  assert.match((await verifyPlaceRules('testtown-ma', noSection)).failures[0]!.why!, /district R-1 declares no section of tzb/);
  // The document changed after the citations were written: its digest no longer matches the manifest's.
  const changed = town({
    doc: DOC,
    sha: sha256Of(Buffer.from('the text the citations were checked against')),
    standards: { maxHeightFt: { status: 'cited', value: 35, citation: cite('4.1', 'the maximum height of a building is 35 feet') } },
  });
  const r = await verifyPlaceRules('testtown-ma', changed);
  assert.equal(r.documents[0]!.ok, false);
  assert.match(r.failures[0]!.why!, /has sha256 [0-9a-f]{64}, the manifest says/);
});

test("HTML and a PDF's text layer are held documents too", async () => {
  const html = `<html><body><h2>5 Districts</h2><h3>5.3 Residence A</h3><p>Maximum building height: 40&nbsp;feet.</p><table><tr><th>Lot coverage</th><td>35%</td></tr></table><h3>5.4 Residence B</h3><p>Height: 50 feet.</p></body></html>`;
  const h = town({
    doc: html,
    format: 'html',
    file: 'bylaw.html',
    section: '5.3',
    standards: {
      maxHeightFt: { status: 'cited', value: 40, citation: cite('5.3', 'Maximum building height: 40 feet.') },
      maxLotCoveragePct: { status: 'cited', value: 35, citation: cite('5.3', 'Lot coverage | 35%') },
    },
  });
  assert.deepEqual((await verifyPlaceRules('testtown-ma', h)).failures, []);
  const wrongSection = town({
    doc: html,
    format: 'html',
    file: 'bylaw.html',
    section: '5.3',
    standards: { maxHeightFt: { status: 'cited', value: 50, citation: cite('5.3', 'Height: 50 feet.') } },
  });
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
  const p = town({
    doc: pdf.toString('base64'),
    format: 'pdf',
    file: 'bylaw.pdf',
    section: '7.2',
    standards: { maxHeightStoreys: { status: 'cited', value: 3, citation: cite('7.2', 'shall exceed 3 stories') } },
  });
  assert.deepEqual((await verifyPlaceRules('testtown-ma', p)).failures, []);
  const pWrong = town({
    doc: pdf.toString('base64'),
    format: 'pdf',
    file: 'bylaw.pdf',
    section: '7.2',
    standards: { maxHeightStoreys: { status: 'cited', value: 4, citation: cite('7.2', 'shall exceed 3 stories') } },
  });
  assert.match((await verifyPlaceRules('testtown-ma', pWrong)).failures[0]!.why!, /value 4 storeys is not written/);
});

test('numbers as written: separators, decimals, section numbers are not values; number words; units must follow', () => {
  assert.deepEqual(
    numbersIn('Sec. 3.1.8: 6,000 sq ft, 0.40 and .35 | 2.5').map((n) => n.value),
    [6000, 0.4, 0.35, 2.5],
  );
  assert.deepEqual(
    numbersIn('with four to six dwelling units, one (1) each', { words: true }).map((n) => n.value),
    [4, 6, 1],
  );
  assert.equal(unitFollows(' ft', 'ft'), true);
  assert.equal(unitFollows('%', 'ft'), false);
  assert.equal(unitFollows(' stories', 'storeys'), true);
  assert.equal(unitFollows('', 'storeys'), true, 'a bare count in a table cell');
  assert.equal(unitFollows('%', 'storeys'), false, 'a percentage is not a storey count');
  assert.equal(unitFollows(' ft', 'score'), false);
  assert.deepEqual(
    statedWithUnit('a building of 3 rooms and 2 stories', 'storeys', { prose: true }).map((n) => n.value),
    [2],
    'in a sentence a count carries its words',
  );
  assert.deepEqual(
    [labelBound('Primary Front Setback 1 (min/max)'), labelBound('Lot Width (min)'), labelBound('Maximum height'), labelBound('Green Score')],
    ['min/max', 'min', 'max', null],
  );
  // Parts of a quote match on word and number boundaries.
  const text = normalizeForMatch('| No Driveway Access | 24 ft | Side Setbacks | 12.5% |');
  assert.equal(findQuote(text, '4 ft'), null, '"4 ft" is not in "24 ft"');
  assert.equal(findQuote(text, '2.5%'), null, '"2.5" is not in "12.5"');
  assert.equal(findQuote(text, 'Side Setback'), null, '"Side Setback" is not in "Side Setbacks"');
  assert.ok(findQuote(text, 'No Driveway Access | 24 ft'));
  assert.ok(
    findQuote(normalizeForMatch('| Side Setback (min) | – |  | x | No Driveway Access | 5 ft |'), 'Side Setback (min) | – … No Driveway Access | 5 ft'),
  );
});

test("a place extends the vocabulary: a label of its own, and permission words; a use's quote names it with its permission", async () => {
  const standards = { maxHeightFt: { status: 'cited', value: 35, citation: cite('4.1', 'Max. bldg. ht. | 35 ft') } };
  const uses = [
    { use: 'single-family dwelling', permission: 'as_of_right', status: 'cited', citation: cite('4.1', 'Single-family dwellings are permitted by right') },
    { use: 'two-family dwelling', permission: 'special_permit', status: 'cited', citation: cite('4.1', 'Two-family dwellings require a special permit') },
  ];
  const ok = town({ doc: DOC, standards, uses, extra: { citationVocabulary: { labels: { maxHeightFt: ['^max\\. bldg\\. ht\\.'] } } } });
  assert.deepEqual((await verifyPlaceRules('testtown-ma', ok)).failures, []);
  const wrong = town({
    doc: DOC,
    standards: {},
    uses: [
      { use: 'single-family dwelling', permission: 'special_permit', status: 'cited', citation: cite('4.1', 'Single-family dwellings are permitted by right') },
      { use: 'three-family dwelling', permission: 'special_permit', status: 'cited', citation: cite('4.1', 'Two-family dwellings require a special permit') },
    ],
  });
  const whys = (await verifyPlaceRules('testtown-ma', wrong)).failures.map((f) => `${f.item}: ${f.why}`);
  assert.deepEqual(whys, [
    'use:single-family dwelling: the quote does not say special_permit (its words: special permit)',
    'use:three-family dwelling: the quote does not name the use "three-family dwelling"',
  ]);
});

test("the wrong values issue 46 lists, each applied to a copy of Somerville's rules, are refused with their reason; the control verifies", async () => {
  const fixture = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../test/fixtures/citation-wrong-values.json'), 'utf8')) as {
    cases: { case: string; district: string; buildingType?: string; standard?: string; use?: string; set: unknown; why: string | null }[];
  };
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-wrong-'));
  fs.cpSync(path.resolve(import.meta.dirname, '../../places'), root, { recursive: true });
  const file = path.join(root, 'somerville-ma', 'rules.json');
  const rules = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const c of fixture.cases) {
    const d = rules.districts[c.district];
    if (c.use) d.uses[d.uses.findIndex((u: { use: string }) => u.use === c.use)] = c.set;
    else d.buildingTypes[c.buildingType!].standards[c.standard!] = c.set;
  }
  fs.writeFileSync(file, JSON.stringify(rules));
  rulesCaches.rulesReloaded();
  const r = await verifyPlaceRules('somerville-ma', { placesDir: root, sourceDir: SOURCE_DIR });
  for (const c of fixture.cases) {
    const item = c.use ? `use:${c.use}` : c.standard;
    const f = r.failures.find((x) => x.district === c.district && x.buildingType === c.buildingType && x.item === item);
    if (c.why === null) assert.equal(f, undefined, c.case);
    else {
      assert.ok(f, `${c.case}: refused`);
      assert.match(f.why!, new RegExp(c.why), c.case);
    }
  }
  assert.equal(r.failures.length, fixture.cases.filter((c) => c.why !== null).length, 'nothing else fails');
});
