// The deterministic analysis on a synthetic lot and rules with cited values: the derived values, the
// buildable footprint against the real front lot line, and the propagation table's statuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placeRulesSchema } from '../core/rules-schema.ts';
import { analyseFeasibility, analysisResultText, type AnalysisInputs } from './feasibility-analysis.ts';
import { propagate } from './propagation.ts';
import { metresPerDegree } from '../core/geo/primitives.ts';
import type { LotSnapshot } from '../projects/project-lots.ts';

const LAT0 = 42,
  LNG0 = -71;
// The same local metres-per-degree (WGS 84 ellipsoid) that lot geometry is measured with.
const { kx, ky } = metresPerDegree(LAT0);
const ft = (x: number) => x * 0.3048;
const at = (xFt: number, yFt: number): [number, number] => [LNG0 + ft(xFt) / kx, LAT0 + ft(yFt) / ky];

// The analysis reads statuses and values, not words: the quote is a fixture's (load-rules verifies real ones).
const cite = { document: 'testville-zo', section: '17-2-0300', quote: 'a fixture quote; the analysis reads statuses, not words' };
function rules(standards: Record<string, unknown>) {
  return placeRulesSchema.parse({
    slug: 'testville',
    country: 'US',
    bylaw: { name: 'Testville Zoning', url: 'https://example.org/bylaw', date: '2026' },
    districts: { 'R-1': { name: 'Residence 1', standards, uses: [] } },
  });
}
const CITED = {
  maxFar: { status: 'cited', value: 0.5, citation: cite },
  minLotAreaPerUnitSqft: { status: 'cited', value: 1000, citation: cite },
  maxUnitsPerLot: { status: 'cited', value: 3, citation: cite },
  maxDensityUnitsPerAcre: { status: 'no_limit_in_bylaw', citation: cite },
  minFrontYardFt: { status: 'cited', value: 10, citation: cite },
  minSideYardFt: { status: 'cited', value: 5, citation: cite },
  minRearYardFt: { status: 'cited', value: 20, citation: cite },
  maxLotCoveragePct: { status: 'cited', value: 50, citation: cite },
  maxHeightStoreys: { status: 'cited', value: 3, citation: cite },
  maxHeightFt: { status: 'cited', value: 35, citation: cite },
};

// A 60 ft x 100 ft lot; the street runs east-west 30 ft south of it, so its south edge is the front lot line.
const lot: LotSnapshot = {
  parcelExternalId: 'T-1',
  geoDivisionId: 'US-XX:testville',
  areaM2: 557.4,
  areaSqft: 6000,
  districts: [{ layer: 'base', code: 'R-1', name: 'Residence 1', share: 1 }],
  frontByStreet: { 'MAIN ST': { frontageM: ft(60), depthM: ft(100) } },
  streets: ['MAIN ST'],
  cornerLot: false,
  inside: { lat: at(30, 50)[1], lng: at(30, 50)[0] },
  polygon: [[[at(0, 0), at(60, 0), at(60, 100), at(0, 100), at(0, 0)]]],
  frontStreetLines: [[at(-200, -30), at(200, -30)]],
  source: 'test',
  vintage: 'test',
};

function inputs(standards: Record<string, unknown>, extra: Partial<AnalysisInputs> = {}): AnalysisInputs {
  return {
    projectId: 'p',
    lots: [{ role: 'build', attachedAt: '2026-01-01T00:00:00.000Z', lot }],
    places: [{ geoDivisionId: 'US-XX:testville', slug: 'testville', country: 'US', rules: rules(standards), rulesDigest: 'r' }],
    digest: 'd',
    ...extra,
  };
}

test('cited inputs: derived values are derived_from_cited, the footprint is the yard inset against the front lot line, capped by coverage', () => {
  const r = analyseFeasibility(inputs(CITED)) as any;
  assert.deepEqual(r.combinedLotArea, { value: 6000, unit: 'sqft', basis: 'parcel_geometry' });
  assert.deepEqual([r.derived.maxFloorAreaSqft.value, r.derived.maxFloorAreaSqft.status], [3000, 'derived_from_cited']);
  assert.deepEqual(
    [r.derived.maxDwellingUnits.value, r.derived.maxDwellingUnits.status],
    [3, 'derived_from_cited'],
    'min(6 by area, cap 3); density has no limit',
  );
  assert.deepEqual(
    [r.derived.buildableFootprintSqft.value, r.derived.buildableFootprintSqft.status],
    [3000, 'derived_from_cited'],
    'inset 3500 capped at 50 % coverage',
  );
  assert.match(r.derived.buildableFootprintSqft.note, /yard-inset area 350[01] sqft/);
  assert.match(r.derived.buildableFootprintSqft.note, /Front lot line: 1 edge\(s\), 60 ft; 2 side and 1 rear/);
  assert.deepEqual([r.derived.gfaEnvelopeSqft.value, r.derived.gfaEnvelopeSqft.status], [3000, 'derived_from_cited'], 'min(FAR 3000, 3000 x 3 storeys)');
  assert.deepEqual([r.derived.maxStoreys.value, r.derived.maxHeightFt.value], [3, 35]);
  assert.ok(r.evidence.length >= 9 && r.evidence.every((e: any) => e.section === '17-2-0300'));
});

test('the footprint follows the front lot line: rear yard 20 ft on the edge away from the street', () => {
  const noCap = { ...CITED, maxLotCoveragePct: { status: 'no_limit_in_bylaw', citation: cite } };
  const south = analyseFeasibility(inputs(noCap)) as any;
  assert.ok(Math.abs(south.derived.buildableFootprintSqft.value - 50 * 70) <= 2, String(south.derived.buildableFootprintSqft.value));
  // The street to the east instead: the 100 ft east edge is the front, so the inset is (100 - 10) ... width 60 - 10 - 20.
  const eastLot = { ...lot, frontStreetLines: [[at(90, -200), at(90, 300)]] as [number, number][][] };
  const east = analyseFeasibility(inputs(noCap, { lots: [{ role: 'build', attachedAt: 'x', lot: eastLot }] })) as any;
  assert.ok(Math.abs(east.derived.buildableFootprintSqft.value - (60 - 30) * (100 - 10)) <= 2, String(east.derived.buildableFootprintSqft.value));
});

test('a not_extracted input makes the result unknown (null, never zero); unverified_default makes it indicative', () => {
  const { maxFar: _f, ...withoutFar } = CITED;
  const r = analyseFeasibility(inputs(withoutFar)) as any;
  assert.deepEqual([r.derived.maxFloorAreaSqft.value, r.derived.maxFloorAreaSqft.status], [null, 'not_extracted']);
  assert.deepEqual([r.derived.gfaEnvelopeSqft.value, r.derived.gfaEnvelopeSqft.status], [null, 'not_extracted']);
  const ind = analyseFeasibility(inputs({ ...CITED, maxLotCoveragePct: { status: 'unverified_default', value: 40, note: 'from a city summary' } })) as any;
  assert.deepEqual([ind.derived.buildableFootprintSqft.value, ind.derived.buildableFootprintSqft.status], [2400, 'unverified_default']);
  assert.match(ind.derived.buildableFootprintSqft.note, /Indicative only/);
  const noLimit = analyseFeasibility(inputs({ ...CITED, maxFar: { status: 'no_limit_in_bylaw', citation: cite } })) as any;
  assert.deepEqual([noLimit.derived.maxFloorAreaSqft.value, noLimit.derived.maxFloorAreaSqft.status], [null, 'no_limit_in_bylaw']);
  assert.deepEqual(
    [noLimit.derived.gfaEnvelopeSqft.value, noLimit.derived.gfaEnvelopeSqft.status],
    [9000, 'derived_from_cited'],
    'the no-limit FAR term drops out of the min',
  );
});

test('an input whose status counts as known but which has no number (an unverified default without a value) leaves the result unknown, never 0', () => {
  // Cambridge's FAR for some districts: unverified_default with value null.
  const r = analyseFeasibility(inputs({ ...CITED, maxFar: { status: 'unverified_default', value: null, note: 'no figure' } })) as any;
  assert.deepEqual([r.derived.maxFloorAreaSqft.value, r.derived.maxFloorAreaSqft.status], [null, 'unverified_default']);
  // Worded as every surface words it (core/value-words.ts notCalculatedWords): which input, and why.
  assert.match(r.derived.maxFloorAreaSqft.note, /^Not calculated: maximum floor area ratio \(FAR\) is not known \(indicative, unverified\)\./);
  const stated = analyseFeasibility(
    inputs({ ...CITED, maxFar: { status: 'unverified_default', value: null, statedNoLimit: 'S1', note: 'a city notice' } }),
  ) as any;
  assert.match(
    stated.derived.maxFloorAreaSqft.note,
    /^Not calculated: maximum floor area ratio \(FAR\) reads “No limit, per S1”, which no bylaw text confirms\./,
  );
  assert.deepEqual(
    [r.derived.gfaEnvelopeSqft.value, r.derived.gfaEnvelopeSqft.status],
    [null, 'unverified_default'],
    'an unknown floor area cannot be the min',
  );
  const perUnit = analyseFeasibility(inputs({ ...CITED, minLotAreaPerUnitSqft: { status: 'unverified_default', value: null, note: 'no figure' } })) as any;
  assert.equal(perUnit.derived.maxDwellingUnits.value, null, 'not Infinity, not the cap alone');
  const yard = analyseFeasibility(inputs({ ...CITED, minRearYardFt: { status: 'unverified_default', value: null, note: 'no figure' } })) as any;
  assert.equal(yard.derived.buildableFootprintSqft.value, null, 'a rear yard without a number is not a 0 ft yard');
  assert.match(yard.derived.buildableFootprintSqft.note, /minimum rear yard is not known/);
  assert.doesNotMatch(
    analysisResultText(inputs({ ...CITED, maxFar: { status: 'unverified_default', value: null, note: 'no figure' } })),
    /"maxFloorAreaSqft":\{[^}]*"value":0/,
    'no zero floor area in the stored text',
  );
});

test('the propagation table: unknown beats indicative beats cited', () => {
  assert.deepEqual(propagate(['cited', 'not_extracted', 'unverified_default']), { known: false, status: 'not_extracted' });
  assert.deepEqual(propagate(['cited', 'unverified_default']), { known: true, status: 'unverified_default' });
  assert.deepEqual(propagate(['cited', 'cited_conditional', 'no_limit_in_bylaw']), { known: true, status: 'derived_from_cited' });
  assert.deepEqual(propagate(['unverified_default', 'defaulted']), { known: true, status: 'defaulted' });
});

test('context lots are summarised, not analysed; the same inputs give byte-identical text', () => {
  const ctxLot = { role: 'context' as const, attachedAt: 'x', lot: { ...lot, parcelExternalId: 'T-2', areaSqft: 4000 } };
  const i = inputs(CITED, { lots: [{ role: 'build', attachedAt: 'x', lot }, ctxLot] });
  const r = analyseFeasibility(i) as any;
  assert.equal(r.combinedLotArea.value, 6000);
  assert.deepEqual(r.contextLots.lots, [{ parcelExternalId: 'T-2', areaSqft: 4000, districts: ['R-1'] }]);
  assert.equal(analysisResultText(i), analysisResultText(inputs(CITED, { lots: [{ role: 'build', attachedAt: 'x', lot }, ctxLot] })));
});

test("a build lot whose area is in conflict with the assessor's: its warning is in the notes and every figure computed from the area says it is uncertain", () => {
  const warning =
    'The lot polygon measures 6,000 sq ft, but the assessor table gives 9,000 sq ft of land (33 % apart): the polygon may be a piece of the lot or of another date, so values that depend on lot area are uncertain.';
  const doubted = { ...lot, warnings: [warning] };
  const r = analyseFeasibility(inputs(CITED, { lots: [{ role: 'build', attachedAt: 'x', lot: doubted }] })) as any;
  assert.ok(r.notes.includes(`Lot T-1: ${warning}`), JSON.stringify(r.notes));
  assert.deepEqual(r.buildLots[0].warnings, [warning]);
  for (const k of ['maxFloorAreaSqft', 'maxDwellingUnits', 'buildableFootprintSqft', 'gfaEnvelopeSqft']) {
    assert.notEqual(r.derived[k].value, null, k);
    assert.match(r.derived[k].note, /Uncertain: computed from a lot area in conflict with the assessor's/, k);
  }
  assert.doesNotMatch(r.derived.maxStoreys.note ?? '', /Uncertain/, 'storeys do not depend on the area');
  // Without the warning, nothing is said.
  const plain = analyseFeasibility(inputs(CITED)) as any;
  assert.ok(!plain.notes.some((n: string) => /assessor/.test(n)));
  assert.equal(plain.buildLots[0].warnings, undefined);
});

test('a build lot on two streets that is not a corner lot carries its note into the analysis notes (and so the report); a corner lot does not', () => {
  const note =
    "Faces Main St and Side St, but is not a corner lot: its two street faces come no closer than 44 ft (a corner lot's must meet, within 33 ft; docs/lot-metrics.md).";
  const one = analyseFeasibility(
    inputs(CITED, { lots: [{ role: 'build', attachedAt: '2026-01-01T00:00:00.000Z', lot: { ...lot, cornerLotNote: note } }] }),
  ) as any;
  assert.ok(one.notes.includes(note), JSON.stringify(one.notes));
  const two = analyseFeasibility(
    inputs(CITED, {
      lots: [
        { role: 'build', attachedAt: '2026-01-01T00:00:00.000Z', lot: { ...lot, cornerLotNote: note } },
        { role: 'build', attachedAt: '2026-01-01T00:00:00.000Z', lot: { ...lot, parcelExternalId: 'T-2' } },
      ],
    }),
  ) as any;
  assert.ok(two.notes.includes(`Lot T-1: ${note}`), JSON.stringify(two.notes));
  // a site with a corner lot among its build lots is a corner site: no lot's "not a corner" note is said
  const corner = analyseFeasibility(
    inputs(CITED, {
      lots: [
        { role: 'build', attachedAt: '2026-01-01T00:00:00.000Z', lot: { ...lot, cornerLotNote: note } },
        { role: 'build', attachedAt: '2026-01-01T00:00:00.000Z', lot: { ...lot, parcelExternalId: 'T-2', cornerLot: true } },
      ],
    }),
  ) as any;
  assert.ok(!corner.notes.some((n: string) => n.includes('not a corner lot')), JSON.stringify(corner.notes));
  const plain = analyseFeasibility(inputs(CITED)) as any;
  assert.ok(!plain.notes.some((n: string) => n.includes('not a corner lot')));
});

test('build lots in two places: the note names the bylaw whose rules apply, never a catalogue id', () => {
  const elsewhere: LotSnapshot = { ...lot, parcelExternalId: 'O-1', geoDivisionId: 'US-XX:otherville' };
  const r = analyseFeasibility(
    inputs(CITED, {
      lots: [
        { role: 'build', attachedAt: '2026-01-01T00:00:00.000Z', lot },
        { role: 'build', attachedAt: '2026-01-01T00:00:01.000Z', lot: elsewhere },
      ],
    }),
  ) as any;
  const note = (r.notes as string[]).find((n) => n.startsWith('The build lots lie in'));
  assert.equal(note, "The build lots lie in 2 places; the rules of the first build lot's place (Testville Zoning) are applied to all of them.");
  assert.ok(!(r.notes as string[]).some((n) => /US-XX:/.test(n)), 'no catalogue id in any note');
});
