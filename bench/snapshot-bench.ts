// One benchmark scenario per process, so that peak RSS belongs to that scenario alone.
//   init <dir>                 creates and migrates a PGlite data directory (PGlite's one-time initdb
//                              peaks near 900 MB RSS, so it runs in its own process, as on first start)
//   cambridge <dir>            snapshot latency over real Cambridge addresses
//   synthetic <dir> <N>        a synthetic N-parcel city: import time, snapshot latency, peak RSS, and a raw COPY of the same rows
//   synthetic-pg <url> <N>     the same import on PostgreSQL (a database created on that server), against a raw COPY
// Prints one JSON object on stdout.
import { withMailer } from '../src/context.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/logger.ts';
import { systemClock } from '../src/clock.ts';
import type { AppContext } from '../src/context.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { previewSiteCoverage } from '../src/snapshot/preview.ts';
import { getPlace } from '../src/places/catalogue.ts';
import { hotIndexOf, warmPlaceIndex } from '../src/geocoder/place-index.ts';
import { peakRssMb, timeEach } from './measure.ts';
import { rawCopyBaseline } from './raw-copy.ts';
import { jsonShape } from './json-shape.ts';
import { compareBoxIndexBuilds } from './gist-build.ts';

const SHARED = path.resolve(import.meta.dirname, '../../shared/data');

async function freshCtx(dir: string, placesDir?: string): Promise<{ ctx: AppContext; dir: string }> {
  const db = await openDatabase({ pgliteDir: path.join(dir, 'pgdata') });
  await migrate(db);
  const config = loadConfig(
    { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    { sourceDir: SHARED, dataDir: dir, autoImport: false, ...(placesDir ? { placesDir } : {}) },
  );
  return { ctx: withMailer({ config, db, clock: systemClock, logger: createLogger('silent') }), dir };
}

/** Every n-th address of the Cambridge address table, as a person would type it. */
function cambridgeSample(n: number, offset = 0): string[] {
  const text = fs
    .readFileSync(path.join(SHARED, 'cambridge-ma/Address/Address_Points/Master_Address_Database_with_MapLot_and_BldgID.csv'), 'utf8')
    .replace(/^\uFEFF/, '');
  const rows = text.split('\n').filter(Boolean);
  const step = Math.max(1, Math.floor(rows.length / n));
  const out: string[] = [];
  for (let i = offset; i < rows.length && out.length < n; i += step) {
    const full = rows[i]!.split(',')[6];
    if (full) out.push(`${full.replace(/^"|"$/g, '')}, Cambridge, MA`);
  }
  return out;
}

/**
 * The lookup path after an import: the place's hot index loaded (timed, with the RSS it leaves), the
 * snapshot and the coverage preview through it, and the snapshot through SQL alone (the index off) as
 * the in-run baseline.
 */
async function lookups(ctx: AppContext, placeId: string, sample: string[], warmUp: string[]) {
  const place = await getPlace(ctx, placeId);
  const before = memoryMb();
  const t0 = performance.now();
  const ix = await warmPlaceIndex(ctx, place!);
  const index = {
    loadMs: performance.now() - t0,
    ...(ix?.counts ?? {}),
    rssAfterMb: process.memoryUsage().rss / 2 ** 20,
    memoryBefore: before,
    memoryAfter: memoryMb(),
    loadPartsMs: ix?.loadMs,
  };
  let answered = 0;
  // Warm-up over other addresses than the measured ones (2,000: JIT tiering and the index load's
  // garbage are past before the measured loop; 200 left the compiler busy inside it under load).
  for (const a of warmUp) await getFeasibilitySnapshot(ctx, a);
  for (const a of warmUp) await previewSiteCoverage(ctx, a);
  const snapshot = await timeEach(sample, async (a) => {
    if ((await getFeasibilitySnapshot(ctx, a)).answered) answered++;
  });
  const preview = await timeEach(sample, (a) => previewSiteCoverage(ctx, a));
  // The answers again, kept this time (not in the timed loop; garbage before the SQL loop below).
  const json = jsonShape(await answersOf(ctx, sample));
  const loadAvg = os.loadavg()[0]!; // the machine's load over the measured loops
  hotIndexOf(ctx).setEnabled(false);
  const sqlSnapshot = await timeEach(sample, (a) => getFeasibilitySnapshot(ctx, a));
  hotIndexOf(ctx).setEnabled(true);
  return { answered, snapshot, preview, sqlSnapshot, index, loadAvg, json };
}

/** The snapshots of `sample`, one at a time. */
async function answersOf(ctx: AppContext, sample: string[]) {
  const out = [];
  for (const a of sample) out.push(await getFeasibilitySnapshot(ctx, a));
  return out;
}

/** The process's memory by kind (MB): V8 heap in use, external (PGlite's WebAssembly memory among it), RSS. */
function memoryMb(): Record<string, number> {
  const m = process.memoryUsage();
  const mb = (x: number) => Math.round(x / 2 ** 20);
  return { rss: mb(m.rss), heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) };
}

async function baselineSelect1(ctx: AppContext, n: number) {
  return timeEach(
    Array.from({ length: n }, (_, i) => i),
    () => ctx.db.query('SELECT 1'),
  );
}

async function init(dir: string) {
  const db = await openDatabase({ pgliteDir: path.join(dir, 'pgdata') });
  await migrate(db);
  await db.close();
  return { scenario: 'init', peakRssMb: peakRssMb() };
}

async function cambridge(dir0: string) {
  const { ctx, dir } = await freshCtx(dir0);
  const { importPlace } = await import('../src/importer/import-place.ts');
  const t0 = performance.now();
  await importPlace(ctx, 'cambridge-ma', { sourceDir: SHARED, quiet: true });
  const importMs = performance.now() - t0;
  const sample = cambridgeSample(2000);
  const l = await lookups(ctx, 'US-MA:cambridge', sample, cambridgeSample(2000, 5));
  const base = await baselineSelect1(ctx, 2000);
  fs.rmSync(dir, { recursive: true, force: true });
  return { scenario: 'cambridge', importMs, addresses: sample.length, ...l, select1: base, peakRssMb: peakRssMb() };
}

async function synthetic(dir0: string, n: number) {
  const { writeSyntheticPlacesDir, loadSyntheticCity, sampleSyntheticAddresses, SYNTHETIC_PLACE_ID } = await import('./synthetic-city.ts');
  const placesDir = writeSyntheticPlacesDir(fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-bench-places-')));
  const { ctx } = await freshCtx(dir0, placesDir);
  await ctx.db.query('CHECKPOINT'); // each timed load starts with nothing left to write (see syntheticPg)
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const counts = await loadSyntheticCity(ctx.db, n, (m) => process.stderr.write(`  synthetic: ${m}\n`));
  const importMs = performance.now() - t0;
  // the process's CPU (every thread: the importer's worker too): on a loaded machine wall time swings, this does not
  const cpu = process.cpuUsage(cpu0);
  const importCpuMs = (cpu.user + cpu.system) / 1000;
  const importPeakRssMb = peakRssMb();
  process.stderr.write(`  synthetic: imported, memory ${JSON.stringify(memoryMb())}\n`);
  const both = sampleSyntheticAddresses(n, 4000);
  const sample = both.slice(0, 2000);
  const l = await lookups(ctx, SYNTHETIC_PLACE_ID, sample, both.slice(2000));
  const base = await baselineSelect1(ctx, 2000);
  const scenarioPeakRssMb = peakRssMb(); // before the yardstick below, which holds the rows' text in memory
  const boxIndex = await compareBoxIndexBuilds(ctx.db, SYNTHETIC_PLACE_ID);
  // The yardstick: a raw COPY of the same rows into bare tables of the same database (bench/raw-copy.ts).
  await ctx.db.query('CHECKPOINT');
  const rawCopy = await rawCopyBaseline(ctx.db, SYNTHETIC_PLACE_ID);
  process.stderr.write(
    `  synthetic: raw COPY of the same rows ${(rawCopy.ms / 1000).toFixed(1)} s, CPU ${(rawCopy.cpuMs / 1000).toFixed(1)} s (${JSON.stringify(rawCopy.rows)})\n`,
  );
  await ctx.db.query('CHECKPOINT');
  const rawCopyIndexed = await rawCopyBaseline(ctx.db, SYNTHETIC_PLACE_ID, { indexed: true });
  process.stderr.write(`  synthetic: raw COPY of the same rows with the tables' indexes ${(rawCopyIndexed.ms / 1000).toFixed(1)} s\n`);
  await ctx.db.close();
  fs.rmSync(placesDir, { recursive: true, force: true });
  return {
    scenario: 'synthetic',
    parcels: counts.parcels,
    phases: counts.phases,
    importMs,
    importCpuMs,
    rawCopy,
    rawCopyIndexed,
    boxIndex,
    addresses: sample.length,
    ...l,
    select1: base,
    importPeakRssMb,
    peakRssMb: scenarioPeakRssMb,
  };
}

/**
 * The synthetic import on PostgreSQL (a database created for the run and dropped after), against a raw
 * COPY of the same rows into the same database: `synthetic-pg <admin url> <N>`.
 */
async function syntheticPg(adminUrl: string, n: number) {
  const { loadSyntheticCity, SYNTHETIC_PLACE_ID } = await import('./synthetic-city.ts');
  const pg = (await import('pg')).default;
  const name = `siteline_bench_import_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    const db = await openDatabase({ databaseUrl: url.toString() });
    try {
      await migrate(db);
      // Each timed load starts with the server's dirty pages written out (CHECKPOINT), so neither
      // pays for a checkpoint the one before it started (the import writes over a GB of WAL).
      await db.query('CHECKPOINT');
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const counts = await loadSyntheticCity(db, n, (m) => process.stderr.write(`  synthetic (PostgreSQL): ${m}\n`));
      const importMs = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const importPeakRssMb = peakRssMb();
      await db.query('CHECKPOINT');
      const rawCopy = await rawCopyBaseline(db, SYNTHETIC_PLACE_ID);
      await db.query('CHECKPOINT');
      const rawCopyIndexed = await rawCopyBaseline(db, SYNTHETIC_PLACE_ID, { indexed: true });
      const boxIndex = await compareBoxIndexBuilds(db, SYNTHETIC_PLACE_ID);
      process.stderr.write(
        `  synthetic (PostgreSQL): import ${(importMs / 1000).toFixed(1)} s, raw COPY of the same rows ${(rawCopy.ms / 1000).toFixed(1)} s (bare tables), ${(rawCopyIndexed.ms / 1000).toFixed(1)} s (with the tables' indexes)\n`,
      );
      return {
        scenario: 'synthetic-pg',
        parcels: counts.parcels,
        phases: counts.phases,
        importMs,
        importCpuMs: (cpu.user + cpu.system) / 1000,
        rawCopy,
        rawCopyIndexed,
        boxIndex,
        importPeakRssMb,
        peakRssMb: peakRssMb(),
      };
    } finally {
      await db.close();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

const [which, dir, arg] = process.argv.slice(2);
if (!dir) throw new Error('usage: snapshot-bench.ts init|cambridge|synthetic <dir> [parcels]');
const result =
  which === 'init'
    ? await init(dir)
    : which === 'synthetic'
      ? await synthetic(dir, Number(arg ?? 1_000_000))
      : which === 'synthetic-pg'
        ? await syntheticPg(dir, Number(arg ?? 1_000_000))
        : await cambridge(dir);
process.stdout.write(JSON.stringify(result) + '\n');
