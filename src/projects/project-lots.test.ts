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

test('the lot under a point (lotAtPoint, the audit): the parcel whose polygon holds it, through the box index', async () => {
  const t = await createTestDb();
  try {
    await insertParcels(t.db, 'XX-AA:test', squareLots(50));
    assert.equal((await lotAtPoint(t.db, 42.37025, -71.09975))?.parcel_ext_id, 'L-0');
    assert.equal((await lotAtPoint(t.db, 42.37025, -71.05975))?.parcel_ext_id, 'L-40');
    assert.equal(await lotAtPoint(t.db, 42.37025, -71.0993), null, 'between two lots: none');
    // With sequential scans priced out, the planner still has to read every row (of every place, or
    // of the place through its key) unless the box index serves the condition: the plan names it.
    // The audit's lot under an address point asks the same way.
    for (const [sql, params] of [
      [LOT_AT_POINT_SQL, [boxLiteral([-71.09975, 42.37025, -71.09975, 42.37025])]],
      [LOTS_AT_POINT_IN_PLACE_SQL, ['XX-AA:test', boxLiteral([-71.09975, 42.37025, -71.09975, 42.37025])]],
    ] as const) {
      const plan = await t.db.transaction(async (tx) => {
        await tx.query('SET LOCAL enable_seqscan = off');
        await tx.query('SET LOCAL enable_indexscan = off'); // the key's index scan by place is not the box index either
        return tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, [...params]);
      });
      const text = plan.map((r) => r['QUERY PLAN']).join('\n');
      assert.match(text, /Bitmap Index Scan on parcels_bbox/, text);
    }
  } finally {
    await t.close();
  }
});
