// Real Cambridge (SOURCES.md §1.4): the split-lot and overlay counts of derivePlaceLotFacts stay
// close to the pack's measured figures, on the place as the importer loads it (createPlacesDb).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPlacesDb } from '../../test/support/harness.ts';
import { derivePlaceLotFacts } from './derive-lot-facts.ts';

const LOT_ZONES = `(SELECT p.place_id, p.parcel_ext_id, z->>'layer' AS layer, z->>'code' AS code, z->>'name' AS name, (z->>'share')::float8 AS share, z->'attrs' AS attrs FROM parcels p, json_array_elements(p.zones) z) lz`;

test('Cambridge: split lots, overlays and frontage close to SOURCES.md', async (ctx) => {
  const t = await createPlacesDb(['cambridge-ma']);
  try {
    const [place] = await t.db.query<{ place_id: string }>(`SELECT place_id FROM places WHERE slug = 'cambridge-ma'`);
    assert.ok(place, 'cambridge-ma imported');
    const r = await derivePlaceLotFacts(t.db, place.place_id);
    // SOURCES.md: 13,116 parcel features (13,036 distinct ML); 636 split across >= 2 ZONE_TYPEs each >= 5 %;
    // 1,710 in >= 1 overlay. Lots grouped by ML differ slightly, hence the margins.
    assert.ok(r.parcels >= 12_900 && r.parcels <= 13_200, `parcels ${r.parcels}`);
    assert.ok(Math.abs(r.splitLots - 636) <= 0.1 * 636, `split lots ${r.splitLots} vs 636`);
    // The importer also loads PUD_TYPE tags as overlay districts; SOURCES counts the overlay layer only.
    const [overlay] = await t.db.query<{ n: number }>(
      `SELECT count(DISTINCT parcel_ext_id)::int AS n FROM ${LOT_ZONES}
        WHERE place_id = $1 AND layer = 'overlay' AND (attrs->>'minor') IS NULL
          AND code IN (SELECT code FROM zones WHERE place_id = $1 AND layer = 'overlay' AND (attrs->>'taggedOn') IS NULL)`,
      [place.place_id],
    );
    ctx.diagnostic(`report ${JSON.stringify(r)}; lots in overlay-layer districts ${overlay!.n}`);
    assert.ok(r.parcelsWithOverlay >= overlay!.n);
    assert.ok(Math.abs(overlay!.n - 1710) <= 0.1 * 1710, `lots in overlay-layer districts ${overlay!.n} vs 1,710`);
    assert.ok(r.parcelsWithBaseZone >= 0.99 * r.parcels, `lots with a base district ${r.parcelsWithBaseZone}`);
    assert.ok(r.parcelsWithFrontage >= 0.85 * r.parcels, `lots with frontage ${r.parcelsWithFrontage}`);
    assert.ok(r.cornerLots > 0.05 * r.parcels && r.cornerLots < 0.4 * r.parcels, `corner lots ${r.cornerLots}`);
    assert.equal(r.clipFailures, 0);
    // Every recorded base share is a real fraction and the primary district is the largest.
    const [bad] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${LOT_ZONES} WHERE place_id = $1 AND ((share < 0.05 AND (attrs->>'minor') IS NULL) OR share > 1.000001 OR ((attrs->>'minor') IS NOT NULL AND (attrs->>'areaM2')::float8 * 10.7639 < 999))`,
      [place.place_id],
    );
    assert.equal(bad!.n, 0);
  } finally {
    await t.close();
  }
});
