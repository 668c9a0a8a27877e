// Where a snapshot's time goes, in process on the cached Cambridge test template (PGlite; PostgreSQL
// with DATABASE_URL set to an admin URL): timed loops over 2,000 distinct addresses for
// getFeasibilitySnapshot and previewSiteCoverage, with the place's hot index and through SQL alone
// (SITELINE_HOT_INDEX off), and the database's share (every query timed through a wrapper).
// Run with --cpu-prof for a profile.
import { withMailer } from '../src/context.ts';
import { createPlacesDb, SHARED_DATA } from '../test/support/harness.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { systemClock } from '../src/clock.ts';
import type { Db } from '../src/db/database.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { previewSiteCoverage } from '../src/snapshot/preview.ts';
import { timeEach, fmtMs } from './measure.ts';
import { cambridgeAddresses } from './snapshot-compare-addresses.ts';
import { hotIndexOf, warmPlaceIndex } from '../src/geocoder/place-index.ts';
import { getPlace } from '../src/places/catalogue.ts';

const { db: raw, close } = await createPlacesDb(['cambridge-ma']);
let queries = 0;
let queryMs = 0;
const sqlMs = new Map<string, { n: number; ms: number }>();
const db = new Proxy(raw, {
  get(t, k) {
    if (k !== 'query') return Reflect.get(t, k);
    return async (sql: string, params?: unknown[]) => {
      const t0 = performance.now();
      try {
        return await (t as Db).query(sql, params as never);
      } finally {
        const ms = performance.now() - t0;
        queries++;
        queryMs += ms;
        const key = sql.replace(/\s+/g, ' ').slice(0, 70);
        const e = sqlMs.get(key) ?? { n: 0, ms: 0 };
        e.n++;
        e.ms += ms;
        sqlMs.set(key, e);
      }
    };
  },
}) as Db;
const config = loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { sourceDir: SHARED_DATA, autoImport: false });
const ctx = withMailer({ config, db, clock: systemClock, logger: createLogger('silent') });
const addrs = cambridgeAddresses(2400, process.env.PROBE_VARIANTS === '1');
const t0 = performance.now();
const ix = await warmPlaceIndex({ db: raw, caches: ctx.caches }, (await getPlace(ctx, 'US-MA:cambridge'))!);
console.log(
  `${raw.constructor.name}: hot index loaded in ${(performance.now() - t0).toFixed(0)} ms ${JSON.stringify(ix?.loadMs)}, RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`,
);
for (const a of addrs.slice(0, 300)) await getFeasibilitySnapshot(ctx, a);
const measured = addrs.slice(300, 2300);
for (const [name, fn, hot] of [
  ['snapshot, hot index', (a: string) => getFeasibilitySnapshot(ctx, a), true],
  ['preview, hot index', (a: string) => previewSiteCoverage(ctx, a), true],
  ['snapshot, SQL', (a: string) => getFeasibilitySnapshot(ctx, a), false],
  ['preview, SQL', (a: string) => previewSiteCoverage(ctx, a), false],
] as const) {
  hotIndexOf(ctx).setEnabled(hot);
  queries = 0;
  queryMs = 0;
  sqlMs.clear();
  const r = await timeEach(measured, fn);
  console.log(
    `${name}: n ${r.n}  p50 ${fmtMs(r.p50)}  p99 ${fmtMs(r.p99)}  mean ${fmtMs(r.mean)}   queries/call ${(queries / r.n).toFixed(2)}, query ms/call ${(queryMs / r.n).toFixed(3)}`,
  );
  for (const [k, v] of [...sqlMs].sort((a, b) => b[1].ms - a[1].ms).slice(0, 6)) console.log(`    ${(v.ms / r.n).toFixed(3)} ms/call  ${v.n}x  ${k}`);
}
const sel = await timeEach(measured, () => raw.query('SELECT 1'));
console.log(`SELECT 1: p50 ${fmtMs(sel.p50)}`);
await close(); // on PostgreSQL this drops the cloned database
