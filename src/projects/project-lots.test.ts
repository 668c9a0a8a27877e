// The lot under a point: found by its polygon, and looked up through the parcels' box index (a point
// query that no index serves reads every parcel of every place: seconds on a national database).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDb } from '../../test/support/harness.ts';
import { squareLots } from '../../test/support/square-lots.ts';
import { boxLiteral } from '../core/geo/primitives.ts';
import { insertParcels } from '../importer/load-tables.ts';
import { LOTS_AT_POINT_IN_PLACE_SQL } from '../importer/audit-addresses.ts';
import { LOT_AT_POINT_SQL, lotAtPoint } from './project-lots.ts';
import { movePlacesOutOfDefault } from '../db/place-partitions.ts';

test('the lot under a point (lotAtPoint, the audit): the parcel whose polygon holds it, through the box index', async () => {
  const t = await createTestDb();
  try {
    await insertParcels(t.db, 'XX-AA:test', squareLots(50));
    const point = boxLiteral([-71.09975, 42.37025, -71.09975, 42.37025]);
    // Written outside an import, the rows are in the default partition; moved (as migrate() does), the
    // place's own: found either way, in the second case through the place's lots' box first.
    for (const where of ['default', 'partition'] as const) {
      if (where === 'partition') assert.deepEqual(await movePlacesOutOfDefault(t.db), ['XX-AA:test']);
      assert.equal((await lotAtPoint(t.db, 42.37025, -71.09975))?.parcel_ext_id, 'L-0', where);
      assert.equal((await lotAtPoint(t.db, 42.37025, -71.05975))?.parcel_ext_id, 'L-40', where);
      assert.equal(await lotAtPoint(t.db, 42.37025, -71.0993), null, `between two lots: none (${where})`);
      if (where === 'default') continue;
      // With sequential scans priced out, the planner still has to read every row (of every place, or
      // of the place through its key) unless the box index serves the condition: the plan names it
      // (the place's partition's). The audit's lot under an address point asks the same way.
      const index = /Bitmap Index Scan on parcels_p\d+_bbox/;
      for (const [sql, params] of [
        [LOT_AT_POINT_SQL, [point, ['XX-AA:test']]],
        [LOTS_AT_POINT_IN_PLACE_SQL, ['XX-AA:test', point]],
      ] as const) {
        const plan = await t.db.transaction(async (tx) => {
          await tx.query('SET LOCAL enable_seqscan = off');
          await tx.query('SET LOCAL enable_indexscan = off'); // the key's index scan by place is not the box index either
          return tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, [...params]);
        });
        const text = plan.map((r) => r['QUERY PLAN']).join('\n');
        assert.match(text, index, text);
        assert.doesNotMatch(text, /parcels_p\d+_pkey|Seq Scan on parcels_p/, text);
      }
    }
    const [layout] = await t.db.query<{ own: boolean; lots: number; lots_bbox: string }>('SELECT own, lots, lots_bbox::text FROM place_partitions');
    assert.deepEqual({ own: layout!.own, lots: layout!.lots }, { own: false, lots: 50 }, 'a town of 50 lots joins a group');
  } finally {
    await t.close();
  }
});
