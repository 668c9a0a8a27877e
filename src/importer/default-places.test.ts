// Every start imports each default place that is missing (a first start that died after Cambridge
// committed) or stale; with no source directory the service still starts, says which directory it
// looked for, and /readyz is 503 naming the live place that is missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createPlacesDb, createTestDb, SHARED_DATA, ROOT, testCtx } from '../../test/support/harness.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startService } from '../service.ts';
import { effectiveStatus, listPlaces } from '../places/catalogue.ts';
import { loadAllManifests, PLACES_DIR } from '../places/manifest.ts';
import { defaultPlaceStates, ensureCatalogue, ensureDefaultPlaces } from './default-places.ts';

function config(sourceDir: string | undefined, dataDir: string, autoImport = true) {
  return loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', sourceDir, autoImport, dataDir });
}

/** A logger whose JSON lines are kept. */
function capturedLogger(): { logger: ReturnType<typeof createLogger>; lines: () => Array<Record<string, any>> } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return {
    logger: createLogger('info', sink),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}

test('a database where only Cambridge was imported: the next start imports the others; a stale place is re-imported; nothing else is', async () => {
  const t = await createPlacesDb(['cambridge-ma']);
  const dataDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test-start-'));
  try {
    const before = await defaultPlaceStates({ db: t.db, config: config(SHARED_DATA, dataDir) });
    assert.deepEqual(
      before.filter((p) => p.loaded).map((p) => p.slug),
      ['cambridge-ma'],
      'as a first start that died after Cambridge left it',
    );
    const cambridgeAt = before.find((p) => p.slug === 'cambridge-ma')!.importedAt;

    const svc = await startService(config(SHARED_DATA, dataDir), { db: t.db, logger: createLogger('silent') });
    try {
      await svc.placesLoaded; // the service listens first, then imports (test/first-answer-while-loading.test.ts)
      const places = await listPlaces(svc.ctx);
      // Every place the manifests declare, imported when it is a default place (derived from the manifests).
      assert.deepEqual(
        places.map((p) => [p.slug, p.status, p.importedAt !== null]).sort(),
        loadAllManifests(PLACES_DIR)
          .map((m) => [m.slug, effectiveStatus(m, m.defaultImport), m.defaultImport])
          .sort(),
      );
      const status = new Map(places.map((p) => [p.slug, p.status]));
      assert.deepEqual(
        ['cambridge-ma', 'chicago-il', 'paradise-tx', 'saanich-bc'].map((s) => status.get(s)),
        ['live', 'planned_not_live', 'planned_not_live', 'planned_not_live'],
      );
      assert.equal(places.find((p) => p.slug === 'cambridge-ma')!.importedAt, cambridgeAt, 'Cambridge was not imported again');
      const health = await fetch(`${svc.url}/readyz`);
      assert.equal(health.status, 200);
      const body = (await health.json()) as { status: string; places: Array<{ slug: string; loaded: boolean; stale: boolean }> };
      assert.equal(body.status, 'ok');
      assert.ok(
        body.places.every((p) => p.loaded && !p.stale),
        JSON.stringify(body.places),
      );

      // Nothing missing or stale: nothing is imported.
      assert.deepEqual(await ensureDefaultPlaces(svc.ctx), []);
      // An import from another manifest or importer version is stale: that place alone is imported again.
      await svc.ctx.db.query(
        `UPDATE places SET import_report = jsonb_set(import_report, '{sourceDigest}', '"from-an-older-manifest"') WHERE slug = 'paradise-tx'`,
      );
      assert.deepEqual(
        (await defaultPlaceStates(svc.ctx)).filter((p) => p.stale).map((p) => p.slug),
        ['paradise-tx'],
      );
      const again = await ensureDefaultPlaces(svc.ctx);
      assert.deepEqual(
        again.map((r) => [r.slug, r.changed]),
        [['paradise-tx', true]],
      );
      assert.deepEqual(
        (await defaultPlaceStates(svc.ctx)).filter((p) => p.stale || !p.loaded),
        [],
      );
    } finally {
      await svc.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await t.close();
  }
});

test('start without source data: a warning names the directory, Cambridge is live_unavailable, /readyz is 503 naming it', async () => {
  const t = await createTestDb();
  const dataDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test-start-'));
  const missingDir = path.join(dataDir, 'no-such-dir');
  const log = capturedLogger();
  try {
    const svc = await startService(config(missingDir, dataDir), { db: t.db, logger: log.logger });
    try {
      await svc.placesLoaded;
      const places = await listPlaces(svc.ctx);
      assert.equal(places.length, loadAllManifests(PLACES_DIR).length);
      assert.equal(places.find((p) => p.slug === 'cambridge-ma')?.status, 'live_unavailable');
      assert.ok(places.every((p) => p.importedAt === null));

      const warn = log.lines().find((l) => l.level === 40 && String(l.msg).includes(missingDir));
      assert.ok(warn, `a warning names ${missingDir}: ${JSON.stringify(log.lines().map((l) => l.msg))}`);
      assert.match(warn.msg, /siteline data import .* --from DIR/);
      assert.match(warn.msg, /SITELINE_SOURCE_DIR/);
      assert.ok(warn.missing.includes('cambridge-ma'));

      const health = await fetch(`${svc.url}/readyz`);
      assert.equal(health.status, 503);
      const body = (await health.json()) as {
        status: string;
        missing: string[];
        message: string;
        places: Array<{ slug: string; status: string; loaded: boolean }>;
      };
      assert.equal(body.status, 'unavailable');
      // The live default places (derived from the manifests); the planned ones never make it unhealthy.
      const liveDefaults = loadAllManifests(PLACES_DIR)
        .filter((m) => m.status === 'live' && m.defaultImport)
        .map((m) => m.slug);
      assert.deepEqual(body.missing, liveDefaults, 'only the live places make it unhealthy');
      assert.ok(liveDefaults.includes('cambridge-ma'));
      for (const slug of liveDefaults) assert.match(body.message, new RegExp(`Live place .*${slug}`));
      assert.match(body.message, liveDefaults.length === 1 ? /siteline data import cambridge-ma --from DIR/ : /siteline data import <place> --from DIR/);
      assert.deepEqual(
        body.places.find((p) => p.slug === 'cambridge-ma'),
        { slug: 'cambridge-ma', status: 'live_unavailable', ready: false, loading: null, loaded: false, stale: false, importedAt: null },
      );

      // What a user asking about an address there is told: what to run, not "try again later".
      const { getFeasibilitySnapshot } = await import('../snapshot/snapshot.ts');
      const s = await getFeasibilitySnapshot(svc.ctx, '11 Acorn St, Cambridge, MA');
      assert.equal(s.coverage.status, 'live_unavailable');
      assert.match(String(s.coverage.message), /siteline data import cambridge-ma --from DIR/);
      assert.doesNotMatch(String(s.coverage.message), /try again later/i);
    } finally {
      await svc.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await t.close();
  }
});

test('auto-import off: the start still warns which default places are not loaded', async () => {
  const t = await createTestDb();
  const dataDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test-start-'));
  const log = capturedLogger();
  try {
    const svc = await startService(config(SHARED_DATA, dataDir, false), { db: t.db, logger: log.logger });
    await svc.close();
    const warn = log.lines().find((l) => l.level === 40 && Array.isArray(l.missing));
    assert.ok(warn, 'warned');
    assert.deepEqual(
      [...warn.missing].sort(),
      loadAllManifests(PLACES_DIR)
        .filter((m) => m.defaultImport)
        .map((m) => m.slug)
        .sort(),
    );
    assert.ok(warn.missing.includes('cambridge-ma'));
    assert.match(warn.msg, /SITELINE_AUTO_IMPORT=0/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await t.close();
  }
});

test('SITELINE_PLACES_DIR is the set of places: the catalogue and the start-up states hold only its manifests', async () => {
  const t = await createTestDb();
  const placesDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test-places-'));
  try {
    fs.cpSync(path.join(ROOT, 'places', 'paradise-tx'), path.join(placesDir, 'paradise-tx'), { recursive: true });
    const config = loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', SITELINE_PLACES_DIR: placesDir });
    assert.equal(config.placesDir, placesDir);
    const ctx = testCtx(t.db, { placesDir: config.placesDir });
    assert.equal(await ensureCatalogue(ctx), 1);
    assert.deepEqual(
      (await defaultPlaceStates(ctx)).map((p) => p.slug),
      ['paradise-tx'],
    );
    assert.deepEqual(
      (await t.db.query<{ slug: string }>('SELECT slug FROM places')).map((r) => r.slug),
      ['paradise-tx'],
    );
  } finally {
    fs.rmSync(placesDir, { recursive: true, force: true });
    await t.close();
  }
});
