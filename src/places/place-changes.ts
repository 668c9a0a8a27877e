// One invalidation per place. When this process rewrites a place (an import), or learns that another
// instance did, it calls placeChanged(placeId) once, and every cache built on the place's data drops what
// it holds for it: the hot index (src/geocoder/place-index.ts), the fuzzy matcher's street list
// (src/geocoder/street-match.ts) and the catalogue's lookups (src/places/catalogue.ts), which the answer
// cache (src/snapshot/answer-cache.ts) is tagged with. Each cache subscribes where it is defined, so a
// new cache cannot be forgotten by the importer: it is forgotten by its own module or not at all.
type PlaceListener = (placeId: string) => void;

const listeners = new Set<PlaceListener>();

/** A per-place cache registers how to drop a place (at module load, beside the cache it drops). */
export function onPlaceChanged(drop: PlaceListener): void {
  listeners.add(drop);
}

/** The place's data changed: every per-place cache in this process drops it. */
export function placeChanged(placeId: string): void {
  for (const drop of listeners) drop(placeId);
}
