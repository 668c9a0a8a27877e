// The postcodes a place holds (place_postcodes): the ones its own records carry in a real share, never
// one a few stray rows carry. A held postcode lets an address with no city resolve to the place
// (src/places/resolve-place.ts) and is the list a mismatching postcode is compared with
// (src/geocoder/geocode.ts), so one assessor row typed with Brighton's 02135 must not make "02135"
// mean Somerville. Measured on the default places (docs/data.md, "Postcodes"): the real ones carry
// 4.4 % (Cambridge 02142) to 42 % of the records; the strays 0.057 % to 0.076 % (1 to 4 records).

/** A postcode joins its place when at least this share of the place's postcode-carrying records carry it ... */
const MIN_POSTCODE_SHARE = 0.005;
/** ... and at least this many of them (a share of a handful of records says little). */
const MIN_POSTCODE_RECORDS = 5;

const POSTCODE_SHAPE = /^[0-9A-Z][0-9A-Z -]{2,9}$/i;

export interface PlacePostcodes {
  /** The postcodes the place holds, sorted. */
  kept: string[];
  /** Postcodes some records carry but too few to be the place's, with how many carry them (sorted). */
  left: { postcode: string; records: number }[];
  /** Records (address rows and street-segment sides) that carry a postcode. */
  records: number;
}

/**
 * The place's postcodes from its address rows and its street segments' left and right ZIPs: each
 * record (an address row, a segment side) counts once for its postcode.
 */
export function placePostcodes(
  addresses: Iterable<{ postcode?: string | null }>,
  segments: Iterable<{ zipLeft?: string | null; zipRight?: string | null }>,
): PlacePostcodes {
  const counts = new Map<string, number>();
  let records = 0;
  const add = (z: string | null | undefined) => {
    if (!z || !POSTCODE_SHAPE.test(z)) return;
    const pc = z.toUpperCase();
    counts.set(pc, (counts.get(pc) ?? 0) + 1);
    records++;
  };
  for (const s of segments) {
    add(s.zipLeft);
    add(s.zipRight);
  }
  for (const a of addresses) add(a.postcode);
  const kept: string[] = [];
  const left: PlacePostcodes['left'] = [];
  for (const [postcode, n] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    if (n >= MIN_POSTCODE_RECORDS && n >= MIN_POSTCODE_SHARE * records) kept.push(postcode);
    else left.push({ postcode, records: n });
  }
  return { kept, left, records };
}
