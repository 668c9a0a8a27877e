import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fc from 'fast-check';
import { buildEnvelope, envelopeInvariantViolations, assertEnvelopeInvariants, ENVELOPE_MEMBERS, type EnvelopeInput, type EnvelopeLot } from './envelope.ts';
import { loadPlaceRules } from '../rules/load-rules.ts';
import { rulesIn } from '../../test/support/rules-context.ts';
import type { PlaceRules } from './rules-schema.ts';
import { VALUE_STATUSES } from './statuses.ts';

const SOURCE_DIR = path.resolve(import.meta.dirname, '../../../shared/data');

/**
 * The envelope's mechanics (how cited, conditional and derived statuses propagate) are tested on the
 * shipped rules with the values that were read from an ordinance's text or an OZFS feed restored to
 * `cited`, each with a citation naming the section its note gives. The shipped files carry them as
 * unverified_default because the service holds no copy of those texts; whether a citation verifies
 * is verify-citations.test.ts's subject, not this file's.
 */
function asIfCited(r: PlaceRules): PlaceRules {
  const copy = structuredClone(r);
  const section = (note: string | undefined) =>
    /Transcribed by hand from Sec\. (\S+) /.exec(note ?? '')?.[1] ??
    /Feed constraint (\S+) (\S+):/
      .exec(note ?? '')
      ?.slice(1)
      .join(' constraints.');
  const cite = (sec: string) => ({
    document: 'test',
    documentTitle: 'Test text',
    section: sec,
    quote: `(test) ${sec}`,
    sourceUrl: 'https://example.org/',
    date: '2020',
    href: '/sources/test',
    sectionUuid: sec,
  });
  for (const d of Object.values(copy.districts))
    for (const [k, v] of Object.entries(d.standards)) {
      const sec = v && v.status === 'unverified_default' ? section(v.note) : undefined;
      if (!v || !sec) continue;
      const noLimit = /The ordinance was read to set no such standard/.test(v.note ?? '');
      d.standards[k as keyof typeof d.standards] = noLimit
        ? { status: 'no_limit_in_bylaw', citation: cite(sec) }
        : { ...v, status: 'cited', citation: cite(sec) };
    }
  return copy;
}
const rules = async (slug: string) => asIfCited(await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), slug));
const LOT: EnvelopeLot = { areaSqft: 5000, frontageFt: 40, depthFt: 125, cornerLot: false, country: 'US' };

function env(r: PlaceRules, zone: string | null, lot: Partial<EnvelopeLot> = {}, extra: Partial<EnvelopeInput> = {}) {
  const out = buildEnvelope({ rules: r, primaryZone: zone, zones: zone ? [{ code: zone, share: 1 }] : [], overlays: [], lot: { ...LOT, ...lot }, ...extra });
  assertEnvelopeInvariants(out.envelope);
  for (const m of ENVELOPE_MEMBERS) assert.ok(out.envelope[m.name], `member ${m.name} present`);
  return out;
}

test('cited: a value read from the ordinance table, with its section', async () => {
  const { envelope } = env(await rules('chicago-il'), 'B1-2');
  assert.equal(envelope.maxFar!.status, 'cited');
  assert.equal(envelope.maxFar!.value, 2.2);
  assert.equal(envelope.maxFar!.unit, 'ratio');
  assert.equal(envelope.maxFar!.citation!.section, '17-3-0403-A');
  assert.equal(envelope.minLotAreaPerUnitSqft!.value, 1000);
});

test('derived_from_cited: floor area and dwelling units from cited inputs and the lot', async () => {
  const { envelope } = env(await rules('chicago-il'), 'B1-2', { areaSqft: 3125 });
  assert.deepEqual(
    { value: envelope.maxFloorAreaSqft!.value, status: envelope.maxFloorAreaSqft!.status, inputs: envelope.maxFloorAreaSqft!.inputs },
    { value: 6875, status: 'derived_from_cited', inputs: ['maxFar', 'lot.areaSqft'] },
  );
  assert.equal(envelope.maxDwellingUnits!.value, 3, '3125 / 1000 floored');
  assert.equal(envelope.maxDwellingUnits!.status, 'derived_from_cited');
  const paradise = env(await rules('paradise-tx'), 'R-2', { areaSqft: 21780 }).envelope;
  assert.equal(paradise.maxDwellingUnitsByDensity!.value, 11, '23 units/acre x 0.5 acre, floored');
  assert.equal(paradise.maxFootprintSqft!.value, 14157, '65% of the lot');
  assert.equal(paradise.maxFootprintSqft!.status, 'derived_from_cited');
});

test('cited_conditional: an OZFS condition resolved for this site; conditional_unresolved when it cannot be', async () => {
  const r = await rules('paradise-tx');
  const asked = env(r, 'R-2', {}, { residentialType: '1_unit' }).envelope;
  assert.equal(asked.minLotAreaSqft!.status, 'cited_conditional');
  assert.equal(asked.minLotAreaSqft!.value, 7405.2, '0.17 acre');
  assert.match(asked.minLotAreaSqft!.condition!, /res_type == '1_unit'/);
  assert.match(asked.minLotAreaSqft!.citation!.section, /R-2 constraints\.lot_area\.min_val/);

  const notAsked = env(r, 'R-2').envelope;
  assert.equal(notAsked.minLotAreaSqft!.status, 'conditional_unresolved');
  assert.equal(notAsked.minLotAreaSqft!.value, null);
  assert.ok(notAsked.minLotAreaSqft!.condition);
  // A 4-plus building needs total_units, which the lot cannot give.
  assert.equal(env(r, 'R-2', {}, { residentialType: '4_plus' }).envelope.minLotAreaSqft!.status, 'conditional_unresolved');
  // Prose conditions ("25 for residential streets, 35 for major streets") never resolve.
  const front = env(r, 'R-1', {}, { residentialType: '1_unit' }).envelope.minFrontYardFt!;
  assert.equal(front.status, 'conditional_unresolved');
  assert.match(front.condition!, /residential streets/);
  // Chicago RS-1 frontage depends on the block face, which the service does not have.
  const rs1 = env(await rules('chicago-il'), 'RS-1').envelope.minLotWidthFt!;
  assert.equal(rs1.status, 'conditional_unresolved');
  assert.equal(rs1.citation!.section, '17-2-0302-A');
  // A derivation from an unresolved input is unresolved too.
  assert.equal(env(r, 'R-1').envelope.buildableDepthFt!.status, 'conditional_unresolved');
});

test('cited_conditional from the lot itself: Chicago B/C heights by lot frontage (Table 17-3-0408-A)', async () => {
  const chicago = await rules('chicago-il');
  const b11 = env(chicago, 'B1-1', { frontageFt: 30 }).envelope.maxHeightFt!;
  assert.equal(b11.status, 'cited_conditional');
  assert.equal(b11.value, 38);
  assert.equal(b11.citation!.section, '17-3-0408-A');
  assert.match(b11.condition!, /ground_floor_commercial == TRUE and lot_width > 25 and lot_width < 50/);
  // Dash 3 differs with and without ground-floor commercial space: unresolved until the building is known.
  const b13 = env(chicago, 'B1-3', { frontageFt: 60 }).envelope.maxHeightFt!;
  assert.equal(b13.status, 'conditional_unresolved');
  assert.equal(b13.value, null);
  assert.equal(b13.condition!.split('; ').length, 2, 'only the two tiers this lot does not exclude');
  const known = env(chicago, 'B1-3', { frontageFt: 60 }, { building: { groundFloorCommercial: false } }).envelope.maxHeightFt!;
  assert.deepEqual([known.status, known.value], ['cited_conditional', 60]);
  assert.equal(env(chicago, 'C1-5', { frontageFt: 120 }, { building: { groundFloorCommercial: true } }).envelope.maxHeightFt!.value, 80);
  // Paradise R-2, 4-plus building: max(0.23 acre, 0.03 acre x units) once the unit count is known.
  const r2 = env(await rules('paradise-tx'), 'R-2', {}, { residentialType: '4_plus', building: { totalUnits: 10 } }).envelope.minLotAreaSqft!;
  assert.deepEqual([r2.status, r2.value], ['cited_conditional', 13068]);
});

test('unverified formulas from the transcription resolve per lot and stay unverified_default', async () => {
  const chicago = await rules('chicago-il');
  const rear = env(chicago, 'RS-3', { depthFt: 125 }).envelope.minRearYardFt!;
  assert.deepEqual([rear.status, rear.value], ['unverified_default', 35], '28% of 125 ft is less than 50 ft');
  assert.match(rear.condition!, /28% of lot depth/);
  assert.equal(env(chicago, 'RS-3', { depthFt: 250 }).envelope.minRearYardFt!.value, 50);
  assert.equal(env(chicago, 'RS-3', { depthFt: null }).envelope.minRearYardFt!.status, 'conditional_unresolved');
  const rm = env(chicago, 'RM-5', { frontageFt: 40 }).envelope.maxHeightFt!;
  assert.deepEqual([rm.status, rm.value], ['unverified_default', 47]);
  assert.match(rm.condition!, /residential buildings/);
});

test('no_limit_in_bylaw: read from the bylaw; derived values have no limit only when that is logically right', async () => {
  const chicago = await rules('chicago-il');
  const dx = env(chicago, 'DX-12').envelope;
  assert.equal(dx.minLotAreaSqft!.status, 'no_limit_in_bylaw');
  assert.equal(dx.minLotAreaSqft!.value, null);
  assert.equal(dx.minLotAreaSqft!.citation!.section, '17-4-0402');

  // The same real district with its FAR and yards stated as no limit: floor area has no limit,
  // while a yard with no minimum counts as zero in the buildable width.
  const noLimit = { status: 'no_limit_in_bylaw' as const, citation: dx.minLotAreaSqft!.citation! };
  const dist = chicago.districts['DX-12']!;
  const altered: PlaceRules = {
    ...chicago,
    districts: { ...chicago.districts, 'DX-12': { ...dist, standards: { ...dist.standards, maxFar: noLimit, minSideYardFt: noLimit } } },
  };
  const e = env(altered, 'DX-12').envelope;
  assert.equal(e.maxFloorAreaSqft!.status, 'no_limit_in_bylaw');
  assert.equal(e.maxFloorAreaSqft!.value, null);
  assert.deepEqual(e.maxFloorAreaSqft!.inputs, ['maxFar', 'lot.areaSqft']);
  assert.equal(e.buildableWidthFt!.status, 'derived_from_cited');
  assert.equal(e.buildableWidthFt!.value, 40, 'no side yard minimum: the full frontage');
});

test('not_extracted: a district absent from the rules makes every member not_extracted, with a note', async () => {
  const { envelope, notes, permittedUses } = env(await rules('chicago-il'), 'RT-4.5');
  for (const m of ENVELOPE_MEMBERS) {
    assert.equal(envelope[m.name]!.status, 'not_extracted', m.name);
    assert.equal(envelope[m.name]!.value, null);
  }
  assert.ok(notes.some((n) => n.includes('RT-4.5') && n.includes('not in the chicago-il rules')));
  assert.equal(permittedUses[0]!.status, 'not_extracted');
  // A Saanich zone: known, but nothing extracted; the note says where to read it.
  const saanich = env(await rules('saanich-bc'), 'RS-6', { country: 'CA' });
  assert.equal(saanich.envelope.maxHeightFt!.status, 'not_extracted');
  assert.match(saanich.envelope.maxHeightFt!.note!, /zone8200\.pdf#page=95/);
  assert.equal(saanich.envelope.maxFloorAreaSqft!.status, 'not_extracted');
  assert.ok(saanich.notes.some((n) => /metric/.test(n)));
});

test('site_specific_schedule: planned developments and special districts point to their own schedule', async () => {
  const pd = env(await rules('chicago-il'), 'PD 991');
  assert.equal(pd.envelope.maxFar!.status, 'site_specific_schedule');
  assert.equal(pd.envelope.maxFar!.value, null);
  assert.equal(pd.envelope.maxFloorAreaSqft!.status, 'site_specific_schedule');
  assert.equal(pd.permittedUses[0]!.status, 'site_specific_schedule');
  assert.ok(pd.notes.some((n) => n.includes('PD 991') && n.includes('district PD')));
  const sd = env(await rules('cambridge-ma'), 'SD-1');
  assert.equal(sd.envelope.maxHeightFt!.status, 'site_specific_schedule');
  assert.match(sd.envelope.maxHeightFt!.note!, /Art\. 17\.000/);
});

test('unverified_default: Cambridge values from city releases, never cited; derivations take that status', async () => {
  const { envelope, permittedUses } = env(await rules('cambridge-ma'), 'C-1');
  assert.equal(envelope.maxHeightFt!.status, 'unverified_default');
  assert.equal(envelope.maxHeightFt!.value, 45);
  assert.match(envelope.maxHeightFt!.note!, /\bS1\b/, 'the note names its source by id');
  assert.match((await rules('cambridge-ma')).sources!['S1']!.url, /cambridgema\.gov/, 'defined once in the rules file');
  assert.equal(envelope.maxFar!.status, 'unverified_default');
  assert.equal(envelope.maxFar!.value, null, 'reported removed, not verified: no number');
  assert.equal(envelope.maxFloorAreaSqft!.status, 'unverified_default');
  assert.equal(envelope.maxFloorAreaSqft!.value, null);
  assert.equal(envelope.buildableWidthFt!.status, 'unverified_default');
  assert.equal(envelope.buildableWidthFt!.value, 30, '40 ft frontage less two 5 ft side yards');
  for (const s of Object.values(envelope)) assert.notEqual(s.status, 'cited');
  assert.deepEqual(
    permittedUses.map((u) => [u.use, u.permission, u.status]),
    [
      ['multifamily dwelling', 'as_of_right', 'unverified_default'],
      ['townhouse', 'as_of_right', 'unverified_default'],
      ['other uses', 'unknown', 'not_extracted'],
    ],
  );
});

test('defaulted: an unknown corner-lot status is assumed interior, and the value says so', async () => {
  const r = await rules('paradise-tx');
  const unknownCorner = env(r, 'R-1', { cornerLot: null }).envelope.buildableWidthFt!;
  assert.equal(unknownCorner.status, 'defaulted');
  assert.equal(unknownCorner.value, 20, '40 ft less two 10 ft interior side yards');
  assert.match(unknownCorner.note!, /Assumed an interior lot/);
  assert.equal(env(r, 'R-1', { cornerLot: false }).envelope.buildableWidthFt!.status, 'derived_from_cited');
  // On a corner lot the street side yard applies: R-2 gives 25 ft for every residential type.
  const corner = env(r, 'R-2', { cornerLot: true, frontageFt: 100 }, { residentialType: '1_unit' }).envelope;
  assert.equal(corner.buildableWidthFt!.status, 'conditional_unresolved', 'R-2 interior side yard depends on floors');
});

test('a flag lot: the buildable width is measured on the lot behind its stem (area / depth), as a stated assumption, never 0 on a lot with room', async () => {
  const r = await rules('paradise-tx');
  // 108 Amory St, Cambridge: 3,486 sq ft, a 9.1 ft stem on the street, 125.5 ft deep.
  const flag = env(r, 'R-1', { areaSqft: 3486, frontageFt: 9.1, depthFt: 125.5, cornerLot: false }).envelope.buildableWidthFt!;
  assert.equal(flag.value, 7.78, '27.78 ft mean width less two 10 ft side yards');
  assert.equal(flag.status, 'defaulted');
  assert.match(flag.note!, /mean width behind the street \(area \/ depth = 27\.78 ft\).*street frontage \(9\.1 ft\)/);
  assert.deepEqual(flag.inputs, ['minSideYardFt', 'lot.areaSqft', 'lot.depthFt']);
  // A lot as wide at the street as behind it keeps its frontage; a lot that is narrow everywhere has no room (0).
  assert.equal(env(r, 'R-1', { areaSqft: 5000, frontageFt: 40, depthFt: 125 }).envelope.buildableWidthFt!.value, 20);
  const narrow = env(r, 'R-1', { areaSqft: 1125, frontageFt: 9, depthFt: 125 }).envelope.buildableWidthFt!;
  assert.deepEqual([narrow.value, narrow.status], [0, 'derived_from_cited']);
});

test('missing: lot data absent, or no district at all', async () => {
  const noArea = env(await rules('chicago-il'), 'B1-2', { areaSqft: null, frontageFt: null }).envelope;
  assert.equal(noArea.maxFloorAreaSqft!.status, 'missing');
  assert.equal(noArea.maxFloorAreaSqft!.value, null);
  assert.deepEqual(noArea.maxFloorAreaSqft!.inputs, ['maxFar', 'lot.areaSqft'], 'the inputs say what it needs; the lot area is the missing one');
  const noZone = env(await rules('chicago-il'), null);
  for (const m of ENVELOPE_MEMBERS) assert.equal(noZone.envelope[m.name]!.status, 'missing');
});

test('a split lot uses the primary (largest share) district and says so; overlays are named', async () => {
  const r = await rules('cambridge-ma');
  const out = buildEnvelope({
    rules: r,
    primaryZone: null,
    zones: [
      { code: 'BA', share: 0.3 },
      { code: 'C-1', share: 0.7 },
    ],
    overlays: [
      { code: 'PUD-KS/PUD-7', name: null },
      { code: 'Harvard Square', name: 'Harvard Square' },
    ],
    lot: LOT,
  });
  assert.equal(out.envelope.maxHeightFt!.value, 45, 'C-1 values');
  assert.ok(out.notes.some((n) => n.startsWith('Split lot (C-1 70%, BA 30%)') && n.includes('primary')));
  assert.ok(out.notes.some((n) => n.includes('PUD-7') && n.includes('Sec. 13.90')));
  assert.ok(out.notes.some((n) => n.includes('Harvard Square') && n.includes('Sec. 20.50')));
  // What overlays may do is said once, in one sentence naming each (with its section and note).
  const overlayNotes = out.notes.filter((n) => /may modify these values/.test(n));
  assert.equal(overlayNotes.length, 1, JSON.stringify(out.notes));
  assert.match(
    overlayNotes[0]!,
    /^Overlays Planned Unit Development PUD-KS, Arts\. 12\.000 .*; Planned Unit Development PUD-7, Sec\. 13\.90 .*; Harvard Square Overlay District, Sec\. 20\.50 may modify these values; their rules are not applied here\.$/,
  );
});

test('every status path is reachable through the real rules files', async () => {
  const seen = new Set<string>();
  const add = (o: ReturnType<typeof buildEnvelope>) => Object.values(o.envelope).forEach((s) => seen.add(s.status));
  add(env(await rules('chicago-il'), 'B1-2'));
  add(env(await rules('chicago-il'), 'DX-12'));
  add(env(await rules('chicago-il'), 'PD 1'));
  add(env(await rules('chicago-il'), 'B1-2', { areaSqft: null }));
  add(env(await rules('paradise-tx'), 'R-2', {}, { residentialType: '1_unit' }));
  add(env(await rules('paradise-tx'), 'R-1', { cornerLot: null }));
  add(env(await rules('cambridge-ma'), 'C-1'));
  assert.deepEqual([...seen].sort(), [...VALUE_STATUSES].sort());
});

test('invariant: no unknown member ever carries a value (so never zero) or says no limit, for any district and lot', async () => {
  const places = await Promise.all(['cambridge-ma', 'chicago-il', 'saanich-bc', 'paradise-tx'].map(rules));
  const lotArb = fc.record({
    areaSqft: fc.option(fc.double({ min: 0, max: 200000, noNaN: true }), { nil: null }),
    frontageFt: fc.option(fc.double({ min: 0, max: 500, noNaN: true }), { nil: null }),
    depthFt: fc.option(fc.double({ min: 0, max: 500, noNaN: true }), { nil: null }),
    cornerLot: fc.constantFrom(true, false, null),
    country: fc.constantFrom('US' as const, 'CA' as const),
  });
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: places.length - 1 }),
      fc.nat(),
      lotArb,
      fc.constantFrom(null, '1_unit', '2_unit', '3_unit', '4_plus', 'townhome'),
      fc.record({
        groundFloorCommercial: fc.constantFrom(true, false, null),
        floors: fc.option(fc.integer({ min: 1, max: 60 }), { nil: null }),
        totalUnits: fc.option(fc.integer({ min: 1, max: 500 }), { nil: null }),
      }),
      (pi, di, lot, residentialType, building) => {
        const r = places[pi]!;
        const codes = [...Object.keys(r.districts), 'NOT-A-DISTRICT'];
        const code = codes[di % codes.length]!;
        const out = buildEnvelope({ rules: r, primaryZone: code, zones: [{ code, share: 1 }], overlays: [], lot, residentialType, building });
        assert.deepEqual(envelopeInvariantViolations(out.envelope), []);
      },
    ),
    { numRuns: 400 },
  );
});

test('the invariant check catches what it is for', () => {
  assert.deepEqual(envelopeInvariantViolations({ a: { value: 0, status: 'not_extracted' } }), ['a: not_extracted carries value 0']);
  assert.equal(envelopeInvariantViolations({ a: { value: null, status: 'site_specific_schedule', note: 'No limit here' } }).length, 1);
  assert.equal(envelopeInvariantViolations({ a: { value: 3, status: 'no_limit_in_bylaw' } }).length, 1);
  assert.equal(envelopeInvariantViolations({ a: { value: null, status: 'cited' } }).length, 2, 'no value, no citation');
  assert.equal(envelopeInvariantViolations({ a: { value: 4, status: 'derived_from_cited' } }).length, 1, 'no inputs');
  assert.throws(() => assertEnvelopeInvariants({ a: { value: 0, status: 'missing' } }), /missing carries value 0/);
});

test("zoning by building type (Somerville NR): the named type's verified values; without a type, unresolved with each type's value", async () => {
  const r = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'somerville-ma');
  const typed = env(r, 'NR', {}, { building: { buildingType: 'Detached House' } }).envelope;
  assert.deepEqual([typed.maxLotCoveragePct!.status, typed.maxLotCoveragePct!.value], ['cited_conditional', 60]);
  assert.equal(typed.maxLotCoveragePct!.citation!.quote, 'Lot Coverage (max) | 60%');
  assert.deepEqual([typed.maxHeightStoreys!.status, typed.maxHeightStoreys!.value], ['cited_conditional', 2.5]);
  // 60% of the 5,000 sq ft lot, from a verified input.
  assert.deepEqual([typed.maxFootprintSqft!.status, typed.maxFootprintSqft!.value], ['derived_from_cited', 3000]);
  // Lot width depends on the driveway access, which the service does not know.
  assert.equal(typed.minLotWidthFt!.status, 'conditional_unresolved');
  assert.match(typed.minLotWidthFt!.condition!, /No Driveway Access/);
  assert.equal(typed.maxFar!.status, 'not_extracted', 'Somerville states no FAR in the building-type table');

  const untyped = env(r, 'NR').envelope;
  assert.deepEqual([untyped.maxLotCoveragePct!.status, untyped.maxLotCoveragePct!.value], ['conditional_unresolved', null]);
  assert.match(untyped.maxLotCoveragePct!.condition!, /^Depends on the building type: Cottage \(§3\.1\.7\) 60; Detached House \(§3\.1\.8\) 60;/);
  assert.equal(untyped.maxFootprintSqft!.status, 'conditional_unresolved');
});

test('stated conditions (Somerville): the stated row resolves its values, named with their source; the sum of the side setbacks bounds the buildable width; unstated, the note names the condition', async () => {
  const r = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'somerville-ma');
  const { conditionsOfTable, readStatedConditions, envelopeConditions } = await import('../rules/tier-conditions.ts');
  const withConditions = (code: string, type: string, said: string[], lot: Partial<EnvelopeLot> = {}) => {
    const table = conditionsOfTable(r, r.districts[code]!, type);
    return env(
      r,
      code,
      { cornerLot: false, ...lot },
      { building: { buildingType: type, conditions: envelopeConditions(table, readStatedConditions(said, table, type)) } },
    ).envelope;
  };
  // Front driveway access: 3 ft a side, 12 ft together, 34 ft of lot width; each cited_conditional with the stated row named.
  const front = withConditions('NR', 'Detached House', ['Driveway access=Front Driveway Access'], { frontageFt: 50 });
  assert.deepEqual([front.minSideYardFt!.status, front.minSideYardFt!.value], ['cited_conditional', 3]);
  assert.match(front.minSideYardFt!.condition!, /; Front Driveway Access \(driveway access, stated by the caller\)$/);
  assert.deepEqual([front.minSideYardSumFt!.status, front.minSideYardSumFt!.value, front.minLotWidthFt!.value], ['cited_conditional', 12, 34]);
  // The two side yards together are at least 12 ft, not 2 x 3: 50 - 12.
  assert.deepEqual([front.buildableWidthFt!.status, front.buildableWidthFt!.value], ['derived_from_cited', 38]);
  assert.deepEqual(front.buildableWidthFt!.inputs, ['minSideYardFt', 'minSideYardSumFt', 'lot.frontageFt']);
  const side = withConditions('NR', 'Detached House', ['Side or Rear Driveway Access'], { frontageFt: 50 });
  assert.deepEqual([side.minSideYardFt!.value, side.minSideYardSumFt!.value, side.buildableWidthFt!.value], [5, 10, 40]);

  // Unstated: unresolved, and the note says which condition to state.
  const open = withConditions('NR', 'Detached House', []);
  assert.equal(open.minSideYardFt!.status, 'conditional_unresolved');
  assert.match(open.minSideYardFt!.note!, /^Depends on driveway access, which was not stated: state it/);
  assert.equal(open.buildableWidthFt!.status, 'conditional_unresolved');

  // A row whose words join two conditions (MR3's "No Alley & Abutting NR or LHD") is a value of its own.
  const mr3 = withConditions('MR3', 'General Building', ['Alley=No Alley & Abutting NR or LHD', 'Abutting NR or LHD']);
  assert.deepEqual([mr3.minRearYardFt!.value, mr3.minSideYardFt!.value], [20, 10]);
  // Rows that differ by storey: stating the condition leaves the value unresolved, saying why.
  const mr4 = withConditions('MR4', 'Apartment Building', ['Abutting NR or LHD']);
  assert.equal(mr4.minSideYardFt!.status, 'conditional_unresolved');
  assert.match(mr4.minSideYardFt!.note!, /^Several rows apply, with different values, each for a part of the building/);
  assert.deepEqual([withConditions('MR4', 'Apartment Building', ['Abutting any non-NR or -LHD']).minRearYardFt!.value], [10]);
});
