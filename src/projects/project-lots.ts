// Lots as a project keeps them: a copy of the parcel's facts taken when it is attached (area,
// districts, frontage, corner flag, the polygon and the front street's centreline near it), so a
// later import never silently rewrites a saved analysis. Also: the lot under a point.
import type { Queryable } from '../db/database.ts';
import { areaWarning } from '../snapshot/lot-area-warning.ts';
import { notCornerNote, unsharedCornerNote, type NotCornerFacts } from '../snapshot/lot-notes.ts';
import { SQFT_PER_M2, pointInMultiPolygon, boxLiteral, type BBox, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';
import type { StatedConditionValue } from '../core/snapshot-types.ts';
import { PLACES_WITH_LOTS_AT_SQL } from '../db/place-partitions.ts';

export type LotRole = 'build' | 'context';

export interface LotDistrict {
  layer: 'base' | 'overlay';
  code: string;
  name: string | null;
  share: number;
}

/** What a project keeps of a lot (stored as jsonb in project_lots.snapshot). */
export interface LotSnapshot {
  parcelExternalId: string;
  geoDivisionId: string;
  areaM2: number;
  areaSqft: number;
  districts: LotDistrict[];
  frontByStreet: Record<string, { frontageM: number; depthM: number }>;
  /** Street keys the lot fronts, longest frontage first. */
  streets: string[];
  cornerLot: boolean | null;
  /** Present when the lot faces two or more streets but is not a corner lot: why (src/snapshot/lot-notes.ts). */
  cornerLotNote?: string;
  inside: { lat: number; lng: number };
  polygon: MultiPolygonCoords;
  /** Centreline pieces of the lot's main front street near the lot (lon/lat): the real front lot line is the lot edge facing them. */
  frontStreetLines: Position[][];
  source: string;
  vintage: string;
  /** What is uncertain about the lot itself (its polygon's area against the assessor's), said wherever it goes. */
  warnings?: string[];
  /**
   * A place without a zoning map: the district (and building type) stated when the lot was attached,
   * with its source; `districts` then holds that district (docs/projects.md, "A stated district").
   */
  statedDistrict?: StatedLotDistrict;
}

/** The front of a lot in a place without street centrelines: its one side no other lot shares (docs/lot-geometry.md). */
const UNSHARED_FRONT = 'the side no other lot shares';

export interface ProjectLot {
  role: LotRole;
  attachedAt: string;
  lot: LotSnapshot;
}

interface ParcelRow {
  place_id: string;
  parcel_ext_id: string;
  geom: MultiPolygonCoords;
  inside_lat: number;
  inside_lon: number;
  area_m2: number;
  facts: {
    frontByStreet?: Record<string, { frontageM: number; depthM: number }>;
    cornerLot?: boolean | null;
    streets?: string[];
    notCorner?: NotCornerFacts;
    /** A place without street centrelines: the unshared sides, and the one side's runs (the front lot line). */
    unshared?: { sides: unknown[]; front?: Position[][] };
  };
  zones: { layer: string; code: string; name: string | null; share: number }[];
  attrs: Record<string, unknown> | null;
  source: string;
  vintage: string;
}

const PARCEL_COLUMNS = 'place_id, parcel_ext_id, geom, inside_lat, inside_lon, area_m2, facts, zones, attrs, source, vintage';

/** Metres per degree at a latitude (a square of half-width r metres in degrees). */
export function squareAround(lat: number, lng: number, halfWidthM: number): BBox {
  const dLat = halfWidthM / 111_320;
  const dLng = halfWidthM / (111_320 * Math.max(0.01, Math.cos((lat * Math.PI) / 180)));
  return [lng - dLng, lat - dLat, lng + dLng, lat + dLat];
}

export function distanceM(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const kx = 111_320 * Math.cos((((a.lat + b.lat) / 2) * Math.PI) / 180);
  return Math.hypot((a.lng - b.lng) * kx, (a.lat - b.lat) * 111_320);
}

/**
 * Parcels whose box holds the point, asked as a box of no size ($1, boxLiteral), smallest first: in the
 * places whose lots' box holds it ($2, PLACES_WITH_LOTS_AT_SQL), each one partition (the others are
 * never opened), and in the default partition (rows written outside an import: normally none).
 */
export const LOT_AT_POINT_SQL = `SELECT ${PARCEL_COLUMNS} FROM parcels WHERE place_id = ANY ($2::text[]) AND bbox @> $1::box
  UNION ALL SELECT ${PARCEL_COLUMNS} FROM parcels_default WHERE bbox @> $1::box
  ORDER BY area_m2, place_id, parcel_ext_id LIMIT 20`;

/**
 * The lot whose polygon holds the point, in any loaded place (null when none does). The places come
 * first (docs/scaling.md): on tables partitioned by place, a box asked of every place would probe every
 * partition's index. The point is asked as a box of no size: `bbox @> point` is an operator no box
 * index serves, and every parcel of every place would be read to answer it.
 */
export async function lotAtPoint(q: Queryable, lat: number, lng: number): Promise<ParcelRow | null> {
  const point = boxLiteral([lng, lat, lng, lat]);
  const places = (await q.query<{ place_id: string }>(PLACES_WITH_LOTS_AT_SQL, [point])).map((r) => r.place_id);
  const rows = await q.query<ParcelRow>(LOT_AT_POINT_SQL, [point, places]);
  return rows.find((r) => pointInMultiPolygon([lng, lat], r.geom)) ?? null;
}

export type ParcelLookup = { kind: 'found'; parcel: ParcelRow } | { kind: 'outside'; distanceM: number } | { kind: 'unknown' };

/** A parcel by the id the snapshot gives, searched in the square of half-width radiusM about the point. */
export async function parcelNear(
  q: Queryable,
  placeId: string | null,
  parcelExtId: string,
  at: { lat: number; lng: number },
  radiusM: number,
): Promise<ParcelLookup> {
  const box = boxLiteral(squareAround(at.lat, at.lng, radiusM));
  const within = await q.query<ParcelRow>(
    `SELECT ${PARCEL_COLUMNS} FROM parcels WHERE parcel_ext_id = $1 AND ($2::text IS NULL OR place_id = $2) AND bbox && $3::box ORDER BY place_id LIMIT 1`,
    [parcelExtId, placeId, box],
  );
  if (within[0]) return { kind: 'found', parcel: within[0] };
  const anywhere = await q.query<{ inside_lat: number; inside_lon: number }>(
    `SELECT inside_lat, inside_lon FROM parcels WHERE parcel_ext_id = $1 AND ($2::text IS NULL OR place_id = $2) LIMIT 1`,
    [parcelExtId, placeId],
  );
  if (anywhere[0]) return { kind: 'outside', distanceM: distanceM(at, { lat: anywhere[0].inside_lat, lng: anywhere[0].inside_lon }) };
  return { kind: 'unknown' };
}

/** Copies what a project keeps of a parcel, with the front street's centreline near it. */
export async function snapshotLot(q: Queryable, p: ParcelRow): Promise<LotSnapshot> {
  const streets = p.facts?.streets ?? [];
  let frontStreetLines: Position[][] = [];
  if (streets[0]) {
    let minX = Infinity,
      minY = Infinity,
      maxX = -Infinity,
      maxY = -Infinity;
    for (const poly of p.geom)
      for (const [x, y] of poly[0] ?? []) {
        minX = Math.min(minX, x);
        minY = Math.min(minY, y);
        maxX = Math.max(maxX, x);
        maxY = Math.max(maxY, y);
      }
    const pad = squareAround((minY + maxY) / 2, (minX + maxX) / 2, 40);
    const dx = (pad[2] - pad[0]) / 2,
      dy = (pad[3] - pad[1]) / 2;
    const rows = await q.query<{ geom: Position[] | Position[][] }>(
      `SELECT geom FROM street_segments WHERE place_id = $1 AND street_key = $2 AND bbox && $3::box ORDER BY segment_id`,
      [p.place_id, streets[0], boxLiteral([minX - dx, minY - dy, maxX + dx, maxY + dy])],
    );
    for (const r of rows) {
      const g = typeof r.geom === 'string' ? (JSON.parse(r.geom) as Position[] | Position[][]) : r.geom;
      if (Array.isArray(g[0]?.[0])) frontStreetLines.push(...(g as Position[][]));
      else frontStreetLines.push(g as Position[]);
    }
  }
  // Without street centrelines the front lot line is the lot's one unshared side (docs/lot-geometry.md): the footprint cuts from it.
  if (p.facts?.unshared?.front?.length) frontStreetLines = p.facts.unshared.front;
  const side = p.facts?.unshared?.sides.length === 1 ? (p.facts.unshared.sides[0] as { lengthM: number; depthM: number }) : null;
  return {
    parcelExternalId: p.parcel_ext_id,
    geoDivisionId: p.place_id,
    areaM2: Math.round(p.area_m2 * 10) / 10,
    areaSqft: Math.round(p.area_m2 * SQFT_PER_M2),
    districts: (p.zones ?? []).map((z) => ({
      layer: z.layer === 'overlay' ? 'overlay' : 'base',
      code: z.code,
      name: z.name ?? null,
      share: Math.round(z.share * 1000) / 1000,
    })),
    // The one unshared side stands for the front in a place without centrelines (UNSHARED_FRONT).
    frontByStreet: side ? { [UNSHARED_FRONT]: { frontageM: side.lengthM, depthM: side.depthM } } : (p.facts?.frontByStreet ?? {}),
    streets: side ? [UNSHARED_FRONT] : streets,
    cornerLot: p.facts?.cornerLot ?? null,
    ...cornerNoteOf(p),
    inside: { lat: Math.round(p.inside_lat * 1e6) / 1e6, lng: Math.round(p.inside_lon * 1e6) / 1e6 },
    polygon: p.geom,
    frontStreetLines,
    source: p.source,
    vintage: p.vintage,
    ...lotWarnings(p),
  };
}

function cornerNoteOf(p: ParcelRow): { cornerLotNote?: string } {
  if (p.facts?.unshared) return { cornerLotNote: unsharedCornerNote(p.facts.unshared.sides.length, 'this place') };
  const note = p.facts?.cornerLot === false ? notCornerNote(p.facts.notCorner) : null;
  return note ? { cornerLotNote: note } : {};
}

function lotWarnings(p: ParcelRow): { warnings?: string[] } {
  const area = areaWarning({ area_m2: p.area_m2, attrs: typeof p.attrs === 'string' ? (JSON.parse(p.attrs) as Record<string, unknown>) : p.attrs });
  return area ? { warnings: [area] } : {};
}

export async function lotsOfProject(q: Queryable, projectId: string): Promise<ProjectLot[]> {
  const rows = await q.query<{ role: LotRole; attached_at: Date | string; snapshot: LotSnapshot }>(
    'SELECT role, attached_at, snapshot FROM project_lots WHERE project_id = $1 ORDER BY place_id, parcel_ext_id',
    [projectId],
  );
  return rows.map((r) => ({ role: r.role, attachedAt: new Date(r.attached_at).toISOString(), lot: r.snapshot }));
}

/** The short form of a lot in tool answers (no polygon). */
export function lotSummary(l: ProjectLot) {
  return {
    parcelExternalId: l.lot.parcelExternalId,
    geoDivisionId: l.lot.geoDivisionId,
    role: l.role,
    areaSqft: l.lot.areaSqft,
    areaM2: l.lot.areaM2,
    districts: l.lot.districts.filter((d) => d.layer === 'base').map((d) => ({ code: d.code, share: d.share })),
    overlays: l.lot.districts.filter((d) => d.layer === 'overlay').map((d) => d.code),
    inside: l.lot.inside,
    attachedAt: l.attachedAt,
    ...(l.lot.warnings?.length ? { warnings: l.lot.warnings } : {}),
  };
}

/** Where a lot's district came from when its place holds no zoning map (Somerville): the caller's words, kept with the lot. */
export interface StatedLotDistrict {
  code: string;
  name: string;
  buildingType: string | null;
  /** "stated by the caller; the City's zoning map is not held". */
  statement: string;
  /** The conditions of the type's table stated with it (driveway access, ...), each stated by the caller; absent when none. */
  conditions?: StatedConditionValue[];
}
