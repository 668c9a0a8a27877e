// One spelling of a map point on every surface: `lat` and `lng` (as saveToProject and /api/v1 have
// it). Other spellings are refused with the right name rather than ignored, so a caller that wrote
// `latitude` or `lon` learns the fix instead of getting "no point given" (issue 25).

/** The spellings we refuse, each with the name to use instead. */
export const POINT_MISSPELLINGS: Readonly<Record<string, 'lat' | 'lng'>> = {
  latitude: 'lat',
  longitude: 'lng',
  lon: 'lng',
  long: 'lng',
  lan: 'lat',
};

/** A sentence naming the right spelling when `keys` holds another one; null when all is well. */
export function pointSpellingProblem(keys: Iterable<string>): string | null {
  const wrong = [...keys].filter((k) => Object.hasOwn(POINT_MISSPELLINGS, k));
  if (wrong.length === 0) return null;
  const fixes = wrong.map((k) => `"${k}" is spelled "${POINT_MISSPELLINGS[k]}" here`).join('; ');
  return `A point is given as lat and lng (decimal degrees, WGS 84): ${fixes}.`;
}
