// A lot that the assessor's table, an interpolation or another suffix's address-table row gives for an
// address must front the street the person named: the census found such guesses 238-1,043 ft from that
// street (parkland, a lot behind another), answered at 0.7-0.9. An exact address-table row is the city's
// own point and is not checked. A street the place's street layer lacks cannot be measured: said, and
// the answer capped below 0.7.
// Such a lot is answered below 0.5 with the distance as the reason; an assessor's listing on one is its
// own calibration band (ASSESSOR_FAR_BAND), so a place's held-out audit can measure it apart.
import { localProjector, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';
import { pointSegmentDist2 } from '../core/geo/planar-ops.ts';
import { FACING_MAX_M } from '../core/geo/lot-facts.ts';
import type { GeoSource } from './place-index.ts';

/** A lot the assessor's table or an interpolation gives that does not front the named street is answered below 0.5, with the reason. */
export const NOT_FRONTING_CONFIDENCE = 0.45;
/**
 * The calibration band of an assessor's-table answer whose lot does not front the named street: its
 * confidence is NOT_FRONTING_CONFIDENCE unless the place's held-out audit measured this band
 * (src/geocoder/calibration.ts).
 */
export const ASSESSOR_FAR_BAND = 'assessor_far';
/**
 * A guessed lot on a street the place's street layer does not hold (Cambridge: Cambridge Ctr, Acorn Park
 * Dr): its distance from the street cannot be measured, so the answer says so and is capped below 0.7,
 * whatever its method's score or calibration (the census found 20 such guesses at 0.68-0.99, unsaid).
 */
export const UNCHECKED_STREET_CONFIDENCE = 0.65;
/** A rear lot ("247-R Bent St") sits behind the lot on the street: within this of the centreline it still belongs to it. */
export const REAR_LOT_MAX_M = 75;

const FT_PER_M = 1 / 0.3048;

export type Fronting =
  | { kind: 'fronts' }
  | { kind: 'far'; distanceM: number; street: string }
  | { kind: 'unchecked'; reason: string }
  | { kind: 'no_street_layer' };

/**
 * Whether the lot fronts the street: its facts list the street (an exposed edge facing it within
 * FACING_MAX_M), or its polygon comes within FACING_MAX_M of the street's centreline (REAR_LOT_MAX_M for
 * a number marked R, a rear lot).
 */
export async function lotFrontsStreet(src: GeoSource, parcelExtId: string, streetKey: string, opts: { rearLot?: boolean } = {}): Promise<Fronting> {
  const lot = await src.lot(parcelExtId);
  if (!lot) return { kind: 'unchecked', reason: 'the lot is not in the parcel layer' };
  if (lot.facts?.frontByStreet?.[streetKey]) return { kind: 'fronts' };
  const segments = await src.segments(streetKey);
  if (segments.length === 0) {
    // A place with no street layer at all (Somerville) has no fronting rule to apply; one whose layer lacks this street says so.
    return (await src.hasStreetLayer()) ? { kind: 'unchecked', reason: "this place's street layer does not hold the street" } : { kind: 'no_street_layer' };
  }
  const near = await src.parcelsInBox([lot.inside_lon, lot.inside_lat, lot.inside_lon, lot.inside_lat]);
  const row = near.find((r) => r.parcel_ext_id === parcelExtId);
  if (!row) return { kind: 'unchecked', reason: 'the lot has no geometry' };
  const mp = (typeof row.geom === 'string' ? JSON.parse(row.geom) : row.geom) as MultiPolygonCoords;
  const lines = segments.flatMap((s) => partsOf(s.geom));
  const d = polygonLineDistanceM(mp, lines, [lot.inside_lon, lot.inside_lat]);
  return d <= (opts.rearLot ? REAR_LOT_MAX_M : FACING_MAX_M) ? { kind: 'fronts' } : { kind: 'far', distanceM: d, street: segments[0]!.street_display };
}

/** The sentence a lot far from the named street carries: a guess (an interpolation, another suffix's row), or the assessor's listing. */
export function notFrontingWarning(parcelExtId: string, f: Extract<Fronting, { kind: 'far' }>, from: 'guess' | 'assessor'): string {
  const ft = Math.round((f.distanceM * FT_PER_M) / 10) * 10;
  const where = `Lot ${parcelExtId} does not front ${f.street}: it is about ${ft.toLocaleString('en-US')} ft from the street's centreline`;
  return from === 'guess'
    ? `${where}, so it is probably not this address's lot (confidence at most ${NOT_FRONTING_CONFIDENCE}). Check the lot before relying on it.`
    : `${where}. The assessor's table lists the address on it (a large lot or one behind another often is), but a listing on a lot that does not front the named street is answered with confidence at most ${NOT_FRONTING_CONFIDENCE}; check the lot before relying on it.`;
}

/** The sentence a guessed lot carries when its distance from the named street could not be measured. */
export function uncheckedWarning(parcelExtId: string, f: Extract<Fronting, { kind: 'unchecked' }>, street: string): string {
  return `Lot ${parcelExtId} could not be checked against ${street}: ${f.reason}, so the distance from the lot to the street is unknown (confidence at most ${UNCHECKED_STREET_CONFIDENCE}). Check the lot before relying on it.`;
}

function partsOf(geom: unknown): Position[][] {
  const g = typeof geom === 'string' ? (JSON.parse(geom) as unknown) : geom;
  if (!Array.isArray(g) || g.length === 0) return [];
  return Array.isArray(g[0]) && Array.isArray((g[0] as unknown[])[0]) ? (g as Position[][]) : [g as Position[]];
}

/** The shortest distance in metres between a lot's outline and a set of lines (0 when they cross, to within a vertex). */
export function polygonLineDistanceM(mp: MultiPolygonCoords, lines: Position[][], origin: Position): number {
  const proj = localProjector(origin[1], origin[0]);
  const rings = mp.flat().map((ring) => ring.map(proj));
  const paths = lines.map((line) => line.map(proj));
  let best = Infinity;
  for (const ring of rings)
    for (const path of paths) {
      for (const [px, py] of ring)
        for (let i = 1; i < path.length; i++) best = Math.min(best, pointSegmentDist2(px, py, path[i - 1]![0], path[i - 1]![1], path[i]![0], path[i]![1]));
      for (const [px, py] of path)
        for (let i = 1; i < ring.length; i++) best = Math.min(best, pointSegmentDist2(px, py, ring[i - 1]![0], ring[i - 1]![1], ring[i]![0], ring[i]![1]));
    }
  return Math.sqrt(best);
}
