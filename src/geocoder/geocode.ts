// Geocoding inside one place: parsed address -> lot. Three ways, tried in order:
//   1. address table: (place_id, street_key, number) -> row -> parcel (one indexed query, joined);
//   2. street-range interpolation on centrelines -> a point a few metres off the street on the
//      number's side -> the parcel that contains it (exact point-in-polygon);
//   3. fuzzy street name over the place's streets, then 1-2 with the street it names.
// Nothing credible -> failed with suggestions. Never a street or city centroid.
import type { Queryable } from '../db/database.ts';
import type { AppContext } from '../context.ts';
import { bboxOf, distanceM, pointAlongLine, offsetM, pointInMultiPolygon, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';
import type { ParsedAddress } from './parse-address.ts';
import { sqlSource, type AddressRow, type GeoSource, type LocationRow, type SegmentRow } from './place-index.ts';
import { displayStreet, streetKey } from './street-key.ts';
import {
  ASSESSOR_FAR_BAND,
  lotFrontsStreet,
  notFrontingWarning,
  NOT_FRONTING_CONFIDENCE,
  uncheckedWarning,
  UNCHECKED_STREET_CONFIDENCE,
} from './lot-fronts-street.ts';
import { placeStreets, rankStreets, type StreetCandidate } from './street-match.ts';

/** Where a geocode reads: the database (fuzzy names, suggestions) and the place's source (SQL or its hot index). */
interface At {
  ctx: Pick<AppContext, 'db' | 'caches'>;
  db: Queryable;
  placeId: string;
  src: GeoSource;
}

export type MatchType = 'address_table' | 'assessor_table' | 'street_interpolation';

/** An address-table answer on another suffix's row of the number ("No 377A in the address table; matched 377"): a guess, audited apart. */
export const SIBLING_BAND = 'address_sibling';
/** An interpolated answer for an address neither the address table nor the assessor's table lists: audited apart from one whose row lacks only its lot. */
export const UNLISTED_BAND = 'unlisted';
/** The calibration population of a match, when it is not its method's plain one (src/geocoder/calibration.ts). */
export type MatchBand = typeof ASSESSOR_FAR_BAND | typeof SIBLING_BAND | typeof UNLISTED_BAND;

export type GeocodeResult =
  | {
      kind: 'matched';
      matchType: MatchType;
      /** 0..1: 1 is an exact address-table row with its lot; interpolation and fuzzy names score lower. */
      confidence: number;
      matchedAddress: string;
      streetKey: string;
      parcelExtId: string | null;
      point: { lon: number; lat: number } | null;
      warnings: string[];
      /**
       * The calibration population when it is not the method's plain one (src/geocoder/calibration.ts): an
       * assessor's listing on a lot that does not front the named street, an address-table answer on another
       * suffix of the number, an interpolation for an address neither table lists.
       */
      band?: MatchBand;
      /** The lot's distance from the named street could not be measured (no centreline): the method's score before the cap, which calibration keeps. */
      streetUnchecked?: { score: number };
    }
  | { kind: 'failed'; reason: string; suggestions: string[] };

/** Fuzzy street: the best candidate must score at least this ... */
const FUZZY_MIN_SCORE = 0.8;
/** ... and beat the runner-up by this much, or it is not "one clear best". */
const FUZZY_MIN_MARGIN = 0.08;
/** Confidence factor for an answer reached through a guessed street name. */
const FUZZY_CONFIDENCE_FACTOR = 0.75;
/** Distances from the centreline (metres) at which the interpolated point probes for a lot. */
const SIDE_OFFSETS_M = [10, 14, 7, 18, 24];

/**
 * Interpolation confidences: about the share of right lots measured on Cambridge (docs/geocoder.md),
 * and always below 0.8: an interpolated lot is a guess, and a wrong lot said with confidence is the
 * worst failure (the audit of issue 8 found neighbours' lots wrong for addresses on lots created after
 * the parcel layer's vintage).
 */
const NEIGHBOURS_SAME_LOT_CONFIDENCE = 0.75;
const NEIGHBOURS_BETWEEN_CONFIDENCE = 0.7;
const CENTRELINE_CONFIDENCE = 0.5;

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Geocodes a parsed address inside one place (every query filters by placeId). Never throws for unmatched input. */
export async function geocodeInPlace(
  ctx: Pick<AppContext, 'db' | 'caches'>,
  placeId: string,
  parsed: ParsedAddress,
  src: GeoSource = sqlSource(ctx.db, placeId),
): Promise<GeocodeResult> {
  const r = await geocodeReadings({ ctx, db: ctx.db, placeId, src }, parsed);
  if (r.kind !== 'matched') return r;
  return withFrontingCheck(src, parsed, parsed.postcode ? await withPostcodeCheck(src, parsed.postcode, r) : r);
}

/**
 * A lot the assessor's table, an interpolation or another suffix's address-table row gives must front
 * the street the person named. One that does not is answered below 0.5, with the distance as the reason
 * (interpolated lots far from the street were wrong 8 times in 10, another suffix's row's lot 6 times in 14,
 * held out of the address table). An assessor's listing on such a lot is its own calibration band
 * (ASSESSOR_FAR_BAND), which the place's audit may lower, never raise (src/geocoder/calibration.ts). A
 * street the place's street layer does not hold cannot be measured: said, and capped below 0.7. An
 * address-table row of the address itself is the city's own point for it and is not second-guessed.
 */
async function withFrontingCheck(src: GeoSource, parsed: ParsedAddress, r: GeocodeResult): Promise<GeocodeResult> {
  if (r.kind !== 'matched' || (r.matchType === 'address_table' && r.band !== SIBLING_BAND) || !r.parcelExtId) return r;
  const f = await lotFrontsStreet(src, r.parcelExtId, r.streetKey, { rearLot: normSuffix(parsed.numberSuffix) === 'R' });
  if (f.kind === 'unchecked') {
    return {
      ...r,
      confidence: Math.min(r.confidence, UNCHECKED_STREET_CONFIDENCE),
      streetUnchecked: { score: r.confidence },
      warnings: [...r.warnings, uncheckedWarning(r.parcelExtId, f, displayStreet(r.streetKey))],
    };
  }
  if (f.kind !== 'far') return r;
  const assessor = r.matchType === 'assessor_table';
  return {
    ...r,
    confidence: Math.min(r.confidence, NOT_FRONTING_CONFIDENCE),
    ...(assessor ? { band: ASSESSOR_FAR_BAND } : {}),
    warnings: [...r.warnings, notFrontingWarning(r.parcelExtId, f, assessor ? 'assessor' : 'guess')],
  };
}

/**
 * A postcode the place's own data does not hold ("11 Acorn St, Cambridge, MA 02108": 02108 is
 * Boston's) means the city and the postcode disagree about which place was meant. The city was
 * followed (it chose the place), so the match stands, but it is said, and its confidence drops: the
 * lot may be the right one on the wrong street of another town. Unless the matched row or street
 * range already compared its own postcode.
 */
async function withPostcodeCheck(src: GeoSource, postcode: string, r: Extract<GeocodeResult, { kind: 'matched' }>): Promise<GeocodeResult> {
  if (r.warnings.some((w) => w.includes(' postcode '))) return r;
  const held = await src.postcodes();
  if (held.size === 0) return r;
  for (const pc of held) if (samePostcode(pc, postcode)) return r;
  const listed = [...held].sort();
  const shown = listed.length > 8 ? `${listed.slice(0, 8).join(', ')}, ...` : listed.join(', ');
  return {
    ...r,
    confidence: round3(r.confidence - POSTCODE_MISMATCH_PENALTY),
    warnings: [
      ...r.warnings,
      `The postcode ${postcode.toUpperCase()} is not one this place's data holds (${shown}); the city named was followed. If the postcode's town was meant, name that town instead.`,
    ],
  };
}

/** What a postcode outside the place costs a match's confidence (a mismatch on the matched row itself costs 0.1). */
const POSTCODE_MISMATCH_PENALTY = 0.2;

async function geocodeReadings(at: At, parsed: ParsedAddress): Promise<GeocodeResult> {
  const primary = await geocodeReading(at, parsed);
  if (!parsed.alternatives?.length) return primary;
  if (primary.kind === 'matched' && primary.matchType === 'address_table' && primary.confidence >= 0.9) return primary;
  // An ambiguous number ("4-123" without a country): another reading that hits the address table wins.
  for (const alt of parsed.alternatives) {
    const r = await geocodeReading(at, { ...parsed, number: alt.number, numberSuffix: alt.numberSuffix, unit: alt.unit, alternatives: [] });
    if (r.kind !== 'matched' || r.matchType !== 'address_table') continue;
    if (primary.kind === 'matched' && primary.matchType === 'address_table' && primary.confidence >= r.confidence) continue;
    return { ...r, warnings: alt.note ? [alt.note, ...r.warnings] : r.warnings };
  }
  return primary;
}

async function geocodeReading(at: At, parsed: ParsedAddress): Promise<GeocodeResult> {
  if (!parsed.streetKey) return { kind: 'failed', reason: 'the address has no street', suggestions: [] };
  const streetForPeople = parsed.street ?? displayStreet(parsed.streetKey);
  if (parsed.number === null) {
    return {
      kind: 'failed',
      reason: `"${streetForPeople}" has no house number, and a street alone is not a site`,
      suggestions: [],
    };
  }
  const number = Number.parseInt(parsed.number, 10);
  if (!Number.isSafeInteger(number) || number > 2_147_483_647) {
    return { kind: 'failed', reason: `house number ${parsed.number} is out of range`, suggestions: [] };
  }

  const direct = await matchStreet(at, parsed, parsed.streetKey, number);
  if (direct.kind === 'matched' || direct.streetKnown) return strip(direct);

  // "129 T Carter Trl": a lone letter read as the number's suffix may be the street's initial.
  if (parsed.numberSuffix && /^[A-Z]$/.test(parsed.numberSuffix)) {
    const joined = streetKey(`${parsed.numberSuffix} ${parsed.streetKey}`);
    const r = await matchStreet(at, { ...parsed, numberSuffix: null, streetKey: joined }, joined, number);
    if (r.kind === 'matched') {
      return {
        ...stripMatched(r),
        warnings: [
          `Read "${parsed.numberSuffix}" as part of the street name ${r.matchedAddress.replace(/^\S+\s+/, '')}, not as a suffix of number ${parsed.number}.`,
          ...r.warnings,
        ],
      };
    }
    if (r.streetKnown) return strip(r);
  }

  // Letters outside the place's alphabet (look-alikes such as Cyrillic "М") are not guessed at.
  if (!/^[\p{Script=Latin}\p{N}\s/-]*$/u.test(parsed.streetKey)) {
    return { kind: 'failed', reason: `no street "${streetForPeople}" in this place; its name has letters outside the Latin alphabet`, suggestions: [] };
  }
  // The street key is not a street of this place: a city left in comma-less input, or a misspelling.
  const streets = await placeStreets(at.ctx, at.placeId);
  if (parsed.city === null) {
    const words = parsed.streetKey.split(' ');
    for (let n = words.length - 1; n >= 1; n--) {
      const prefix = words.slice(0, n).join(' ');
      if (!streets.byKey.has(prefix)) continue;
      const r = await matchStreet(at, parsed, prefix, number);
      const extra = `Read "${displayStreet(words.slice(n).join(' '))}" as the city, not part of the street.`;
      if (r.kind === 'matched') return { ...stripMatched(r), confidence: round3(r.confidence * 0.95), warnings: [extra, ...r.warnings] };
      return strip(r);
    }
  }

  const ranked = rankStreets(parsed.streetKey, streets, 6);
  const best = ranked[0];
  const second = ranked[1];
  if (best && best.score >= FUZZY_MIN_SCORE && (!second || best.score - second.score >= FUZZY_MIN_MARGIN)) {
    const r = await matchStreet(at, parsed, best.street.key, number);
    if (r.kind === 'matched') {
      return {
        ...stripMatched(r),
        confidence: round3(Math.min(0.8, r.confidence * FUZZY_CONFIDENCE_FACTOR * best.score)),
        warnings: [`No street "${streetForPeople}" here; read it as "${best.street.display}".`, ...r.warnings],
      };
    }
    return { kind: 'failed', reason: r.reason, suggestions: r.suggestions.length ? r.suggestions : suggestionsOf(ranked, parsed) };
  }
  return {
    kind: 'failed',
    reason: ranked.length
      ? `no street "${streetForPeople}" in this place, and no single street is a clear match`
      : `no street "${streetForPeople}" in this place`,
    suggestions: suggestionsOf(ranked, parsed),
  };
}

function suggestionsOf(ranked: readonly StreetCandidate[], parsed: ParsedAddress): string[] {
  const num = parsed.number ? `${numberText(parsed.number, parsed.numberSuffix)} ` : '';
  return ranked.slice(0, 5).map((c) => `${num}${c.street.display}`);
}

/** A number with its suffix as people write it: "5B" (a letter joins), "11-13" and "6-1/2" (a number joins by a hyphen). */
function numberAsTyped(number: string, suffix: string): string {
  return /^[A-Z]+$/i.test(suffix) ? `${number}${suffix}` : `${number}-${suffix}`;
}

/** "18-2", "56-R", "6-1/2": the address table's way, unambiguous for numeric suffixes. */
function numberText(number: string | number, suffix: string | null): string {
  return suffix ? `${number}-${suffix}` : String(number);
}

type StreetOutcome =
  | (Extract<GeocodeResult, { kind: 'matched' }> & { streetKnown: true })
  | { kind: 'failed'; reason: string; suggestions: string[]; streetKnown: boolean };

type Matched = Extract<GeocodeResult, { kind: 'matched' }>;

function strip(r: StreetOutcome): GeocodeResult {
  return r.kind === 'matched' ? stripMatched(r) : { kind: 'failed', reason: r.reason, suggestions: r.suggestions };
}

function stripMatched(r: Matched & { streetKnown: true }): Matched {
  const { streetKnown: _known, ...rest } = r;
  return rest;
}

/** Address table, then interpolation, for one street key. */
async function matchStreet(at: At, parsed: ParsedAddress, key: string, number: number): Promise<StreetOutcome> {
  const rows = await at.src.addressRows(key, number);
  const warnings: string[] = [];
  // What the assessor's table lists at this number, by suffix: a disagreement with it is said.
  const locations = rows.length ? await at.src.locationRows(key, number) : null; // read once: matchLotLocation reuses them
  const located = locations ? locations.filter((r) => r.number_lo === r.number_hi) : [];
  const assessorAt = (suffix: string) => located.filter((r) => locationSuffix(r, number) === suffix);
  const exact = pickAddressRow(rows, parsed, warnings);
  if (exact) {
    let confidence = exact.confidence;
    const pc = exact.row.postcode;
    if (parsed.postcode && pc && !samePostcode(pc, parsed.postcode)) {
      warnings.push(`The address table gives postcode ${pc}, not ${parsed.postcode}.`);
      confidence -= 0.1;
    }
    const suffix = normSuffix(exact.row.number_suffix);
    const candidates = new Set(rows.filter((r) => r.has_parcel && normSuffix(r.number_suffix) === suffix).map((r) => r.parcel_ext_id!));
    const other = assessorElsewhere(exact.row, candidates, assessorAt(suffix));
    if (other) {
      warnings.push(other);
      confidence = Math.min(confidence, SOURCES_DISAGREE_CONFIDENCE);
    }
    const lon = exact.row.lon ?? exact.row.inside_lon;
    const lat = exact.row.lat ?? exact.row.inside_lat;
    return {
      kind: 'matched',
      matchType: 'address_table',
      confidence: round3(confidence),
      matchedAddress: exact.row.full_address,
      streetKey: key,
      parcelExtId: exact.row.parcel_ext_id,
      point: lon !== null && lat !== null ? { lon, lat } : null,
      warnings,
      streetKnown: true,
      // Another suffix's row stands in for the address: a guess of its own band, checked against the street.
      ...(exact.sibling ? { band: SIBLING_BAND } : {}),
    };
  }
  // The address's own rows (same suffix), when the table has it but not its lot.
  const own = ownRows(rows, parsed);
  // The town's own table puts the address in a street or public way: there is no private lot to give.
  if (own.length > 0 && own.every((r) => r.in_right_of_way)) {
    return {
      kind: 'failed',
      reason: `${own[0]!.full_address} is in the address table as a place in a street or public way (a fixture such as a cabinet or a plaza), not on a lot, so no lot is answered for it`,
      suggestions: [],
      streetKnown: true,
    };
  }
  let lotMissing: string | null = null;
  if (own.length > 0) {
    const ids = [...new Set(own.map((r) => r.parcel_ext_id).filter((x): x is string => !!x))];
    lotMissing = ids.length
      ? `${own[0]!.full_address} is in the address table, but its lot (${ids.join(', ')}) is not in the parcel layer`
      : `${own[0]!.full_address} is in the address table without a lot`;
  }
  const assessed = await matchLotLocation(at, parsed, key, number, own[0]?.full_address ?? null, lotMissing, locations);
  if (assessed) return assessed;
  if (lotMissing) warnings.push(`${lotMissing}; located along the street instead.`);
  // An address neither table lists is interpolated in a calibration band of its own (docs/audit.md).
  const unlisted: { band?: MatchBand } = lotMissing ? {} : { band: UNLISTED_BAND };
  const between = await interpolateBetweenNeighbours(at, parsed, key, number, warnings);
  if (between) return { ...between, ...unlisted };
  const interp = await interpolate(at, parsed, key, number, warnings);
  if (interp.kind === 'matched') return { ...interp, ...unlisted };
  if (rows.length > 0) {
    // The street exists (the address table has this very number): never say it does not.
    const head = lotMissing ?? `${rows[0]!.full_address} is in the address table, but not as written and not with a lot in the parcel layer`;
    return {
      kind: 'failed',
      reason: `${head}, and it could not be located along the street either (${interp.streetKnown ? interp.reason : `no centreline with address ranges for ${rows[0]!.street_display}`})`,
      suggestions: [],
      streetKnown: true,
    };
  }
  if (!interp.streetKnown) {
    // the key may still be a street of the address table with other numbers
    const near = await nearbyNumbers(at.db, at.placeId, key, number);
    if (near.length > 0) {
      return {
        kind: 'failed',
        reason: `no number ${number} on ${near[0]!.street_display} in the address table, and no street range holds it`,
        suggestions: near.map((r) => r.full_address),
        streetKnown: true,
      };
    }
    return { kind: 'failed', reason: interp.reason, suggestions: [], streetKnown: false };
  }
  const near = await nearbyNumbers(at.db, at.placeId, key, number);
  return { ...interp, suggestions: near.map((r) => r.full_address) };
}

/** Rows naming the address as written: its suffix; for a suffix not in the table, its plain number. */
function ownRows(rows: readonly AddressRow[], parsed: ParsedAddress): AddressRow[] {
  const want = normSuffix(parsed.numberSuffix);
  const named = rows.filter((r) => normSuffix(r.number_suffix) === want);
  if (named.length > 0 || want === '') return named;
  return rows.filter((r) => normSuffix(r.number_suffix) === '');
}

/** Assessor-location confidences (docs/geocoder.md): the lot the assessor lists at that very number, or in a range of numbers. */
const LOCATION_EXACT_CONFIDENCE = 0.9;
const LOCATION_RANGE_CONFIDENCE = 0.85;
/** The assessor lists the plain number, the input has a suffix (12A): probably the same building, not certain. */
const LOCATION_PLAIN_FOR_SUFFIX_CONFIDENCE = 0.75;
/** The assessor lists the number on several lots: one is chosen, and the answer says it is a guess. */
const LOCATION_SEVERAL_LOTS_CONFIDENCE = 0.6;

/**
 * The lot a parcel-attribute source (Cambridge: the FY2014 assessor table) lists at this address, for
 * addresses the address table cannot tie to a lot of the parcel layer. Same vintage as the parcels, so
 * the lot exists; a wrong suffix is never taken ("22" is not "22.5").
 */
async function matchLotLocation(
  at: At,
  parsed: ParsedAddress,
  key: string,
  number: number,
  ownFullAddress: string | null,
  lotMissing: string | null,
  locations: readonly LocationRow[] | null,
): Promise<(Matched & { streetKnown: true }) | null> {
  const rows = locations ?? (await at.src.locationRows(key, number));
  if (rows.length === 0) return null;
  const want = normSuffix(parsed.numberSuffix);
  const single = rows.filter((r) => r.number_lo === r.number_hi);
  const ranges = rows.filter((r) => r.number_lo !== r.number_hi && (r.number_lo % 2 !== r.number_hi % 2 || (number - r.number_lo) % 2 === 0));
  const suffixOf = (r: LocationRow) => locationSuffix(r, number);
  const tiers: { pool: LocationRow[]; confidence: number; how: string }[] = [
    { pool: single.filter((r) => suffixOf(r) === want), confidence: LOCATION_EXACT_CONFIDENCE, how: 'at this number' },
    { pool: want === '' ? ranges : [], confidence: LOCATION_RANGE_CONFIDENCE, how: 'in a range of numbers that holds this one' },
    {
      pool: want !== '' ? [...single.filter((r) => suffixOf(r) === ''), ...ranges] : [],
      confidence: LOCATION_PLAIN_FOR_SUFFIX_CONFIDENCE,
      how: `at number ${number} without the suffix ${parsed.numberSuffix}`,
    },
    // Only suffixed rows ("581-1", "581-2") for a plain number: one of them, said to be a guess.
    { pool: want === '' ? single : [], confidence: LOCATION_PLAIN_FOR_SUFFIX_CONFIDENCE, how: `at number ${number} only with suffixes` },
  ];
  const tier = tiers.find((t) => t.pool.length > 0);
  if (!tier) return null;
  const counts = new Map<string, LocationRow[]>();
  for (const r of tier.pool) counts.set(r.parcel_ext_id, [...(counts.get(r.parcel_ext_id) ?? []), r]);
  const ranked = [...counts.entries()].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
  const [lotId, lotRows] = ranked[0]!;
  const row = lotRows[0]!;
  const warnings: string[] = [];
  if (lotMissing) warnings.push(`${lotMissing}.`);
  let confidence = tier.confidence;
  const listed = `The ${row.source} table lists "${row.location}" ${tier.how}`;
  if (ranked.length > 1) {
    confidence = Math.min(confidence, LOCATION_SEVERAL_LOTS_CONFIDENCE);
    warnings.push(`${listed}, on several lots (${ranked.map((e) => e[0]).join(', ')}); using ${lotId}, which it lists most often.`);
  } else {
    warnings.push(`${listed}, on lot ${lotId}; that lot is used.`);
  }
  const display = displayStreet(key);
  return {
    kind: 'matched',
    matchType: 'assessor_table',
    confidence,
    matchedAddress: ownFullAddress ?? `${numberText(number, parsed.numberSuffix)} ${display}`,
    streetKey: key,
    parcelExtId: lotId,
    point: { lon: row.inside_lon, lat: row.inside_lat },
    warnings,
    streetKnown: true,
  };
}

/** The address table and the assessor's table name different lots for the address: said, with both. */
const SOURCES_DISAGREE_CONFIDENCE = 0.8;

/**
 * When the assessor's table lists this very address (same number and suffix) only on lots the address
 * table never gives it, the sentence that says so, naming both; null when they share a lot or it is silent.
 */
function assessorElsewhere(row: AddressRow, candidates: ReadonlySet<string>, rows: readonly LocationRow[]): string | null {
  if (!row.parcel_ext_id || rows.length === 0 || rows.some((r) => candidates.has(r.parcel_ext_id))) return null;
  const lots = [...new Set(rows.map((r) => r.parcel_ext_id))].sort();
  return `The address table puts ${row.full_address} on lot ${row.parcel_ext_id}, but the ${rows[0]!.source} table lists "${rows[0]!.location}" on ${lots.length > 1 ? `lots ${lots.join(', ')}` : `lot ${lots[0]}`}; the address table's lot is used. Check which lot is meant.`;
}

/**
 * A location row's suffix: its own column, or the one its text carries ("9-4 BELLIS CIR" at number 9:
 * "4"). The assessor writes unit-suffixed numbers that way, and the exact row must win over a plain one.
 */
function locationSuffix(r: LocationRow, number: number): string {
  const own = normSuffix(r.number_suffix);
  if (own) return own;
  const m = /^\s*(\d+)\s*-\s*([0-9A-Z/]+)\s/i.exec(r.location);
  return m && Number(m[1]) === number ? normSuffix(m[2]) : '';
}

async function nearbyNumbers(db: Queryable, placeId: string, key: string, number: number) {
  return db.query<{ full_address: string; street_display: string }>(
    `SELECT full_address, street_display FROM (
       SELECT DISTINCT ON (full_address) full_address, street_display, abs(number - $3) AS gap
         FROM addresses WHERE place_id = $1 AND street_key = $2
        ORDER BY full_address) s
      ORDER BY gap, full_address LIMIT 5`,
    [placeId, key, number],
  );
}

/** Among the rows for (street, number), the one the input names; null when none has a lot. */
function pickAddressRow(
  rows: readonly AddressRow[],
  parsed: ParsedAddress,
  warnings: string[],
): { row: AddressRow; confidence: number; sibling: boolean } | null {
  const withLot = rows.filter((r) => r.has_parcel);
  if (withLot.length === 0) return null;
  const wantSuffix = normSuffix(parsed.numberSuffix);
  // The address's own row exists but its lot is not in the parcel layer: another number's row
  // ("22-1/2" for "22") is a different address, not a stand-in (it gave wrong lots at confidence 0.8).
  const own = ownRows(rows, parsed);
  if (own.length > 0 && !own.some((r) => r.has_parcel)) return null;
  let pool = withLot.filter((r) => normSuffix(r.number_suffix) === wantSuffix);
  let confidence = 1;
  const sibling = pool.length === 0;
  if (sibling) {
    const plain = withLot.filter((r) => normSuffix(r.number_suffix) === '');
    pool = plain.length ? plain : withLot;
    warnings.push(
      wantSuffix
        ? `No ${numberAsTyped(parsed.number!, parsed.numberSuffix!)} in the address table; matched ${pool[0]!.full_address}.`
        : `No plain number ${parsed.number} in the address table; matched ${pool[0]!.full_address}.`,
    );
    confidence = 0.8;
  }
  if (parsed.unit) {
    const wantUnit = parsed.unit.toUpperCase();
    const byUnit = pool.filter((r) => r.unit.toUpperCase() === wantUnit);
    if (byUnit.length > 0) pool = byUnit;
  }
  // Several lots for one address (rows per building / point of interest): the most frequent lot wins.
  const counts = new Map<string, number>();
  for (const r of pool) counts.set(r.parcel_ext_id!, (counts.get(r.parcel_ext_id!) ?? 0) + 1);
  if (counts.size > 1) {
    const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const chosen = ranked[0]![0];
    warnings.push(`${pool[0]!.full_address} is on several lots (${ranked.map((e) => e[0]).join(', ')}); using ${chosen}.`);
    pool = pool.filter((r) => r.parcel_ext_id === chosen);
    confidence -= 0.1;
  }
  return { row: pool[0]!, confidence, sibling };
}

/** Sources write "02139-4307" or "V8W1A1"; the parser gives "02139" / "V8W 1A1". */
function samePostcode(source: string, parsed: string): boolean {
  const a = source.toUpperCase().replace(/[\s-]/g, '');
  const b = parsed.toUpperCase().replace(/[\s-]/g, '');
  return /^\d/.test(b) ? a.slice(0, 5) === b : a === b;
}

function normSuffix(s: string | null | undefined): string {
  return (s ?? '').toUpperCase().replace(/[^A-Z0-9/]/g, '');
}

/** Neighbours further apart than this (in house numbers) say little about where a number lies between them. */
const MAX_NEIGHBOUR_GAP = 40;
/** Neighbour lots further apart than this (metres) are probably on different blocks. */
const MAX_NEIGHBOUR_DISTANCE_M = 250;

/**
 * Interpolation between the nearest known numbers on the same street and side (same parity), using
 * their lots: when both neighbours share a lot the number is on it; otherwise the point between their
 * lots, in proportion to the numbers, picks the lot. Far better than the centreline range when the
 * address table knows the block (measured in docs/geocoder.md).
 */
async function interpolateBetweenNeighbours(
  at: At,
  parsed: ParsedAddress,
  key: string,
  number: number,
  warnings: string[],
): Promise<(Matched & { streetKnown: true }) | null> {
  const rows = await at.src.neighbourRows(key, number, MAX_NEIGHBOUR_GAP);
  const lo = rows.find((r) => r.number < number);
  const hi = rows.find((r) => r.number > number);
  if (!lo || !hi) return null;
  const a: Position = [lo.inside_lon, lo.inside_lat];
  const b: Position = [hi.inside_lon, hi.inside_lat];
  if (distanceM(a, b) > MAX_NEIGHBOUR_DISTANCE_M) return null;
  let parcelExtId: string;
  let point: Position;
  let confidence: number;
  if (lo.parcel_ext_id === hi.parcel_ext_id) {
    parcelExtId = lo.parcel_ext_id;
    point = a;
    confidence = NEIGHBOURS_SAME_LOT_CONFIDENCE;
  } else {
    const f = (number - lo.number) / (hi.number - lo.number);
    const p: Position = [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f];
    const found = await parcelContaining(at, [p]);
    if (!found) return null;
    parcelExtId = found.parcelExtId;
    point = found.point;
    confidence = NEIGHBOURS_BETWEEN_CONFIDENCE;
  }
  const w = [...warnings, `Not in the address table; located between ${lo.number} and ${hi.number} ${lo.street_display}, whose lots are known.`];
  return {
    kind: 'matched',
    matchType: 'street_interpolation',
    confidence,
    matchedAddress: `${numberText(number, parsed.numberSuffix)} ${lo.street_display}`,
    streetKey: key,
    parcelExtId,
    point: { lon: point[0], lat: point[1] },
    warnings: w,
    streetKnown: true,
  };
}

interface SideHit {
  seg: SegmentRow;
  side: 'L' | 'R';
  t: number;
  span: number;
}

type InterpOutcome =
  | (Extract<GeocodeResult, { kind: 'matched' }> & { streetKnown: true })
  | { kind: 'failed'; reason: string; suggestions: string[]; streetKnown: boolean };

async function interpolate(at: At, parsed: ParsedAddress, key: string, number: number, warnings: string[]): Promise<InterpOutcome> {
  const segs = await at.src.segments(key);
  const display = segs[0]?.street_display ?? displayStreet(key);
  if (segs.length === 0) return { kind: 'failed', reason: `no street "${displayStreet(key)}" in this place`, suggestions: [], streetKnown: false };

  const hits: SideHit[] = [];
  for (const seg of segs) {
    for (const side of ['L', 'R'] as const) {
      const from = side === 'L' ? seg.l_from : seg.r_from;
      const to = side === 'L' ? seg.l_to : seg.r_to;
      const h = sideHolds(from, to, number);
      if (h) hits.push({ seg, side, ...h });
    }
  }
  if (hits.length === 0) {
    return { kind: 'failed', reason: `no address range on ${display} holds number ${number}`, suggestions: [], streetKnown: true };
  }
  // The tightest range places the number most precisely.
  hits.sort((a, b) => a.span - b.span || (a.seg.segment_id < b.seg.segment_id ? -1 : 1));

  for (const hit of hits.slice(0, 4)) {
    const line = lineOf(hit.seg.geom);
    if (!line || line.length < 2) continue;
    const { point, dir } = pointAlongLine(line, hit.t);
    // left of travel is (-dy, dx); right is (dy, -dx)
    const nx = hit.side === 'L' ? -dir[1] : dir[1];
    const ny = hit.side === 'L' ? dir[0] : -dir[0];
    const probes: Position[] = SIDE_OFFSETS_M.map((d) => offsetM(point, nx * d, ny * d));
    const found = await parcelContaining(at, probes);
    if (!found) continue;
    const w = [...warnings];
    w.push(
      `Located by interpolating number ${number} along ${display} (range ${hit.side === 'L' ? `${hit.seg.l_from}-${hit.seg.l_to}` : `${hit.seg.r_from}-${hit.seg.r_to}`}, ${hit.side === 'L' ? 'left' : 'right'} side); the lot is the one beside that point.`,
    );
    let confidence = CENTRELINE_CONFIDENCE;
    const zip = hit.side === 'L' ? hit.seg.zip_left : hit.seg.zip_right;
    if (parsed.postcode && zip && !samePostcode(zip, parsed.postcode)) {
      confidence -= 0.1;
      w.push(`The street range is in postcode ${zip}, not ${parsed.postcode}.`);
    }
    return {
      kind: 'matched',
      matchType: 'street_interpolation',
      confidence: round3(confidence),
      matchedAddress: `${numberText(number, parsed.numberSuffix)} ${display}`,
      streetKey: key,
      parcelExtId: found.parcelExtId,
      point: { lon: found.point[0], lat: found.point[1] },
      warnings: w,
      streetKnown: true,
    };
  }
  return {
    kind: 'failed',
    reason: `number ${number} on ${display} falls in a street range, but no lot lies beside the interpolated point`,
    suggestions: [],
    streetKnown: true,
  };
}

/**
 * Whether a side's range [from, to] holds n; t is n's position along the segment's direction. A range
 * whose ends share a parity holds only numbers of that parity: the others are across the street, and
 * on Cambridge a wrong-parity hit found the right lot 8 % of the time.
 */
function sideHolds(from: number | null, to: number | null, n: number): { t: number; span: number } | null {
  if (from === null || to === null || from < 0 || to < 0) return null;
  if (from === 0 && to === 0) return null;
  const lo = Math.min(from, to);
  const hi = Math.max(from, to);
  if (n < lo || n > hi) return null;
  const t = hi === lo ? 0.5 : (n - from) / (to - from);
  const rangeParity = from % 2 === to % 2 ? from % 2 : null;
  if (rangeParity !== null && n % 2 !== rangeParity) return null;
  // keep away from the very ends: corners belong to the cross street's lots as often as not
  return { t: Math.min(0.92, Math.max(0.08, t)), span: hi - lo };
}

function lineOf(geom: unknown): Position[] | null {
  const g = typeof geom === 'string' ? (JSON.parse(geom) as unknown) : geom;
  if (!Array.isArray(g) || g.length === 0) return null;
  if (Array.isArray(g[0]) && Array.isArray((g[0] as unknown[])[0])) return (g as Position[][]).flat();
  return g as Position[];
}

/** The first probe (in order) that lies inside a lot, with that lot. Candidates by bbox on the GiST index. */
async function parcelContaining(at: At, probes: Position[]): Promise<{ parcelExtId: string; point: Position } | null> {
  const rows = await at.src.parcelsInBox(bboxOf(probes));
  if (rows.length === 0) return null;
  const polys = rows.map((r) => ({ id: r.parcel_ext_id, mp: (typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords }));
  for (const p of probes) {
    for (const poly of polys) {
      if (pointInMultiPolygon(p, poly.mp)) return { parcelExtId: poly.id, point: p };
    }
  }
  return null;
}
