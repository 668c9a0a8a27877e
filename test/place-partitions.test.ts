// The place tables partitioned by place (issue 51 item 1; src/db/place-partitions.ts): the layout
// migrate() leaves, the migration of a database whose tables were one heap each, and a re-import that
// swaps a partition while readers keep reading (never a half-loaded place; the neighbours untouched).
// On the test database: PGlite, or PostgreSQL with DATABASE_URL (where the readers run beside the
// import on connections of their own).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import pg from 'pg';
import { createTestDb, testCtx, SHARED_DATA } from './support/harness.ts';
import { openDatabase, type Db, type Queryable } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { movePlacesOutOfDefault, OWN_PARTITION_MIN_LOTS, PARTITIONED_TABLES } from '../src/db/place-partitions.ts';
import { importPlace } from '../src/importer/import-place.ts';
import { lotAtPoint } from '../src/projects/project-lots.ts';

const PG = process.env.DATABASE_URL;

/** A database of its own, not a clone of the migrated template (PostgreSQL: partitions_<random>, dropped after). */
async function freshDb(): Promise<{ db: Db; close(): Promise<void> }> {
  if (!PG) {
    const db = await openDatabase({ pgliteDir: 'memory://' });
    return { db, close: () => db.close() };
  }
  const name = `partitions_${crypto.randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: PG });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG);
  url.pathname = `/${name}`;
  const db = await openDatabase({ databaseUrl: url.toString() });
  return {
    db,
    async close() {
      await db.close().catch(() => undefined);
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Every row a place owns in the partitioned tables, as one digest per table (rows in key order). */
async function fingerprint(q: Queryable, placeId: string): Promise<string> {
  const parts: string[] = [];
  for (const table of PARTITIONED_TABLES) {
    const r = await q.query<{ h: string | null; n: number }>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS h, count(*)::int AS n FROM ${table} t WHERE place_id = $1`,
      [placeId],
    );
    parts.push(`${table}:${r[0]?.n}:${r[0]?.h}`);
  }
  return parts.join('\n');
}

const partitionsOf = async (q: Queryable, table: string) =>
  await q.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
    [table],
  );

const layout = async (q: Queryable) =>
  Object.fromEntries(
    (
      await q.query<{ place_id: string; part: number; own: boolean; lots: number }>('SELECT place_id, part, own, lots FROM place_partitions ORDER BY place_id')
    ).map((r) => [r.place_id, { part: Number(r.part), own: r.own, lots: Number(r.lots) }]),
  );

const defaultRows = async (q: Queryable) => {
  let n = 0;
  for (const t of PARTITIONED_TABLES) n += Number((await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}_default`))[0]!.n);
  return n;
};

/** Rows of a place written set-based (as a database from before the partitions holds them): `lots` square lots, an address each, a zone, a street, a lot location. */
async function writePlace(q: Queryable, placeId: string, lots: number, x0: number): Promise<void> {
  await q.query(
    `INSERT INTO parcels (place_id, parcel_ext_id, geom, bbox, inside_lon, inside_lat, area_m2, source, vintage)
     SELECT $1, 'L-' || i, json_build_array(json_build_array(json_build_array(json_build_array(x, 0), json_build_array(x + 0.0005, 0), json_build_array(x + 0.0005, 0.0005), json_build_array(x, 0.0005), json_build_array(x, 0)))),
            box(point(x, 0), point(x + 0.0005, 0.0005)), x + 0.00025, 0.00025, 1700, 'test', '2026'
       FROM (SELECT i, $2::float8 + i * 0.001 AS x FROM generate_series(0, $3::int - 1) AS i) s`,
    [placeId, x0, lots],
  );
  await q.query(
    `INSERT INTO addresses (place_id, row_no, number, street_key, street_display, full_address, parcel_ext_id)
     SELECT $1, i, i + 1, 'main st', 'Main St', (i + 1) || ' Main St', 'L-' || i FROM generate_series(0, $2::int - 1) AS i`,
    [placeId, lots],
  );
  await q.query(`INSERT INTO zones (place_id, zone_id, layer, code, geom, bbox) VALUES ($1, 'z1', 'base', 'R-1', '[]', box(point($2, 0), point($2 + 1, 1)))`, [
    placeId,
    x0,
  ]);
  await q.query(
    `INSERT INTO street_segments (place_id, segment_id, street_key, street_display, geom, bbox) VALUES ($1, 's1', 'main st', 'Main St', '[]', box(point($2, 0), point($2 + 1, 1)))`,
    [placeId, x0],
  );
  await q.query(
    `INSERT INTO lot_locations (place_id, street_key, number_lo, number_hi, parcel_ext_id, location, source) VALUES ($1, 'main st', 1, 1, 'L-0', '1 Main St', 'test')`,
    [placeId],
  );
}

test('partitions: after migrate the place tables are PARTITION BY LIST (place_id), each with its default partition; the catalogue-like tables stay plain', async () => {
  const t = await createTestDb();
  try {
    const parted = await t.db.query<{ name: string; strategy: string; key: string }>(
      `SELECT c.relname AS name, pt.partstrat AS strategy, a.attname AS key
         FROM pg_partitioned_table pt JOIN pg_class c ON c.oid = pt.partrelid
         JOIN pg_attribute a ON a.attrelid = pt.partrelid AND a.attnum = pt.partattrs[0]
        ORDER BY c.relname`,
    );
    assert.deepEqual(
      parted,
      [...PARTITIONED_TABLES].sort().map((name) => ({ name, strategy: 'l', key: 'place_id' })),
    );
    for (const table of PARTITIONED_TABLES) assert.deepEqual(await partitionsOf(t.db, table), [{ name: `${table}_default`, bound: 'DEFAULT' }], table);
    const plain = await t.db.query<{ relname: string; relkind: string }>(
      `SELECT relname, relkind::text FROM pg_class WHERE relname IN ('places', 'place_boundaries', 'place_postcodes', 'place_partitions') ORDER BY relname`,
    );
    assert.deepEqual(
      plain.map((r) => r.relkind),
      ['r', 'r', 'r', 'r'],
    );
    // The parent's keys and indexes are declared as before (the partitions' are attached to them).
    const indexes = await t.db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'parcels'::regclass ORDER BY 1`,
    );
    assert.deepEqual(
      indexes.map((r) => r.name),
      ['parcels_bbox', 'parcels_pkey'],
    );
  } finally {
    await t.close();
  }
});

test("partitions: the migration moves an existing database's rows into partitions (a large place alone, small towns grouped), every row kept", async () => {
  const f = await freshDb();
  try {
    await migrate(f.db, undefined, { before: '250_place_partitions.sql' });
    // Before migration 250 the tables are one heap each.
    assert.equal((await f.db.query<{ k: string }>(`SELECT relkind::text AS k FROM pg_class WHERE relname = 'parcels'`))[0]!.k, 'r');
    await writePlace(f.db, 'XX-AA:big', OWN_PARTITION_MIN_LOTS, 10);
    await writePlace(f.db, 'XX-AA:small-1', 120, 0);
    await writePlace(f.db, 'XX-AA:small-2', 80, 1);
    const before = { big: await fingerprint(f.db, 'XX-AA:big'), s1: await fingerprint(f.db, 'XX-AA:small-1'), s2: await fingerprint(f.db, 'XX-AA:small-2') };
    // The lot under a point as the unpartitioned statement found it (every place's box index at once).
    const lotBefore = (
      await f.db.query<{ place_id: string; parcel_ext_id: string }>(
        `SELECT place_id, parcel_ext_id FROM parcels WHERE bbox @> '(1.00025,0.00025),(1.00025,0.00025)'::box ORDER BY area_m2, place_id, parcel_ext_id LIMIT 1`,
      )
    )[0];
    assert.deepEqual({ ...lotBefore }, { place_id: 'XX-AA:small-2', parcel_ext_id: 'L-0' });

    const applied = await migrate(f.db);
    assert.ok(applied.includes('250_place_partitions.sql'), applied.join(', '));
    assert.equal(await defaultRows(f.db), 0, 'no row left in the default partitions');
    assert.deepEqual(
      { big: await fingerprint(f.db, 'XX-AA:big'), s1: await fingerprint(f.db, 'XX-AA:small-1'), s2: await fingerprint(f.db, 'XX-AA:small-2') },
      before,
      'every row kept',
    );
    const l = await layout(f.db);
    assert.deepEqual(l['XX-AA:big'], { part: l['XX-AA:big']!.part, own: true, lots: OWN_PARTITION_MIN_LOTS });
    assert.equal(l['XX-AA:small-1']!.own, false);
    assert.equal(l['XX-AA:small-1']!.part, l['XX-AA:small-2']!.part, 'the small towns share a group');
    assert.notEqual(l['XX-AA:small-1']!.part, l['XX-AA:big']!.part);
    for (const table of PARTITIONED_TABLES) {
      assert.deepEqual(
        await partitionsOf(f.db, table),
        [
          { name: `${table}_default`, bound: 'DEFAULT' },
          ...[
            { name: `${table}_p${l['XX-AA:big']!.part}`, bound: `FOR VALUES IN ('XX-AA:big')` },
            { name: `${table}_p${l['XX-AA:small-1']!.part}`, bound: `FOR VALUES IN ('XX-AA:small-1', 'XX-AA:small-2')` },
          ].sort((a, b) => (a.name < b.name ? -1 : 1)),
        ],
        table,
      );
    }
    assert.equal(Number((await f.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM parcels_p${l['XX-AA:big']!.part}`))[0]!.n), OWN_PARTITION_MIN_LOTS);
    // A lookup by place reads that place's partition only.
    const plan = (await f.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT * FROM parcels WHERE place_id = 'XX-AA:small-1' AND parcel_ext_id = 'L-3'`))
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    assert.match(plan, new RegExp(`parcels_p${l['XX-AA:small-1']!.part}\\b`), plan);
    assert.doesNotMatch(plan, /parcels_default|parcels_p\d+ .*parcels_p\d+/, plan);
    const lotAfter = await lotAtPoint(f.db, 0.00025, 1 + 0.00025);
    assert.deepEqual(
      { place_id: lotAfter?.place_id, parcel_ext_id: lotAfter?.parcel_ext_id },
      { ...lotBefore },
      'the lot under a point: the same lot, its place found first',
    );
    // Run again, nothing moves.
    assert.deepEqual(await migrate(f.db), []);
    assert.deepEqual(await layout(f.db), l);
  } finally {
    await f.close();
  }
});

test("partitions: a re-import swaps the place's partition while readers read: full answers throughout, the neighbours untouched", async (tc) => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    await importPlace(ctx, 'paradise-tx', { sourceDir: SHARED_DATA, quiet: true });
    await importPlace(ctx, 'saanich-bc', { sourceDir: SHARED_DATA, quiet: true });
    // A large neighbour, alone in its partition (laid out with a smaller threshold, to keep the test quick).
    await writePlace(t.db, 'XX-AA:big', 5_000, 10);
    assert.deepEqual(await movePlacesOutOfDefault(t.db, { ownMinLots: 5_000, groupMaxLots: 10_000 }), ['XX-AA:big']);
    const before = await layout(t.db);
    assert.equal(before['US-TX:paradise']!.part, before['CA-BC:saanich']!.part, 'two small towns: one group');
    assert.equal(before['XX-AA:big']!.own, true);
    const bigRelation = async () =>
      (
        await t.db.query<{ r: string }>(
          `SELECT string_agg(relname || ':' || relfilenode || ':' || pg_relation_size(oid), ',' ORDER BY relname) AS r FROM pg_class WHERE relname LIKE $1`,
          [`%_p${before['XX-AA:big']!.part}%`],
        )
      )[0]!.r;
    const bigBefore = await bigRelation();
    const expected = {
      paradise: await fingerprint(t.db, 'US-TX:paradise'),
      saanich: await fingerprint(t.db, 'CA-BC:saanich'),
      big: await fingerprint(t.db, 'XX-AA:big'),
    };
    const lot = (
      await t.db.query<{ parcel_ext_id: string; inside_lon: number; inside_lat: number }>(
        `SELECT parcel_ext_id, inside_lon, inside_lat FROM parcels WHERE place_id = 'US-TX:paradise' ORDER BY parcel_ext_id LIMIT 1`,
      )
    )[0]!;

    // Readers, each statement on its own (on PostgreSQL, on the pool's other connections): a place's
    // parcels and zones counted and digested in one statement, and the lot under a point.
    const whole = `SELECT (SELECT count(*) FROM parcels WHERE place_id = $1)::int AS parcels, (SELECT count(*) FROM zones WHERE place_id = $1)::int AS zones,
                          (SELECT md5(string_agg(parcel_ext_id || area_m2::text, ',' ORDER BY parcel_ext_id)) FROM parcels WHERE place_id = $1) AS h`;
    const wholeOf = async (placeId: string) => JSON.stringify((await t.db.query(whole, [placeId]))[0]);
    const want = { paradise: await wholeOf('US-TX:paradise'), saanich: await wholeOf('CA-BC:saanich') };
    let stop = false;
    const seen = { reads: 0, wrong: [] as string[], errors: [] as string[] };
    const reader = async () => {
      while (!stop) {
        try {
          const [p, s, at] = [await wholeOf('US-TX:paradise'), await wholeOf('CA-BC:saanich'), await lotAtPoint(t.db, lot.inside_lat, lot.inside_lon)];
          seen.reads++;
          if (p !== want.paradise) seen.wrong.push(`paradise ${p}`);
          if (s !== want.saanich) seen.wrong.push(`saanich ${s}`);
          if (at?.parcel_ext_id !== lot.parcel_ext_id) seen.wrong.push(`lot at point ${at?.parcel_ext_id}`);
        } catch (err) {
          seen.errors.push(String(err));
        }
        await new Promise((r) => setImmediate(r));
      }
    };
    const readers = Array.from({ length: 4 }, reader);
    const readsBefore = async () => {
      const n = seen.reads + seen.errors.length;
      while (seen.reads + seen.errors.length < n + 3) await new Promise((r) => setTimeout(r, 5));
    };
    await readsBefore();
    for (let i = 0; i < 2; i++) {
      const report = await importPlace(ctx, 'paradise-tx', { sourceDir: SHARED_DATA, quiet: true, force: true });
      assert.equal(report.changed, true);
      await readsBefore();
    }
    stop = true;
    await Promise.all(readers);
    tc.diagnostic(`${seen.reads} reads beside two re-imports`);
    assert.deepEqual(seen.errors, [], 'no reader failed');
    assert.deepEqual(seen.wrong.slice(0, 5), [], `every read was whole (${seen.reads} reads)`);
    assert.ok(seen.reads >= 9, `readers read throughout (${seen.reads})`);

    const after = await layout(t.db);
    assert.notEqual(after['US-TX:paradise']!.part, before['US-TX:paradise']!.part, 'the place is in new partitions');
    assert.equal(after['CA-BC:saanich']!.part, after['US-TX:paradise']!.part, 'its group moved with it');
    assert.deepEqual(after['XX-AA:big'], before['XX-AA:big']);
    assert.equal(await bigRelation(), bigBefore, "the large neighbour's partition is the same relation, the same size: not rewritten");
    assert.deepEqual(
      { paradise: await fingerprint(t.db, 'US-TX:paradise'), saanich: await fingerprint(t.db, 'CA-BC:saanich'), big: await fingerprint(t.db, 'XX-AA:big') },
      expected,
      'the same rows',
    );
    // The old partitions are gone: the default, the group's, the large place's.
    for (const table of PARTITIONED_TABLES) assert.equal((await partitionsOf(t.db, table)).length, 3, table);
    const leftover = await t.db.query<{ relname: string }>(`SELECT relname FROM pg_class WHERE relkind = 'r' AND relname ~ '_p[0-9]+$' AND NOT relispartition`);
    assert.deepEqual(leftover, [], 'no table left detached');
    assert.equal(await defaultRows(t.db), 0);
  } finally {
    await t.close();
  }
});
