// Exact area of the intersection of two polygon sets' items, without building the intersection.
//
// A ring's winding number is the signed sum of the indicator functions of its fan triangles
// (v0, vk, vk+1), so area(A ∩ lot ring) = Σk sign(Tk) · area(A ∩ Tk). Each triangle is convex, and
// clipping any ring (convex or not) to a convex region with Sutherland–Hodgman yields a ring whose
// signed area is exactly the signed area of the part inside (the extra edges it adds along the clip
// lines cancel). So only half-plane clips of flat arrays are needed: no allocation per lot, no
// sweep-line, and no failure modes on touching or collinear edges.
import type { PolygonSet } from './polygon-set.ts';
import { ringSignedArea } from './planar-ops.ts';

/** Reusable ping-pong buffers for the clips. */
export class ClipScratch {
  a = new Float64Array(1024);
  b = new Float64Array(1024);
  tri = new Float64Array(6);
  rect = new Float64Array(8);
  ensure(vertices: number): void {
    const need = vertices * 4 + 16; // a clip by k half-planes adds at most k vertices; be generous
    if (this.a.length < need) {
      this.a = new Float64Array(need * 2);
      this.b = new Float64Array(need * 2);
    }
  }
}

/**
 * Clips the ring (src, n vertices) to the left side of the directed line p->q; writes into dst and
 * returns the vertex count.
 */
function clipHalfPlane(src: Float64Array, n: number, px: number, py: number, qx: number, qy: number, dst: Float64Array): number {
  const dx = qx - px;
  const dy = qy - py;
  let m = 0;
  if (n === 0) return 0;
  let sx = src[2 * (n - 1)]!;
  let sy = src[2 * (n - 1) + 1]!;
  let sSide = dx * (sy - py) - dy * (sx - px);
  for (let k = 0; k < n; k++) {
    const ex = src[2 * k]!;
    const ey = src[2 * k + 1]!;
    const eSide = dx * (ey - py) - dy * (ex - px);
    if (eSide >= 0) {
      if (sSide < 0) {
        const t = sSide / (sSide - eSide);
        dst[2 * m] = sx + t * (ex - sx);
        dst[2 * m + 1] = sy + t * (ey - sy);
        m++;
      }
      dst[2 * m] = ex;
      dst[2 * m + 1] = ey;
      m++;
    } else if (sSide >= 0) {
      const t = sSide / (sSide - eSide);
      dst[2 * m] = sx + t * (ex - sx);
      dst[2 * m + 1] = sy + t * (ey - sy);
      m++;
    }
    sx = ex;
    sy = ey;
    sSide = eSide;
  }
  return m;
}

/**
 * Clips ring `src` (n vertices) to the counter-clockwise convex polygon `clip` (c vertices), using
 * `first` and `second` as work space. Returns the buffer holding the result and its vertex count.
 */
function clipConvex(src: Float64Array, n: number, clip: Float64Array, c: number, first: Float64Array, second: Float64Array): { buf: Float64Array; n: number } {
  let inBuf = src;
  let outBuf = first;
  let count = n;
  for (let k = 0; k < c && count > 0; k++) {
    const j = (k + 1) % c;
    count = clipHalfPlane(inBuf, count, clip[2 * k]!, clip[2 * k + 1]!, clip[2 * j]!, clip[2 * j + 1]!, outBuf);
    inBuf = outBuf;
    outBuf = outBuf === first ? second : first;
  }
  return { buf: inBuf, n: count };
}

/** The rectangle as a counter-clockwise ring of 4 vertices, written into `rect` (the scratch's, reused). */
function rectRing(rect: Float64Array, minX: number, minY: number, maxX: number, maxY: number): Float64Array {
  rect[0] = minX;
  rect[1] = minY;
  rect[2] = maxX;
  rect[3] = minY;
  rect[4] = maxX;
  rect[5] = maxY;
  rect[6] = minX;
  rect[7] = maxY;
  return rect;
}

/** The ring (src, n vertices) clipped to a rectangle, as a new flat array (possibly empty). */
export function clipRingToRect(src: Float64Array, n: number, minX: number, minY: number, maxX: number, maxY: number, s: ClipScratch): Float64Array {
  const rect = rectRing(s.rect, minX, minY, maxX, maxY);
  s.ensure(n + 8);
  const out = clipConvex(src, n, rect, 4, s.a, s.b);
  return out.n < 3 ? new Float64Array(0) : out.buf.slice(0, 2 * out.n);
}

/**
 * Area (frame units) of item `a` of set A inside item `b` of set B, counting only A-rings whose
 * bounding box meets B's item bounding box. Rings are weighted by role: outer +, holes −.
 */
export function intersectionArea(A: PolygonSet, a: number, B: PolygonSet, b: number, s: ClipScratch): number {
  const minX = B.bbox[4 * b]!;
  const minY = B.bbox[4 * b + 1]!;
  const maxX = B.bbox[4 * b + 2]!;
  const maxY = B.bbox[4 * b + 3]!;
  const rect = rectRing(s.rect, minX, minY, maxX, maxY);
  let total = 0;
  const axy = A.xy;
  for (let p = A.itemPoly[a]!; p < A.itemPoly[a + 1]!; p++) {
    for (let r = A.polyRing[p]!; r < A.polyRing[p + 1]!; r++) {
      const from = A.ringVert[r]!;
      const to = A.ringVert[r + 1]!;
      const n = to - from;
      // Ring bbox test first: most rings of a large district are far from the lot.
      let rMinX = Infinity,
        rMinY = Infinity,
        rMaxX = -Infinity,
        rMaxY = -Infinity;
      for (let v = from; v < to; v++) {
        const x = axy[2 * v]!;
        const y = axy[2 * v + 1]!;
        if (x < rMinX) rMinX = x;
        if (x > rMaxX) rMaxX = x;
        if (y < rMinY) rMinY = y;
        if (y > rMaxY) rMaxY = y;
      }
      if (rMaxX < minX || rMinX > maxX || rMaxY < minY || rMinY > maxY) continue;
      const ringArea = ringSignedArea(axy, from, to);
      if (ringArea === 0) continue;
      const weight = (r === A.polyRing[p]! ? 1 : -1) * Math.sign(ringArea);
      // Cut the A ring down to B's bounding box once, then to each fan triangle of B.
      s.ensure(n + 8);
      const src = axy.subarray(2 * from, 2 * to);
      const boxed = clipConvex(src, n, rect, 4, s.a, s.b);
      if (boxed.n < 3) continue;
      // Keep the boxed ring in its own copy: the triangle clips reuse both scratch buffers.
      const ring = boxed.buf.slice(0, 2 * boxed.n);
      s.ensure(boxed.n + 8);
      total += weight * areaInsideItem(ring, boxed.n, B, b, s);
    }
  }
  return total;
}

/** Signed area (by the ring's own orientation) of ring ∩ item b of B, via B's fan triangles. */
function areaInsideItem(ring: Float64Array, n: number, B: PolygonSet, b: number, s: ClipScratch): number {
  let total = 0;
  const bxy = B.xy;
  const tri = s.tri;
  for (let p = B.itemPoly[b]!; p < B.itemPoly[b + 1]!; p++) {
    for (let r = B.polyRing[p]!; r < B.polyRing[p + 1]!; r++) {
      const from = B.ringVert[r]!;
      const to = B.ringVert[r + 1]!;
      const ringArea = ringSignedArea(bxy, from, to);
      if (ringArea === 0) continue;
      const weight = (r === B.polyRing[p]! ? 1 : -1) * Math.sign(ringArea);
      const x0 = bxy[2 * from]!;
      const y0 = bxy[2 * from + 1]!;
      for (let k = from + 1; k + 1 < to; k++) {
        const x1 = bxy[2 * k]!;
        const y1 = bxy[2 * k + 1]!;
        const x2 = bxy[2 * k + 2]!;
        const y2 = bxy[2 * k + 3]!;
        const cross = (x1 - x0) * (y2 - y1) - (y1 - y0) * (x2 - x1);
        if (cross === 0) continue;
        // Clip against the triangle taken counter-clockwise.
        tri[0] = x0;
        tri[1] = y0;
        if (cross > 0) {
          tri[2] = x1;
          tri[3] = y1;
          tri[4] = x2;
          tri[5] = y2;
        } else {
          tri[2] = x2;
          tri[3] = y2;
          tri[4] = x1;
          tri[5] = y1;
        }
        const out = clipConvex(ring, n, tri, 3, s.a, s.b);
        if (out.n < 3) continue;
        total += weight * Math.sign(cross) * ringSignedArea(out.buf, 0, out.n);
      }
    }
  }
  return total;
}
