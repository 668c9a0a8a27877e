// A SYNTHETIC COUNTRY for the bounded hot index (issue 30 goal 1; docs/scaling.md): N places (default
// 1,000) holding T parcels in all (default 10,000,000 on PostgreSQL, 1,000,000 on embedded PGlite), their
// sizes Zipf-distributed by rank (size ~ 1/rank^0.73: at 10M, the largest city ~495,000 lots, nine over
// 100,000, the median town ~5,000, the smallest ~3,200).
//
// How the rows are made: the largest city is imported through the importer's own loaders and lot-fact
// derivation (bench/synthetic-city.ts, the 1M-parcel city's generator): it is place 1. Every other place
// is a rectangle of whole blocks of that city (its north-west corner: block rows < B, columns < X, sized
// to the place), copied set-based (INSERT ... SELECT, indexes dropped and rebuilt) with the place's id
// and its address rows renumbered densely, as an import numbers them: the rows are the importer's own.
// (A lot on the rectangle's edge keeps the facts it has in the whole city: a real import of the smaller
// grid alone could call fewer lots corner lots.) Places share coordinates: every read is by place.
//
// Run alone: `node --import tsx --expose-gc bench/country.ts`. Environment:
//   SITELINE_BENCH_COUNTRY=0                  skip
//   BENCH_PG_URL=postgres://...               an admin URL: the PostgreSQL run (its database is kept,
//                                             named siteline_bench_country_<parcels>_<places>, and reused)
//   SITELINE_BENCH_COUNTRY_PARCELS            parcels on PostgreSQL (10,000,000)
//   SITELINE_BENCH_COUNTRY_PGLITE_PARCELS     parcels on PGlite (1,000,000; 0 skips the PGlite run)
//   SITELINE_BENCH_COUNTRY_PLACES             places (1,000)
//   SITELINE_BENCH_COUNTRY_REQUESTS           requests in the Zipf mix (20,000)
//   SITELINE_HOT_INDEX_BUDGET_MB              the budget under test (the service's default)
//   SITELINE_BENCH_COUNTRY_PG_DB              the PostgreSQL database's name (default as above)
// On PostgreSQL a `partition` phase runs between the two (issue 51): the fixed sample answered through SQL
// with every row in the default partitions (the tables as they were before migration 250, which made each
// its default partition), the move into partitions timed, the sample again (byte-identical), then two
// places loaded again into new partitions and swapped in while readers answer: errors, wrong answers, the
// readers' worst wait, and the sample once more.
// Each phase runs in its own process (`load`, then `serve`), so the serving process's memory is its own.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDatabase, type Db } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { analyzePlaceTables, withIndexesDeferred } from '../src/importer/load-tables.ts';
import { layoutFor, loadSyntheticCity, SYNTHETIC_PLACE_ID } from './synthetic-city.ts';
import { placeNameKeys } from '../src/places/catalogue.ts';
import { parseAddress } from '../src/geocoder/parse-address.ts';
import { geocodeInPlace } from '../src/geocoder/geocode.ts';
import { canonicalJson } from '../src/core/canonical-json.ts';
import { DEFAULT_HOT_INDEX_BUDGET_MB, hotIndexOf, placeSource, warmPlaceIndex, type HotIndexStats, type PlaceVersion } from '../src/geocoder/place-index.ts';
import { loadConfig } from '../src/config.ts';
import { verdict } from './targets.ts';
import { Caches } from '../src/caches.ts';
import { beginPlaceLoad, finishPlaceLoad, movePlacesOutOfDefault, PARTITIONED_TABLES, swapPlaceLoad } from '../src/db/place-partitions.ts';

const ZIPF_SIZE = 0.73;
const ZIPF_TRAFFIC = 1.0;
const mb = (b: number) => Math.round(b / 1024 / 1024);
const gc = () => (globalThis as { gc?: () => void }).gc?.();

interface Town {
  rank: number;
  placeId: string;
  /** Block columns and rows of the template city the place holds. */
  x: number;
  b: number;
  lots: number;
}

/** The country: place sizes by rank, each a rectangle of whole blocks of the largest city (40 lots a block). */
export function country(places: number, parcels: number): { towns: Town[]; template: ReturnType<typeof layoutFor> } {
  let norm = 0;
  for (let r = 1; r <= places; r++) norm += r ** -ZIPF_SIZE;
  const c = parcels / norm;
  const template = layoutFor(Math.round(c));
  const towns: Town[] = [];
  for (let r = 1; r <= places; r++) {
    if (r === 1) {
      towns.push({ rank: 1, placeId: SYNTHETIC_PLACE_ID, x: template.blocksX, b: template.blocksY, lots: template.parcels });
      continue;
    }
    const blocks = Math.max(1, Math.round((c * r ** -ZIPF_SIZE) / 40));
    const x = Math.min(template.blocksX, Math.max(1, Math.ceil(Math.sqrt(blocks * 4))));
    const b = Math.min(template.blocksY, Math.max(1, Math.round(blocks / x)));
    towns.push({ rank: r, placeId: `US-KS:country-${String(r).padStart(4, '0')}`, x, b, lots: 40 * x * b });
  }
  return { towns, template };
}

/** An address of the town as a person types it (street and number; the place is already resolved). */
function addressIn(t: Town, rnd: () => number): string {
  const by = Math.floor(rnd() * t.b);
  const bx = Math.floor(rnd() * t.x);
  const row = rnd() < 0.5 ? 0 : 1;
  const i = Math.floor(rnd() * 20);
  return `${bx * 100 + i * 2 + row + 2} Row ${by * 2 + row} St`;
}

function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

async function columns(db: Db, table: string): Promise<string[]> {
  return (
    await db.query<{ c: string }>(
      `SELECT column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    )
  ).map((r) => r.c);
}

// ---- load: the country into one database ------------------------------------------------------------

async function load(db: Db, places: number, parcels: number): Promise<Record<string, unknown>> {
  const { towns } = country(places, parcels);
  const expected = towns.reduce((s, t) => s + t.lots, 0);
  const have = await db.query<{ n: number; lots: string | null }>(
    `SELECT count(*)::int AS n, (SELECT count(*) FROM parcels WHERE place_id = $1 OR place_id LIKE 'US-KS:country-%')::text AS lots FROM places WHERE place_id = $1 OR place_id LIKE 'US-KS:country-%'`,
    [SYNTHETIC_PLACE_ID],
  );
  if (have[0]!.n === places && Number(have[0]!.lots) === expected) return { reused: true, places, parcels: expected };
  const t0 = performance.now();
  const say = (m: string) => process.stderr.write(`  country load: ${m} (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  say(`template city of ${towns[0]!.lots.toLocaleString('en-US')} lots through the importer's loaders`);
  const tpl = await loadSyntheticCity(db, towns[0]!.lots, (m) => say(m));
  const templateMs = performance.now() - t0;
  // the other places' catalogue rows (as the template's, renamed)
  const placeCols = (await columns(db, 'places')).filter((c) => !['place_id', 'slug', 'name', 'name_keys', 'manifest', 'imported_at'].includes(c));
  await db.query(`CREATE TABLE bench_towns (place_id text PRIMARY KEY, slug text, name text, name_keys text[], x int, b int)`);
  const rest = towns.slice(1);
  for (let i = 0; i < rest.length; i += 200) {
    const part = rest.slice(i, i + 200).map((t) => {
      const name = `Synthetic Town ${String(t.rank).padStart(4, '0')}`;
      return { place_id: t.placeId, slug: t.placeId.split(':')[1], name, name_keys: placeNameKeys(name, []), x: t.x, b: t.b };
    });
    await db.query(`INSERT INTO bench_towns SELECT * FROM json_populate_recordset(NULL::bench_towns, $1::json)`, [JSON.stringify(part)]);
  }
  await db.query(
    `INSERT INTO places (place_id, slug, name, name_keys, manifest, imported_at, ${placeCols.join(', ')})
     SELECT s.place_id, s.slug, s.name, s.name_keys, jsonb_set(p.manifest::jsonb, '{slug}', to_jsonb(s.slug))::jsonb, now(), ${placeCols.map((c) => `p.${c}`).join(', ')}
       FROM bench_towns s CROSS JOIN places p WHERE p.place_id = $1`,
    [SYNTHETIC_PLACE_ID],
  );
  say('places rows');
  // set-based copies of the template's rows, each place's rectangle of blocks
  const copy = async (table: string, extra: string, where: string, renumber?: string) => {
    const cols = (await columns(db, table)).filter((c) => c !== 'place_id' && c !== renumber);
    await db.query(`CREATE TABLE bench_tpl AS SELECT t.*, ${extra} FROM ${table} t WHERE t.place_id = $1`, [SYNTHETIC_PLACE_ID]);
    await db.query(`CREATE INDEX ON bench_tpl (by_, bx_)`);
    await db.query(
      `INSERT INTO ${table} (place_id, ${renumber ? `${renumber}, ` : ''}${cols.join(', ')})
       SELECT s.place_id, ${renumber ? `(row_number() OVER (PARTITION BY s.place_id ORDER BY t.${renumber}) - 1)::int, ` : ''}${cols.map((c) => `t.${c}`).join(', ')}
         FROM bench_towns s JOIN bench_tpl t ON ${where}`,
    );
    await db.query(`DROP TABLE bench_tpl`);
    say(`${table} copied`);
  };
  const inRect = 't.by_ < s.b AND t.bx_ < s.x';
  const byBx = `split_part(t.parcel_ext_id, '-', 2)::int AS by_, split_part(t.parcel_ext_id, '-', 3)::int AS bx_`;
  await withIndexesDeferred(db, ['parcels', 'zones', 'street_segments', 'addresses'], async () => {
    await copy('parcels', byBx, inRect);
    await copy('addresses', byBx, inRect, 'row_no');
    await copy(
      'street_segments',
      `((regexp_match(t.street_key, '(\\d+)'))[1]::int / 2) AS by_, (regexp_match(t.segment_id, '-(\\d+)$'))[1]::int AS bx_`,
      inRect,
    );
    await copy('zones', '0 AS by_, 0 AS bx_', 'true');
    say('rebuilding indexes');
  });
  await db.query(`DROP TABLE bench_towns`);
  await analyzePlaceTables(db); // as an import does after its load
  if (db.kind === 'postgres') {
    // The fixed sample as the rows are now, every place in the default partitions (the unpartitioned
    // layout), kept with the database: the partition phase compares its answers with these.
    const answers = await sampleThroughSql(db, places, parcels);
    await db.query('CREATE TABLE bench_unpartitioned_sample (i int PRIMARY KEY, answer text NOT NULL)');
    await db.query('INSERT INTO bench_unpartitioned_sample SELECT i - 1, a FROM unnest($1::text[]) WITH ORDINALITY AS t(a, i)', [answers]);
    say('fixed sample answered on the unpartitioned layout');
  } else {
    // PGlite has no partition phase: the places move into their partitions here, as migrate() would
    // move them at the serving process's start (there the copy would count in its memory).
    await movePlacesOutOfDefault(db);
    say('places moved into partitions');
  }
  const n = await db.query<{ p: string; a: string }>(`SELECT (SELECT count(*) FROM parcels)::text AS p, (SELECT count(*) FROM addresses)::text AS a`);
  say('done');
  return {
    reused: false,
    places,
    parcels: Number(n[0]!.p),
    addresses: Number(n[0]!.a),
    expected,
    templateLots: tpl.parcels,
    templateMs: Math.round(templateMs),
    loadMs: Math.round(performance.now() - t0),
  };
}

// ---- partition: the same answers on partitioned PostgreSQL, and a place swapped in while serving ------

/** The lookup path's answer (the geocoder's match and the lot row), through this context's hot index or SQL. */
function answerer(db: Db, versions: Map<string, string>, hotIndex: boolean) {
  const ctx = {
    db,
    caches: new Caches(loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { hotIndex, hotIndexBudgetMb: DEFAULT_HOT_INDEX_BUDGET_MB })),
  };
  const pv = (t: Town): PlaceVersion => ({ geoDivisionId: t.placeId, importedAt: versions.get(t.placeId)! });
  return {
    ctx,
    pv,
    answer: async (t: Town, address: string): Promise<{ kind: string; json: string }> => {
      const src = await placeSource(ctx, pv(t));
      const g = await geocodeInPlace(ctx, t.placeId, parseAddress(address), src);
      const lot = g.kind === 'matched' && g.parcelExtId ? await src.lot(g.parcelExtId) : null;
      return { kind: src.kind, json: canonicalJson({ g, lot }) };
    },
  };
}

async function placeVersions(db: Db): Promise<Map<string, string>> {
  const rows = await db.query<{ place_id: string; imported_at: Date | string }>(
    `SELECT place_id, imported_at FROM places WHERE place_id = $1 OR place_id LIKE 'US-KS:country-%'`,
    [SYNTHETIC_PLACE_ID],
  );
  return new Map(rows.map((r) => [r.place_id, new Date(r.imported_at).toISOString()]));
}

/** The fixed sample of 300 addresses over the places (as serve draws it). */
function fixedSample(towns: Town[], places: number): { t: Town; a: string }[] {
  const srnd = lcg(777);
  return Array.from({ length: 300 }, () => {
    const t = towns[Math.floor(srnd() * places)]!;
    return { t, a: addressIn(t, srnd) };
  });
}

async function sampleThroughSql(db: Db, places: number, parcels: number, ms: number[] = []): Promise<string[]> {
  const { towns } = country(places, parcels);
  const { answer } = answerer(db, await placeVersions(db), false);
  const out: string[] = [];
  for (const s of fixedSample(towns, places)) {
    const t0 = performance.now();
    out.push((await answer(s.t, s.a)).json);
    ms.push(performance.now() - t0);
  }
  return out;
}

/** The fixed sample's SQL answers timed: two passes, the second's p50 and p99 (the first warms the caches). */
async function timedSample(db: Db, places: number, parcels: number): Promise<{ p50: number | null; p99: number | null }> {
  await sampleThroughSql(db, places, parcels);
  const ms: number[] = [];
  await sampleThroughSql(db, places, parcels, ms);
  return { p50: pct(ms, 50), p99: pct(ms, 99) };
}

/**
 * A place loaded again as an import loads it (src/db/place-partitions.ts): new partitions beside the
 * live ones (a group's other towns copied in), its rows written set-based (its own, copied: the answers
 * stay the same), indexed, swapped in. Returns the load's and the swap's wall times.
 */
async function reloadPlace(
  db: Db,
  placeId: string,
): Promise<{ loadMs: number; swapMs: number; lockWaitMs: number; lockedMs: number; part: number; own: boolean; places: number }> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`siteline-import:${placeId}`]);
    const t0 = performance.now();
    const lots = Number((await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM parcels WHERE place_id = $1', [placeId]))[0]!.n);
    const load = await beginPlaceLoad(tx, placeId, lots, db.kind);
    for (const table of PARTITIONED_TABLES) await tx.query(`INSERT INTO ${load.tables[table]} SELECT * FROM ${table} WHERE place_id = $1`, [placeId]);
    await finishPlaceLoad(tx, load);
    const t1 = performance.now();
    const swap = await swapPlaceLoad(tx, load);
    const ms = (x: number) => Math.round(x * 10) / 10;
    return {
      loadMs: Math.round(t1 - t0),
      swapMs: ms(performance.now() - t1),
      lockWaitMs: ms(swap.lockWaitMs),
      lockedMs: ms(swap.lockedMs),
      part: load.part,
      own: load.own,
      places: load.places.length,
    };
  });
}

async function partitionPhase(db: Db, places: number, parcels: number): Promise<Record<string, unknown>> {
  const { towns } = country(places, parcels);
  const before = (await db.query<{ answer: string }>('SELECT answer FROM bench_unpartitioned_sample ORDER BY i')).map((r) => r.answer);
  const inDefault = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM parcels_default'))[0]!.n);
  const unpartitionedMs = inDefault ? await timedSample(db, places, parcels) : null;
  const t0 = performance.now();
  const moved = await movePlacesOutOfDefault(db);
  const moveMs = Math.round(performance.now() - t0);
  const layout = (
    await db.query<{ parts: number; own: number }>('SELECT count(DISTINCT part)::int AS parts, count(*) FILTER (WHERE own)::int AS own FROM place_partitions')
  )[0]!;
  const same = (x: string[], y: string[]) => x.filter((v, i) => v === y[i]).length;
  const partitioned = await sampleThroughSql(db, places, parcels);
  const partitionedMs = await timedSample(db, places, parcels);

  // Readers answer the Zipf mix through SQL (every answer reads the partitioned tables) while two places
  // are loaded again and swapped in: the largest city (alone in its partition) and a small town (in a group).
  const { answer } = answerer(db, await placeVersions(db), false);
  const rnd = lcg(99);
  const asked = [...towns.slice(0, 20), towns[Math.floor(places / 2)]!].flatMap((t) => Array.from({ length: 10 }, () => ({ t, a: addressIn(t, rnd) })));
  const expected = new Map<string, string>();
  for (const q of asked) expected.set(`${q.t.placeId}|${q.a}`, (await answer(q.t, q.a)).json);
  let stop = false;
  const seen = { reads: 0, errors: 0, wrong: 0, worstMs: 0, firstError: '' };
  const reader = async (k: number) => {
    for (let i = k; !stop; i++) {
      const q = asked[i % asked.length]!;
      const t = performance.now();
      try {
        const r = await answer(q.t, q.a);
        if (r.json !== expected.get(`${q.t.placeId}|${q.a}`)) seen.wrong++;
        seen.reads++;
      } catch (err) {
        seen.errors++;
        seen.firstError ||= String(err);
      }
      seen.worstMs = Math.max(seen.worstMs, performance.now() - t);
    }
  };
  const readers = Array.from({ length: 4 }, (_, k) => reader(k * 37));
  const swaps = [];
  const tSwaps = performance.now();
  for (const t of [towns[0]!, towns[Math.floor(places / 2)]!]) swaps.push({ placeId: t.placeId, lots: t.lots, ...(await reloadPlace(db, t.placeId)) });
  const swapWallMs = Math.round(performance.now() - tSwaps);
  stop = true;
  await Promise.all(readers);
  const after = await sampleThroughSql(db, places, parcels);
  return {
    move: { rowsInDefault: inDefault, places: moved.length, ms: moveMs, partitions: layout.parts, own: layout.own },
    sample: {
      n: before.length,
      partitionedVsUnpartitioned: same(partitioned, before),
      afterSwapsVsUnpartitioned: same(after, before),
      unpartitionedMs,
      partitionedMs,
    },
    swaps,
    readers: { ...seen, worstMs: Math.round(seen.worstMs * 10) / 10, seconds: Math.round(swapWallMs / 100) / 10 },
  };
}

// ---- serve: the Zipf mix against the bounded index ----------------------------------------------------

const pct = (xs: number[], p: number) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 1000) / 1000;
};

/** Short digests of the fixed sample's answers (the one-instance and the owners' runs compare them). */
const digests = (xs: string[]) => xs.map((x) => crypto.createHash('sha256').update(x).digest('hex').slice(0, 16));

/**
 * The serving process. With `own` it is one of the instances that own places (src/places/place-ownership.ts):
 * it keeps hot indexes only for its share of the places hashed over `own.instances`, and serves the requests
 * of the Zipf stream that the proxy would route to it (those about its places); the fixed sample is asked of
 * it whole (its own places from memory, the others through SQL), to compare with the one instance's answers.
 */
async function serve(
  db: Db,
  places: number,
  parcels: number,
  requests: number,
  budgetMb: number,
  own?: { instance: string; instances: string[] },
): Promise<Record<string, unknown>> {
  const { towns } = country(places, parcels);
  const versions = new Map(
    (
      await db.query<{ place_id: string; imported_at: Date | string }>(
        `SELECT place_id, imported_at FROM places WHERE place_id = $1 OR place_id LIKE 'US-KS:country-%'`,
        [SYNTHETIC_PLACE_ID],
      )
    ).map((r) => [r.place_id, new Date(r.imported_at).toISOString()]),
  );
  const pv = (t: Town): PlaceVersion => ({ geoDivisionId: t.placeId, importedAt: versions.get(t.placeId)! });
  // the serving context's caches: its hot index under the budget being measured
  const placeOwnership = own ? ({ kind: 'hashed', instance: own.instance, instances: own.instances, ownersPerPlace: 1 } as const) : undefined;
  const ctx = {
    db,
    caches: new Caches(loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { hotIndex: true, hotIndexBudgetMb: budgetMb, placeOwnership })),
  };
  const index = hotIndexOf(ctx);
  const answer = async (t: Town, address: string): Promise<{ kind: string; json: string }> => {
    const src = await placeSource(ctx, pv(t));
    const g = await geocodeInPlace(ctx, t.placeId, parseAddress(address), src);
    const lot = g.kind === 'matched' && g.parcelExtId ? await src.lot(g.parcelExtId) : null;
    return { kind: src.kind, json: canonicalJson({ g, lot }) };
  };
  gc();
  const base = process.memoryUsage();

  // 1. the Zipf mix (traffic ~ 1/rank: the larger the place, the more it is asked about), one request at a time
  index.setBudget(budgetMb);
  index.resetStats();
  const cdf: number[] = [];
  let acc = 0;
  for (let r = 1; r <= places; r++) cdf.push((acc += r ** -ZIPF_TRAFFIC));
  const rnd = lcg(424242);
  const pick = () => {
    const u = rnd() * acc;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return towns[lo]!;
  };
  const cold: number[] = [];
  const warm: number[] = [];
  const rss: number[] = [];
  let answered = 0;
  let firstHalf: HotIndexStats | null = null;
  let served = 0;
  const tMix = performance.now();
  for (let i = 0; i < requests; i++) {
    if (i === Math.floor(requests / 2)) firstHalf = index.stats();
    const t = pick();
    const a = addressIn(t, rnd);
    if (i % 250 === 0) rss.push(process.memoryUsage().rss);
    if (own && !index.owns({ geoDivisionId: t.placeId })) continue; // routed to the place's owner
    served++;
    const t0 = performance.now();
    const r = await answer(t, a);
    const ms = performance.now() - t0;
    if (r.json.includes('"kind":"matched"')) answered++;
    if (i >= requests / 2) (r.kind === 'memory' ? warm : cold).push(ms);
  }
  const mixMs = performance.now() - tMix;
  const end = index.stats();
  const half = {
    hits: end.hits - firstHalf!.hits,
    misses: end.misses - firstHalf!.misses,
    loads: end.loads - firstHalf!.loads,
    evictions: end.evictions - firstHalf!.evictions,
  };
  const steady = rss.slice(Math.floor(rss.length / 2));

  // 2. a fixed sample: bounded (as the mix left it), SQL alone, unbounded (every sampled place warm)
  const srnd = lcg(777);
  const sample = Array.from({ length: 300 }, () => {
    const t = towns[Math.floor(srnd() * places)]!;
    return { t, a: addressIn(t, srnd) };
  });
  const bounded: string[] = [];
  for (const s of sample) bounded.push((await answer(s.t, s.a)).json);
  const mixReport = {
    requests,
    served,
    seconds: Math.round(mixMs / 100) / 10,
    answered,
    steadyRssMb: { p50: mb(pct(steady, 50)!), max: mb(Math.max(...steady)) },
    peakRssMbSampled: mb(Math.max(...rss)),
    secondHalf: { ...half, hitRate: Math.round((half.hits / (half.hits + half.misses)) * 1000) / 1000 },
    whole: { ...end, hitRate: Math.round((end.hits / (end.hits + end.misses)) * 1000) / 1000, bytesMb: mb(end.bytes) },
    coldMs: { n: cold.length, p50: pct(cold, 50), p99: pct(cold, 99) },
    warmMs: { n: warm.length, p50: pct(warm, 50), p99: pct(warm, 99) },
  };
  if (own)
    return {
      budgetMb,
      instance: own.instance,
      ownedPlaces: towns.filter((t) => index.owns({ geoDivisionId: t.placeId })).length,
      baseline: { rssMb: mb(base.rss) },
      mix: mixReport,
      sample: { n: sample.length, digests: digests(bounded), unowned: index.stats().unowned },
    };
  index.setEnabled(false);
  const sql: string[] = [];
  for (const s of sample) sql.push((await answer(s.t, s.a)).json);
  index.setEnabled(true);
  index.setBudget(1_000_000);
  const unbounded: string[] = [];
  let warmKinds = 0;
  for (const s of sample) {
    await warmPlaceIndex(ctx, pv(s.t));
    const r = await answer(s.t, s.a);
    if (r.kind === 'memory') warmKinds++;
    unbounded.push(r.json);
  }
  // 3. the size estimate against the memory it takes: 24 places of every size loaded one by one
  // (unbounded, after everything above is dropped; last, so that the mix's RSS is not this phase's)
  for (const t of towns) index.placeChanged(t.placeId);
  gc();
  const probe = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 200, 260, 330, 400, 480, 550, 630, 700, 780, 850, 920, 960, places].filter(
    (r, i, a) => r <= places && a.indexOf(r) === i,
  );
  const estimate: { rank: number; lots: number; bytes: number; heapDelta: number; heapOnly: number; buffers: number; rssDelta: number; loadMs: number }[] = [];
  for (const r of probe) {
    const t = towns[r - 1]!;
    gc();
    const m0 = process.memoryUsage();
    const t0 = performance.now();
    const ix = await warmPlaceIndex(ctx, pv(t));
    const loadMs = performance.now() - t0;
    gc();
    const m1 = process.memoryUsage();
    estimate.push({
      rank: r,
      lots: t.lots,
      bytes: ix!.bytes,
      heapDelta: m1.heapUsed + m1.arrayBuffers - m0.heapUsed - m0.arrayBuffers,
      heapOnly: m1.heapUsed - m0.heapUsed,
      buffers: m1.arrayBuffers - m0.arrayBuffers,
      rssDelta: m1.rss - m0.rss,
      loadMs: Math.round(loadMs),
    });
  }
  const sumBytes = estimate.reduce((s, e) => s + e.bytes, 0);
  const sumHeap = estimate.reduce((s, e) => s + e.heapDelta, 0);
  const sumLots = estimate.reduce((s, e) => s + e.lots, 0);
  gc();
  const heldRss = process.memoryUsage().rss;
  for (const r of probe) index.placeChanged(towns[r - 1]!.placeId);
  gc();

  const same = (x: string[], y: string[]) => x.filter((v, i) => v === y[i]).length;
  return {
    budgetMb,
    baseline: { rssMb: mb(base.rss), heapUsedMb: mb(base.heapUsed), externalMb: mb(base.external) },
    estimate: {
      places: estimate.length,
      lots: sumLots,
      estimatedMb: mb(sumBytes),
      heapDeltaMb: mb(sumHeap),
      ratioMeasuredToEstimate: Math.round((sumHeap / sumBytes) * 100) / 100,
      bytesPerLotEstimated: Math.round(sumBytes / sumLots),
      bytesPerLotMeasured: Math.round(sumHeap / sumLots),
      rssWithAllHeldMb: mb(heldRss),
      rows: estimate.map((e) => ({
        ...e,
        bytes: mb(e.bytes * 10) / 10,
        heapDelta: mb(e.heapDelta * 10) / 10,
        heapOnly: mb(e.heapOnly * 10) / 10,
        buffers: mb(e.buffers * 10) / 10,
        rssDelta: mb(e.rssDelta * 10) / 10,
      })),
    },
    mix: mixReport,
    sample: {
      n: sample.length,
      digests: digests(bounded),
      boundedVsUnbounded: same(bounded, unbounded),
      sqlVsUnbounded: same(sql, unbounded),
      unboundedFromMemory: warmKinds,
      matched: unbounded.filter((v) => v.includes('"kind":"matched"')).length,
    },
  };
}

// ---- the orchestration --------------------------------------------------------------------------------

async function openTarget(target: string): Promise<Db> {
  const db = target.startsWith('postgres') ? await openDatabase({ databaseUrl: target }) : await openDatabase({ pgliteDir: target });
  await migrate(db);
  return db;
}

const direct = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
const [phase, target, placesArg, parcelsArg, requestsArg, budgetArg, instanceArg, instancesArg] = process.argv.slice(2);
if (!direct) {
  // imported by bench/run.ts, which calls runCountry
} else if (phase === 'load' || phase === 'serve' || phase === 'own' || phase === 'partition') {
  // The partition phase opens the database without migrate(): it times the move out of the default partitions itself.
  const db = phase === 'partition' ? await openDatabase({ databaseUrl: target! }) : await openTarget(target!);
  const own = phase === 'own' ? { instance: instanceArg!, instances: instancesArg!.split(',') } : undefined;
  const out =
    phase === 'load'
      ? await load(db, Number(placesArg), Number(parcelsArg))
      : phase === 'partition'
        ? await partitionPhase(db, Number(placesArg), Number(parcelsArg))
        : await serve(db, Number(placesArg), Number(parcelsArg), Number(requestsArg), Number(budgetArg), own);
  await db.close();
  console.log(JSON.stringify({ ...out, peakRssMb: mb(process.resourceUsage().maxRSS * 1024) }));
} else if (process.env['SITELINE_BENCH_COUNTRY'] === '0') {
  console.log('synthetic country: skipped (SITELINE_BENCH_COUNTRY=0)');
} else {
  await runCountry();
}

function child(args: string[]): Record<string, any> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', path.join(import.meta.dirname, 'country.ts'), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new Error(`country ${args[0]} failed (exit ${r.status})`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/**
 * Two instances each owning half of the places (rendezvous hash over web1, web2), each serving the requests
 * the proxy routes to it by place, against the one instance owning all (`one`, the serve phase above): each
 * one's RSS, hit rate and cold p50, and the fixed sample's answers (every place asked of each) against the
 * one instance's. The instances run one after the other (PGlite serves one process at a time); their
 * figures are per process either way.
 */
function ownersReport(
  say: (s: string) => void,
  engine: string,
  url: string,
  places: number,
  parcels: number,
  requests: number,
  budget: number,
  one: Record<string, any>,
): void {
  const instances = ['web1', 'web2'];
  const runs = instances.map((name) => child(['own', url, String(places), String(parcels), String(requests), String(budget), name, instances.join(',')]));
  const m1 = one['mix'];
  say(
    `  two instances owning half the places each (SITELINE_INSTANCES=web1,web2; requests routed by place) against one owning all, budget ${budget} MB each, on ${engine}:`,
  );
  say(
    `    one instance: ${m1.requests} requests; steady RSS p50 ${m1.steadyRssMb.p50} MB, max ${m1.steadyRssMb.max} MB; hit rate ${m1.secondHalf.hitRate} (second half), ${m1.whole.places} places held (${m1.whole.bytesMb} MB); cold p50 ${m1.coldMs.p50} ms, p99 ${m1.coldMs.p99} ms; warm p50 ${m1.warmMs.p50} ms`,
  );
  let identical = 0;
  let total = 0;
  for (const r of runs) {
    const m = r['mix'];
    say(
      `    ${r['instance']}: owns ${r['ownedPlaces']} places, served ${m.served} of the ${m.requests} requests; steady RSS p50 ${m.steadyRssMb.p50} MB, max ${m.steadyRssMb.max} MB (process peak ${r['peakRssMb']} MB); hit rate ${m.secondHalf.hitRate} (second half; whole ${m.whole.hitRate}), ${m.whole.loads} loads, ${m.whole.evictions} evictions, ${m.whole.places} places held (${m.whole.bytesMb} MB); cold p50 ${m.coldMs.p50} ms, p99 ${m.coldMs.p99} ms (n ${m.coldMs.n}); warm p50 ${m.warmMs.p50} ms`,
    );
    const d: string[] = r['sample'].digests;
    identical += d.filter((x, i) => x === one['sample'].digests[i]).length;
    total += d.length;
  }
  const maxHeld = Math.max(...runs.map((r) => r['mix'].whole.bytes)) / Math.max(1, m1.whole.bytes);
  say(
    `    fixed sample asked of each owner (its places from memory, the others through SQL): identical to the one instance ${identical}/${total} ${verdict('owners.identical', identical / Math.max(1, total))}; the larger owner holds ${maxHeld.toFixed(2)} of the one instance's index bytes ${verdict('owners.held', maxHeld)}`,
  );
}

/** Runs the section (PostgreSQL when BENCH_PG_URL is set, then PGlite) and prints its report; also what bench/run.ts calls. */
export async function runCountry(say: (s: string) => void = console.log): Promise<void> {
  const places = Number(process.env['SITELINE_BENCH_COUNTRY_PLACES'] ?? 1000);
  const requests = Number(process.env['SITELINE_BENCH_COUNTRY_REQUESTS'] ?? 20_000);
  const budget = Number(process.env['SITELINE_HOT_INDEX_BUDGET_MB'] ?? DEFAULT_HOT_INDEX_BUDGET_MB);
  const runs: { engine: string; parcels: number; target: () => Promise<{ url: string; done: () => Promise<void> }> }[] = [];
  const admin = process.env['BENCH_PG_URL'];
  const pgParcels = Number(process.env['SITELINE_BENCH_COUNTRY_PARCELS'] ?? 10_000_000);
  if (admin && pgParcels > 0)
    runs.push({
      engine: 'PostgreSQL',
      parcels: pgParcels,
      target: async () => {
        const name = process.env['SITELINE_BENCH_COUNTRY_PG_DB'] ?? `siteline_bench_country_${pgParcels}_${places}`;
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        if (!(await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) await c.query(`CREATE DATABASE ${name}`);
        await c.end();
        const u = new URL(admin);
        u.pathname = `/${name}`;
        return { url: u.toString(), done: async () => undefined };
      },
    });
  else say('synthetic country on PostgreSQL: skipped (set BENCH_PG_URL to an admin URL, e.g. postgres://postgres@127.0.0.1:5432/postgres)');
  const pgliteParcels = Number(process.env['SITELINE_BENCH_COUNTRY_PGLITE_PARCELS'] ?? 1_000_000);
  if (pgliteParcels > 0)
    runs.push({
      engine: 'PGlite (on disk)',
      parcels: pgliteParcels,
      target: async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-country-'));
        return { url: path.join(dir, 'pgdata'), done: async () => fs.rmSync(dir, { recursive: true, force: true }) };
      },
    });
  for (const run of runs) {
    const { url, done } = await run.target();
    try {
      const l = child(['load', url, String(places), String(run.parcels)]);
      const p = run.engine === 'PostgreSQL' ? child(['partition', url, String(places), String(run.parcels)]) : null;
      const s = child(['serve', url, String(places), String(run.parcels), String(requests), String(budget)]);
      const c = country(places, run.parcels).towns;
      const sizes = c.map((t) => t.lots).sort((a, b) => a - b);
      say(
        `Synthetic country on ${run.engine}: ${places} places, ${(l['parcels'] as number).toLocaleString('en-US')} parcels (largest ${sizes.at(-1)!.toLocaleString('en-US')}, median ${sizes[sizes.length >> 1]!.toLocaleString('en-US')}, smallest ${sizes[0]!.toLocaleString('en-US')} lots; ${c.filter((t) => t.lots >= 100_000).length} over 100,000, ${c.filter((t) => t.lots <= 5_000).length} of 5,000 or fewer)`,
      );
      say(
        l['reused']
          ? '  load: reused the database from an earlier run'
          : `  load: ${(l['loadMs'] / 1000).toFixed(0)} s (template city through the importer ${(l['templateMs'] / 1000).toFixed(0)} s, then set-based copies), peak RSS ${l['peakRssMb']} MB`,
      );
      if (p) sayPartitions(say, p);
      const e = s['estimate'];
      say(
        `  size estimate vs memory: ${e.places} places, ${e.lots.toLocaleString('en-US')} lots: estimated ${e.estimatedMb} MB, heap+arrayBuffers grew ${e.heapDeltaMb} MB (measured/estimated ${e.ratioMeasuredToEstimate}); ${e.bytesPerLotEstimated} B/lot estimated, ${e.bytesPerLotMeasured} B/lot measured; RSS with them all held ${e.rssWithAllHeldMb} MB`,
      );
      for (const r of e.rows)
        say(
          `    rank ${r.rank}: ${r.lots} lots, estimated ${r.bytes} MB, measured ${r.heapDelta} MB (heap ${r.heapOnly}, array buffers ${r.buffers}), RSS +${r.rssDelta} MB, load ${r.loadMs} ms`,
        );
      const m = s['mix'];
      say(
        `  Zipf mix, budget ${s['budgetMb']} MB: ${m.requests} requests in ${m.seconds} s (${m.answered} matched); steady RSS p50 ${m.steadyRssMb.p50} MB, max ${m.steadyRssMb.max} MB (baseline ${s['baseline'].rssMb} MB; process peak ${s['peakRssMb']} MB)`,
      );
      say(
        `    second half: hit rate ${m.secondHalf.hitRate} (${m.secondHalf.hits} hits, ${m.secondHalf.misses} misses), ${m.secondHalf.loads} loads, ${m.secondHalf.evictions} evictions; whole run: hit rate ${m.whole.hitRate}, ${m.whole.loads} loads, ${m.whole.evictions} evictions, ${m.whole.oversize} over budget; held at the end ${m.whole.places} places, ${m.whole.bytesMb} MB estimated`,
      );
      say(
        `    cold place (read through SQL while it loads): p50 ${m.coldMs.p50} ms, p99 ${m.coldMs.p99} ms (n ${m.coldMs.n}) [p50 <= 50 ms]; warm: p50 ${m.warmMs.p50} ms, p99 ${m.warmMs.p99} ms (n ${m.warmMs.n})`,
      );
      const f = s['sample'];
      say(
        `  fixed sample of ${f.n} addresses over the places (${f.matched} matched): bounded = unbounded for ${f.boundedVsUnbounded}/${f.n}, SQL = unbounded for ${f.sqlVsUnbounded}/${f.n} (unbounded read from memory: ${f.unboundedFromMemory}/${f.n})`,
      );
      if (process.env['SITELINE_BENCH_COUNTRY_OWNERS'] !== '0') ownersReport(say, run.engine, url, places, run.parcels, requests, budget, s);
    } finally {
      await done();
    }
  }
}

/** The partition phase's report (PostgreSQL). */
function sayPartitions(say: (s: string) => void, p: Record<string, any>): void {
  const m = p['move'];
  say(
    m.places
      ? `  partitions: ${m.rowsInDefault.toLocaleString('en-US')} parcels of ${m.places} places moved out of the default partitions (the migration's step) in ${(m.ms / 1000).toFixed(1)} s: ${m.partitions} partitions a table, ${m.own} places alone in theirs`
      : `  partitions: already partitioned (${m.partitions} partitions a table, ${m.own} places alone in theirs)`,
  );
  const f = p['sample'];
  say(
    `    fixed sample through SQL, partitioned = unpartitioned for ${f.partitionedVsUnpartitioned}/${f.n} ${verdict('partitions.sample', (100 * f.partitionedVsUnpartitioned) / f.n)}; after the swaps ${f.afterSwapsVsUnpartitioned}/${f.n} ${verdict('partitions.sample.afterSwap', (100 * f.afterSwapsVsUnpartitioned) / f.n)}`,
  );
  if (f.unpartitionedMs)
    say(
      `    the sample's answers through SQL (second of two passes): unpartitioned p50 ${f.unpartitionedMs.p50} ms, p99 ${f.unpartitionedMs.p99} ms; partitioned p50 ${f.partitionedMs.p50} ms, p99 ${f.partitionedMs.p99} ms`,
    );
  for (const w of p['swaps'])
    say(
      `    ${w.placeId} (${w.lots.toLocaleString('en-US')} lots, ${w.own ? 'alone' : `a group of ${w.places}`}): loaded into new partitions in ${(w.loadMs / 1000).toFixed(1)} s, swapped in ${w.swapMs} ms (${w.lockWaitMs} ms waiting for the readers to let go, ${w.lockedMs} ms holding the tables; the commit after)`,
    );
  const r = p['readers'];
  say(
    `    4 readers answering through SQL meanwhile (${r.seconds} s): ${r.reads} answers, ${r.wrong} different from before ${verdict('partitions.swap.wrong', r.wrong)}, ${r.errors} errors ${verdict('partitions.swap.errors', r.errors)}${r.firstError ? ` (${r.firstError})` : ''}; the longest answer ${r.worstMs} ms`,
  );
}
