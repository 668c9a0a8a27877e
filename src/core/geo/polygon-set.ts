// Many (multi)polygons in flat typed arrays, in one local metric frame for a place. A million lots
// take ~100 MB this way instead of ~1 GB as nested JS arrays of [lon, lat] pairs.
import Flatbush from 'flatbush';
import { metresPerDegree, type MultiPolygonCoords } from './primitives.ts';
import { GrowableF64, GrowableU32, ringSignedArea } from './planar-ops.ts';

/**
 * An equirectangular frame on the WGS 84 ellipsoid about (lon0, lat0): x east, y north, metres (metres
 * per degree from the radii of curvature at lat0). Across a city the x scale drifts by the ratio of
 * N·cos(lat) to its value at lat0 (0.4 % at 25 km north or south): `xScaleAt` corrects lengths and
 * areas. The y scale drifts by the meridional radius, 1e-5 over 5 km, and is not corrected.
 */
export class PlaceFrame {
  readonly kx: number;
  readonly ky: number;
  constructor(
    readonly lon0: number,
    readonly lat0: number,
  ) {
    const k = metresPerDegree(lat0);
    this.kx = k.kx;
    this.ky = k.ky;
  }
  x(lon: number): number {
    return (lon - this.lon0) * this.kx;
  }
  /** Frame x back to longitude, frame y back to latitude (the inverse of x and y). */
  lonOf(x: number): number {
    return x / this.kx + this.lon0;
  }
  latOf(y: number): number {
    return y / this.ky + this.lat0;
  }
  y(lat: number): number {
    return (lat - this.lat0) * this.ky;
  }
  lat(y: number): number {
    return this.lat0 + y / this.ky;
  }
  /** Factor turning frame x-differences into true metres near frame ordinate y. */
  xScaleAt(y: number): number {
    return metresPerDegree(this.lat(y)).kx / this.kx;
  }
}

export interface PolygonSet {
  readonly count: number;
  /** item i owns polygons itemPoly[i] .. itemPoly[i+1]. */
  readonly itemPoly: Uint32Array;
  /** polygon p owns rings polyRing[p] .. polyRing[p+1]; its first ring is the outer one. */
  readonly polyRing: Uint32Array;
  /** ring r owns vertices ringVert[r] .. ringVert[r+1] (not repeated at the end). */
  readonly ringVert: Uint32Array;
  /** vertex v is (xy[2v], xy[2v+1]). */
  readonly xy: Float64Array;
  /** item i: minX, minY, maxX, maxY at 4i. */
  readonly bbox: Float64Array;
}

/** Expected sizes, when the caller knows them: the arrays are then allocated once, never regrown. */
export interface PolygonSetSizeHint {
  items: number;
  polygons: number;
  rings: number;
  vertices: number;
}

export class PolygonSetBuilder {
  private readonly itemPoly: GrowableU32;
  private readonly polyRing: GrowableU32;
  private readonly ringVert: GrowableU32;
  private readonly xy: GrowableF64;
  private readonly bbox: GrowableF64;
  count = 0;
  constructor(
    readonly frame: PlaceFrame,
    hint?: PolygonSetSizeHint,
  ) {
    this.itemPoly = new GrowableU32(hint ? hint.items + 1 : 1024);
    this.polyRing = new GrowableU32(hint ? hint.polygons + 1 : 1024);
    this.ringVert = new GrowableU32(hint ? hint.rings + 1 : 1024);
    this.xy = new GrowableF64(hint ? Math.max(2, 2 * hint.vertices) : 1 << 16);
    this.bbox = new GrowableF64(hint ? Math.max(4, 4 * hint.items) : 1024);
    this.itemPoly.push(0);
    this.polyRing.push(0);
    this.ringVert.push(0);
  }

  /** Adds one item; degenerate rings (under 3 distinct vertices) are skipped. Returns its index. */
  add(mp: MultiPolygonCoords): number {
    const f = this.frame;
    for (const poly of mp) {
      let rings = 0;
      for (const ring of poly) {
        let n = ring.length;
        if (n > 1 && ring[0]![0] === ring[n - 1]![0] && ring[0]![1] === ring[n - 1]![1]) n--;
        if (n < 3) {
          if (rings === 0) break; // no outer ring: drop the polygon
          continue;
        }
        for (let k = 0; k < n; k++) this.vertex(f.x(ring[k]![0]), f.y(ring[k]![1]));
        this.ringVert.push(this.xy.length / 2);
        rings++;
      }
      if (rings > 0) this.polyRing.push(this.ringVert.length - 1);
    }
    return this.endItem();
  }

  /** Adds one item already in frame coordinates: polygons of rings, each ring flat [x0, y0, x1, y1, ...]. */
  addFrame(polys: Float64Array[][]): number {
    for (const poly of polys) {
      if (!poly[0] || poly[0].length < 6) continue;
      for (const ring of poly) {
        if (ring.length < 6) continue;
        for (let k = 0; k < ring.length; k += 2) this.vertex(ring[k]!, ring[k + 1]!);
        this.ringVert.push(this.xy.length / 2);
      }
      this.polyRing.push(this.ringVert.length - 1);
    }
    return this.endItem();
  }

  // The item being added: its vertices go straight to xy, its bounding box is kept here.
  private minX = Infinity;
  private minY = Infinity;
  private maxX = -Infinity;
  private maxY = -Infinity;

  private vertex(x: number, y: number): void {
    this.xy.push(x);
    this.xy.push(y);
    if (x < this.minX) this.minX = x;
    if (y < this.minY) this.minY = y;
    if (x > this.maxX) this.maxX = x;
    if (y > this.maxY) this.maxY = y;
  }

  /** Closes the item being added (an item without vertices gets a zero box); returns its index. */
  private endItem(): number {
    this.itemPoly.push(this.polyRing.length - 1);
    const empty = this.minX === Infinity;
    this.bbox.push(empty ? 0 : this.minX);
    this.bbox.push(empty ? 0 : this.minY);
    this.bbox.push(empty ? 0 : this.maxX);
    this.bbox.push(empty ? 0 : this.maxY);
    this.minX = this.minY = Infinity;
    this.maxX = this.maxY = -Infinity;
    return this.count++;
  }

  finish(): PolygonSet {
    return {
      count: this.count,
      itemPoly: this.itemPoly.finish(),
      polyRing: this.polyRing.finish(),
      ringVert: this.ringVert.finish(),
      xy: this.xy.finish(),
      bbox: this.bbox.finish(),
    };
  }
}

/** Number of vertices of item i. */
export function itemVertexCount(set: PolygonSet, i: number): number {
  return set.ringVert[set.polyRing[set.itemPoly[i + 1]!]!]! - set.ringVert[set.polyRing[set.itemPoly[i]!]!]!;
}

/** Flatbush over the items' bounding boxes. */
export function indexItems(set: PolygonSet): Flatbush {
  const index = new Flatbush(Math.max(1, set.count));
  for (let i = 0; i < set.count; i++) index.add(set.bbox[4 * i]!, set.bbox[4 * i + 1]!, set.bbox[4 * i + 2]!, set.bbox[4 * i + 3]!);
  if (set.count === 0) index.add(0, 0, 0, 0);
  index.finish();
  return index;
}

/** Area of item i in frame units (outer rings minus holes), not scale-corrected. */
export function itemFrameArea(set: PolygonSet, i: number): number {
  let total = 0;
  for (let p = set.itemPoly[i]!; p < set.itemPoly[i + 1]!; p++) {
    for (let r = set.polyRing[p]!; r < set.polyRing[p + 1]!; r++) {
      const a = Math.abs(ringSignedArea(set.xy, set.ringVert[r]!, set.ringVert[r + 1]!));
      total += r === set.polyRing[p]! ? a : -a;
    }
  }
  return Math.max(0, total);
}

/** Even-odd point-in-item test over every ring of item i. */
export function pointInItem(set: PolygonSet, i: number, px: number, py: number): boolean {
  const b = 4 * i;
  if (px < set.bbox[b]! || px > set.bbox[b + 2]! || py < set.bbox[b + 1]! || py > set.bbox[b + 3]!) return false;
  let inside = false;
  const xy = set.xy;
  for (let p = set.itemPoly[i]!; p < set.itemPoly[i + 1]!; p++) {
    for (let r = set.polyRing[p]!; r < set.polyRing[p + 1]!; r++) {
      const from = set.ringVert[r]!;
      const to = set.ringVert[r + 1]!;
      for (let k = from, j = to - 1; k < to; j = k++) {
        const xk = xy[2 * k]!;
        const yk = xy[2 * k + 1]!;
        const xj = xy[2 * j]!;
        const yj = xy[2 * j + 1]!;
        if (yk > py !== yj > py && px < ((xj - xk) * (py - yk)) / (yj - yk) + xk) inside = !inside;
      }
    }
  }
  return inside;
}
