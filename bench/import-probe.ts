// Where the synthetic city's import goes: time inside each database statement (COPY per table, each
// index build), and the main thread's own CPU and idle time beside the wall clock. The main thread
// runs PGlite, so what is not database time on it is JavaScript (encoding rows, garbage collection).
//   node --import tsx bench/snapshot-bench.ts init DIR        (a migrated PGlite directory, once)
//   node --import tsx bench/import-probe.ts DIR [parcels]     (default 200,000; the bench's is 1,000,000)
// Add --cpu-prof (before --import) for a profile of the main thread. DIR is written to: init it again.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openDatabase, type Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { loadSyntheticCity } from './synthetic-city.ts';

const [dir, parcels] = process.argv.slice(2);
if (!dir) throw new Error('usage: import-probe.ts <migrated PGlite dir> [parcels]');
const db = await openDatabase({ pgliteDir: path.join(dir, 'pgdata') });
await migrate(db);

/** Time inside each statement, by its text (COPY by table). */
const spent = new Map<string, { calls: number; ms: number }>();
function timed<K extends 'query' | 'copyRows'>(target: Db, name: K): void {
  const original = (target[name] as (...a: unknown[]) => Promise<unknown>).bind(target);
  (target as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
    const key = name === 'copyRows' ? `COPY ${String(args[0])}` : String(args[0]).replace(/\s+/g, ' ').slice(0, 70);
    const t0 = performance.now();
    try {
      return await original(...args);
    } finally {
      const e = spent.get(key) ?? { calls: 0, ms: 0 };
      e.calls++;
      e.ms += performance.now() - t0;
      spent.set(key, e);
    }
  };
}
timed(db, 'query');
timed(db, 'copyRows');

/** The main thread's CPU in ms (utime + stime of its own task; clock ticks of 10 ms). */
const mainCpuMs = () => {
  const f = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};

const cpu0 = process.cpuUsage();
const main0 = mainCpuMs();
const elu0 = performance.eventLoopUtilization();
const t0 = performance.now();
const counts = await loadSyntheticCity(db, Number(parcels ?? 200_000));
const wallMs = performance.now() - t0;
const elu = performance.eventLoopUtilization(elu0);
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    parcels: counts.parcels,
    wallMs: Math.round(wallMs),
    cpuMsAllThreads: Math.round((cpu.user + cpu.system) / 1000),
    mainCpuMs: mainCpuMs() - main0,
    mainIdleMs: Math.round(elu.idle),
    databaseMs: Math.round([...spent.values()].reduce((t, e) => t + e.ms, 0)),
  }),
);
for (const [text, e] of [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12))
  console.log(`${e.ms.toFixed(0).padStart(7)} ms ${String(e.calls).padStart(5)} x  ${text}`);
await db.close();
