// The batch loaders round-trip every column (nulls, JSON, boxes) on both backends, across batch edges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb } from '../../test/support/harness.ts';
import { squareLots } from '../../test/support/square-lots.ts';
import { insertAddresses, insertParcels, insertStreetSegments, insertZones, withIndexesDeferred, deletePlaceRows } from './load-tables.ts';

const parcels = (n: number) => squareLots(n, (i) => ({ areaM2: 1700 + i, attrs: i === 0 ? { note: 'it\'s "quoted", {braced}\\ and ünïcode' } : {} }));

// Long because: one round trip of every column through the loader, checked column by column.
test('load-tables: batched unnest inserts round-trip every column', async () => {
  const t = await createTestDb();
  try {
    const batches: number[] = [];
    // The indexes a bulk load builds again are the ones the migrations made (same kind, same columns).
    const bulkIndexes = `SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('parcels', 'zones', 'street_segments') ORDER BY 1`;
    const migrated = await t.db.query<{ indexname: string; indexdef: string }>(bulkIndexes);
    const n = await t.db.transaction((tx) =>
      withIndexesDeferred(tx, ['parcels', 'zones', 'street_segments'], () =>
        insertParcels(tx, 'XX-AA:test', parcels(7), { batchSize: 3, onBatch: (k) => batches.push(k) }),
      ),
    );
    assert.equal(n, 7);
    assert.deepEqual(batches, [3, 6, 7]);
    const idx = await t.db.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE tablename IN ('parcels', 'zones', 'street_segments') AND indexname LIKE '%_bbox' ORDER BY 1`,
    );
    assert.deepEqual(
      idx.map((r) => r.indexname),
      ['parcels_bbox', 'street_segments_bbox', 'zones_bbox'],
      'indexes rebuilt',
    );
    assert.deepEqual(await t.db.query(bulkIndexes), migrated, 'rebuilt as the migrations declare them');
    const pk = await t.db.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname = 'parcels_pkey'`);
    assert.match(pk[0]?.indexdef ?? '', /UNIQUE INDEX parcels_pkey ON .*parcels .*\(place_id, parcel_ext_id\)/, 'primary key rebuilt');
    const rows = await t.db.query<{ parcel_ext_id: string; geom: unknown; attrs: { note?: string }; area_m2: number }>(
      `SELECT parcel_ext_id, geom, attrs, area_m2 FROM parcels WHERE place_id = 'XX-AA:test' AND bbox @> point(-71.09975, 42.37025) ORDER BY parcel_ext_id`,
    );
    assert.deepEqual(
      rows.map((r) => r.parcel_ext_id),
      ['L-0'],
    );
    assert.equal(rows[0]!.attrs.note, 'it\'s "quoted", {braced}\\ and ünïcode');
    assert.equal(rows[0]!.area_m2, 1700);

    await insertAddresses(t.db, 'XX-AA:test', [
      {
        rowNo: 1,
        addressId: null,
        number: 57,
        numberSuffix: '',
        streetKey: 'INMAN ST',
        streetDisplay: 'Inman St',
        unit: '',
        postcode: '',
        fullAddress: '57 Inman St',
        parcelExtId: null,
        lon: null,
        lat: null,
      },
      {
        rowNo: 2,
        addressId: 'a2',
        number: 6,
        numberSuffix: '1/2',
        streetKey: 'ACACIA ST',
        streetDisplay: 'Acacia St',
        unit: '2',
        postcode: '02138',
        fullAddress: '6-1/2 Acacia St',
        parcelExtId: 'L-1',
        lon: -71.1,
        lat: 42.37,
      },
    ]);
    const a = await t.db.query<{ address_id: string | null; parcel_ext_id: string | null; lon: number | null; number_suffix: string }>(
      `SELECT address_id, parcel_ext_id, lon, number_suffix FROM addresses WHERE place_id = 'XX-AA:test' ORDER BY row_no`,
    );
    assert.deepEqual(a, [
      { address_id: null, parcel_ext_id: null, lon: null, number_suffix: '' },
      { address_id: 'a2', parcel_ext_id: 'L-1', lon: -71.1, number_suffix: '1/2' },
    ]);
    await insertZones(t.db, 'XX-AA:test', [
      {
        zoneId: 'z1',
        layer: 'base',
        code: 'C-1',
        name: null,
        geom: [
          [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 0],
            ],
          ],
        ],
        bbox: [0, 0, 1, 1],
      },
    ]);
    await insertStreetSegments(t.db, 'XX-AA:test', [
      {
        segmentId: 's1',
        streetKey: 'INMAN ST',
        streetDisplay: 'Inman St',
        lFrom: 1,
        lTo: 99,
        rFrom: null,
        rTo: null,
        zipLeft: '02139',
        zipRight: null,
        geom: [
          [0, 0],
          [1, 1],
        ],
        bbox: [0, 0, 1, 1],
      },
    ]);
    const s = await t.db.query<{ l_to: number; r_from: number | null; zip_right: string | null }>(
      `SELECT l_to, r_from, zip_right FROM street_segments WHERE place_id = 'XX-AA:test'`,
    );
    assert.deepEqual(s, [{ l_to: 99, r_from: null, zip_right: null }]);

    await deletePlaceRows(t.db, 'XX-AA:test');
    for (const table of ['parcels', 'addresses', 'zones', 'street_segments']) {
      const c = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE place_id = 'XX-AA:test'`);
      assert.equal(c[0]!.n, 0, table);
    }
  } finally {
    await t.close();
  }
});

test('load-tables: a parcel id loaded twice with the indexes deferred fails the load and leaves nothing behind', async () => {
  const t = await createTestDb();
  try {
    const twice = [...parcels(3), ...parcels(2)]; // L-0 and L-1 again
    const err = await t.db
      .transaction((tx) => withIndexesDeferred(tx, ['parcels'], () => insertParcels(tx, 'XX-AA:test', twice, { batchSize: 2 })))
      .then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
    assert.equal(err?.code, '23505', 'the rebuilt primary key refuses the duplicate');
    const c = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM parcels WHERE place_id = 'XX-AA:test'`);
    assert.equal(c[0]!.n, 0, 'the load rolled back');
    const idx = await t.db.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE tablename = 'parcels' ORDER BY 1`);
    assert.deepEqual(
      idx.map((r) => r.indexname),
      ['parcels_bbox', 'parcels_pkey'],
      'the dropped indexes came back with the rollback',
    );
  } finally {
    await t.close();
  }
});

test('load-tables: a COPY batch is written while the next is encoded; rows arrive whole and in order', async () => {
  const t = await createTestDb();
  try {
    const events: string[] = [];
    const db = t.db as typeof t.db & { copyRows: NonNullable<typeof t.db.copyRows> };
    const copyRows = db.copyRows.bind(db);
    let copies = 0;
    // The real database's COPY, told when each batch starts and ends being written.
    db.copyRows = async (table, columns, rows) => {
      const k = ++copies;
      events.push(`copy ${k} start`);
      const n = await copyRows(table, columns, rows);
      events.push(`copy ${k} end`);
      return n;
    };
    function* rows() {
      for (let i = 1; i <= 5000; i++) {
        if (i % 1000 === 1) events.push(`row ${i}`);
        yield {
          rowNo: i,
          addressId: `a${i}`,
          number: i,
          numberSuffix: '',
          streetKey: 'INMAN ST',
          streetDisplay: 'Inman St',
          unit: '',
          postcode: '',
          fullAddress: `${i} Inman St`,
          parcelExtId: null,
          lon: null,
          lat: null,
        };
      }
    }
    const batches: number[] = [];
    const n = await insertAddresses(db, 'XX-AA:test', rows(), { batchSize: 2000, onBatch: (k) => batches.push(k) });
    assert.equal(n, 5000);
    assert.deepEqual(batches, [2000, 4000, 5000]);
    assert.equal(copies, 3);
    // Rows of the second batch were read before the first batch had been written.
    assert.ok(events.indexOf('row 2001') < events.indexOf('copy 1 end'), events.join(', '));
    // One COPY at a time: each starts after the one before it ended.
    assert.ok(
      events.indexOf('copy 1 end') < events.indexOf('copy 2 start') && events.indexOf('copy 2 end') < events.indexOf('copy 3 start'),
      events.join(', '),
    );
    const got = await t.db.query<{ row_no: number; number: number }>(`SELECT row_no, number FROM addresses WHERE place_id = 'XX-AA:test' ORDER BY row_no`);
    assert.equal(got.length, 5000);
    assert.ok(got.every((r, i) => r.row_no === i + 1 && r.number === i + 1));
  } finally {
    await t.close();
  }
});

test("load-tables: a batch that fails stops the load there, and the error is the database's", async () => {
  const t = await createTestDb();
  try {
    let copies = 0;
    const err = await t.db
      .transaction((tx) => {
        const copyRows = tx.copyRows!.bind(tx);
        const counted: typeof tx = { query: tx.query.bind(tx), copyRows: (table, columns, rows) => (copies++, copyRows(table, columns, rows)) };
        // The second lot of the first batch repeats the first's id: the primary key refuses that batch.
        const lots = [...parcels(1), ...parcels(7)];
        return insertParcels(counted, 'XX-AA:test', lots, { batchSize: 2 });
      })
      .then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
    assert.equal(err?.code, '23505');
    assert.equal(copies, 1, 'no batch was sent after the one that failed');
    const c = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM parcels WHERE place_id = 'XX-AA:test'`);
    assert.equal(c[0]!.n, 0);
  } finally {
    await t.close();
  }
});

test('load-tables: indexes deferred on the database itself (not a transaction) come back as the migrations declare them', async () => {
  const t = await createTestDb();
  try {
    // On PostgreSQL this is the pool: the builds run side by side on several connections.
    const bulkIndexes = `SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('parcels', 'zones', 'street_segments', 'addresses') ORDER BY 1`;
    const migrated = await t.db.query<{ indexname: string; indexdef: string }>(bulkIndexes);
    // The box indexes are declared with GiST's buffering build (migration 151): quicker to build after a
    // bulk load, and a tree whose point lookups visit fewer pages.
    assert.deepEqual(
      migrated.filter((r) => r.indexdef.includes('USING gist')).map((r) => [r.indexname, /WITH \(buffering='?on'?\)/.test(r.indexdef)]),
      [
        ['parcels_bbox', true],
        ['street_segments_bbox', true],
        ['zones_bbox', true],
      ],
    );
    const built: string[] = [];
    const n = await withIndexesDeferred(
      t.db,
      ['parcels', 'zones', 'street_segments', 'addresses'],
      () => insertParcels(t.db, 'XX-AA:test', parcels(7), { batchSize: 3 }),
      (index) => built.push(index),
    );
    assert.equal(n, 7);
    assert.deepEqual(built.sort(), ['addresses_street_number', 'parcels_bbox', 'parcels_pkey', 'street_segments_bbox', 'zones_bbox']);
    assert.deepEqual(await t.db.query(bulkIndexes), migrated);
    const key = await t.db.query<{ contype: string; columns: string }>(
      `SELECT c.contype, pg_get_constraintdef(c.oid) AS columns FROM pg_constraint c WHERE c.conname = 'parcels_pkey'`,
    );
    assert.deepEqual(
      key,
      [{ contype: 'p', columns: 'PRIMARY KEY (place_id, parcel_ext_id)' }],
      'the primary key is a primary key again, not only a unique index',
    );
  } finally {
    await t.close();
  }
});
