// Fuzzy street names, in the application over the place's distinct street keys (no pg_trgm: it can
// hang PGlite, see architecture.md). The key list is loaded once per (database, place) and cached;
// the importer drops it through placeChanged(placeId) (src/places/place-changes.ts) after it rewrites a place.
import type { Queryable } from '../db/database.ts';
import { streetKeyParts } from './street-key.ts';
import { editDistance } from '../core/edit-distance.ts';
import { onPlaceChanged } from '../places/place-changes.ts';

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

/** Safety net for imports run by another process (which cannot call forgetPlaceStreets here). */
const CACHE_TTL_MS = 5 * 60_000;

interface CacheEntry {
  generation: number;
  loadedAt: number;
  streets: Promise<PlaceStreets>;
}

const cache = new WeakMap<Queryable, Map<string, CacheEntry>>();
const generations = new Map<string, number>();

/** Drops the cached street list of a place (every database); the next lookup reloads it. */
export function forgetPlaceStreets(placeId: string): void {
  generations.set(placeId, (generations.get(placeId) ?? 0) + 1);
}
onPlaceChanged(forgetPlaceStreets);

export function placeStreets(db: Queryable, placeId: string): Promise<PlaceStreets> {
  let perDb = cache.get(db);
  if (!perDb) {
    perDb = new Map();
    cache.set(db, perDb);
  }
  const generation = generations.get(placeId) ?? 0;
  const hit = perDb.get(placeId);
  const now = Date.now();
  if (hit && hit.generation === generation && now - hit.loadedAt < CACHE_TTL_MS) return hit.streets;
  const streets = loadPlaceStreets(db, placeId);
  const entry: CacheEntry = { generation, loadedAt: now, streets };
  perDb.set(placeId, entry);
  // a failed load must not stay cached
  streets.catch(() => {
    if (perDb.get(placeId) === entry) perDb.delete(placeId);
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
