// Reads from a streaming replica (docs/scaling.md, "Read replicas"): the share of the lookup path's
// operations the replica answers, and the latency it adds against the primary, on one machine. The bench
// makes its own primary and streaming replica with the machine's PostgreSQL binaries (initdb, pg_basebackup
// -R: test/support/pg-replica.ts), loads the synthetic city into the primary (bench/synthetic-city.ts,
// SITELINE_BENCH_REPLICA_PARCELS, default 100,000), waits for the replica to replay it, then asks the same
// addresses through two contexts interleaved: one reading from the primary, one with DATABASE_READ_URL
// (snapshot cache off), with the hot index off (every read through SQL: what a replica carries) and on.
// Both servers are on this machine, so the added latency is the replica's own cost, not the network's.
// `node --import tsx bench/replicas-bench.ts` prints one JSON line; bench/run.ts prints its report.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPrimaryWithReplica } from '../test/support/pg-replica.ts';
import { loadSyntheticCity, sampleSyntheticAddresses, writeSyntheticPlacesDir } from './synthetic-city.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { loadConfig } from '../src/config.ts';
import { withMailer, type AppContext } from '../src/context.ts';
import { systemClock } from '../src/clock.ts';
import { createLogger } from '../src/logger.ts';
import { ReadReplicas } from '../src/db/read-replicas.ts';
import { cachedSnapshot } from '../src/snapshot/answer-cache.ts';
import { canonicalJson } from '../src/core/canonical-json.ts';
import { percentile } from './measure.ts';

const PARCELS = Number(process.env['SITELINE_BENCH_REPLICA_PARCELS'] ?? 100_000);
const REQUESTS = Number(process.env['SITELINE_BENCH_REPLICA_REQUESTS'] ?? 2_000);

const pgs = await startPrimaryWithReplica();
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-replica-bench-'));
try {
  const primaryUrl = pgs.primary.url();
  const db = await openDatabase({ databaseUrl: primaryUrl });
  await migrate(db);
  const t0 = performance.now();
  await loadSyntheticCity(db, PARCELS);
  const loadMs = performance.now() - t0;
  // settle the primary as a served database is (hint bits set, statistics gathered), so the comparison is not
  // the load's aftermath against a replica that never carried it
  await db.exec('VACUUM ANALYZE');
  const t1 = performance.now();
  await pgs.caughtUp(600_000);
  const catchUpMs = performance.now() - t1;
  const placesDir = writeSyntheticPlacesDir(work);
  const contextOf = (hotIndex: boolean, replicas: boolean): AppContext => {
    const config = loadConfig(
      { LOG_LEVEL: 'silent', DATABASE_URL: primaryUrl, SITELINE_SNAPSHOT_CACHE: '0', ...(replicas ? { DATABASE_READ_URL: pgs.replica.url() } : {}) },
      { placesDir, hotIndex, autoImport: false },
    );
    const ctx = withMailer({ config, db, clock: systemClock, logger: createLogger('silent') });
    if (replicas) ctx.reads = new ReadReplicas(config.databaseReadUrls);
    return ctx;
  };
  const addresses = sampleSyntheticAddresses(PARCELS, REQUESTS);
  const out: Record<string, unknown> = { parcels: PARCELS, requests: REQUESTS, loadMs: Math.round(loadMs), catchUpMs: Math.round(catchUpMs) };
  for (const hotIndex of [false, true]) {
    const primary = contextOf(hotIndex, false);
    const replica = contextOf(hotIndex, true);
    // warm both (the hot index loads, the pools connect, the planner's statements are cached)
    for (const a of addresses.slice(0, 50)) await Promise.all([cachedSnapshot(primary, a), cachedSnapshot(replica, a)]);
    if (hotIndex) {
      const { warmPlaceIndex } = await import('../src/geocoder/place-index.ts');
      const { getPlace } = await import('../src/places/catalogue.ts');
      const place = (await getPlace(primary, 'US-KS:synthetic-bench'))!;
      await warmPlaceIndex(primary, place);
      await warmPlaceIndex(replica, place);
    }
    replica.reads!.resetStats();
    const times = { primary: [] as number[], replica: [] as number[] };
    let same = 0;
    // interleaved, the order alternating (each side as often first as second)
    for (const [i, a] of addresses.entries()) {
      const first = i % 2 === 0 ? primary : replica;
      const second = first === primary ? replica : primary;
      const s = performance.now();
      const x = await cachedSnapshot(first, a);
      const m = performance.now();
      const y = await cachedSnapshot(second, a);
      const e = performance.now();
      times[first === primary ? 'primary' : 'replica'].push(m - s);
      times[second === primary ? 'primary' : 'replica'].push(e - m);
      const strip = (v: typeof x) => canonicalJson({ ...v.snapshot, generatedAt: null });
      if (strip(x) === strip(y)) same++;
    }
    const st = replica.reads!.stats();
    const onReplica = st.replicas.reduce((n, r) => n + r.reads, 0);
    const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
    const [ps, rs] = [sorted(times.primary), sorted(times.replica)];
    out[hotIndex ? 'hotIndex' : 'sql'] = {
      share: onReplica / (onReplica + st.primaryReads),
      primary: { p50: percentile(ps, 50), p99: percentile(ps, 99) },
      replica: { p50: percentile(rs, 50), p99: percentile(rs, 99) },
      identical: same,
    };
    await replica.reads!.close();
  }
  await db.close();
  console.log(JSON.stringify(out));
} finally {
  pgs.destroy();
  fs.rmSync(work, { recursive: true, force: true });
}
