import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb } from '../../test/support/harness.ts';
import type { Db } from '../db/database.ts';
import { bboxOf, boxLiteral, multiPolygonAreaM2, offsetM, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';
import { computeLotFacts, derivePlaceLotFacts, type LotZoneRow, type ParcelFacts } from './derive-lot-facts.ts';
import { CORNER_ADJACENT_M, CORNER_MIN_ANGLE_DEG } from '../core/geo/lot-facts.ts';

/** Every lot's districts as rows (they are stored as parcels.zones). */
const LOT_ZONES = `(SELECT p.place_id, p.parcel_ext_id, z->>'layer' AS layer, z->>'code' AS code, z->>'name' AS name, (z->>'share')::float8 AS share, z->'attrs' AS attrs FROM parcels p, json_array_elements(p.zones) z) lz`;

// A hand-built block near Cambridge, in metres east (x) and north (y) of an origin:
//   MAIN ST centreline along y = 0, OAK AVE centreline along x = 0, lots from 8 m off both.
//   L1 x 8..28  y 8..38  corner lot (Main and Oak)
//   L2 x 28..48 y 8..38  interior lot on Main, split 70/30 by the R-1 | C-1 line at x = 42
//   L3 x 48..68 y 8..38  on Main, wholly C-1, exactly covered by overlay HSQ (edges on its lot lines)
//   L4 x 8..68  y 38..58 on Oak only (its south line is shared with L1..L3 at T-junctions);
//                        split 34/26 by x = 42; overlay FLOOD covers y >= 50 (40 %)
//   L5 x 68..88 y 38..58 no street within reach: no frontage
// Overlay TINY (x 8..28, y 37..38.5) covers 3.3 % of L1: a sliver, not recorded.
const PLACE = 'US-MA:testville';
const OTHER = 'US-MA:elsewhere';
const origin: Position = [-71.1, 42.37];
const at = (x: number, y: number): Position => offsetM(origin, x, y);
const rect = (x0: number, y0: number, x1: number, y1: number): MultiPolygonCoords => [[[at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1), at(x0, y0)]]];

async function insertPlace(db: Db, placeId: string, slug: string): Promise<void> {
  await db.query(`INSERT INTO places (place_id, slug, name, region, country, status, manifest) VALUES ($1, $2, $3, 'MA', 'US', 'live', '{}')`, [
    placeId,
    slug,
    slug,
  ]);
}

async function insertLot(db: Db, placeId: string, id: string, geom: MultiPolygonCoords): Promise<void> {
  const b = bboxOf(geom);
  const [cx, cy] = [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2];
  await db.query(
    `INSERT INTO parcels (place_id, parcel_ext_id, geom, bbox, inside_lon, inside_lat, area_m2, source, vintage)
     VALUES ($1, $2, $3::jsonb, $4::box, $5, $6, $7, 'test', '2026')`,
    [placeId, id, JSON.stringify(geom), boxLiteral(b), cx, cy, multiPolygonAreaM2(geom)],
  );
}

async function insertZone(db: Db, zoneId: string, layer: string, code: string, geom: MultiPolygonCoords): Promise<void> {
  await db.query(`INSERT INTO zones (place_id, zone_id, layer, code, name, geom, bbox) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::box)`, [
    PLACE,
    zoneId,
    layer,
    code,
    `${code} district`,
    JSON.stringify(geom),
    boxLiteral(bboxOf(geom)),
  ]);
}

async function insertStreet(db: Db, segmentId: string, key: string, line: Position[]): Promise<void> {
  await db.query(`INSERT INTO street_segments (place_id, segment_id, street_key, street_display, geom, bbox) VALUES ($1, $2, $3, $3, $4::jsonb, $5::box)`, [
    PLACE,
    segmentId,
    key,
    JSON.stringify(line),
    boxLiteral(bboxOf(line)),
  ]);
}

async function buildBlock(db: Db): Promise<void> {
  await insertPlace(db, PLACE, 'testville');
  await insertPlace(db, OTHER, 'elsewhere');
  await insertLot(db, PLACE, 'L1', rect(8, 8, 28, 38));
  await insertLot(db, PLACE, 'L2', rect(28, 8, 48, 38));
  await insertLot(db, PLACE, 'L3', rect(48, 8, 68, 38));
  await insertLot(db, PLACE, 'L4', rect(8, 38, 68, 58));
  await insertLot(db, PLACE, 'L5', rect(68, 38, 88, 58));
  await insertLot(db, OTHER, 'X1', rect(8, 8, 28, 38));
  await insertZone(db, 'z-r1', 'base', 'R-1', rect(-100, -100, 42, 200));
  await insertZone(db, 'z-c1', 'base', 'C-1', rect(42, -100, 200, 200));
  await insertZone(db, 'o-hsq', 'overlay', 'HSQ', rect(48, 8, 68, 38));
  await insertZone(db, 'o-flood', 'overlay', 'FLOOD', rect(-100, 50, 200, 200));
  await insertZone(db, 'o-tiny', 'overlay', 'TINY', rect(8, 37, 28, 38.5));
  // Main St drawn as two segments, to check that a street's pieces add up.
  await insertStreet(db, 's1', 'MAIN ST', [at(-50, 0), at(40, 0)]);
  await insertStreet(db, 's2', 'MAIN ST', [at(40, 0), at(150, 0)]);
  await insertStreet(db, 's3', 'OAK AVE', [at(0, -50), at(0, 150)]);
}

interface ZoneRow {
  parcel_ext_id: string;
  layer: string;
  code: string;
  name: string | null;
  share: number;
  attrs: { areaM2: number; primary?: boolean };
}

async function zoneRows(db: Db, id: string): Promise<ZoneRow[]> {
  return db.query<ZoneRow>(
    `SELECT parcel_ext_id, layer, code, name, share, attrs FROM ${LOT_ZONES} WHERE place_id = $1 AND parcel_ext_id = $2 ORDER BY layer, share DESC, code`,
    [PLACE, id],
  );
}

async function factsOf(db: Db, placeId: string, id: string): Promise<ParcelFacts> {
  const [row] = await db.query<{ facts: ParcelFacts }>('SELECT facts FROM parcels WHERE place_id = $1 AND parcel_ext_id = $2', [placeId, id]);
  assert.ok(row, `lot ${id}`);
  return row.facts;
}

const near = (actual: number | undefined, expected: number, tol: number, what: string) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tol, `${what}: ${actual} (expected ${expected} ± ${tol})`);

// Long because: one hand-built block, each of its lots' facts checked against a hand measurement.
test('derivePlaceLotFacts: zone shares, overlays, frontage, depth and corner on a hand-built block', async () => {
  const t = await createTestDb();
  try {
    const db = t.db;
    await buildBlock(db);
    const messages: string[] = [];
    const report = await derivePlaceLotFacts(db, PLACE, { onProgress: (m) => messages.push(m) });
    assert.equal(report.parcels, 5);
    assert.equal(report.parcelsWithBaseZone, 5);
    assert.equal(report.splitLots, 2); // L2, L4
    assert.equal(report.parcelsWithOverlay, 3); // L3 (HSQ), L4 and L5 (FLOOD)
    assert.equal(report.parcelsWithFrontage, 4); // L1..L4
    assert.equal(report.cornerLots, 1); // L1
    assert.equal(report.clipFailures, 0);
    assert.ok(messages.length > 0);

    // L2: 70 % R-1 (primary), 30 % C-1.
    const l2 = await zoneRows(db, 'L2');
    assert.deepEqual(
      l2.map((r) => [r.layer, r.code]),
      [
        ['base', 'R-1'],
        ['base', 'C-1'],
      ],
    );
    near(l2[0]!.share, 0.7, 0.002, 'L2 R-1 share');
    near(l2[1]!.share, 0.3, 0.002, 'L2 C-1 share');
    assert.equal(l2[0]!.attrs.primary, true);
    assert.equal(l2[1]!.attrs.primary, false);
    near(l2[0]!.attrs.areaM2, 420, 1, 'L2 R-1 area');
    assert.equal(l2[0]!.name, 'R-1 district');

    // L3: wholly C-1, and in overlay HSQ whose edges run along its lot lines.
    const l3 = await zoneRows(db, 'L3');
    assert.deepEqual(
      l3.map((r) => [r.layer, r.code, r.share]),
      [
        ['base', 'C-1', 1],
        ['overlay', 'HSQ', 1],
      ],
    );

    // L4: split 34/26 by x = 42; 40 % in FLOOD.
    const l4 = await zoneRows(db, 'L4');
    assert.deepEqual(
      l4.map((r) => [r.layer, r.code]),
      [
        ['base', 'R-1'],
        ['base', 'C-1'],
        ['overlay', 'FLOOD'],
      ],
    );
    near(l4[0]!.share, 34 / 60, 0.002, 'L4 R-1 share');
    near(l4[1]!.share, 26 / 60, 0.002, 'L4 C-1 share');
    near(l4[2]!.share, 0.4, 0.002, 'L4 FLOOD share');

    // L1: wholly R-1; the TINY overlay sliver (3.3 %) is dropped.
    const l1 = await zoneRows(db, 'L1');
    assert.deepEqual(
      l1.map((r) => [r.layer, r.code, r.share]),
      [['base', 'R-1', 1]],
    );

    // Frontage and depth.
    const f1 = await factsOf(db, PLACE, 'L1');
    assert.deepEqual(f1.streets, ['OAK AVE', 'MAIN ST']);
    near(f1.frontByStreet['MAIN ST']?.frontageM, 20, 0.1, 'L1 Main frontage');
    near(f1.frontByStreet['MAIN ST']?.depthM, 30, 0.1, 'L1 Main depth');
    near(f1.frontByStreet['OAK AVE']?.frontageM, 30, 0.1, 'L1 Oak frontage');
    near(f1.frontByStreet['OAK AVE']?.depthM, 20, 0.1, 'L1 Oak depth');
    assert.equal(f1.cornerLot, true);
    assert.equal(f1.throughLot, false);

    const f2 = await factsOf(db, PLACE, 'L2');
    assert.deepEqual(f2.streets, ['MAIN ST']);
    near(f2.frontByStreet['MAIN ST']?.frontageM, 20, 0.1, 'L2 Main frontage');
    near(f2.frontByStreet['MAIN ST']?.depthM, 30, 0.1, 'L2 Main depth');
    assert.equal(f2.cornerLot, false);

    // L3's east side is exposed but faces no street.
    const f3 = await factsOf(db, PLACE, 'L3');
    assert.deepEqual(Object.keys(f3.frontByStreet), ['MAIN ST']);
    near(f3.frontByStreet['MAIN ST']?.frontageM, 20, 0.1, 'L3 Main frontage');

    // L4's south line is shared with three lots: only its Oak side fronts a street.
    const f4 = await factsOf(db, PLACE, 'L4');
    assert.deepEqual(f4.streets, ['OAK AVE']);
    near(f4.frontByStreet['OAK AVE']?.frontageM, 20, 0.1, 'L4 Oak frontage');
    near(f4.frontByStreet['OAK AVE']?.depthM, 60, 0.1, 'L4 Oak depth');
    assert.equal(f4.cornerLot, false);

    const f5 = await factsOf(db, PLACE, 'L5');
    assert.deepEqual(f5, { frontByStreet: {}, cornerLot: null, throughLot: null, streets: [], rightOfWay: false });

    // The other place is untouched.
    assert.deepEqual(await factsOf(db, OTHER, 'X1'), {});
    const [other] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${LOT_ZONES} WHERE place_id = $1`, [OTHER]);
    assert.equal(other!.n, 0);

    // Running again replaces the rows rather than adding to them.
    const again = await derivePlaceLotFacts(db, PLACE);
    assert.deepEqual({ ...again, ms: 0 }, { ...report, ms: 0 });
    const [count] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${LOT_ZONES} WHERE place_id = $1`, [PLACE]);
    assert.equal(count!.n, 10); // L1 1, L2 2, L3 2, L4 3, L5 2
  } finally {
    await t.close();
  }
});

test('computeLotFacts on rows in memory agrees with derivePlaceLotFacts on the database', async () => {
  const t = await createTestDb();
  try {
    const db = t.db;
    await buildBlock(db);
    const stored = await derivePlaceLotFacts(db, PLACE);
    const parcels = await db.query<{ parcel_ext_id: string; geom: MultiPolygonCoords; inside_lon: number; inside_lat: number }>(
      'SELECT parcel_ext_id, geom, inside_lon, inside_lat FROM parcels WHERE place_id = $1 ORDER BY parcel_ext_id',
      [PLACE],
    );
    const zones = await db.query<{ zone_id: string; layer: string; code: string; name: string | null; geom: MultiPolygonCoords }>(
      'SELECT zone_id, layer, code, name, geom FROM zones WHERE place_id = $1',
      [PLACE],
    );
    const streets = await db.query<{ street_key: string; geom: Position[] }>('SELECT street_key, geom FROM street_segments WHERE place_id = $1', [PLACE]);
    const got = new Map<string, { facts: ParcelFacts; zones: LotZoneRow[] }>();
    const report = computeLotFacts(
      {
        parcels: parcels.map((p) => ({ parcelExtId: p.parcel_ext_id, geom: p.geom, insideLon: p.inside_lon, insideLat: p.inside_lat })),
        zones: zones.map((z) => ({ zoneId: z.zone_id, layer: z.layer, code: z.code, name: z.name, geom: z.geom })),
        streets: streets.map((s) => ({ streetKey: s.street_key, geom: s.geom })),
      },
      (id, facts, zoneRows) => got.set(id, { facts, zones: zoneRows }),
    );
    assert.deepEqual({ ...report, ms: 0 }, { ...stored, ms: 0 });
    assert.deepEqual([...got.keys()], ['L1', 'L2', 'L3', 'L4', 'L5']);
    for (const [id, r] of got) {
      assert.deepEqual(r.facts, await factsOf(db, PLACE, id));
      const rows = (await zoneRows(db, id)).map((z) => ({ layer: z.layer, code: z.code, name: z.name, share: z.share, attrs: z.attrs }));
      const mine = [...r.zones].sort((a, b) => (a.layer < b.layer ? -1 : a.layer > b.layer ? 1 : b.share - a.share || (a.code < b.code ? -1 : 1)));
      assert.deepEqual(mine, rows);
    }
  } finally {
    await t.close();
  }
});

test('derivePlaceLotFacts: a through lot between two parallel streets is not a corner lot', async () => {
  const t = await createTestDb();
  try {
    const db = t.db;
    await insertPlace(db, PLACE, 'testville');
    await insertLot(db, PLACE, 'T1', rect(0, 8, 15, 48));
    await insertZone(db, 'z-r1', 'base', 'R-1', rect(-100, -100, 200, 200));
    await insertStreet(db, 'a', 'FIRST ST', [at(-50, 0), at(100, 0)]);
    await insertStreet(db, 'b', 'SECOND ST', [at(-50, 56), at(100, 56)]);
    const report = await derivePlaceLotFacts(db, PLACE);
    assert.equal(report.cornerLots, 0);
    assert.equal(report.splitLots, 0);
    const f = await factsOf(db, PLACE, 'T1');
    assert.equal(f.cornerLot, false);
    assert.equal(f.throughLot, true);
    // why it is not a corner lot is recorded: its fronts face opposite ways, 40 m apart (piece midpoints)
    assert.equal(f.notCorner?.reason, 'through_lot', JSON.stringify(f));
    assert.equal(f.notCorner?.turnDeg, 180);
    near(f.notCorner?.gapM, 40, 0.1, 'through lot: gap between its fronts');
    near(f.frontByStreet['FIRST ST']?.frontageM, 15, 0.1, 'First St frontage');
    near(f.frontByStreet['SECOND ST']?.depthM, 40, 0.1, 'Second St depth');
  } finally {
    await t.close();
  }
});

test('derivePlaceLotFacts: a street parcel (right of way) does not hide the fronts it shares', async () => {
  const t = await createTestDb();
  try {
    const db = t.db;
    await insertPlace(db, PLACE, 'testville');
    // Lots on both sides of Main St; the street itself is a parcel from y = -8 to 8 (like Cambridge's 'ROAD').
    await insertLot(db, PLACE, 'N1', rect(0, 8, 20, 38));
    await insertLot(db, PLACE, 'S1', rect(0, -38, 20, -8));
    await insertLot(db, PLACE, 'ROAD', rect(-100, -8, 200, 8));
    await insertZone(db, 'z-r1', 'base', 'R-1', rect(-200, -200, 300, 200));
    await insertStreet(db, 'a', 'MAIN ST', [at(-100, 0), at(200, 0)]);
    const report = await derivePlaceLotFacts(db, PLACE);
    assert.equal(report.parcelsWithFrontage, 2); // the street parcel faces away from its own centreline
    const road = await factsOf(db, PLACE, 'ROAD');
    assert.equal(road.rightOfWay, true);
    for (const id of ['N1', 'S1']) {
      const f = await factsOf(db, PLACE, id);
      assert.equal(f.rightOfWay, false);
      assert.deepEqual(f.streets, ['MAIN ST'], id);
      near(f.frontByStreet['MAIN ST']?.frontageM, 20, 0.1, `${id} frontage`);
      near(f.frontByStreet['MAIN ST']?.depthM, 30, 0.1, `${id} depth`);
    }
  } finally {
    await t.close();
  }
});

test('derivePlaceLotFacts: a lot in two parts gets the districts of both parts', async () => {
  const t = await createTestDb();
  try {
    const db = t.db;
    await insertPlace(db, PLACE, 'testville');
    // Part one (600 m²) in R-1, part two (200 m²) in C-1; no district line crosses either part.
    await insertLot(db, PLACE, 'M1', [...rect(0, 8, 20, 38), ...rect(50, 8, 60, 28)]);
    await insertZone(db, 'z-r1', 'base', 'R-1', rect(-100, -100, 40, 200));
    await insertZone(db, 'z-c1', 'base', 'C-1', rect(40, -100, 200, 200));
    const report = await derivePlaceLotFacts(db, PLACE);
    assert.equal(report.splitLots, 1);
    const rows = await zoneRows(db, 'M1');
    assert.deepEqual(
      rows.map((r) => r.code),
      ['R-1', 'C-1'],
    );
    near(rows[0]!.share, 0.75, 0.002, 'R-1 share');
    near(rows[1]!.share, 0.25, 0.002, 'C-1 share');
  } finally {
    await t.close();
  }
});

test('derivePlaceLotFacts: frontage, depth and corner do not depend on the grid being north-up', async () => {
  const t = await createTestDb();
  try {
    const db = t.db;
    await insertPlace(db, PLACE, 'testville');
    // The corner lot L1 and its neighbour L2 of the first test, turned 30° about the intersection.
    const turn = (x: number, y: number): Position => {
      const a = Math.PI / 6;
      return at(x * Math.cos(a) - y * Math.sin(a), x * Math.sin(a) + y * Math.cos(a));
    };
    const trect = (x0: number, y0: number, x1: number, y1: number): MultiPolygonCoords => [
      [[turn(x0, y0), turn(x1, y0), turn(x1, y1), turn(x0, y1), turn(x0, y0)]],
    ];
    await insertLot(db, PLACE, 'R1', trect(8, 8, 28, 38));
    await insertLot(db, PLACE, 'R2', trect(28, 8, 48, 38));
    await insertZone(db, 'z-r1', 'base', 'R-1', trect(-100, -100, 200, 200));
    await insertStreet(db, 'm', 'MAIN ST', [turn(-50, 0), turn(150, 0)]);
    await insertStreet(db, 'o', 'OAK AVE', [turn(0, -50), turn(0, 150)]);
    const report = await derivePlaceLotFacts(db, PLACE);
    assert.equal(report.cornerLots, 1);
    const f1 = await factsOf(db, PLACE, 'R1');
    assert.equal(f1.cornerLot, true);
    near(f1.frontByStreet['MAIN ST']?.frontageM, 20, 0.1, 'R1 Main frontage');
    near(f1.frontByStreet['MAIN ST']?.depthM, 30, 0.1, 'R1 Main depth');
    near(f1.frontByStreet['OAK AVE']?.frontageM, 30, 0.1, 'R1 Oak frontage');
    near(f1.frontByStreet['OAK AVE']?.depthM, 20, 0.1, 'R1 Oak depth');
    const f2 = await factsOf(db, PLACE, 'R2');
    assert.deepEqual(f2.streets, ['MAIN ST']);
    assert.equal(f2.cornerLot, false);
    near(f2.frontByStreet['MAIN ST']?.depthM, 30, 0.1, 'R2 Main depth');
  } finally {
    await t.close();
  }
});

test('derivePlaceLotFacts: a place with no lots reports zeros', async () => {
  const t = await createTestDb();
  try {
    const db = t.db;
    await insertPlace(db, PLACE, 'testville');
    const report = await derivePlaceLotFacts(db, PLACE);
    assert.deepEqual(
      { ...report, ms: 0 },
      {
        parcels: 0,
        parcelsWithBaseZone: 0,
        splitLots: 0,
        parcelsWithOverlay: 0,
        parcelsWithFrontage: 0,
        cornerLots: 0,
        ms: 0,
        clippedLots: 0,
        clipFailures: 0,
        lotsWithMinorShares: 0,
      },
    );
    const [count] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${LOT_ZONES} WHERE place_id = $1`, [PLACE]);
    assert.equal(count!.n, 0);
  } finally {
    await t.close();
  }
});

// Issue 8 item 5: the 5 % rule hid pieces of 2,000 sq ft and more on large lots.
test('a district piece under 5 % of the lot is kept as a minor share when it is at least 1,000 sq ft', () => {
  // LOT: 100 m x 100 m (10,000 m²). Base line at x = 97.5: C-1 covers 2.5 % = 250 m² (2,691 sq ft).
  // Overlay BIG covers x 0..100, y 99..100: 1 % = 100 m² (1,076 sq ft): kept. Overlay SMALL covers
  // y 99.5..100 of x 0..100: 0.5 % = 50 m² (538 sq ft): dropped. SMALLLOT (20 x 30 m) has 3 % of its
  // area (18 m²) in C-1: dropped as before.
  const zonesOf = new Map<string, LotZoneRow[]>();
  const report = computeLotFacts(
    {
      parcels: [
        { parcelExtId: 'LOT', geom: rect(0, 0, 100, 100), insideLon: at(50, 50)[0], insideLat: at(50, 50)[1] },
        { parcelExtId: 'SMALLLOT', geom: rect(200, 0, 220, 30), insideLon: at(210, 15)[0], insideLat: at(210, 15)[1] },
      ],
      zones: [
        { zoneId: 'r', layer: 'base', code: 'R-1', name: null, geom: rect(-10, -10, 97.5, 110) },
        { zoneId: 'c', layer: 'base', code: 'C-1', name: null, geom: rect(97.5, -10, 219.4, 110) },
        { zoneId: 'r2', layer: 'base', code: 'R-1', name: null, geom: rect(219.4, -10, 300, 110) },
        { zoneId: 'big', layer: 'overlay', code: 'BIG', name: null, geom: rect(0, 99, 100, 100) },
        { zoneId: 'small', layer: 'overlay', code: 'SMALL', name: null, geom: rect(0, 99.5, 100, 100) },
      ],
      streets: [],
    },
    (id, _facts, zones) => zonesOf.set(id, zones),
  );
  const lot = zonesOf.get('LOT')!;
  assert.deepEqual(
    lot.map((z) => [z.layer, z.code]),
    [
      ['base', 'R-1'],
      ['base', 'C-1'],
      ['overlay', 'BIG'],
    ],
  );
  near(lot[1]!.share, 0.025, 0.001, 'C-1 share');
  assert.deepEqual(
    { minor: lot[1]!.attrs.minor, rule: lot[1]!.attrs.rule, primary: lot[1]!.attrs.primary },
    { minor: true, rule: 'area_at_least_1000_sqft', primary: false },
  );
  assert.equal(lot[0]!.attrs.primary, true);
  assert.equal(lot[0]!.attrs.minor, undefined);
  assert.equal(lot[2]!.attrs.minor, true);
  near(lot[2]!.attrs.areaM2 * 10.7639, 1076, 5, 'BIG piece sq ft');
  assert.equal(report.splitLots, 0, 'a minor share does not make a split lot');
  assert.equal(report.lotsWithMinorShares, 1);
  assert.equal(report.parcelsWithOverlay, 0, 'a lot with only a minor overlay piece is not counted as in the overlay');
  assert.deepEqual(
    zonesOf.get('SMALLLOT')!.map((z) => z.code),
    ['C-1'],
  );
});

// Issue 8 item 5: lot areas on the ellipsoid. The independent computation is proj4's transverse
// Mercator on GRS 80 centred on the lot.
test('lot areas from the place frame agree with proj4 (transverse Mercator on the ellipsoid), also far from the frame origin', async () => {
  const { default: proj4 } = await import('proj4');
  const lots = [rect(0, 0, 20, 30), rect(3000, 8000, 3040, 8025), rect(-6000, -9000, -5970, -8950)];
  const got = new Map<string, number>();
  computeLotFacts(
    {
      parcels: lots.map((g, i) => ({
        parcelExtId: `L${i}`,
        geom: g,
        insideLon: (g[0]![0]![0]![0] + g[0]![0]![2]![0]) / 2,
        insideLat: (g[0]![0]![0]![1] + g[0]![0]![2]![1]) / 2,
      })),
      zones: [{ zoneId: 'all', layer: 'base', code: 'R-1', name: null, geom: rect(-20_000, -20_000, 20_000, 20_000) }],
      streets: [],
    },
    (id, _f, zones) => got.set(id, zones[0]!.attrs.areaM2),
  );
  lots.forEach((g, i) => {
    const ring = g[0]![0]!;
    const c = ring[0]!;
    const tm = proj4('EPSG:4326', `+proj=tmerc +lat_0=${c[1]} +lon_0=${c[0]} +k=1 +ellps=GRS80 +units=m +no_defs`);
    const xy = ring.map((p) => tm.forward(p));
    let twice = 0;
    for (let k = 1; k < xy.length; k++) twice += xy[k - 1]![0] * xy[k]![1] - xy[k]![0] * xy[k - 1]![1];
    const want = Math.abs(twice) / 2;
    assert.ok(Math.abs(got.get(`L${i}`)! - want) / want < 1e-4, `L${i}: ${got.get(`L${i}`)} vs proj4 ${want}`);
    assert.ok(Math.abs(multiPolygonAreaM2(g) - want) / want < 2e-5, `L${i} import area: ${multiPolygonAreaM2(g)} vs proj4 ${want}`);
  });
});

// Issue 8 item 5: frontage on cul-de-sac bulbs, and the corner flag near 45° (docs/lot-geometry.md).
type XY = [number, number];
function factsFor(lots: Record<string, XY[]>, streets: { key: string; line: XY[] }[]): Map<string, ParcelFacts> {
  const out = new Map<string, ParcelFacts>();
  computeLotFacts(
    {
      parcels: Object.entries(lots).map(([id, ring]) => {
        const cx = ring.reduce((s, p) => s + p[0], 0) / ring.length;
        const cy = ring.reduce((s, p) => s + p[1], 0) / ring.length;
        return { parcelExtId: id, geom: [[[...ring, ring[0]!].map(([x, y]) => at(x, y))]], insideLon: at(cx, cy)[0], insideLat: at(cx, cy)[1] };
      }),
      zones: [],
      streets: streets.map((s) => ({ streetKey: s.key, geom: s.line.map(([x, y]) => at(x, y)) })),
    },
    (id, facts) => out.set(id, facts),
  );
  return out;
}
const rad = (d: number) => (d * Math.PI) / 180;

test('cul-de-sac: the lot lines around the bulb are fronts, measured along the arc', () => {
  // Bulb St comes from the south and ends at (0, 0) (a dead end); pie lots around a bulb of radius 15 m.
  const R = 15;
  const lots: Record<string, XY[]> = {};
  const arcLen: Record<string, number> = {};
  for (let k = 0; k < 6; k++) {
    const a0 = -45 + 45 * k;
    const inner: XY[] = [];
    const outer: XY[] = [];
    for (let d = a0; d <= a0 + 45 + 1e-9; d += 5) {
      inner.push([R * Math.cos(rad(d)), R * Math.sin(rad(d))]);
      outer.push([45 * Math.cos(rad(d)), 45 * Math.sin(rad(d))]);
    }
    lots[`P${k}`] = [...inner, ...outer.reverse()];
    arcLen[`P${k}`] = inner.slice(1).reduce((s, p, i) => s + Math.hypot(p[0] - inner[i]![0], p[1] - inner[i]![1]), 0);
  }
  const f = factsFor(lots, [
    {
      key: 'BULB ST',
      line: [
        [0, -300],
        [0, 0],
      ],
    },
  ]);
  for (const id of ['P1', 'P2', 'P3', 'P4']) {
    const front = f.get(id)!.frontByStreet['BULB ST'];
    assert.ok(front, `${id} fronts Bulb St: ${JSON.stringify(f.get(id))}`);
    near(front.frontageM, arcLen[id]!, 0.02 * arcLen[id]!, `${id} frontage along the bulb`);
    near(front.depthM, 30, 3, `${id} depth (bulb to rear)`);
    assert.equal(f.get(id)!.cornerLot, false, `${id} is not a corner lot`);
    // the dead-end rule measured it: recorded, so the answer can say which rule gave its frontage and depth
    near(front.bulbM, front.frontageM, 0.02, `${id} frontage measured around the bulb`);
    assert.equal(f.get(id)!.notCorner, undefined);
  }
});

test('a lot on two streets whose fronts do not meet records why it is not a corner lot; the corner lot beside it records nothing', () => {
  // Main St along the x axis, Side St up the y axis. C is the corner lot at their junction; L wraps
  // around behind it (an L shape): it fronts Main St east of C and Side St north of C, and its two
  // fronts are C's depth and width apart, with C between them.
  const lots: Record<string, XY[]> = {
    C: [
      [8, 8],
      [20, 8],
      [20, 22],
      [8, 22],
    ],
    L: [
      [20, 8],
      [40, 8],
      [40, 40],
      [8, 40],
      [8, 22],
      [20, 22],
    ],
    N: [
      [40, 8],
      [60, 8],
      [60, 40],
      [40, 40],
    ],
  };
  const f = factsFor(lots, [
    {
      key: 'MAIN ST',
      line: [
        [-300, 0],
        [0, 0],
        [300, 0],
      ],
    },
    {
      key: 'SIDE ST',
      line: [
        [0, -300],
        [0, 0],
        [0, 300],
      ],
    },
  ]);
  const l = f.get('L')!;
  assert.deepEqual(l.streets.slice().sort(), ['MAIN ST', 'SIDE ST'], JSON.stringify(l));
  assert.equal(l.cornerLot, false);
  assert.equal(l.notCorner?.reason, 'fronts_apart', JSON.stringify(l));
  assert.deepEqual(l.notCorner?.streets.slice().sort(), ['MAIN ST', 'SIDE ST']);
  // nearest piece midpoints: (22.5, 8) on Main St's front (four 5 m pieces) and (8, 24.25) on Side St's (four 4.5 m pieces)
  near(l.notCorner?.gapM, Math.hypot(14.5, 16.25), 0.1, 'gap between the fronts');
  assert.equal(l.notCorner?.turnDeg, 90);
  assert.deepEqual([l.notCorner?.meetWithinM, l.notCorner?.minTurnDeg], [CORNER_ADJACENT_M, CORNER_MIN_ANGLE_DEG]);
  assert.ok(l.notCorner!.gapM > CORNER_ADJACENT_M);
  const c = f.get('C')!;
  assert.equal(c.cornerLot, true, JSON.stringify(c));
  assert.equal(c.notCorner, undefined);
  // a lot on one street records neither
  const n = f.get('N')!;
  assert.deepEqual(n.streets, ['MAIN ST']);
  assert.equal(n.notCorner, undefined);
  assert.equal(n.frontByStreet['MAIN ST']!.bulbM, undefined);
});

/** A lot in the angle between Main St (the x axis) and a street leaving the origin at `deg`, 8 m off both, with a 4 m chamfer at its corner. */
function wedgeLot(deg: number, side: 'obtuse' | 'acute', chamfer = 4): { lots: Record<string, XY[]>; streets: { key: string; line: XY[] }[] } {
  const u: XY = [Math.cos(rad(deg)), Math.sin(rad(deg))];
  const streets = [
    {
      key: 'MAIN ST',
      line: [
        [-300, 0],
        [0, 0],
        [300, 0],
      ] as XY[],
    },
    {
      key: 'SIDE ST',
      line: [
        [0, 0],
        [300 * u[0], 300 * u[1]],
      ] as XY[],
    },
  ];
  // the lot's corner: 8 m above Main St and 8 m from Side St, on the side the lot lies
  const n: XY = side === 'obtuse' ? [-u[1], u[0]] : [u[1], -u[0]]; // left of Side St for the obtuse angle, right for the acute one
  const s = (8 - 8 * n[1]) / u[1];
  const p1: XY = [s * u[0] + 8 * n[0], 8];
  const dirA: XY = side === 'obtuse' ? [-1, 0] : [1, 0];
  const along = (p: XY, d: XY, t: number): XY => [p[0] + d[0] * t, p[1] + d[1] * t];
  const pa = along(p1, dirA, chamfer);
  const pb = along(p1, u, chamfer);
  const p2 = along(p1, dirA, 28);
  const p4 = along(p1, u, 30);
  const p3: XY = along(p4, dirA, 28);
  return { lots: { W: [p2, pa, pb, p4, p3] }, streets };
}

test("corner lots: the streets' angle decides, not a chamfer; a sharp corner is a corner, not a through lot", () => {
  // interior angle 130° (streets turn by 50°): a corner lot, with or without a chamfer at its corner
  for (const chamfer of [0.01, 4, 6]) {
    const w = wedgeLot(50, 'obtuse', chamfer);
    const f = factsFor(w.lots, w.streets).get('W')!;
    assert.deepEqual(f.streets.slice().sort(), ['MAIN ST', 'SIDE ST'], JSON.stringify(f));
    assert.equal(f.cornerLot, true, `130° with a ${chamfer} m chamfer: ${JSON.stringify(f)}`);
    assert.equal(f.throughLot, false);
  }
  // interior angle 140° (streets turn by 40°): not a corner lot by the 135° rule, chamfer or not
  for (const chamfer of [0.01, 4]) {
    const f = factsFor(wedgeLot(40, 'obtuse', chamfer).lots, wedgeLot(40, 'obtuse', chamfer).streets).get('W')!;
    assert.equal(f.cornerLot, false, `140° with a ${chamfer} m chamfer: ${JSON.stringify(f)}`);
    assert.equal(f.throughLot, false);
  }
  // interior angle 30°: a sharp corner (the line directions differ by 30° only, which read as "through")
  const sharp = wedgeLot(30, 'acute', 2);
  const fs = factsFor(sharp.lots, sharp.streets).get('W')!;
  assert.deepEqual(fs.streets.slice().sort(), ['MAIN ST', 'SIDE ST'], JSON.stringify(fs));
  assert.equal(fs.cornerLot, true, JSON.stringify(fs));
  assert.equal(fs.throughLot, false);
  // the depth on Main St is measured across Main St's direction
  near(fs.frontByStreet['MAIN ST']!.depthM, 30 * Math.sin(rad(30)), 1, 'sharp corner depth from Main St');
});
