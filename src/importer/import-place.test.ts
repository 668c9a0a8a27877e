// importer idempotence, checksums and the report, on real source files (Paradise: OZFS zoning and
// parcels, small enough to import in a test) against the test database (PGlite, or PostgreSQL with DATABASE_URL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDb, testCtx, SHARED_DATA, ROOT } from '../../test/support/harness.ts';
import { importPlace } from './import-place.ts';
import { loadAllManifests, PLACES_DIR } from '../places/manifest.ts';
import { formatImportReport } from './import-report.ts';
import { SitelineError } from '../core/errors.ts';
import { getPlaceBySlug, findPlaceByPoint } from '../places/catalogue.ts';
import type { Db } from '../db/database.ts';

/** A fingerprint of every row the place owns (and, unless rowsOnly, its import time), to prove a re-run rewrote nothing. */
async function fingerprint(db: Db, placeId: string, rowsOnly = false): Promise<string> {
  const parts: string[] = [];
  for (const [table, order] of [
    ['parcels', 'parcel_ext_id'],
    ['zones', 'zone_id'],
    ['addresses', 'row_no'],
    ['street_segments', 'segment_id'],
  ] as const) {
    const r = await db.query<{ h: string | null; n: number }>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY ${order})) AS h, count(*)::int AS n FROM ${table} t WHERE place_id = $1`,
      [placeId],
    );
    parts.push(`${table}:${r[0]?.n}:${r[0]?.h}`);
  }
  if (rowsOnly) return parts.join('\n');
  const p = await db.query<{ imported_at: unknown }>('SELECT imported_at::text AS imported_at FROM places WHERE place_id = $1', [placeId]);
  parts.push(String(p[0]?.imported_at));
  return parts.join('\n');
}

test('importer idempotence: a second import of the same sources changes nothing', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    const progress: string[] = [];
    const first = await importPlace(ctx, 'paradise-tx', { sourceDir: SHARED_DATA, quiet: true, onProgress: (m) => progress.push(m) });
    assert.equal(first.changed, true);
    assert.equal(first.placeId, 'US-TX:paradise');
    assert.ok(
      progress.some((m) => /files verified/.test(m)),
      'progress reported',
    );
    // SOURCES.md: 7 districts, 421 parcels (centroid + labelled edges), 2,382 features.
    assert.equal(first.counts.baseZones, 7);
    assert.equal(first.counts.parcels, 421);
    assert.equal(first.counts.addresses, 0);
    const parcels = first.sources.find((s) => s.id === 'parcels')!;
    assert.equal(parcels.rowsRead, 2382);
    assert.equal(parcels.rowsRejected, 0);
    assert.equal(first.joinRates.addressToParcel.rate, null, 'no addresses: no rate, not 0 %');
    assert.ok(first.joinRates.parcelToZone.matched >= 415, `parcel -> zone ${first.joinRates.parcelToZone.matched}`);
    assert.match(formatImportReport(first), /parcel -> zone/);
    // The import gathers the planner's statistics on what it loaded (PGlite has no autovacuum to do it):
    // without them a lookup by place and box scanned the place's whole key range. What it loaded is
    // the place's new partitions (src/db/place-partitions.ts), swapped in.
    const [{ part }] = (await t.db.query<{ part: number }>(`SELECT part FROM place_partitions WHERE place_id = 'US-TX:paradise'`)) as [{ part: number }];
    const analysed = await t.db.query<{ tablename: string }>(
      `SELECT DISTINCT tablename::text FROM pg_stats WHERE schemaname = 'public' AND attname = 'place_id' AND tablename IN ($1, $2) ORDER BY 1`,
      [`parcels_p${part}`, `zones_p${part}`],
    );
    assert.deepEqual(
      analysed.map((r) => r.tablename),
      [`parcels_p${part}`, `zones_p${part}`],
      'the loaded partitions have statistics',
    );
    assert.equal(Number((await t.db.query<{ n: number }>('SELECT count(*) AS n FROM parcels_default'))[0]!.n), 0, 'no row in the default partition');
    assert.ok(typeof first.timings['analyze'] === 'number', 'the report times the statistics step');

    const before = await fingerprint(t.db, 'US-TX:paradise');
    const rowsBefore = await fingerprint(t.db, 'US-TX:paradise', true);
    const second = await importPlace(ctx, 'paradise-tx', { sourceDir: SHARED_DATA, quiet: true });
    assert.equal(second.changed, false);
    assert.equal(second.sourceDigest, first.sourceDigest);
    assert.deepEqual(second.counts, first.counts);
    assert.equal(await fingerprint(t.db, 'US-TX:paradise'), before);
    const runs = await t.db.query<{ changed: boolean }>('SELECT changed FROM import_runs WHERE place_id = $1 ORDER BY run_id', ['US-TX:paradise']);
    assert.deepEqual(
      runs.map((r) => r.changed),
      [true, false],
    );

    // --force rewrites the rows and lands on the same content.
    const forced = await importPlace(ctx, 'paradise-tx', { sourceDir: SHARED_DATA, quiet: true, force: true });
    assert.equal(forced.changed, true);
    assert.deepEqual(forced.counts, first.counts);
    assert.equal(await fingerprint(t.db, 'US-TX:paradise', true), rowsBefore, 'a forced re-import writes exactly the same rows');

    // The whole catalogue is there, not only the imported place.
    const ids = (await t.db.query<{ place_id: string }>('SELECT place_id FROM places ORDER BY place_id')).map((r) => r.place_id);
    assert.deepEqual(
      ids,
      loadAllManifests(PLACES_DIR)
        .map((m) => m.geoDivisionId)
        .sort(),
    );
    assert.ok(ids.includes('US-MA:cambridge') && ids.includes('CA-BC:saanich'));
    // The catalogue reflects the import; the place is found by a point inside its zoning.
    const place = await getPlaceBySlug(ctx, 'paradise-tx');
    assert.equal(place?.status, 'planned_not_live');
    assert.ok(place?.importedAt);
    assert.equal(place?.layers.find((l) => l.layer === 'parcels')?.features, 2382);
    const lot = await t.db.query<{ inside_lon: number; inside_lat: number }>('SELECT inside_lon, inside_lat FROM parcels WHERE place_id = $1 LIMIT 1', [
      'US-TX:paradise',
    ]);
    const found = await findPlaceByPoint(ctx, lot[0]!.inside_lon, lot[0]!.inside_lat);
    assert.equal(found?.geoDivisionId, 'US-TX:paradise');
    assert.equal(await findPlaceByPoint(ctx, -90, 30), null);
  } finally {
    await t.close();
  }
});

test('importer: a file whose checksum does not match is refused and the loaded place is kept', async () => {
  const t = await createTestDb();
  const tmp = fs.mkdtempSync(path.join(ROOT, '.siteline-test-src-'));
  try {
    const ctx = testCtx(t.db);
    await importPlace(ctx, 'paradise-tx', { sourceDir: SHARED_DATA, quiet: true });
    const before = await fingerprint(t.db, 'US-TX:paradise');
    // A copy of the Paradise folder with one byte changed in the zoning file.
    const src = path.join(SHARED_DATA, 'paradise-tx-ozfs');
    const dst = path.join(tmp, 'paradise-tx-ozfs');
    fs.mkdirSync(dst);
    for (const f of fs.readdirSync(src)) fs.copyFileSync(path.join(src, f), path.join(dst, f));
    fs.appendFileSync(path.join(dst, 'Paradise.zoning'), '\n');
    await assert.rejects(
      importPlace(ctx, 'paradise-tx', { sourceDir: tmp, quiet: true }),
      (err: unknown) => err instanceof SitelineError && err.code === 'bad_input' && /checksum mismatch: Paradise\.zoning/.test(err.message),
    );
    fs.rmSync(path.join(dst, 'Paradise.parcel'));
    await assert.rejects(importPlace(ctx, 'paradise-tx', { sourceDir: tmp, quiet: true }), /missing: Paradise\.parcel/);
    assert.equal(await fingerprint(t.db, 'US-TX:paradise'), before, 'nothing lost');
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    await t.close();
  }
});

test('importer: a broken field mapping (every row rejected) is refused and the loaded place is kept', async () => {
  const t = await createTestDb();
  const places = fs.mkdtempSync(path.join(ROOT, '.siteline-test-places-'));
  try {
    const ctx = testCtx(t.db);
    await importPlace(ctx, 'paradise-tx', { sourceDir: SHARED_DATA, quiet: true });
    const before = await fingerprint(t.db, 'US-TX:paradise');
    // The same place with the district code mapped to a field that does not exist.
    fs.cpSync(path.join(ROOT, 'places/paradise-tx'), path.join(places, 'paradise-tx'), { recursive: true });
    const manifestFile = path.join(places, 'paradise-tx/manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    manifest.sources.find((s: { id: string }) => s.id === 'zoning').load.code.field = 'no_such_field';
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    await assert.rejects(
      importPlace(ctx, 'paradise-tx', { sourceDir: SHARED_DATA, placesDir: places, quiet: true }),
      (err: unknown) =>
        err instanceof SitelineError &&
        err.code === 'bad_input' &&
        /refusing to import:\n {2}- zoning \([^)]+\): 7 rows read, none usable.*\[governed by sources\[zoning\]\.load = .*no_such_field/.test(err.message),
    );
    assert.equal(await fingerprint(t.db, 'US-TX:paradise'), before, 'nothing lost');
  } finally {
    fs.rmSync(places, { recursive: true, force: true });
    await t.close();
  }
});

test('importer: an unknown place or a missing source directory is a clear error', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    await assert.rejects(
      importPlace(ctx, 'atlantis-xx', { sourceDir: SHARED_DATA, quiet: true }),
      (err: unknown) => err instanceof SitelineError && err.code === 'not_found' && /Known places: .*cambridge-ma/.test(err.message),
    );
    await assert.rejects(importPlace(ctx, '../etc', { sourceDir: SHARED_DATA, quiet: true }), /not a place slug/);
    await assert.rejects(importPlace(ctx, 'paradise-tx', { sourceDir: '/nonexistent/siteline', quiet: true }), /does not exist/);
  } finally {
    await t.close();
  }
});

test('importer: Saanich (shapefile, EPSG:3157) loads every coded district and is found by a point inside it', async () => {
  const t = await createTestDb();
  try {
    const ctx = testCtx(t.db);
    const r = await importPlace(ctx, 'saanich-bc', { sourceDir: SHARED_DATA, quiet: true });
    assert.equal(r.counts.baseZones, 1812);
    const zoning = r.sources[0]!;
    assert.equal(zoning.rowsRead, 1813);
    assert.deepEqual(
      zoning.rejects.map((x) => [x.reason, x.count]),
      [['no district code in TYPE', 1]],
    );
    const z = await t.db.query<{ attrs: { bylawUrl?: string } }>(`SELECT attrs FROM zones WHERE place_id = $1 AND code = 'RS-6' LIMIT 1`, ['CA-BC:saanich']);
    assert.match(z[0]!.attrs.bylawUrl ?? '', /zone8200\.pdf#page=\d+/);
    const place = await findPlaceByPoint(ctx, -123.37, 48.48);
    assert.equal(place?.geoDivisionId, 'CA-BC:saanich');
  } finally {
    await t.close();
  }
});
