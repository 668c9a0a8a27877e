// What a page needs to draw a map of some lots: their outlines (GeoJSON, lon/lat) and the box to
// frame. Used by the snapshot page for one lot; a project page passes its build and context lots.
import type { FeatureCollection } from 'geojson';
import type { AppContext } from '../context.ts';
import { boxLiteral, type BBox, type MultiPolygonCoords } from '../core/geo/primitives.ts';

export interface LotRef {
  lotId: string;
  /** How the page names the lot's part (e.g. "build", "context"); shown in the map's legend. */
  role: string;
}

export interface MapView {
  /** [west, south, east, north] to frame; null when no lot was found (the page frames `fallback`). */
  bounds: BBox | null;
  /** The lots' outlines; properties: lot (id) and role only. */
  lots: FeatureCollection;
}

const LOT_LIMIT = 200;

/** Outlines of the given lots of one place (unknown ids are skipped), and the box around them. */
export async function mapViewForLots(ctx: AppContext, placeId: string, lots: LotRef[]): Promise<MapView> {
  const wanted = lots.slice(0, LOT_LIMIT);
  if (!wanted.length) return { bounds: null, lots: { type: 'FeatureCollection', features: [] } };
  const rows = await ctx.db.query<{ parcel_ext_id: string; geom: unknown }>(
    'SELECT parcel_ext_id, geom FROM parcels WHERE place_id = $1 AND parcel_ext_id = ANY($2::text[]) ORDER BY parcel_ext_id',
    [placeId, wanted.map((l) => l.lotId)],
  );
  const role = new Map(wanted.map((l) => [l.lotId, l.role]));
  let bounds: BBox | null = null;
  const features = rows.map((r) => {
    const mp = (typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords;
    for (const ring of mp.flat()) {
      for (const [lon, lat] of ring) {
        bounds = bounds ? [Math.min(bounds[0], lon), Math.min(bounds[1], lat), Math.max(bounds[2], lon), Math.max(bounds[3], lat)] : [lon, lat, lon, lat];
      }
    }
    return {
      type: 'Feature' as const,
      properties: { lot: r.parcel_ext_id, role: role.get(r.parcel_ext_id) ?? 'lot' },
      geometry: { type: 'MultiPolygon' as const, coordinates: mp },
    };
  });
  return { bounds, lots: { type: 'FeatureCollection', features } };
}

/** How far around a lot its neighbours are drawn for picking (half-width, metres), and at most how many. */
const NEARBY_HALF_WIDTH_M = 60;
const NEARBY_LIMIT = 80;

/**
 * The lots around a point of one place (the lot itself left out), nearest first: outlines a person
 * clicks to pick the lot they meant when an address matched weakly (issue 49, item 6). Properties: lot (id).
 */
export async function lotsNear(ctx: AppContext, placeId: string, at: { lat: number; lon: number }, exceptLotId: string): Promise<FeatureCollection> {
  const dLat = NEARBY_HALF_WIDTH_M / 111_320;
  const dLon = NEARBY_HALF_WIDTH_M / (111_320 * Math.max(0.01, Math.cos((at.lat * Math.PI) / 180)));
  const rows = await ctx.db.query<{ parcel_ext_id: string; geom: unknown }>(
    `SELECT parcel_ext_id, geom FROM parcels
      WHERE place_id = $1 AND parcel_ext_id <> $2 AND bbox && $3::box
      ORDER BY (inside_lat - $4) * (inside_lat - $4) + (inside_lon - $5) * (inside_lon - $5), parcel_ext_id
      LIMIT $6`,
    [placeId, exceptLotId, boxLiteral([at.lon - dLon, at.lat - dLat, at.lon + dLon, at.lat + dLat]), at.lat, at.lon, NEARBY_LIMIT],
  );
  return {
    type: 'FeatureCollection',
    features: rows.map((r) => ({
      type: 'Feature' as const,
      properties: { lot: r.parcel_ext_id },
      geometry: { type: 'MultiPolygon' as const, coordinates: (typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords },
    })),
  };
}
