// The buildable footprint: the build lot polygon inset by the front, side and rear yards, where the
// front is the real front lot line — the lot edges facing the front street's centreline — and the
// rear the edges facing away from it. Each edge's yard is cut off as a strip (lot minus strips), so
// irregular lots are handled; at a reflex corner the strips leave a small wedge (an overestimate
// under 1 % on ordinary lots), noted in docs/projects.md.
import polygonClipping, { type MultiPolygon as PcMulti, type Polygon as PcPoly } from 'polygon-clipping';
import { FT_PER_M, SQFT_PER_M2, localProjector, metresPerDegree, signedRingArea, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';
import { PlaceFrame, PolygonSetBuilder, type PolygonSet } from '../core/geo/polygon-set.ts';
import { ClipScratch, intersectionArea } from '../core/geo/intersection-area.ts';
import { segmentsCrossProperly } from '../core/geo/planar-ops.ts';

/** An edge faces the street when its midpoint is this close to the centreline (metres) ... */
const FRONT_MAX_DISTANCE_M = 35;
/** ... within this much of the closest edge's distance ... */
const FRONT_DISTANCE_SLACK_M = 4;
/** ... and runs within this angle of the street. */
const FRONT_MAX_ANGLE_DEG = 40;

export interface Yards {
  frontFt: number;
  sideFt: number;
  rearFt: number;
}

export type FootprintResult =
  | {
      ok: true;
      areaSqft: number;
      frontEdges: number;
      rearEdges: number;
      sideEdges: number;
      frontLineFt: number;
      /** The inset itself (lon/lat), for a drawing of it (the 3D envelope view); empty when the yards leave nothing. */
      footprint: MultiPolygonCoords;
    }
  | { ok: false; reason: string };

type XY = [number, number];

function dist2PointSeg(p: XY, a: XY, b: XY): number {
  const dx = b[0] - a[0],
    dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2));
  const x = a[0] + t * dx - p[0],
    y = a[1] + t * dy - p[1];
  return x * x + y * y;
}

function polyAreaM2(mp: PcMulti): number {
  let total = 0;
  for (const poly of mp) poly.forEach((ring, i) => (total += (i === 0 ? 1 : -1) * Math.abs(signedRingArea(ring))));
  return Math.max(0, total);
}

/**
 * Ground (m²) the inset may claim outside the lot or inside a yard strip before it is distrusted: far
 * above the rounding of an exact cut (under 1e-6 m² on every Cambridge lot), far below a square foot.
 */
export const INSET_CHECK_TOLERANCE_M2 = 0.01;

/** Polygons in local metres as one polygon-set item (closing vertices dropped). */
function itemOf(builder: PolygonSetBuilder, mp: PcMulti): number {
  return builder.addFrame(
    mp.map((poly) =>
      poly.map((ring) => {
        const n = ring.length > 1 && ring[0]![0] === ring[ring.length - 1]![0] && ring[0]![1] === ring[ring.length - 1]![1] ? ring.length - 1 : ring.length;
        const flat = new Float64Array(2 * n);
        for (let k = 0; k < n; k++) {
          flat[2 * k] = ring[k]![0];
          flat[2 * k + 1] = ring[k]![1];
        }
        return flat;
      }),
    ),
  );
}

/** True when two edges of the item's rings (any rings) cross at a point inside both. */
function edgesCross(set: PolygonSet, item: number): boolean {
  const edges: number[][] = []; // [minX, maxX, ax, ay, bx, by]
  for (let p = set.itemPoly[item]!; p < set.itemPoly[item + 1]!; p++) {
    for (let r = set.polyRing[p]!; r < set.polyRing[p + 1]!; r++) {
      const from = set.ringVert[r]!,
        to = set.ringVert[r + 1]!;
      for (let v = from; v < to; v++) {
        const w = v + 1 < to ? v + 1 : from;
        const ax = set.xy[2 * v]!,
          ay = set.xy[2 * v + 1]!,
          bx = set.xy[2 * w]!,
          by = set.xy[2 * w + 1]!;
        edges.push([Math.min(ax, bx), Math.max(ax, bx), ax, ay, bx, by]);
      }
    }
  }
  edges.sort((e, g) => e[0]! - g[0]!);
  for (let i = 0; i < edges.length; i++) {
    const [, maxX, ax, ay, bx, by] = edges[i]!;
    for (let j = i + 1; j < edges.length && edges[j]![0]! <= maxX!; j++) {
      const [, , cx, cy, dx, dy] = edges[j]!;
      if (segmentsCrossProperly(ax!, ay!, bx!, by!, cx!, cy!, dx!, dy!, 1e-7)) return true;
    }
  }
  return false;
}

/**
 * How much ground the inset claims that it may not: outside the lot, or inside a yard strip. It is
 * measured with our own exact intersection areas because polygon-clipping can return wrong rings
 * without throwing (our property test found a ring ∩ triangle it put at 102 m² instead of 46 m²); a
 * footprint larger than the truth would tell a user they may build where they may not.
 *
 * "Outside the lot" is measured by winding number, which reads the lot as polygon-clipping does only
 * when no two of its edges cross: a lot ring that crosses itself (16 of Cambridge's 13,116 parcels)
 * can have a lobe of winding −1 that polygon-clipping counts as lot. For such a lot only the yard
 * strips are checked.
 */
export function insetOverreachM2(shape: PcMulti, strips: PcPoly[], inset: PcMulti): number {
  const builder = new PolygonSetBuilder(new PlaceFrame(0, 0));
  const insetItem = itemOf(builder, inset);
  const lotItem = itemOf(builder, shape);
  const stripItems = strips.map((strip) => itemOf(builder, [strip]));
  const set: PolygonSet = builder.finish();
  const scratch = new ClipScratch();
  let overreach = 0;
  if (!edgesCross(set, lotItem)) overreach += Math.max(0, polyAreaM2(inset) - intersectionArea(set, insetItem, set, lotItem, scratch));
  for (const k of stripItems) overreach += Math.abs(intersectionArea(set, insetItem, set, k, scratch));
  return overreach;
}

// Long because: the yards cut from the lot in the order the bylaw states them (front, sides, rear) on one shared polygon.
export function buildableFootprint(lots: MultiPolygonCoords[], streetLines: Position[][], yards: Yards): FootprintResult {
  if (lots.length === 0) return { ok: false, reason: 'no build lot' };
  if (streetLines.length === 0) return { ok: false, reason: 'no front street centreline was found near the lot, so its front lot line is not known' };
  const first = lots[0]![0]![0]![0]!;
  const proj = localProjector(first[1], first[0]);
  const toXY = (ring: Position[]): XY[] => ring.map((p) => proj(p));
  let shape: PcMulti;
  try {
    const polys = lots.map((mp) => mp.map((poly) => poly.map(toXY)) as PcMulti);
    shape = polys.length === 1 ? polys[0]! : polygonClipping.union(polys[0]!, ...polys.slice(1));
  } catch {
    return { ok: false, reason: 'the build lots could not be combined into one shape' };
  }
  // The largest piece carries the front lot line; the others (if the lots do not touch) keep their own edges.
  const segs: [XY, XY][] = [];
  for (const line of streetLines) {
    const xy = line.map((p) => proj(p));
    for (let i = 1; i < xy.length; i++) segs.push([xy[i - 1]!, xy[i]!]);
  }
  interface Edge {
    a: XY;
    b: XY;
    n: XY;
    len: number;
    dist: number;
    angleOk: boolean;
  }
  const edges: Edge[] = [];
  for (const poly of shape) {
    const outer = poly[0]!.slice();
    if (outer.length > 1 && outer[0]![0] === outer[outer.length - 1]![0] && outer[0]![1] === outer[outer.length - 1]![1]) outer.pop();
    const ccw = signedRingArea(outer) > 0;
    for (let i = 0; i < outer.length; i++) {
      const a = outer[i]! as XY,
        b = outer[(i + 1) % outer.length]! as XY;
      const dx = b[0] - a[0],
        dy = b[1] - a[1];
      const len = Math.hypot(dx, dy);
      if (len < 0.05) continue;
      const n: XY = ccw ? [-dy / len, dx / len] : [dy / len, -dx / len]; // inward normal
      const mid: XY = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      let best = Infinity,
        bestSeg: [XY, XY] | null = null;
      for (const s of segs) {
        const d = dist2PointSeg(mid, s[0], s[1]);
        if (d < best) {
          best = d;
          bestSeg = s;
        }
      }
      let angleOk = false;
      if (bestSeg) {
        const sx = bestSeg[1][0] - bestSeg[0][0],
          sy = bestSeg[1][1] - bestSeg[0][1];
        const cos = Math.abs(dx * sx + dy * sy) / (len * Math.hypot(sx, sy) || 1);
        angleOk = cos >= Math.cos((FRONT_MAX_ANGLE_DEG * Math.PI) / 180);
      }
      edges.push({ a, b, n, len, dist: Math.sqrt(best), angleOk });
    }
  }
  const candidates = edges.filter((e) => e.angleOk && e.dist <= FRONT_MAX_DISTANCE_M);
  if (candidates.length === 0) return { ok: false, reason: 'no lot edge faces the front street, so the front lot line is not known' };
  const nearest = Math.min(...candidates.map((e) => e.dist));
  const front = new Set(candidates.filter((e) => e.dist <= nearest + FRONT_DISTANCE_SLACK_M));
  let fx = 0,
    fy = 0;
  for (const e of front) {
    fx += e.n[0] * e.len;
    fy += e.n[1] * e.len;
  }
  const fl = Math.hypot(fx, fy) || 1;
  fx /= fl;
  fy /= fl;
  const m = (ft: number) => ft / FT_PER_M;
  const strips: PcPoly[] = [];
  let rear = 0,
    side = 0;
  for (const e of edges) {
    let s: number;
    if (front.has(e)) s = m(yards.frontFt);
    else if (e.n[0] * fx + e.n[1] * fy < -0.5) {
      s = m(yards.rearFt);
      rear++;
    } else {
      s = m(yards.sideFt);
      side++;
    }
    if (s <= 0) continue;
    const a = e.a,
      b = e.b; // at a convex corner the strips of the two edges overlap: no sliver is left
    strips.push([[a, b, [b[0] + e.n[0] * s, b[1] + e.n[1] * s], [a[0] + e.n[0] * s, a[1] + e.n[1] * s], a]]);
  }
  let inset: PcMulti;
  try {
    inset = strips.length ? polygonClipping.difference(shape, ...strips) : shape;
  } catch {
    return { ok: false, reason: 'the yards could not be cut from the lot polygon (degenerate geometry)' };
  }
  if (insetOverreachM2(shape, strips, inset) > INSET_CHECK_TOLERANCE_M2) {
    return { ok: false, reason: 'the yards could not be cut from the lot polygon exactly (the cut claimed ground outside the lot or inside a yard)' };
  }
  const frontLen = [...front].reduce((t, e) => t + e.len, 0);
  const { kx, ky } = metresPerDegree(first[1]);
  const toLonLat = (p: XY): Position => [first[0] + p[0] / kx, first[1] + p[1] / ky];
  return {
    ok: true,
    areaSqft: Math.round(polyAreaM2(inset) * SQFT_PER_M2),
    frontEdges: front.size,
    rearEdges: rear,
    sideEdges: side,
    frontLineFt: Math.round(frontLen * FT_PER_M * 10) / 10,
    footprint: inset.map((poly) => poly.map((ring) => ring.map((p) => toLonLat(p as XY)))),
  };
}
