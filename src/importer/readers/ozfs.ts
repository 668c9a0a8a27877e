// OZFS (Open Zoning Feed Specification 0.5) files are GeoJSON with conventions:
// `.zoning` holds district polygons (dist_abbr, dist_name, constraints); `.parcel` holds, per parcel,
// one centroid Point (side = 'centroid', lot_width/lot_depth ft, lot_area acres) and the lot's edges as
// LineStrings labelled front / rear / interior side / exterior side / unknown. The lot polygon is the
// ring the edges close when chained end to end.
import type { Position, Ring } from '../../core/geo/primitives.ts';
import { parseGeoJson } from './geojson.ts';
import type { SourceFeature } from './features.ts';

export interface OzfsZoningDoc {
  version: string | null;
  muniName: string | null;
  date: string | null;
  features: SourceFeature[];
}

export function parseOzfsZoning(text: string, where: string): OzfsZoningDoc {
  const doc = JSON.parse(text) as { version?: string; muni_name?: string; date?: string };
  return { version: doc.version ?? null, muniName: doc.muni_name ?? null, date: doc.date ?? null, features: parseGeoJson(text, where) };
}

export interface OzfsEdge {
  side: string;
  coords: Position[];
}

export interface OzfsParcel {
  parcelId: string;
  /** Position of the centroid feature in the file (for reject messages). */
  index: number;
  centroid: Position | null;
  lotWidthFt: number | null;
  lotDepthFt: number | null;
  lotAreaAcres: number | null;
  edges: OzfsEdge[];
  /** The closed ring the edges form, or null with the reason. */
  ring: Ring | null;
  problem?: string;
}

const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;

const key = (p: Position) => `${p[0].toFixed(9)},${p[1].toFixed(9)}`;

/** Chains LineStrings into one closed ring, or explains why they do not close. */
export function ringFromEdges(edges: Position[][]): { ring: Ring } | { problem: string } {
  const pending = edges.filter((e) => e.length >= 2).map((e) => [...e]);
  if (pending.length === 0) return { problem: 'no edges' };
  const ring: Position[] = pending.shift()!;
  while (pending.length > 0) {
    const end = key(ring[ring.length - 1]!);
    let found = -1;
    let reversed = false;
    for (let i = 0; i < pending.length; i++) {
      const e = pending[i]!;
      if (key(e[0]!) === end) {
        found = i;
        break;
      }
      if (key(e[e.length - 1]!) === end) {
        found = i;
        reversed = true;
        break;
      }
    }
    if (found < 0) return { problem: `edges do not chain into one ring (${pending.length} left over)` };
    const next = pending.splice(found, 1)[0]!;
    if (reversed) next.reverse();
    ring.push(...next.slice(1));
  }
  if (key(ring[0]!) !== key(ring[ring.length - 1]!)) return { problem: 'edges do not close' };
  if (ring.length < 4) return { problem: 'ring has fewer than 3 distinct points' };
  return { ring };
}

export function parseOzfsParcels(text: string, where: string): { parcels: OzfsParcel[]; featuresRead: number; strayFeatures: number } {
  const features = parseGeoJson(text, where);
  const byId = new Map<string, OzfsParcel>();
  let stray = 0;
  const get = (id: string, index: number): OzfsParcel => {
    let p = byId.get(id);
    if (!p) {
      p = { parcelId: id, index, centroid: null, lotWidthFt: null, lotDepthFt: null, lotAreaAcres: null, edges: [], ring: null };
      byId.set(id, p);
    }
    return p;
  };
  for (const f of features) {
    const id = f.properties['parcel_id'];
    const side = String(f.properties['side'] ?? '');
    if (typeof id !== 'string' || id === '' || !f.geometry) {
      stray++;
      continue;
    }
    const p = get(id, f.index);
    if (side === 'centroid' && f.geometry.type === 'Point') {
      p.centroid = f.geometry.coordinates as Position;
      p.index = f.index;
      p.lotWidthFt = num(f.properties['lot_width']);
      p.lotDepthFt = num(f.properties['lot_depth']);
      p.lotAreaAcres = num(f.properties['lot_area']);
    } else if (f.geometry.type === 'LineString') {
      p.edges.push({ side, coords: f.geometry.coordinates as Position[] });
    } else if (f.geometry.type === 'MultiLineString') {
      for (const part of f.geometry.coordinates as Position[][]) p.edges.push({ side, coords: part });
    } else {
      stray++;
    }
  }
  for (const p of byId.values()) {
    const r = ringFromEdges(p.edges.map((e) => e.coords));
    if ('ring' in r) p.ring = r.ring;
    else p.problem = r.problem;
  }
  return { parcels: [...byId.values()], featuresRead: features.length, strayFeatures: stray };
}
