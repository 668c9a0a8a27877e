// The hot index answers every read as the database does, and is reloaded when the place's import
// version changes (a re-import here or on another instance) or the importer opens the placeChanged door.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPlacesDb, testCtx, type TestDb } from '../../test/support/harness.ts';
import type { AppContext } from '../context.ts';
import { getPlace } from '../places/catalogue.ts';
import { placeSource, sqlSource, warmPlaceIndex, PlaceIndex } from './place-index.ts';
import type { LotRow } from '../lots/lot-store.ts';
import { offsetM } from '../core/geo/primitives.ts';

const PLACE = 'US-MA:cambridge';
let t: TestDb;
let ctx: AppContext;
before(async () => {
  t = await createPlacesDb(['cambridge-ma']);
  ctx = testCtx(t.db);
});
after(async () => {
  await t.close();
});

test('the hot index answers each read exactly as SQL does', async () => {
  const place = (await getPlace({ db: t.db }, PLACE))!;
  const ix = await warmPlaceIndex(ctx, place);
  assert.ok(ix, 'the index loads');
  assert.equal(ix.kind, 'memory');
  assert.ok(ix.counts.parcels > 10_000 && ix.counts.addresses > 20_000 && ix.counts.locations > 0 && ix.counts.segments > 0);
  const sql = sqlSource(t.db, PLACE);
  // every 311th address row: its (street, number), the numbers beside it, and its lot
  const probes = await t.db.query<{ street_key: string; number: number; parcel_ext_id: string | null; lon: number | null; lat: number | null }>(
    `SELECT street_key, number, parcel_ext_id, lon, lat FROM addresses WHERE place_id = $1 AND row_no % 311 = 0 ORDER BY row_no`,
    [PLACE],
  );
  assert.ok(probes.length > 60);
  let lots = 0;
  for (const p of probes) {
    for (const n of [p.number, p.number + 1, p.number + 2]) {
      assert.deepEqual(ix.addressRows(p.street_key, n), await sql.addressRows(p.street_key, n), `address rows ${n} ${p.street_key}`);
      assert.deepEqual(ix.neighbourRows(p.street_key, n, 40), await sql.neighbourRows(p.street_key, n, 40), `neighbours ${n} ${p.street_key}`);
      assert.deepEqual(ix.locationRows(p.street_key, n), await sql.locationRows(p.street_key, n), `locations ${n} ${p.street_key}`);
    }
    assert.deepEqual(ix.segments(p.street_key), await sql.segments(p.street_key), `segments ${p.street_key}`);
    if (p.lon !== null && p.lat !== null) {
      const [x0, y0] = offsetM([p.lon, p.lat], -12, -12);
      const [x1, y1] = offsetM([p.lon, p.lat], 12, 12);
      assert.deepEqual(await ix.parcelsInBox([x0!, y0!, x1!, y1!]), await sql.parcelsInBox([x0!, y0!, x1!, y1!]), `parcels near ${p.lon},${p.lat}`);
    }
    if (p.parcel_ext_id) {
      const a: LotRow | null = ix.lot(p.parcel_ext_id);
      const b: LotRow | null = await sql.lot(p.parcel_ext_id);
      assert.equal(a === null, b === null);
      if (a && b) {
        lots++;
        // the facts the snapshot reads (frontage and depth per street, the corner flag); everything else whole
        assert.deepEqual({ ...a, facts: null }, { ...b, facts: null });
        assert.deepEqual(a.facts.frontByStreet ?? null, b.facts.frontByStreet ?? null);
        assert.equal(a.facts.cornerLot ?? null, b.facts.cornerLot ?? null);
      }
      assert.equal(ix.lotHasZone(p.parcel_ext_id), await sql.lotHasZone(p.parcel_ext_id));
    }
  }
  assert.ok(lots > 40);
  assert.equal(ix.lot('no such lot'), null);
  assert.deepEqual(ix.addressRows('NO SUCH ST', 1), []);
});

test("a new import version or the importer's placeChanged door reloads the index; a stale version is never loaded", async () => {
  const before = (await getPlace({ db: t.db }, PLACE))!;
  await warmPlaceIndex(ctx, before);
  const first = await placeSource(ctx, before);
  assert.equal(first.kind, 'memory');
  assert.equal(await placeSource(ctx, before), first, 'the same version reuses the index');

  // a record older than the database (another instance imported meanwhile): not loaded, SQL answers
  const row = (
    await t.db.query<{ street_key: string; number: number; row_no: number }>(
      `SELECT street_key, number, row_no FROM addresses WHERE place_id = $1 AND row_no = 100`,
      [PLACE],
    )
  )[0]!;
  await t.db.query(`UPDATE addresses SET full_address = 'CHANGED BY TEST' WHERE place_id = $1 AND row_no = $2`, [PLACE, row.row_no]);
  await t.db.query(`UPDATE places SET imported_at = imported_at + interval '1 second' WHERE place_id = $1`, [PLACE]);
  assert.equal(await PlaceIndex.load(t.db, PLACE, before.importedAt!), null);

  // the new version (what the catalogue gives once it refreshes) loads the changed rows
  const now = (await t.db.query<{ imported_at: Date }>(`SELECT imported_at FROM places WHERE place_id = $1`, [PLACE]))[0]!.imported_at;
  const nextVersion = { ...before, importedAt: new Date(now).toISOString() };
  assert.equal((await placeSource(ctx, nextVersion)).kind, 'sql', 'read through SQL while the new version loads');
  await warmPlaceIndex(ctx, nextVersion);
  const next = await placeSource(ctx, nextVersion);
  assert.equal(next.kind, 'memory');
  assert.notEqual(next, first);
  const changed = (await next.addressRows(row.street_key, row.number)).find((r) => r.row_no === row.row_no);
  assert.equal(changed?.full_address, 'CHANGED BY TEST');

  // the importer's one invalidation (the context's placeChanged door): reloaded on the next read even for the same version
  ctx.caches.placeChanged(PLACE);
  assert.equal((await placeSource(ctx, nextVersion)).kind, 'sql', 'forgotten: read through SQL while it reloads');
  await warmPlaceIndex(ctx, nextVersion);
  const again = await placeSource(ctx, nextVersion);
  assert.equal(again.kind, 'memory');
  assert.notEqual(again, next);
});
