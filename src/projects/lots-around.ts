// The lots around a project: what saveToProject's attach_parcels would find in its search square
// (half-width radiusM about the project's location, in the project's place), for a map a person picks
// the next lot from. Outlines and ids only; the lots already attached are left out. Also the lot an
// address names (the snapshot's lot), for attaching by address.
import type { FeatureCollection, MultiPolygon } from 'geojson';
import type { AppContext } from '../context.ts';
import { boxLiteral, type MultiPolygonCoords } from '../core/geo/primitives.ts';
import type { ProjectRow } from './project-store.ts';
import { squareAround } from './project-lots.ts';
import { getFeasibilitySnapshot } from '../snapshot/snapshot.ts';

/** At most this many neighbouring lots are drawn (nearest first); the rest stay reachable by id. */
const LOTS_AROUND_LIMIT = 400;

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Outlines of the lots within radiusM of the project's location, nearest first; properties: lot (id) and place. */
export async function lotsAround(
  ctx: AppContext,
  project: ProjectRow,
  radiusM: number,
  exceptIds: Iterable<string>,
): Promise<FeatureCollection<MultiPolygon, { lot: string; place: string }>> {
  const empty = { type: 'FeatureCollection' as const, features: [] };
  if (project.lat === null || project.lng === null) return empty;
  const except = [...exceptIds];
  const rows = await ctx.db.query<{ place_id: string; parcel_ext_id: string; geom: unknown }>(
    `SELECT place_id, parcel_ext_id, geom FROM parcels
     WHERE ($1::text IS NULL OR place_id = $1) AND bbox && $2::box AND NOT (parcel_ext_id = ANY($3::text[]))
     ORDER BY (inside_lat - $4) * (inside_lat - $4) + (inside_lon - $5) * (inside_lon - $5) * cos(radians($4)) * cos(radians($4)), place_id, parcel_ext_id
     LIMIT $6`,
    [project.place_id, boxLiteral(squareAround(project.lat, project.lng, radiusM)), except, project.lat, project.lng, LOTS_AROUND_LIMIT],
  );
  return {
    type: 'FeatureCollection',
    features: rows.map((r) => {
      const mp = (typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords;
      const coordinates = mp.map((poly) => poly.map((ring) => ring.map(([x, y]) => [round6(x!), round6(y!)])));
      return { type: 'Feature' as const, properties: { lot: r.parcel_ext_id, place: r.place_id }, geometry: { type: 'MultiPolygon' as const, coordinates } };
    }),
  };
}

export type LotAtAddress = { kind: 'found'; parcelExternalId: string; placeId: string | null } | { kind: 'not_found'; reason: string; suggestions: string[] };

/** The lot an address names, as the snapshot finds it (the id attach_parcels then takes). */
export async function lotAtAddress(ctx: AppContext, address: string): Promise<LotAtAddress> {
  const snap = await getFeasibilitySnapshot(ctx, address);
  if (!snap.answered || !snap.lot) return { kind: 'not_found', reason: snap.coverage.message, suggestions: snap.suggestions ?? [] };
  return { kind: 'found', parcelExternalId: snap.lot.parcelExternalId, placeId: snap.coverage.geoDivisionId ?? null };
}
