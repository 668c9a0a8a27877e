// Two instances starting together on a fresh PostgreSQL database both sync the place catalogue
// (src/importer/default-places.ts). `INSERT … ON CONFLICT (place_id)` only arbitrates on place_id: when
// both inserted the same new row at once, the slug's unique index refused the second (SQLSTATE 23505)
// and that instance failed to start (CI's rolling restart, 2026-12-06). The sync now runs under one
// advisory lock. Here: one pooled database, the catalogue emptied and synced twice at once, 25 rounds.
// PostgreSQL only: PGlite runs one statement at a time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createTestDb, ROOT, testCtx } from './support/harness.ts';
import { loadAllManifests } from '../src/places/manifest.ts';
import { syncCatalogue, upsertPlaceFromManifest } from '../src/places/catalogue.ts';

test('the catalogue synced by two starts at once on an empty database: both succeed, one row per manifest', {
  skip: !process.env.DATABASE_URL && 'PostgreSQL only',
}, async () => {
  const t = await createTestDb();
  try {
    const manifests = loadAllManifests(path.join(ROOT, 'places'));
    assert.ok(manifests.length >= 4);
    const one = testCtx(t.db);
    const two = testCtx(t.db);
    for (let round = 0; round < 25; round++) {
      await t.db.query('DELETE FROM places');
      const results = await Promise.allSettled([
        syncCatalogue(one, manifests),
        syncCatalogue(two, manifests),
        // an import's own refresh of one place (src/importer/import-place.ts) at the same moment
        upsertPlaceFromManifest(one, manifests[manifests.length - 1]!),
      ]);
      const failed = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
      assert.deepEqual(failed, [], `round ${round}`);
      const rows = await t.db.query<{ n: string }>('SELECT count(*)::text AS n FROM places');
      assert.equal(Number(rows[0]!.n), manifests.length);
    }
  } finally {
    await t.close();
  }
});
