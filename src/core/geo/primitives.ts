// Plane geometry on lon/lat coordinates for city-scale work. Distances and areas use a local
// equirectangular projection on the WGS 84 / GRS 80 ellipsoid about the feature's own latitude (metres
// per degree from the meridional and prime-vertical radii of curvature there): within 1e-5 of a
// transverse Mercator on the ellipsoid for a lot, and no projection library on the hot path. (A sphere
// of the mean radius made every area in Massachusetts ~0.16 % small.) Exact CRS transforms (Saanich's
// UTM) use proj4 at import.

export type Position = [number, number]; // [lon, lat]
export type Ring = Position[];
export type PolygonCoords = Ring[]; // outer ring, then holes
export type MultiPolygonCoords = PolygonCoords[];
export type BBox = [number, number, number, number]; // minLon, minLat, maxLon, maxLat

const EARTH_RADIUS_M = 6_371_008.8;
const DEG = Math.PI / 180;
/** WGS 84 semi-major axis (m) and first eccentricity squared (GRS 80 differs in the 11th digit). */
const WGS84_A = 6_378_137;
const WGS84_E2 = 0.00669437999014;

/** Metres per degree of longitude (kx) and latitude (ky) at a latitude, on the WGS 84 ellipsoid. */
export function metresPerDegree(lat: number): { kx: number; ky: number } {
  const s = Math.sin(lat * DEG);
  const w = 1 - WGS84_E2 * s * s;
  const sw = Math.sqrt(w);
  const n = WGS84_A / sw; // prime-vertical radius of curvature
  const m = (WGS84_A * (1 - WGS84_E2)) / (w * sw); // meridional radius of curvature
  return { kx: n * Math.cos(lat * DEG) * DEG, ky: m * DEG };
}
export const SQFT_PER_M2 = 10.763910416709722;
export const FT_PER_M = 3.280839895013123;

export interface GeoJsonGeometry {
  type: string;
  coordinates?: unknown;
  geometries?: GeoJsonGeometry[];
}

/** Polygon or MultiPolygon GeoJSON geometry -> MultiPolygon coordinates; anything else -> null. */
export function toMultiPolygon(g: GeoJsonGeometry | null | undefined): MultiPolygonCoords | null {
  if (!g) return null;
  if (g.type === 'Polygon') return [g.coordinates as PolygonCoords];
  if (g.type === 'MultiPolygon') return g.coordinates as MultiPolygonCoords;
  if (g.type === 'GeometryCollection' && g.geometries) {
    const parts = g.geometries.map(toMultiPolygon).filter((x): x is MultiPolygonCoords => x !== null);
    return parts.length ? parts.flat() : null;
  }
  return null;
}

/** Bounding box of any nesting of positions. */
export function bboxOf(coords: unknown): BBox {
  const b: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  extendBBox(b, coords);
  return b;
}

// A module-level function, not a closure: bboxOf runs once per parcel of an import, and a closure
// made per call costs an allocation and (under tsx, which keeps names) a defineProperty each time.
function extendBBox(b: BBox, c: unknown): void {
  if (!Array.isArray(c)) return;
  if (typeof c[0] === 'number') {
    const x = c[0] as number;
    const y = c[1] as number;
    if (x < b[0]) b[0] = x;
    if (y < b[1]) b[1] = y;
    if (x > b[2]) b[2] = x;
    if (y > b[3]) b[3] = y;
    return;
  }
  for (let i = 0; i < c.length; i++) extendBBox(b, c[i]);
}

/** PostgreSQL box literal for a bbox. */
export function boxLiteral(b: BBox): string {
  return `(${b[2]},${b[3]}),(${b[0]},${b[1]})`;
}

/** A projector to local metres about latitude lat0 (x east, y north). */
export function localProjector(lat0: number, lon0 = 0): (p: Position) => [number, number] {
  const { kx, ky } = metresPerDegree(lat0);
  return (p) => [(p[0] - lon0) * kx, (p[1] - lat0) * ky];
}

/** Signed area of a ring in projected units (positive = counter-clockwise). */
export function signedRingArea(ring: readonly (readonly [number, number])[]): number {
  let s = 0;
  for (let i = 0, n = ring.length, j = n - 1; i < n; j = i++) {
    const a = ring[j]!;
    const b = ring[i]!;
    s += a[0] * b[1] - b[0] * a[1];
  }
  return s / 2;
}

/** Area in square metres of a MultiPolygon (holes subtracted). */
export function multiPolygonAreaM2(mp: MultiPolygonCoords): number {
  const b = bboxOf(mp);
  const proj = localProjector((b[1] + b[3]) / 2, (b[0] + b[2]) / 2);
  let total = 0;
  for (const poly of mp) {
    poly.forEach((ring, i) => {
      const a = Math.abs(signedRingArea(ring.map(proj)));
      total += i === 0 ? a : -a;
    });
  }
  return Math.max(0, total);
}

function pointInRing(p: Position, ring: Ring): boolean {
  let inside = false;
  const x = p[0];
  const y = p[1];
  for (let i = 0, n = ring.length, j = n - 1; i < n; j = i++) {
    const xi = ring[i]![0];
    const yi = ring[i]![1];
    const xj = ring[j]![0];
    const yj = ring[j]![1];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function pointInPolygon(p: Position, poly: PolygonCoords): boolean {
  if (!poly[0] || !pointInRing(p, poly[0])) return false;
  for (let i = 1; i < poly.length; i++) if (pointInRing(p, poly[i]!)) return false;
  return true;
}

export function pointInMultiPolygon(p: Position, mp: MultiPolygonCoords): boolean {
  for (const poly of mp) if (pointInPolygon(p, poly)) return true;
  return false;
}

/**
 * A point guaranteed inside the MultiPolygon (for non-degenerate input): the area centroid of the
 * largest polygon when it lies inside, otherwise the middle of the widest interior span on a
 * horizontal line through that polygon.
 */
export function pointOnSurface(mp: MultiPolygonCoords): Position {
  let best: PolygonCoords | undefined;
  let bestArea = -1;
  for (const poly of mp) {
    const a = poly[0] ? Math.abs(signedRingArea(poly[0])) : 0;
    if (a > bestArea) {
      bestArea = a;
      best = poly;
    }
  }
  if (!best?.[0] || best[0].length === 0) throw new Error('pointOnSurface: empty geometry');
  const c = ringCentroid(best[0]);
  if (c && pointInPolygon(c, best)) return c;
  const b = bboxOf(best);
  // Try a few horizontal lines; the first with an interior span wins.
  for (const f of [0.5, 0.37, 0.63, 0.25, 0.75, 0.1, 0.9]) {
    const y = b[1] + (b[3] - b[1]) * f;
    const xs: number[] = [];
    for (const ring of best) {
      for (let i = 0, n = ring.length, j = n - 1; i < n; j = i++) {
        const [xi, yi] = ring[i]!;
        const [xj, yj] = ring[j]!;
        if (yi > y !== yj > y) xs.push(((xj - xi) * (y - yi)) / (yj - yi) + xi);
      }
    }
    xs.sort((a, z) => a - z);
    let wide = -1;
    let mid: Position | undefined;
    for (let i = 0; i + 1 < xs.length; i += 2) {
      const w = xs[i + 1]! - xs[i]!;
      if (w > wide) {
        wide = w;
        mid = [(xs[i]! + xs[i + 1]!) / 2, y];
      }
    }
    if (mid && pointInPolygon(mid, best)) return mid;
  }
  return best[0][0]!;
}

function ringCentroid(ring: Ring): Position | null {
  let a = 0;
  let cx = 0;
  let cy = 0;
  const [ox, oy] = ring[0]!; // shift for numeric stability
  for (let i = 0, n = ring.length, j = n - 1; i < n; j = i++) {
    const x0 = ring[j]![0] - ox;
    const y0 = ring[j]![1] - oy;
    const x1 = ring[i]![0] - ox;
    const y1 = ring[i]![1] - oy;
    const f = x0 * y1 - x1 * y0;
    a += f;
    cx += (x0 + x1) * f;
    cy += (y0 + y1) * f;
  }
  if (a === 0) return null;
  return [cx / (3 * a) + ox, cy / (3 * a) + oy];
}

/** Distance in metres: on the ellipsoid's local plane for city distances, great circle beyond half a degree. */
export function distanceM(a: Position, b: Position): number {
  if (Math.abs(b[1] - a[1]) < 0.5 && Math.abs(b[0] - a[0]) < 0.5) {
    const { kx, ky } = metresPerDegree((a[1] + b[1]) / 2);
    return Math.hypot((b[0] - a[0]) * kx, (b[1] - a[1]) * ky);
  }
  const dLat = (b[1] - a[1]) * DEG;
  const dLon = (b[0] - a[0]) * DEG;
  const s = Math.sin(dLat / 2) ** 2 + Math.cos(a[1] * DEG) * Math.cos(b[1] * DEG) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(s)));
}

/** Distance in metres from p to the segment a-b, and the fraction along a-b of the nearest point. */
export function pointSegmentDistanceM(p: Position, a: Position, b: Position): { distanceM: number; t: number } {
  const proj = localProjector(p[1], p[0]);
  const [px, py] = proj(p);
  const [ax, ay] = proj(a);
  const [bx, by] = proj(b);
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2));
  const qx = ax + t * dx;
  const qy = ay + t * dy;
  return { distanceM: Math.hypot(px - qx, py - qy), t };
}

/** Length of a LineString in metres. */
function lineLengthM(line: Position[]): number {
  let s = 0;
  for (let i = 1; i < line.length; i++) s += distanceM(line[i - 1]!, line[i]!);
  return s;
}

/**
 * The point at distance fraction t (0..1) along a LineString, with the unit direction of travel
 * there (in local metres, x east, y north).
 */
export function pointAlongLine(line: Position[], t: number): { point: Position; dir: [number, number] } {
  const total = lineLengthM(line);
  let target = Math.max(0, Math.min(1, t)) * total;
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1]!;
    const b = line[i]!;
    const seg = distanceM(a, b);
    if (target <= seg || i === line.length - 1) {
      const f = seg === 0 ? 0 : Math.min(1, target / seg);
      const proj = localProjector(a[1], a[0]);
      const [bx, by] = proj(b);
      const len = Math.hypot(bx, by) || 1;
      return { point: [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f], dir: [bx / len, by / len] };
    }
    target -= seg;
  }
  return { point: line[0]!, dir: [1, 0] };
}

/** Moves a point by (dx east, dy north) metres. */
export function offsetM(p: Position, dxM: number, dyM: number): Position {
  const { kx, ky } = metresPerDegree(p[1]);
  return [p[0] + dxM / kx, p[1] + dyM / ky];
}
