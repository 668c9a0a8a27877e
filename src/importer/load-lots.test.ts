// insertLotsWithFacts derives on this thread or on a worker thread; both must write the same rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb } from '../../test/support/harness.ts';
import { bboxOf, offsetM, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';
import type { Db } from '../db/database.ts';
import { insertLotsWithFacts } from './load-lots.ts';
import type { ParcelRow } from './load-tables.ts';

const ORIGIN: Position = [-71.1, 42.37];

function rect(x: number, y: number, w: number, h: number): MultiPolygonCoords {
  const [a, b, c, d] = [offsetM(ORIGIN, x, y), offsetM(ORIGIN, x + w, y), offsetM(ORIGIN, x + w, y + h), offsetM(ORIGIN, x, y + h)];
  return [[[a, b, c, d, a]]];
}

/** Two rows of 30 lots (20 m x 30 m) between two streets; a base district boundary cuts lots 9 and 10 of each row. */
function place() {
  const lots: ParcelRow[] = [];
  for (let row = 0; row < 2; row++)
    for (let i = 0; i < 30; i++) {
      const geom = rect(i * 20, 10 + row * 30, 20, 30);
      const inside = offsetM(ORIGIN, i * 20 + 10, 10 + row * 30 + 15);
      lots.push({
        parcelExtId: `L-${row}-${String(i).padStart(2, '0')}`,
        geom,
        bbox: bboxOf(geom),
        insideLon: inside[0],
        insideLat: inside[1],
        areaM2: 600,
        source: 't',
        vintage: 't',
      });
    }
  const zones = [
    { zoneId: 'z1', layer: 'base', code: 'R-1', name: 'Residence', geom: rect(-10, 0, 200, 90) },
    { zoneId: 'z2', layer: 'base', code: 'C-1', name: 'Business', geom: rect(190, 0, 500, 90) },
    { zoneId: 'o1', layer: 'overlay', code: 'H-1', name: 'Historic', geom: rect(0, 0, 100, 40) },
  ];
  const streets = [
    { streetKey: 'SOUTH ST', geom: [offsetM(ORIGIN, -10, 5), offsetM(ORIGIN, 700, 5)] },
    { streetKey: 'NORTH ST', geom: [offsetM(ORIGIN, -10, 75), offsetM(ORIGIN, 700, 75)] },
    { streetKey: 'WEST ST', geom: [offsetM(ORIGIN, -5, 0), offsetM(ORIGIN, -5, 80)] },
  ];
  return { lots, zones, streets };
}

async function stored(db: Db, placeId: string) {
  return db.query(`SELECT parcel_ext_id, facts::text AS facts, zones::text AS zones, primary_zone FROM parcels WHERE place_id = $1 ORDER BY parcel_ext_id`, [
    placeId,
  ]);
}

test('insertLotsWithFacts: a worker thread writes exactly what this thread writes, in small batches, after `meanwhile`', async () => {
  const t = await createTestDb();
  try {
    const { lots, zones, streets } = place();
    const order: string[] = [];
    const here = await insertLotsWithFacts(t.db, 'T:here', { parcels: lots, zones, streets }, lots, { batchSize: 7, deriveIn: 'thread' });
    const there = await insertLotsWithFacts(t.db, 'T:worker', { parcels: lots, zones, streets }, lots, {
      batchSize: 7,
      deriveIn: 'worker',
      onBatch: (n) => order.push(`parcels ${n}`),
      onProgress: (_m) => order.includes('progress') || order.push('progress'),
      meanwhile: async () => {
        order.push('meanwhile');
      },
    });
    assert.equal(there.parcels, 60);
    assert.deepEqual({ ...there, derive: { ...there.derive, ms: 0 } }, { ...here, derive: { ...here.derive, ms: 0 } });
    assert.ok(here.derive.splitLots >= 2 && here.derive.parcelsWithOverlay > 0 && here.derive.cornerLots > 0, JSON.stringify(here.derive));
    const a = await stored(t.db, 'T:here');
    const b = await stored(t.db, 'T:worker');
    assert.equal(a.length, 60);
    assert.deepEqual(b, a);
    assert.equal(order[0], 'meanwhile');
    assert.ok(order.includes('progress'), 'the worker reports progress');
    assert.deepEqual(order.filter((o) => o.startsWith('parcels')).at(-1), 'parcels 60');
  } finally {
    await t.close();
  }
});

test('insertLotsWithFacts on a worker: index and rows that differ are refused, and nothing hangs', async () => {
  const t = await createTestDb();
  try {
    const { lots, zones, streets } = place();
    const swapped = [lots[1]!, lots[0]!, ...lots.slice(2)];
    await assert.rejects(
      insertLotsWithFacts(t.db, 'T:bad', { parcels: lots, zones, streets }, swapped, { batchSize: 7, deriveIn: 'worker' }),
      /another order, or with other ids, than the lots indexed: index and rows differ/,
    );
    await assert.rejects(
      insertLotsWithFacts(t.db, 'T:short', { parcels: lots, zones, streets }, lots.slice(0, 59), { batchSize: 7, deriveIn: 'worker' }),
      /more lot facts than parcels/,
    );
  } finally {
    await t.close();
  }
});

test('insertLotsWithFacts on a worker: a failing `meanwhile` step is the error reported, and no parcel is written', async () => {
  const t = await createTestDb();
  try {
    const { lots, zones, streets } = place();
    await assert.rejects(
      insertLotsWithFacts(t.db, 'T:meanwhile', { parcels: lots, zones, streets }, lots, {
        deriveIn: 'worker',
        meanwhile: async () => {
          throw new Error('addresses failed');
        },
      }),
      /addresses failed/,
    );
    assert.deepEqual(await stored(t.db, 'T:meanwhile'), []);
  } finally {
    await t.close();
  }
});
