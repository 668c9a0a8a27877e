// The envelope solid on real Cambridge lots (the test template's parcels, centrelines and lot facts):
// drawn from values a person may rely on, each yard on the edges the lot facts place it; not drawn
// (with the values named) when a value is unknown or only indicative, or when the lot's yards cannot
// be placed. Cambridge's own values are all unverified: its snapshot's solid is never drawn.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Db } from '../db/database.ts';
import { createPlacesDb, testCtx, type TestDb } from '../../test/support/harness.ts';
import { getFeasibilitySnapshot } from '../snapshot/snapshot.ts';
import { FT_PER_M, SQFT_PER_M2, localProjector, multiPolygonAreaM2, pointInMultiPolygon, type MultiPolygonCoords } from '../core/geo/primitives.ts';
import { snapshotLot, type LotSnapshot } from '../projects/project-lots.ts';
import { envelope3d, type Envelope3dValue } from './envelope-3d.ts';
import { envelope3dOfSnapshot } from './envelope-3d-inputs.ts';

let t: TestDb;
let db: Db;
let placeId: string;
before(async () => {
  t = await createPlacesDb(['cambridge-ma']);
  db = t.db;
  placeId = (await db.query<{ place_id: string }>(`SELECT place_id FROM places WHERE slug = 'cambridge-ma'`))[0]!.place_id;
});
after(async () => {
  await t?.close();
});

async function lotById(id: string): Promise<LotSnapshot & { throughLot: boolean | null }> {
  const [row] = await db.query<Parameters<typeof snapshotLot>[1]>(
    `SELECT place_id, parcel_ext_id, geom, inside_lat, inside_lon, area_m2, facts, zones, attrs, source, vintage FROM parcels WHERE place_id = $1 AND parcel_ext_id = $2`,
    [placeId, id],
  );
  assert.ok(row, `lot ${id} in the Cambridge template`);
  const facts = (typeof row.facts === 'string' ? JSON.parse(row.facts) : row.facts) as { throughLot?: boolean | null };
  return { ...(await snapshotLot(db, row)), throughLot: facts.throughLot ?? null };
}

/** A few real lots with one front street, not corner, not through, four-sided with corners within 3 degrees of square. */
async function interiorLots(n: number): Promise<string[]> {
  const rows = await db.query<{ parcel_ext_id: string; geom: MultiPolygonCoords | string }>(
    `SELECT parcel_ext_id, geom FROM parcels
      WHERE place_id = $1 AND (facts->>'cornerLot') = 'false' AND (facts->>'throughLot') = 'false'
        AND json_array_length(facts->'streets') = 1 AND area_m2 BETWEEN 300 AND 900 AND json_array_length(geom->0->0) = 5
      ORDER BY parcel_ext_id LIMIT 400`,
    [placeId],
  );
  return rows
    .filter((r) => isSquare((typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords))
    .slice(0, n)
    .map((r) => r.parcel_ext_id);
}

function isSquare(mp: MultiPolygonCoords): boolean {
  if (mp.length !== 1 || mp[0]!.length !== 1) return false;
  const ring = mp[0]![0]!.slice(0, 4);
  const proj = localProjector(ring[0]![1], ring[0]![0]);
  const xy = ring.map((p) => proj(p));
  for (let i = 0; i < 4; i++) {
    const a = xy[i]!,
      b = xy[(i + 1) % 4]!,
      c = xy[(i + 2) % 4]!;
    const u = [b[0] - a[0], b[1] - a[1]],
      v = [c[0] - b[0], c[1] - b[1]];
    const cos = (u[0]! * v[0]! + u[1]! * v[1]!) / (Math.hypot(u[0]!, u[1]!) * Math.hypot(v[0]!, v[1]!));
    if (Math.abs(cos) > Math.sin((3 * Math.PI) / 180)) return false;
  }
  return true;
}

const cited = (value: number): Envelope3dValue => ({ value, status: 'cited', unit: 'ft' });
const CITED = { maxHeightFt: cited(35), minFrontYardFt: cited(10), minSideYardFt: cited(5), minRearYardFt: cited(20) };

test('known values on real interior lots: the footprint is the lot less each yard on its own edges, raised to the height in metres', async () => {
  const ids = await interiorLots(12);
  assert.ok(ids.length >= 5, `interior lots found: ${ids.length}`);
  let checked = 0;
  for (const id of ids) {
    const lot = await lotById(id);
    const front = lot.frontByStreet[lot.streets[0]!];
    assert.ok(front && lot.frontStreetLines.length > 0, `${id}: a front street with its centreline`);
    const r = envelope3d({ lots: [lot.polygon], frontStreetLines: lot.frontStreetLines, cornerLot: lot.cornerLot, throughLot: lot.throughLot, values: CITED });
    if (!r.drawn) {
      // A real lot may have no edge within the facing rules of the footprint; then it says so, and names no value.
      assert.deepEqual(r.unknown, [], `${id}: ${r.statement}`);
      assert.match(r.statement, /^No 3D envelope: the yards cannot be placed: /);
      continue;
    }
    assert.equal(r.heightFt, 35);
    assert.ok(Math.abs(r.heightM! - 35 / FT_PER_M) < 0.01, `height in metres ${r.heightM}`);
    assert.deepEqual(
      r.basis.map((b) => [b.member, b.value, b.status]),
      [
        ['maxHeightFt', 35, 'cited'],
        ['minFrontYardFt', 10, 'cited'],
        ['minSideYardFt', 5, 'cited'],
        ['minRearYardFt', 20, 'cited'],
      ],
    );
    assert.equal(r.basis[3]!.words, '20 ft — cited from the bylaw');
    // The footprint lies in the lot, and on a four-sided lot it is about (frontage - 2 sides) x (depth - front - rear).
    const fp = r.footprint.coordinates as MultiPolygonCoords;
    for (const poly of fp)
      for (const p of poly[0]!) assert.ok(pointInMultiPolygon(p, lot.polygon) || nearBoundary(p, lot.polygon), `${id}: footprint vertex ${p} outside the lot`);
    const area = multiPolygonAreaM2(fp) * SQFT_PER_M2;
    assert.ok(Math.abs(area - r.areaSqft) <= 0.01 * r.areaSqft + 2, `${id}: stated area ${r.areaSqft} vs polygon ${area}`);
    const frontageFt = front.frontageM * FT_PER_M,
      depthFt = front.depthM * FT_PER_M;
    const expected = Math.max(0, frontageFt - 10) * Math.max(0, depthFt - 30);
    assert.ok(
      Math.abs(area - expected) <= 0.03 * expected + 20,
      `${id}: footprint ${Math.round(area)} sq ft vs (frontage ${Math.round(frontageFt)} - 2 x 5) x (depth ${Math.round(depthFt)} - 10 - 20) = ${Math.round(expected)}`,
    );
    assert.ok(area < lot.areaSqft - 10 * (frontageFt - 1), `${id}: the yards took land (${Math.round(area)} of ${lot.areaSqft})`);
    assert.match(r.placement, /^Front setback on \d+ edge\(s\) facing the front street/);
    checked++;
  }
  assert.ok(checked >= 5, `drawn on ${checked} lots`);
});

function nearBoundary(p: [number, number], mp: MultiPolygonCoords): boolean {
  // A vertex on a lot line (where a yard of 0 ft or a strip corner meets it) may round either way.
  const eps = 1e-7;
  return [
    [eps, 0],
    [-eps, 0],
    [0, eps],
    [0, -eps],
  ].some(([dx, dy]) => pointInMultiPolygon([p[0] + dx!, p[1] + dy!], mp));
}

test('a yard with no limit in the bylaw is 0 ft; no maximum height draws nothing and says why', async () => {
  const [id] = await interiorLots(1);
  const lot = await lotById(id!);
  const noSide = envelope3d({
    lots: [lot.polygon],
    frontStreetLines: lot.frontStreetLines,
    cornerLot: false,
    values: { ...CITED, minSideYardFt: { value: null, status: 'no_limit_in_bylaw' } },
  });
  const withSide = envelope3d({ lots: [lot.polygon], frontStreetLines: lot.frontStreetLines, cornerLot: false, values: CITED });
  assert.ok(noSide.drawn && withSide.drawn);
  assert.ok(noSide.areaSqft > withSide.areaSqft, `${noSide.areaSqft} > ${withSide.areaSqft}`);
  assert.equal(noSide.basis.find((b) => b.member === 'minSideYardFt')!.usedAs, '0 ft: the bylaw sets no minimum');
  const noHeight = envelope3d({
    lots: [lot.polygon],
    frontStreetLines: lot.frontStreetLines,
    cornerLot: false,
    values: { ...CITED, maxHeightFt: { value: null, status: 'no_limit_in_bylaw' } },
  });
  assert.equal(noHeight.drawn, false);
  assert.ok(
    !noHeight.drawn && noHeight.statement === 'No 3D envelope: the bylaw sets no maximum height, so there is no height to raise the footprint to.',
    JSON.stringify(noHeight),
  );
});

test('an unknown value is named with its status and nothing is drawn', async () => {
  const [id] = await interiorLots(1);
  const lot = await lotById(id!);
  const r = envelope3d({
    lots: [lot.polygon],
    frontStreetLines: lot.frontStreetLines,
    cornerLot: false,
    values: { ...CITED, minRearYardFt: { value: null, status: 'not_extracted' }, maxHeightFt: { value: null, status: 'site_specific_schedule' } },
  });
  assert.equal(r.drawn, false);
  assert.ok(!r.drawn);
  assert.deepEqual(
    r.unknown.map((u) => [u.member, u.status]),
    [
      ['maxHeightFt', 'site_specific_schedule'],
      ['minRearYardFt', 'not_extracted'],
    ],
  );
  assert.equal(
    r.statement,
    'No 3D envelope: the maximum height is unknown: set by a site-specific schedule; the rear setback is unknown: not extracted from the bylaw.',
  );
  assert.deepEqual(
    r.basis.map((b) => b.member),
    ['minFrontYardFt', 'minSideYardFt'],
    'the values that are known are still stated',
  );
  assert.ok(!('footprint' in r));
});

test('unverified and assumed values are not computed on: Cambridge C-1 (11 Acorn St) gets no solid, each value named', async () => {
  const s = await getFeasibilitySnapshot(testCtx(db), '11 Acorn St, Cambridge, MA');
  assert.equal(s.answered, true);
  assert.equal(s.envelope?.maxHeightFt?.status, 'unverified_default', 'the place still has only unverified values (else this test needs another lot)');
  const out = await envelope3dOfSnapshot(db, s);
  assert.ok(out, 'the snapshot lot is found');
  assert.equal(out.lot.parcelExternalId, s.lot!.parcelExternalId);
  assert.equal(out.solid.drawn, false);
  assert.ok(!out.solid.drawn);
  const named = out.solid.unknown.map((u) => [u.member, u.status]);
  for (const m of ['maxHeightFt', 'minFrontYardFt', 'minSideYardFt', 'minRearYardFt'] as const) {
    const st = s.envelope![m]!.status;
    if (st === 'cited' || st === 'cited_conditional' || st === 'derived_from_cited') continue;
    assert.ok(
      named.some(([mm, ss]) => mm === m && ss === st),
      `${m} (${st}) is named: ${JSON.stringify(named)}`,
    );
  }
  assert.equal(
    out.solid.statement,
    'No 3D envelope: the maximum height, the front setback, the side setback and the rear setback are indicative, unverified, so they are not drawn as if known.',
  );
  // The same values, given as unverified on a lot the solid can be drawn on, are not drawn either.
  const [id] = await interiorLots(1);
  const lot = await lotById(id!);
  const indicative = envelope3d({
    lots: [lot.polygon],
    frontStreetLines: lot.frontStreetLines,
    cornerLot: false,
    values: { ...CITED, minSideYardFt: { value: 5, status: 'unverified_default', unit: 'ft' }, minFrontYardFt: { value: 10, status: 'defaulted', unit: 'ft' } },
  });
  assert.ok(!indicative.drawn);
  assert.deepEqual(
    indicative.unknown.map((u) => [u.member, u.status]),
    [
      ['minFrontYardFt', 'defaulted'],
      ['minSideYardFt', 'unverified_default'],
    ],
  );
  assert.ok(
    !indicative.drawn &&
      indicative.statement ===
        'No 3D envelope: the front setback is assumed: calculated with a stated assumption, so it is not drawn as if known; the side setback is indicative, unverified, so it is not drawn as if known.',
    !indicative.drawn ? indicative.statement : '',
  );
  // A stated no-limit (no bylaw text confirms it) is not a 0 ft yard.
  const stated = envelope3d({
    lots: [lot.polygon],
    frontStreetLines: lot.frontStreetLines,
    cornerLot: false,
    values: { ...CITED, minRearYardFt: { value: null, status: 'unverified_default', statedNoLimit: 'S1' } },
  });
  assert.ok(!stated.drawn && stated.unknown[0]!.member === 'minRearYardFt');
});

test('a real corner lot, and a lot with no front street, are not given invented yards', async () => {
  const [corner] = await db.query<{ parcel_ext_id: string }>(
    `SELECT parcel_ext_id FROM parcels WHERE place_id = $1 AND (facts->>'cornerLot') = 'true' ORDER BY parcel_ext_id LIMIT 1`,
    [placeId],
  );
  const c = await lotById(corner!.parcel_ext_id);
  const rc = envelope3d({ lots: [c.polygon], frontStreetLines: c.frontStreetLines, cornerLot: c.cornerLot, values: CITED });
  assert.ok(!rc.drawn);
  assert.deepEqual(rc.unknown, []);
  assert.match(rc.statement, /^No 3D envelope: the yards cannot be placed: it is a corner lot/);
  const [noFront] = await db.query<{ parcel_ext_id: string }>(
    `SELECT parcel_ext_id FROM parcels WHERE place_id = $1 AND facts->>'cornerLot' IS NULL ORDER BY parcel_ext_id LIMIT 1`,
    [placeId],
  );
  const n = await lotById(noFront!.parcel_ext_id);
  const rn = envelope3d({ lots: [n.polygon], frontStreetLines: n.frontStreetLines, cornerLot: n.cornerLot, values: CITED });
  assert.ok(!rn.drawn);
  assert.match(rn.statement, /front lot line \(and so its rear\) is not known/);
});

test("a building type's table (Somerville): a minimum sum of the side setbacks over twice the minimum cuts half the sum a side; a height in storeys alone draws the footprint on the ground", async () => {
  const [id] = await interiorLots(1);
  const lot = await lotById(id!);
  const on = (values: Parameters<typeof envelope3d>[0]['values']) =>
    envelope3d({ lots: [lot.polygon], frontStreetLines: lot.frontStreetLines, cornerLot: false, values });
  const conditional = (value: number): Envelope3dValue => ({
    value,
    status: 'cited_conditional',
    unit: 'ft',
    condition: 'Front Driveway Access (driveway access, stated by the caller)',
  });
  // 3 ft a side but 12 ft together: drawn as 6 ft a side, the same cut as a plain 6 ft side yard.
  const summed = on({ ...CITED, minSideYardFt: conditional(3), minSideYardSumFt: conditional(12) });
  const six = on({ ...CITED, minSideYardFt: cited(6) });
  assert.ok(summed.drawn && six.drawn);
  assert.equal(summed.areaSqft, six.areaSqft);
  const side = summed.basis.find((b) => b.member === 'minSideYardFt')!;
  assert.equal(side.value, 6);
  assert.match(
    side.usedAs,
    /^6 ft on each side: half the minimum sum of the side setbacks \(12 ft\), which is more than twice the minimum \(3 ft\); drawn with the building centred$/,
  );
  assert.equal(side.condition, 'Front Driveway Access (driveway access, stated by the caller)');
  // A sum no more than twice the minimum changes nothing; an unknown sum keeps the side from being drawn.
  const loose = on({ ...CITED, minSideYardFt: conditional(5), minSideYardSumFt: conditional(10) });
  assert.ok(loose.drawn && loose.basis.find((b) => b.member === 'minSideYardFt')!.value === 5);
  const open = on({ ...CITED, minSideYardSumFt: { value: null, status: 'conditional_unresolved' } });
  assert.ok(!open.drawn && open.unknown[0]!.member === 'minSideYardFt', JSON.stringify(open));

  // No height in feet known, 2.5 storeys cited: the footprint on the ground, the storeys stated, no height made up.
  const storeys = on({
    ...CITED,
    maxHeightFt: { value: null, status: 'not_extracted' },
    maxHeightStoreys: { value: 2.5, status: 'cited_conditional', unit: 'storeys', condition: 'Building type: Detached House' },
  });
  assert.ok(storeys.drawn, JSON.stringify(storeys));
  const plain = on(CITED);
  assert.ok(plain.drawn);
  assert.deepEqual([storeys.heightFt, storeys.heightM, storeys.heightStoreys, storeys.areaSqft], [null, null, 2.5, plain.areaSqft]);
  assert.equal(storeys.basis[0]!.member, 'maxHeightStoreys');
  assert.match(storeys.basis[0]!.usedAs, /with no height in feet known, the footprint is drawn on the ground, not raised/);
  // Storeys only indicative, or a height in feet that is unknown for this lot (not merely not stated): nothing is drawn.
  assert.equal(
    on({ ...CITED, maxHeightFt: { value: null, status: 'not_extracted' }, maxHeightStoreys: { value: 3, status: 'unverified_default', unit: 'storeys' } })
      .drawn,
    false,
  );
  assert.equal(
    on({ ...CITED, maxHeightFt: { value: null, status: 'conditional_unresolved' }, maxHeightStoreys: { value: 3, status: 'cited', unit: 'storeys' } }).drawn,
    false,
  );
});
