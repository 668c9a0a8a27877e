// Fuzzy street names, in the application over the place's distinct street keys (no pg_trgm: it can
// hang PGlite, see architecture.md). The key list is loaded once per (context, place) and cached;
// the importer drops it through the context's placeChanged door (src/caches.ts) after it rewrites a place.
import type { Queryable } from '../db/database.ts';
import type { AppContext } from '../context.ts';
import { cacheKind, type CacheDoors } from '../caches.ts';
import { streetKeyParts } from './street-key.ts';
import { editDistance } from '../core/edit-distance.ts';

export interface PlaceStreet {
  key: string;
  display: string;
  /** Name words only (no type, no directions), for "Massachusetts" -> "MASSACHUSETTS AVE". */
  name: string;
}

export interface PlaceStreets {
  byKey: ReadonlyMap<string, PlaceStreet>;
  list: readonly PlaceStreet[];
}

/** Safety net for imports run by another process (which cannot open this context's placeChanged door). */
const CACHE_TTL_MS = 5 * 60_000;

interface CacheEntry {
  loadedAt: number;
  streets: Promise<PlaceStreets>;
}

/** Each place's street list in one context, dropped by the context's placeChanged door. */
class StreetLists implements CacheDoors {
  readonly byPlace = new Map<string, CacheEntry>();
  placeChanged(placeId: string): void {
    this.byPlace.delete(placeId);
  }
}
const STREET_LISTS = cacheKind('street lists', () => new StreetLists());

export function placeStreets(ctx: Pick<AppContext, 'db' | 'caches'>, placeId: string): Promise<PlaceStreets> {
  const perPlace = ctx.caches.of(STREET_LISTS).byPlace;
  const hit = perPlace.get(placeId);
  const now = Date.now();
  if (hit && now - hit.loadedAt < CACHE_TTL_MS) return hit.streets;
  const streets = loadPlaceStreets(ctx.db, placeId);
  const entry: CacheEntry = { loadedAt: now, streets };
  perPlace.set(placeId, entry);
  // a failed load must not stay cached
  streets.catch(() => {
    if (perPlace.get(placeId) === entry) perPlace.delete(placeId);
  });
  return streets;
}

async function loadPlaceStreets(db: Queryable, placeId: string): Promise<PlaceStreets> {
  const rows = await db.query<{ street_key: string; display: string }>(
    `SELECT street_key, min(street_display) AS display FROM (
       SELECT street_key, street_display FROM addresses WHERE place_id = $1
       UNION ALL
       SELECT street_key, street_display FROM street_segments WHERE place_id = $1
     ) s GROUP BY street_key`,
    [placeId],
  );
  const list: PlaceStreet[] = rows
    .filter((r) => r.street_key !== '')
    .map((r) => ({ key: r.street_key, display: r.display, name: streetKeyParts(r.street_key).name.join(' ') }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { byKey: new Map(list.map((s) => [s.key, s])), list };
}

/** 1 for equal strings, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  const n = Math.max(a.length, b.length);
  return n === 0 ? 1 : 1 - editDistance(a, b) / n;
}

export interface StreetCandidate {
  street: PlaceStreet;
  score: number;
}

/**
 * Place streets ranked by closeness to a key. The whole key counts; so does the name alone, a little
 * less, so a missing or wrong type ("Massachusetts St") still finds "MASSACHUSETTS AVE".
 */
export function rankStreets(key: string, streets: PlaceStreets, limit = 5): StreetCandidate[] {
  const parts = streetKeyParts(key);
  const name = parts.name.join(' ');
  const type = parts.trailType || parts.leadType;
  const out: StreetCandidate[] = [];
  for (const s of streets.list) {
    const whole = similarity(key, s.key);
    const byName = name === '' || s.name === '' ? 0 : similarity(name, s.name) * 0.92;
    const byPrefix = shortFormOf(parts.name, s) ? (type === '' || s.key.includes(` ${type}`) || s.key.startsWith(`${type} `) ? 0.86 : 0.8) : 0;
    const score = Math.max(whole, byName, byPrefix);
    if (score >= 0.5) out.push({ street: s, score });
  }
  out.sort((a, b) => b.score - a.score || (a.street.key < b.street.key ? -1 : 1));
  return out.slice(0, limit);
}

/** "MASS" for "MASSACHUSETTS", "MT AUB" for "MT AUBURN": every word a prefix of its counterpart, at least one shortened to 4+ letters. */
function shortFormOf(words: readonly string[], s: PlaceStreet): boolean {
  const theirs = s.name.split(' ');
  if (words.length === 0 || words.length !== theirs.length) return false;
  let shortened = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const t = theirs[i]!;
    if (!t.startsWith(w)) return false;
    if (w.length < t.length) {
      if (w.length < 4) return false;
      shortened = true;
    }
  }
  return shortened;
}
