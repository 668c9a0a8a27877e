// Plane geometry on flat coordinate arrays (x, y interleaved, metres), for the per-lot hot loops of
// lot-facts derivation: no allocation per call, so a million lots stay cheap.

/** Signed area of the ring xy[2*from .. 2*to) (implicitly closed; positive = counter-clockwise). */
export function ringSignedArea(xy: Float64Array, from: number, to: number): number {
  let s = 0;
  for (let i = from, j = to - 1; i < to; j = i++) {
    s += xy[2 * j]! * xy[2 * i + 1]! - xy[2 * i]! * xy[2 * j + 1]!;
  }
  return s / 2;
}

/** Squared distance from (px,py) to the segment (ax,ay)-(bx,by). */
export function pointSegmentDist2(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 === 0 ? 0 : ((px - ax) * dx + (py - ay) * dy) / len2;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  const qx = ax + t * dx - px;
  const qy = ay + t * dy - py;
  return qx * qx + qy * qy;
}

/**
 * True when the segments a-b and c-d cross at a single point lying strictly inside both (more than
 * `eps` metres from every endpoint). Touching, end-to-end and collinear overlaps are not crossings.
 */
export function segmentsCrossProperly(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number, eps: number): boolean {
  const rx = bx - ax;
  const ry = by - ay;
  const sx = dx - cx;
  const sy = dy - cy;
  const den = rx * sy - ry * sx;
  const lr = Math.hypot(rx, ry);
  const ls = Math.hypot(sx, sy);
  if (lr === 0 || ls === 0) return false;
  // Nearly parallel: no single crossing point.
  if (Math.abs(den) < 1e-9 * lr * ls) return false;
  const t = ((cx - ax) * sy - (cy - ay) * sx) / den;
  const u = ((cx - ax) * ry - (cy - ay) * rx) / den;
  const et = eps / lr;
  const eu = eps / ls;
  return t > et && t < 1 - et && u > eu && u < 1 - eu;
}

/** A Float64Array that grows by doubling, for loading coordinates without JS number arrays. */
export class GrowableF64 {
  data: Float64Array;
  length = 0;
  constructor(initial = 1024) {
    this.data = new Float64Array(initial);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  /** The values, then drop the builder. Mostly full: a view (no second copy at the peak); else a right-sized copy. */
  finish(): Float64Array {
    return this.length >= 0.75 * this.data.length ? this.data.subarray(0, this.length) : this.data.slice(0, this.length);
  }
}

/** A Uint32Array that grows by doubling. */
export class GrowableU32 {
  data: Uint32Array;
  length = 0;
  constructor(initial = 1024) {
    this.data = new Uint32Array(initial);
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  finish(): Uint32Array {
    return this.length >= 0.75 * this.data.length ? this.data.subarray(0, this.length) : this.data.slice(0, this.length);
  }
}
