// A lot's street address as an assessor writes it ("22 FAIRMONT AVE", "10-16 FAIRMONT AVE #12",
// "22.5 FAIRMONT AVE", "17R COMMERCIAL AVE", "58 1/2 SPRING ST") -> street key + number range + suffix.
// The importer stores these in lot_locations; the geocoder reads them when the address table has no lot
// for an address (docs/geocoder.md, "Assessor location").
import { streetKey } from './street-key.ts';

export interface LotLocation {
  streetKey: string;
  /** First and last house number the location covers ("10-16" -> 10..16; a single number -> n..n). */
  numberLo: number;
  numberHi: number;
  /** Suffix of a single number, upper case: "R", "A", "1/2"; '' when none (always '' for a range). */
  numberSuffix: string;
}

/** A range wider than this is not read as a range (only its first number is kept). */
const MAX_RANGE = 40;

const HALF = String.raw`(?:\.5|\s+1/2|½)`;
const LOCATION_RE = new RegExp(String.raw`^(\d{1,6})(${HALF}|[A-Z](?![A-Z]))?(?:\s*-\s*(\d{1,6})(?:${HALF}|[A-Z](?![A-Z]))?)?\s+(.*\p{L}.*)$`, 'u');

/** Parses one location; null when it has no house number or no street. */
export function parseLotLocation(text: string): LotLocation | null {
  const t = text
    .toUpperCase()
    .replace(/\s+#.*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const m = LOCATION_RE.exec(t);
  if (!m) return null;
  const lo = Number.parseInt(m[1]!, 10);
  const hiRaw = m[3] !== undefined ? Number.parseInt(m[3], 10) : lo;
  const key = streetKey(m[4]!);
  if (key === '' || !/\p{L}/u.test(key)) return null;
  const isRange = hiRaw > lo && hiRaw - lo <= MAX_RANGE;
  const rawSuffix = m[2]?.trim() ?? '';
  const suffix = isRange ? '' : /^(\.5|1\/2|½)$/.test(rawSuffix) ? '1/2' : rawSuffix;
  return { streetKey: key, numberLo: lo, numberHi: isRange ? hiRaw : lo, numberSuffix: suffix };
}
