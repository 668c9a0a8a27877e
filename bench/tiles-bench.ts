// Vector tile cost over real Cambridge data (PGlite on disk, in a child process of its own):
// p50 per tile cold (built from the database: rows by bbox, cut, encoded, gzipped) and cached (the
// LRU hit, which still reads the places the tile touches to key the cache), every tile covering
// Cambridge at z14, z15 and z16, against SELECT 1 measured in the same run.
//   node --import tsx bench/tiles-bench.ts measure <dir>   prints one JSON object
import { withMailer } from '../src/context.ts';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmtMs, peakRssMb, timeEach } from './measure.ts';

const SHARED = path.resolve(import.meta.dirname, '../../shared/data');
const CAMBRIDGE_BBOX = [-71.1604, 42.3525, -71.064, 42.4038] as const;

async function measure(dir: string) {
  const { loadConfig } = await import('../src/config.ts');
  const { openDatabase } = await import('../src/db/database.ts');
  const { migrate } = await import('../src/db/migrate.ts');
  const { createLogger } = await import('../src/logger.ts');
  const { systemClock } = await import('../src/clock.ts');
  const { importPlace } = await import('../src/importer/import-place.ts');
  const { cachedTile } = await import('../src/maps/tiles.ts');
  const { tileAt } = await import('../src/maps/tile-math.ts');
  const db = await openDatabase({ pgliteDir: path.join(dir, 'pgdata') });
  await migrate(db);
  const config = loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { sourceDir: SHARED, dataDir: dir, autoImport: false });
  const ctx = withMailer({ config, db, clock: systemClock, logger: createLogger('silent') });
  await importPlace(ctx, 'cambridge-ma', { sourceDir: SHARED, quiet: true });
  const tiles: { z: number; x: number; y: number }[] = [];
  for (const z of [14, 15, 16]) {
    const a = tileAt(CAMBRIDGE_BBOX[0], CAMBRIDGE_BBOX[3], z);
    const b = tileAt(CAMBRIDGE_BBOX[2], CAMBRIDGE_BBOX[1], z);
    for (let x = a.x; x <= b.x; x++) for (let y = a.y; y <= b.y; y++) tiles.push({ z, x, y });
  }
  await db.query('SELECT 1');
  let bytes = 0;
  const cold = await timeEach(tiles, async (t) => {
    bytes += (await cachedTile(ctx, t)).gzipped.length;
  });
  const cached = await timeEach(tiles, (t) => cachedTile(ctx, t));
  const select1 = await timeEach(
    Array.from({ length: 2000 }, (_, i) => i),
    () => db.query('SELECT 1'),
  );
  await db.close();
  return { tiles: tiles.length, meanKb: bytes / tiles.length / 1024, cold, cached, select1, peakRssMb: peakRssMb() };
}

/** The lines bench/run.ts prints. */
export function runTilesBench(): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-tiles-bench-'));
  try {
    const r = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, 'measure', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 * 1024 * 1024,
    });
    if (r.status !== 0) throw new Error(`tiles bench failed (exit ${r.status})`);
    const m = JSON.parse(r.stdout.trim().split('\n').pop()!);
    return [
      `Vector tiles, Cambridge z14-z16 (${m.tiles} tiles, mean ${m.meanKb.toFixed(1)} KB gzipped), PGlite on disk`,
      `  cold p50 ${fmtMs(m.cold.p50)} p99 ${fmtMs(m.cold.p99)}  cached p50 ${fmtMs(m.cached.p50)} p99 ${fmtMs(m.cached.p99)}`,
      `  baseline SELECT 1 p50 ${fmtMs(m.select1.p50)}: cold tile = ${(m.cold.p50 / m.select1.p50).toFixed(1)}x, cached tile = ${(m.cached.p50 / m.select1.p50).toFixed(1)}x one empty query`,
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'measure') console.log(JSON.stringify(await measure(process.argv[3]!)));
