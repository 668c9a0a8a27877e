// Confidence that means "share right" in each place (issue 27): the audit answers every address whose
// lot the town's own table gives with that address held out of the address table (so the assessor's
// table or the street interpolation must find it), counts how often each method is right in each
// confidence band, and stores the table with the audit. Answers from those methods then report the
// measured share instead of the method's own score, and say so. An exact address-table match keeps its
// rule-based confidence (the audit measures it directly, docs/audit.md); one on another suffix's row of the
// number (SIBLING_BAND) is a guess, measured in rows of its own. Interpolations for addresses neither table
// lists (UNLISTED_BAND) are measured apart too: with the address held out of both tables. A guess whose
// street the street layer lacks stays capped below 0.7 whatever its band measured (lot-fronts-street.ts).
import type { AppContext } from '../context.ts';
import { cacheKind, type CacheDoors } from '../caches.ts';
import type { GeoSource } from './place-index.ts';
import { SIBLING_BAND, UNLISTED_BAND, type GeocodeResult, type MatchType } from './geocode.ts';
import { ASSESSOR_FAR_BAND, UNCHECKED_STREET_CONFIDENCE } from './lot-fronts-street.ts';

/** A band needs at least this many held-out answers before its share replaces the method's score. */
export const MIN_CALIBRATION_SAMPLE = 30;

export interface HeldOutRow {
  matchType: Exclude<MatchType, 'address_table'> | 'address_table';
  band: string;
  min: number;
  max: number;
  answered: number;
  right: number;
  shareRight: number | null;
  meanConfidence: number | null;
  /**
   * A population apart from the method's plain one: answers on another suffix's address-table row
   * (SIBLING_BAND), or interpolations with the address held out of the assessor's table as well
   * (UNLISTED_BAND). Absent for the plain rows (and in audits before version 5).
   */
  population?: typeof SIBLING_BAND | typeof UNLISTED_BAND;
}

export interface PlaceCalibration {
  /** When the audit that measured it ran. */
  generatedAt: string;
  /** Held-out addresses answered in all. */
  heldOut: number;
  /** Of them, answered again held out of the assessor's table too (the UNLISTED_BAND rows; audit version 5). */
  heldOutOfBoth?: number;
  rows: HeldOutRow[];
}

/** The place's source with one address taken out of the address table (its rows, whatever their lot). */
export function withoutAddress(src: GeoSource, fullAddress: string): GeoSource {
  return { ...bound(src), addressRows: async (key, number) => (await src.addressRows(key, number)).filter((r) => r.full_address !== fullAddress) };
}

/**
 * The place's source with the assessor's listings at one number of one street taken out: with
 * withoutAddress, an address neither table lists (the UNLISTED_BAND rows' hold-out).
 */
export function withoutListing(src: GeoSource, streetKey: string, number: number): GeoSource {
  return { ...bound(src), locationRows: async (key, n) => (key === streetKey && n === number ? [] : src.locationRows(key, n)) };
}

/** The source's reads as plain functions (a class instance's methods keep their object). */
function bound(src: GeoSource): GeoSource {
  return {
    kind: src.kind,
    addressRows: (key, number) => src.addressRows(key, number),
    locationRows: (key, number) => src.locationRows(key, number),
    neighbourRows: (key, number, gap) => src.neighbourRows(key, number, gap),
    segments: (key) => src.segments(key),
    hasStreetLayer: () => src.hasStreetLayer(),
    parcelsInBox: (box) => src.parcelsInBox(box),
    lot: (id) => src.lot(id),
    lotHasZone: (id) => src.lotHasZone(id),
    postcodes: () => src.postcodes(),
  };
}

const HOW: Record<MatchType, string> = {
  address_table: 'address-table',
  assessor_table: "assessor's-table",
  street_interpolation: 'interpolated',
};

type Matched = Extract<GeocodeResult, { kind: 'matched' }>;
type Population = HeldOutRow['population'];

/** The match's calibration population and its words in a note. */
function populationOf(g: Matched): { population: Population; how: string; heldOutOf: string } {
  if (g.band === SIBLING_BAND)
    return { population: SIBLING_BAND, how: "address-table answers on another suffix's row of the number", heldOutOf: 'the address table' };
  if (g.band === UNLISTED_BAND && g.matchType === 'street_interpolation') {
    return {
      population: UNLISTED_BAND,
      how: 'interpolated answers for addresses neither table lists',
      heldOutOf: "the address table and the assessor's table",
    };
  }
  return { population: undefined, how: `${HOW[g.matchType]} answers`, heldOutOf: 'the address table' };
}

/**
 * The match with its confidence replaced by the share right the place's audit measured for its method
 * and band, with a note that says so; unchanged for an exact address-table match, a place without a
 * calibration, or a band with too few held-out answers (the note says which).
 */
export function calibrateMatch(g: Matched, cal: PlaceCalibration | null): Matched {
  if ((g.matchType === 'address_table' && g.band !== SIBLING_BAND) || !cal) return g;
  const day = cal.generatedAt.slice(0, 10);
  if (g.band === ASSESSOR_FAR_BAND) return calibrateFar(g, cal, day);
  const { population, how, heldOutOf } = populationOf(g);
  // A guess capped for an unmeasurable street is looked up by its method's score, and capped again after.
  const score = g.streetUnchecked?.score ?? g.confidence;
  const row = cal.rows.find(
    (r) =>
      r.band !== ASSESSOR_FAR_BAND &&
      r.matchType === g.matchType &&
      r.population === population &&
      score >= r.min &&
      (score < r.max || (r.max === 1 && score === 1)),
  );
  if (!row || row.answered < MIN_CALIBRATION_SAMPLE || row.shareRight === null) {
    const n = row?.answered ?? 0;
    return {
      ...g,
      warnings: [
        ...g.warnings,
        `Confidence ${g.confidence} is the method's own score: this place's audit (${day}) held out too few ${how} in this band (${n}, fewer than ${MIN_CALIBRATION_SAMPLE}) to measure it.`,
      ],
    };
  }
  const measured = Math.round(row.shareRight * 100) / 100;
  const said = `this place's audit (${day}) measured for ${how} scored ${row.band} (${row.right} of ${row.answered} addresses held out of ${heldOutOf})`;
  if (g.streetUnchecked && measured > UNCHECKED_STREET_CONFIDENCE) {
    return {
      ...g,
      confidence: UNCHECKED_STREET_CONFIDENCE,
      warnings: [
        ...g.warnings,
        `Confidence ${UNCHECKED_STREET_CONFIDENCE} is the cap for a lot whose distance from the street could not be checked; the share of right lots ${said} was ${measured}, the method's own score ${score}.`,
      ],
    };
  }
  return {
    ...g,
    confidence: measured,
    warnings: [...g.warnings, `Confidence ${measured} is the share of right lots ${said}; the method's own score was ${score}.`],
  };
}

/**
 * An assessor's listing on a lot that does not front the named street: its own band, whatever its score,
 * and never above the cap (0.45, below the 0.5 a sure match needs; its warning gives the distance). The
 * audit's measure of the band can lower it, never raise it: the audit holds out addresses the address
 * table gives a lot, while the band answers in use are addresses it gives none (as "1 Monsignor Obrien
 * Hwy"), which no held-out answer measures. The measured share is said either way.
 */
function calibrateFar(g: Matched, cal: PlaceCalibration, day: string): Matched {
  const row = cal.rows.find((r) => r.matchType === 'assessor_table' && r.band === ASSESSOR_FAR_BAND);
  if (!row || row.answered < MIN_CALIBRATION_SAMPLE || row.shareRight === null) {
    const n = row?.answered ?? 0;
    return {
      ...g,
      warnings: [
        ...g.warnings,
        `Confidence ${g.confidence} is the cap for an assessor's listing on a lot that does not front the named street: this place's audit (${day}) held out too few such answers (${n}, fewer than ${MIN_CALIBRATION_SAMPLE}) to measure them.`,
      ],
    };
  }
  const measured = Math.round(row.shareRight * 100) / 100;
  if (measured < g.confidence) {
    return {
      ...g,
      confidence: measured,
      warnings: [
        ...g.warnings,
        `Confidence ${measured} is the share of right lots this place's audit (${day}) measured for assessor's-table answers on lots that do not front the named street (${row.right} of ${row.answered} addresses held out of the address table), below the band's cap of ${g.confidence}.`,
      ],
    };
  }
  return {
    ...g,
    warnings: [
      ...g.warnings,
      `Confidence ${g.confidence} is the cap for an assessor's listing on a lot that does not front the named street. This place's audit (${day}) found such listings right for ${row.right} of ${row.answered} addresses held out of the address table, but those are addresses the table gives a lot; an address it gives none is not measured by them, so the cap stands.`,
    ],
  };
}

const TTL_MS = 30_000;

/** Each place's stored calibration in one context: dropped when an audit is stored, and by the placeChanged door. */
class Calibrations implements CacheDoors {
  readonly byPlace = new Map<string, { at: number; cal: PlaceCalibration | null }>();
  placeChanged(placeId: string): void {
    this.byPlace.delete(placeId);
  }
}
const CALIBRATIONS = cacheKind('place calibrations', () => new Calibrations());

/** The place's stored calibration (from its latest audit), cached for TTL_MS; null when it has none. */
export async function placeCalibration(ctx: Pick<AppContext, 'db' | 'caches'>, placeId: string, now = Date.now()): Promise<PlaceCalibration | null> {
  const perPlace = ctx.caches.of(CALIBRATIONS).byPlace;
  const hit = perPlace.get(placeId);
  if (hit && now - hit.at < TTL_MS) return hit.cal;
  const [row] = await ctx.db.query<{ cal: PlaceCalibration | string | null }>(`SELECT report->'heldOut' AS cal FROM place_audits WHERE place_id = $1`, [
    placeId,
  ]);
  const raw = row?.cal ?? null;
  const cal = typeof raw === 'string' ? (JSON.parse(raw) as PlaceCalibration | null) : raw;
  perPlace.set(placeId, { at: now, cal: cal && Array.isArray(cal.rows) ? cal : null });
  return perPlace.get(placeId)!.cal;
}

/** Drops the cached calibration of a place (a new audit was stored). */
export function forgetPlaceCalibration(ctx: Pick<AppContext, 'caches'>, placeId: string): void {
  ctx.caches.of(CALIBRATIONS).placeChanged(placeId);
}
