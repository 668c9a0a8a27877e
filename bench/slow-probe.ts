// The slowest in-process snapshots over the bench's Cambridge sample (hot index on), with the queries
// each made: where the p99 comes from. Run: node --import tsx --expose-gc bench/slow-probe.ts
import { withMailer } from '../src/context.ts';
import fs from 'node:fs';
import path from 'node:path';
import { createPlacesDb, SHARED_DATA } from '../test/support/harness.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { systemClock } from '../src/clock.ts';
import type { Db } from '../src/db/database.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { warmPlaceIndex } from '../src/geocoder/place-index.ts';
import { getPlace } from '../src/places/catalogue.ts';
import { PerformanceObserver } from 'node:perf_hooks';

// Garbage collections (start and duration, performance.now() clock), to tell GC pauses from our own time.
const gcs: { start: number; ms: number; kind: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push({ start: e.startTime, ms: e.duration, kind: (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0 });
}).observe({ entryTypes: ['gc'] });

const { db: raw, close } = await createPlacesDb(['cambridge-ma']);
let current: string[] = [];
const db = new Proxy(raw, {
  get(t, k) {
    if (k !== 'query') return Reflect.get(t, k);
    return async (sql: string, params?: unknown[]) => {
      current.push(sql.replace(/\s+/g, ' ').slice(0, 90));
      return (t as Db).query(sql, params as never);
    };
  },
}) as Db;
const config = loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { sourceDir: SHARED_DATA, autoImport: false });
const ctx = withMailer({ config, db, clock: systemClock, logger: createLogger('silent') });
const text = fs
  .readFileSync(path.join(SHARED_DATA, 'cambridge-ma/Address/Address_Points/Master_Address_Database_with_MapLot_and_BldgID.csv'), 'utf8')
  .replace(/^\uFEFF/, '');
const rows = text.split('\n').filter(Boolean);
const step = Math.max(1, Math.floor(rows.length / 2000));
const sample: string[] = [];
for (let i = 0; i < rows.length && sample.length < 2000; i += step) {
  const full = rows[i]!.split(',')[6];
  if (full) sample.push(`${full.replace(/^"|"$/g, '')}, Cambridge, MA`);
}
await warmPlaceIndex({ db: raw, caches: ctx.caches }, (await getPlace(ctx, 'US-MA:cambridge'))!);
for (const a of sample.slice(0, 200)) await getFeasibilitySnapshot(ctx, a);
for (let round = 0; round < 2; round++) {
  const rec: { a: string; ms: number; answered: boolean; q: string[]; at: number }[] = [];
  gcs.length = 0;
  for (const a of sample) {
    current = [];
    const at = performance.now();
    const r = await getFeasibilitySnapshot(ctx, a);
    rec.push({ a, ms: performance.now() - at, answered: r.answered, q: current, at });
  }
  await new Promise((r) => setTimeout(r, 50)); // let the observer deliver
  const gcIn = (r: { at: number; ms: number }) => gcs.filter((g) => g.start < r.at + r.ms && g.start + g.ms > r.at);
  const sorted = [...rec].sort((x, y) => x.ms - y.ms);
  const pct = (p: number) => sorted[Math.ceil((p / 100) * sorted.length) - 1]!.ms.toFixed(3);
  const total = rec.reduce((s, r) => s + r.ms, 0);
  console.log(
    `round ${round}: p50 ${pct(50)} p90 ${pct(90)} p99 ${pct(99)} mean ${(total / rec.length).toFixed(3)}; with queries: ${rec.filter((r) => r.q.length).length}, unanswered: ${rec.filter((r) => !r.answered).length}`,
  );
  const slow = sorted.slice(-25).reverse();
  const slowTotal = sorted.slice(-40).reduce((s, r) => s + r.ms, 0);
  console.log(
    `  slowest 40 take ${((100 * slowTotal) / total).toFixed(0)} % of the time; ${gcs.length} GCs in the loop (${gcs.reduce((x, g) => x + g.ms, 0).toFixed(1)} ms); of the 20 slowest calls ${sorted.slice(-20).filter((r) => gcIn(r).length).length} hold a GC`,
  );
  for (const r of slow)
    console.log(
      `  ${r.ms.toFixed(2).padStart(7)} ms ${r.answered ? 'A' : '-'} ${r.a}  ${r.q.length} q ${r.q.slice(0, 2).join(' | ')}${gcIn(r)
        .map((g) => ` [GC kind ${g.kind} ${g.ms.toFixed(1)} ms]`)
        .join('')}`,
    );
}
await close();
