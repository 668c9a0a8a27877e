// Answers to repeated snapshot questions, from memory. A snapshot is a pure function of the address
// text, the imported data and the rules file, and agents ask about the same address again and again
// (the tool is idempotent), so the surfaces that serve snapshots (the MCP tool, the /sites page) keep
// recent answers per context (ctx.caches):
//   - keyed by the address exactly as the caller wrote it: the snapshot echoes the input, and the
//     parser reads separators and control characters itself, so no folding may merge two texts it
//     would read differently ("57 inman st" and "57 Inman St" are two entries);
//   - dropped at once when the context imports a place or reloads rules (its catalogue and rules
//     generations, which the placeChanged and rulesReloaded doors move on), and
//     after MAX_AGE_MS in any case, which bounds how long another instance's import on a shared
//     PostgreSQL database stays unseen;
//   - bounded to config.snapshotCacheEntries (SITELINE_SNAPSHOT_CACHE, default 2,000, at most
//     20,000; an answered entry holds about 40 KB, the object and, once a surface asked for it, its JSON; 0 turns the cache off),
//     least recently used out first; concurrent misses for one address share
//     one computation; a failure (bad input, a database error) is never cached.
// A hit returns the snapshot as first computed, generatedAt included: that is when the answer was
// made from the data. The core function getFeasibilitySnapshot itself never caches (the CLI, the
// tests and the latency benchmark call it directly).
import { onReadReplica, type AppContext } from '../context.ts';
import { cacheKind } from '../caches.ts';
import { catalogueGeneration } from '../places/catalogue.ts';
import { rulesGeneration } from '../rules/load-rules.ts';
import { getFeasibilitySnapshot } from './snapshot.ts';
import type { StatedDistrict } from './stated-district.ts';
import type { Snapshot } from '../core/snapshot-types.ts';
import { deepFreeze } from '../core/deep-freeze.ts';

export const SNAPSHOT_CACHE_MAX_AGE_MS = 60_000;

export interface CachedSnapshot {
  snapshot: Snapshot;
  /** JSON.stringify(snapshot), made once per entry, on first read: the MCP tool never reads it (the SDK
   * serialises the result itself), and an 8 KB answer's stringify cost about as much as the snapshot. */
  readonly json: string;
}

/** A cache entry whose JSON text is made when first asked for, then kept. */
function entryOf(snapshot: Snapshot): CachedSnapshot {
  let json: string | undefined;
  return {
    snapshot,
    get json() {
      return (json ??= JSON.stringify(snapshot));
    },
  };
}

interface Entry {
  at: number;
  generation: string;
  value: Promise<CachedSnapshot>;
  /** The value once computed (peekCachedSnapshot reads it). */
  done?: CachedSnapshot;
}

interface Answers {
  entries: Map<string, Entry>;
  hits: number;
  misses: number;
}

// No doors of its own: an entry is tagged with the generations it was computed at, which the doors move on.
const ANSWERS = cacheKind('snapshot answers', (): Answers => ({ entries: new Map(), hits: 0, misses: 0 }));

/** What an entry was computed against: the context's catalogue and rules. */
const generationNow = (ctx: AppContext) => `${catalogueGeneration(ctx)}:${rulesGeneration(ctx)}`;

/** An entry still answers: same catalogue and rules, younger than MAX_AGE_MS (and not from the future). */
function fresh(hit: Entry, generation: string, now: number): boolean {
  return hit.generation === generation && now - hit.at < SNAPSHOT_CACHE_MAX_AGE_MS && now >= hit.at;
}

/** A hit: counted, and re-inserted (the Map's order is the LRU order). */
function touched(c: Answers, key: string, hit: Entry): Entry {
  c.entries.delete(key);
  c.entries.set(key, hit);
  c.hits++;
  return hit;
}

/**
 * The snapshot computed on a streaming replica when there are some (src/context.ts onReadReplica): the
 * surfaces' snapshots are reads; the importer's audit and the projects (reads after their own writes) call
 * getFeasibilitySnapshot on the primary.
 */
function snapshotOnReplica(ctx: AppContext, address: string, stated: StatedDistrict | undefined): Promise<Snapshot> {
  return onReadReplica(ctx, (readCtx) => getFeasibilitySnapshot(readCtx, address, stated));
}

/** The snapshot for an address, from the cache when a fresh answer is there. */
export async function cachedSnapshot(ctx: AppContext, address: string, stated?: StatedDistrict): Promise<CachedSnapshot> {
  const key = cacheKey(address, stated);
  const c = ctx.caches.of(ANSWERS);
  const maxEntries = ctx.config.snapshotCacheEntries;
  if (maxEntries <= 0) {
    c.misses++;
    return entryOf(await snapshotOnReplica(ctx, address, stated));
  }
  const now = ctx.clock.now().getTime();
  const generation = generationNow(ctx);
  const hit = c.entries.get(key);
  if (hit && fresh(hit, generation, now)) return touched(c, key, hit).value;
  c.misses++;
  const value = snapshotOnReplica(ctx, address, stated).then((snapshot) => entryOf(deepFreeze(snapshot)));
  const entry: Entry = { at: now, generation, value };
  value.then((v) => (entry.done = v)).catch(() => undefined);
  c.entries.delete(key);
  c.entries.set(key, entry);
  while (c.entries.size > maxEntries) c.entries.delete(c.entries.keys().next().value!);
  value.catch(() => {
    if (c.entries.get(key) === entry) c.entries.delete(key);
  });
  return value;
}

/**
 * The snapshot for an address when a fresh, already computed answer is in the cache; undefined
 * otherwise (nothing is computed). A paid REST call whose answer is known settles its key check,
 * rate limit and charge in one statement (see src/rest/routes.ts).
 */
export function peekCachedSnapshot(ctx: AppContext, address: string, stated?: StatedDistrict): CachedSnapshot | undefined {
  if (ctx.config.snapshotCacheEntries <= 0) return undefined;
  const c = ctx.caches.of(ANSWERS);
  const key = cacheKey(address, stated);
  const hit = c.entries.get(key);
  if (!hit?.done) return undefined;
  if (!fresh(hit, generationNow(ctx), ctx.clock.now().getTime())) return undefined;
  return touched(c, key, hit).done;
}

/** The address alone, or with the stated district, building type and conditions (a different answer in a place without a zoning map), or the picked lot. */
function cacheKey(address: string, stated: StatedDistrict | undefined): string {
  if (!stated?.district && !stated?.buildingType && !stated?.conditions?.length && !stated?.lotId) return address;
  const key = `${address}\u0000${stated.district ?? ''}\u0000${stated.buildingType ?? ''}${stated.conditions?.length ? `\u0000${stated.conditions.join('\u0000')}` : ''}`;
  // A picked lot (src/snapshot/picked-lot.ts) is another answer; \u0001 keeps it apart from any condition.
  return stated.lotId ? `${key}\u0001${stated.lotId}` : key;
}

/** Hit and miss counts of a context (tests and the benchmark read them). */
export function snapshotCacheStats(ctx: Pick<AppContext, 'caches'>): { hits: number; misses: number; entries: number } {
  const c = ctx.caches.of(ANSWERS);
  return { hits: c.hits, misses: c.misses, entries: c.entries.size };
}
