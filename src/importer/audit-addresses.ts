// The accuracy audit's first steps (src/importer/audit-place.ts): the place's distinct addresses with
// the lots its own source gives them and their address points; each one answered through the geocoder
// as the snapshot calls it, and again with its own rows held out (the stand-in methods' calibration), and
// held out of the assessor's table too (the interpolation of addresses neither table lists);
// and the parcel geometry both references are checked against.
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { SitelineError } from '../core/errors.ts';
import { boxLiteral, pointInMultiPolygon, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';
import { parseAddress } from '../geocoder/parse-address.ts';
import { geocodeInPlace, type GeocodeResult, type MatchBand, type MatchType } from '../geocoder/geocode.ts';
import { sqlSource } from '../geocoder/place-index.ts';
import { withoutAddress, withoutListing } from '../geocoder/calibration.ts';
import type { PlaceRecord } from '../places/catalogue.ts';
import type { AuditedAddress, PlaceAudit, SourceJoin } from './audit-report.ts';

export interface AddressGroup {
  address: string;
  lots: string[];
  point: Position | null;
}

/** Distinct full addresses with their source lots and first address point, sorted for reproducibility. */
export async function addressGroups(
  q: Queryable,
  placeId: string,
  bbox: PlaceRecord['bbox'],
): Promise<{ rows: number; groups: AddressGroup[]; pointsIgnored: number; outsideBoundary: PlaceAudit['outsideBoundary'] }> {
  // The reference lot is the town's own lot id (source_lot_id), kept whatever join found the answered
  // lot: with lotBy point the stored parcel_ext_id is the point's lot, and comparing with it would be
  // comparing the point join with itself.
  const rows = await q.query<{ full_address: string; source_lot_id: string | null; lon: number | null; lat: number | null }>(
    'SELECT full_address, source_lot_id, lon, lat FROM addresses WHERE place_id = $1 ORDER BY row_no',
    [placeId],
  );
  const [boundary] = await q.query<{ geom: MultiPolygonCoords | { type: string; coordinates: unknown } }>(
    'SELECT geom FROM place_boundaries WHERE place_id = $1',
    [placeId],
  );
  const limits = boundary
    ? ((Array.isArray(boundary.geom) ? boundary.geom : (boundary.geom as { coordinates: MultiPolygonCoords }).coordinates) as MultiPolygonCoords)
    : null;
  const outsideBoundary: PlaceAudit['outsideBoundary'] = { boundary: limits !== null, withPoint: 0, outside: 0, examples: [] };
  const byAddress = new Map<string, AddressGroup>();
  let pointsIgnored = 0;
  for (const r of rows) {
    let g = byAddress.get(r.full_address);
    if (!g) byAddress.set(r.full_address, (g = { address: r.full_address, lots: [], point: null }));
    if (r.source_lot_id && !g.lots.includes(r.source_lot_id)) g.lots.push(r.source_lot_id);
    if (r.lon === null || r.lat === null || !Number.isFinite(r.lon) || !Number.isFinite(r.lat)) continue;
    // Address points outside the place's boundary (town limits) are counted, not left out silently.
    if (limits) {
      outsideBoundary.withPoint++;
      if (!pointInMultiPolygon([r.lon, r.lat], limits)) {
        outsideBoundary.outside++;
        if (outsideBoundary.examples.length < 10) outsideBoundary.examples.push(r.full_address);
      }
    }
    // A point outside the place (an empty coordinate read as 0, 0) is no address point.
    if (bbox && (r.lon < bbox[0] || r.lon > bbox[2] || r.lat < bbox[1] || r.lat > bbox[3])) {
      pointsIgnored++;
      continue;
    }
    if (!g.point) g.point = [r.lon, r.lat];
  }
  const groups = [...byAddress.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return { rows: rows.length, groups, pointsIgnored, outsideBoundary };
}

/** `n` items spread evenly over `all` (all of them when n is undefined or not smaller). */
export function sampleOf<T>(all: T[], n: number | undefined): T[] {
  if (n === undefined || n >= all.length) return all;
  const out: T[] = [];
  const step = all.length / n;
  for (let i = 0; i < n; i++) out.push(all[Math.floor(i * step)]!);
  return out;
}

/** The parcels of a place: each lot's inside point, and its geometry read once when first asked. */
export interface PlaceLots {
  inside: Map<string, Position>;
  geomOf(id: string): Promise<MultiPolygonCoords | null>;
}

export async function placeLots(q: Queryable, placeId: string): Promise<PlaceLots> {
  const parcelRows = await q.query<{ parcel_ext_id: string; inside_lon: number; inside_lat: number }>(
    'SELECT parcel_ext_id, inside_lon, inside_lat FROM parcels WHERE place_id = $1',
    [placeId],
  );
  const inside = new Map<string, Position>(parcelRows.map((p) => [p.parcel_ext_id, [p.inside_lon, p.inside_lat]]));
  const geomCache = new Map<string, MultiPolygonCoords | null>();
  const geomOf = async (id: string): Promise<MultiPolygonCoords | null> => {
    if (!geomCache.has(id)) {
      const [r] = await q.query<{ geom: unknown }>('SELECT geom FROM parcels WHERE place_id = $1 AND parcel_ext_id = $2', [placeId, id]);
      geomCache.set(id, r ? ((typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords) : null);
    }
    return geomCache.get(id)!;
  };
  return { inside, geomOf };
}

/**
 * The held-out answer of an address whose lot the source gives (null: no answer, or the address could not
 * be read): its method, its score (before a cap for a street that could not be checked, which calibration
 * keeps), its band when not the method's plain one, and whether it is the source's lot.
 */
export type HeldOutAnswer = { matchType: MatchType; confidence: number; right: boolean; band: MatchBand | null; lotShared: boolean } | null;

function heldOutAnswer(held: GeocodeResult, sourceLots: string[], sharedLots: ReadonlySet<string>): HeldOutAnswer {
  if (held.kind !== 'matched' || !held.parcelExtId) return null;
  const lotShared = sourceLots.some((id) => sharedLots.has(id));
  return {
    matchType: held.matchType,
    confidence: held.streetUnchecked?.score ?? held.confidence,
    right: sourceLots.includes(held.parcelExtId),
    band: held.band ?? null,
    lotShared,
  };
}

/**
 * The lots the address table gives more than one distinct address. Another suffix's row can stand in for
 * a held-out address only if the table still knows the address's lot through another address; held out
 * from a lot it names once (every lot of Somerville's table), the row is another lot by construction.
 */
export function lotsWithSeveralAddresses(groups: readonly AddressGroup[]): Set<string> {
  const seen = new Map<string, number>();
  for (const g of groups) for (const id of g.lots) seen.set(id, (seen.get(id) ?? 0) + 1);
  return new Set([...seen].filter(([, n]) => n > 1).map(([id]) => id));
}

export interface AnswerOptions {
  onProgress?: (msg: string) => void;
  yieldEvery?: number;
  pause?: () => Promise<void>;
}

/**
 * Every address through parseAddress and geocodeInPlace (the snapshot's two calls before it loads the
 * lot), checked against the address point when it has one; an address whose lot the source gives is
 * asked again with its own rows held out. One result per group, in order.
 */
export async function answerAddresses(
  ctx: AppContext,
  place: PlaceRecord,
  groups: AddressGroup[],
  lots: PlaceLots,
  opts: AnswerOptions,
  sharedLots: ReadonlySet<string> = lotsWithSeveralAddresses(groups),
): Promise<{ results: AuditedAddress[]; heldOut: HeldOutAnswer[]; heldOutOfBoth: HeldOutAnswer[] }> {
  const placeId = place.geoDivisionId;
  const { inside } = lots;
  const results: AuditedAddress[] = [];
  const sql = sqlSource(ctx.db, placeId);
  const heldOut: HeldOutAnswer[] = [];
  const heldOutOfBoth: HeldOutAnswer[] = [];
  let n = 0;
  for (const g of groups) {
    if (opts.pause) await opts.pause();
    const sourceLots = g.lots.filter((id) => inside.has(id));
    const missingLots = g.lots.filter((id) => !inside.has(id));
    const sourceJoin: SourceJoin = sourceLots.length ? 'lot_in_layer' : missingLots.length ? 'lot_missing_from_layer' : 'no_lot_in_source';
    const r: AuditedAddress = {
      address: g.address,
      sourceJoin,
      sourceLots,
      missingLots,
      answeredLot: null,
      matchType: null,
      confidence: null,
      pointInLot: null,
    };
    let parsed: ReturnType<typeof parseAddress> | null = null;
    try {
      // The text a user would type, through the same two calls the snapshot makes before it loads the lot.
      parsed = parseAddress(`${g.address}, ${place.name}, ${place.region}`);
      const got = await geocodeInPlace(ctx, placeId, parsed);
      if (got.kind === 'matched' && got.parcelExtId) {
        r.answeredLot = got.parcelExtId;
        r.matchType = got.matchType;
        r.confidence = got.confidence;
      } else {
        r.reason = got.kind === 'failed' ? got.reason : 'the address matched, but no lot holds it';
      }
    } catch (err) {
      r.reason = err instanceof SitelineError ? `bad input: ${err.message}` : String(err);
    }
    if (r.answeredLot && g.point) {
      const geom = await lots.geomOf(r.answeredLot);
      r.pointInLot = geom ? pointInMultiPolygon(g.point, geom) : false;
    }
    if (sourceLots.length) {
      // The same address with its own rows held out: what the stand-in methods answer, against the source's lot.
      // An address that cannot be read has no held-out answer; a failing lookup stops the audit (logged).
      if (!parsed) heldOut.push(null);
      else {
        const without = withoutAddress(sql, g.address);
        heldOut.push(heldOutAnswer(await geocodeInPlace(ctx, placeId, parsed, without), sourceLots, sharedLots));
        // Held out of the assessor's table too, when it lists the number: an address neither table lists.
        // When it lists nothing there, the answer is the one just measured (the same reads).
        const number = parsed.number === null ? NaN : Number.parseInt(parsed.number, 10);
        const listed = parsed.streetKey && Number.isFinite(number) ? (await sql.locationRows(parsed.streetKey, number)).length > 0 : false;
        heldOutOfBoth.push(
          listed
            ? heldOutAnswer(await geocodeInPlace(ctx, placeId, parsed, withoutListing(without, parsed.streetKey!, number)), sourceLots, sharedLots)
            : heldOut[heldOut.length - 1]!,
        );
      }
    }
    results.push(r);
    if (opts.yieldEvery && n % opts.yieldEvery === 0) await new Promise((resolve) => setImmediate(resolve));
    if (++n % 5000 === 0) opts.onProgress?.(`${place.slug}: audited ${n}/${groups.length} addresses`);
  }
  return { results, heldOut, heldOutOfBoth };
}

/** A place's parcels whose box holds the point, asked as a box of no size ($2, boxLiteral), which the box index serves. */
export const LOTS_AT_POINT_IN_PLACE_SQL = `SELECT parcel_ext_id, geom FROM parcels WHERE place_id = $1 AND bbox @> $2::box ORDER BY parcel_ext_id`;

/** The lot whose polygon holds the point, by the box index then the polygons. */
export async function lotContaining(q: Queryable, placeId: string, p: Position): Promise<string | null> {
  const rows = await q.query<{ parcel_ext_id: string; geom: unknown }>(LOTS_AT_POINT_IN_PLACE_SQL, [placeId, boxLiteral([p[0], p[1], p[0], p[1]])]);
  for (const r of rows) {
    const mp = (typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords;
    if (pointInMultiPolygon(p, mp)) return r.parcel_ext_id;
  }
  return null;
}
