// Frontage, depth and corner facts of one lot, from the lot fabric and the street centrelines.
//
// Front lot lines (SOURCES.md §1.5 caveat 10): the parts of the lot's outer boundary that no other
// lot shares and that face a street centreline. Each exposed part is cut into pieces of at most
// PIECE_M metres; a piece fronts the nearest centreline that lies within FACING_MAX_M metres on its
// outward side (within FACING_MAX_ANGLE of the outward normal) and runs roughly parallel to it
// (within PARALLEL_MAX_ANGLE) — except where the nearest centreline point is a dead end (a cul-de-sac's
// end in its bulb): there the piece must face that point, and the arc around it is a front.
// Per street: frontage = total length of its pieces; its direction = the length-weighted mean direction
// of the centreline edges its pieces face (tangent to the bulb at a dead end), not of the lot lines
// (chamfers and corner arcs bent it); depth = the lot's extent perpendicular to that direction.
// Corner: two fronts that meet (pieces within CORNER_ADJACENT_M) with the streets turning by at least
// CORNER_MIN_ANGLE_DEG (interior angle <= 135°, from the directed normals towards each street, so a
// sharp corner is a corner too); through: two fronts on opposite sides that do not meet.
// Right-of-way lots (a city's 'ROAD' parcel, street parcels: lots along whose inside street
// centrelines run for at least ROW_MIN_ELONGATION times the square root of their area) do not hide
// the lot lines they share: a lot line shared only with the street is still a front line.
import Flatbush from 'flatbush';
import { itemFrameArea, pointInItem, type PlaceFrame, type PolygonSet } from './polygon-set.ts';
import { ringSignedArea } from './planar-ops.ts';

/** Two lot lines closer than this (metres) are the same line (shared with a neighbour). */
const SHARED_TOLERANCE_M = 0.5;
/** Exposed runs shorter than this are ignored (vertex noise). */
const MIN_EXPOSED_M = 0.5;
/** Longest piece of an exposed run assigned to a street as a whole. */
const PIECE_M = 5;
/** A centreline further than this from a lot line does not make it a front line. */
export const FACING_MAX_M = 35;
/** Angle between the outward normal and the direction to the centreline, at most. */
const FACING_MAX_ANGLE_DEG = 60;
/** Angle between the lot line and the centreline, at most. */
const PARALLEL_MAX_ANGLE_DEG = 40;
const COS_FACING = Math.cos((FACING_MAX_ANGLE_DEG * Math.PI) / 180);
const COS_PARALLEL = Math.cos((PARALLEL_MAX_ANGLE_DEG * Math.PI) / 180);
/** A street enters frontByStreet only with at least this much frontage (metres). */
const MIN_FRONTAGE_M = 2;
/** A lot with centreline length inside >= this × sqrt(its area) is right of way. */
const ROW_MIN_ELONGATION = 2;
/** Lots with more vertices than this get their edges indexed (the 'ROAD' parcel has tens of thousands). */
const BIG_LOT_VERTICES = 64;
/** Two fronts meeting at an angle of at least this (interior angle at most 135°) make a corner lot. */
export const CORNER_MIN_ANGLE_DEG = 45;
/** Two fronts whose pieces come this close (metres, between piece midpoints) meet at the lot's corner. */
export const CORNER_ADJACENT_M = 10;
/** Fronts on opposite sides: their directed normals at least this far apart (a through lot when they do not meet). */
const THROUGH_MIN_ANGLE_DEG = 135;

export interface StreetFront {
  /** Total length of lot lines facing this street, metres. */
  frontageM: number;
  /** Extent of the lot perpendicular to the mean direction of its front on this street, metres. */
  depthM: number;
  /**
   * Present when part of the front was found by the dead-end rule (a cul-de-sac's bulb): the metres of
   * frontage that face the street's end point (measured along the arc), whose direction for the depth
   * is the bulb's tangent rather than the street's own.
   */
  bulbM?: number;
}

/**
 * Why a lot whose faces front two (or more) different streets is not a corner lot, for the pair of
 * streets closest to making it one (docs/lot-metrics.md). Absent on corner lots, on lots fronting one
 * street and on right-of-way lots.
 */
export interface NotCorner {
  /** The two street keys. */
  streets: [string, string];
  /** fronts_apart: the fronts do not meet; through_lot: they do not meet and face opposite ways; streets_do_not_turn: they meet, but the streets turn by less than the minimum. */
  reason: 'fronts_apart' | 'through_lot' | 'streets_do_not_turn';
  /** Nearest distance between the two fronts (between their pieces' midpoints, as the rule measures), metres. */
  gapM: number;
  /** Angle between the directions towards the two streets, degrees (180 minus the junction's interior angle as the lot sees it). */
  turnDeg: number;
  /** The rule's thresholds: fronts meet within this (metres) ... */
  meetWithinM: number;
  /** ... and the streets turn by at least this (degrees). */
  minTurnDeg: number;
}

export interface LotFacts {
  /** Keyed by street_key (as in street_segments / addresses). */
  frontByStreet: Record<string, StreetFront>;
  /** true: fronts two streets meeting at >= CORNER_MIN_ANGLE_DEG; false: fronts streets but not so; null: no front found. */
  cornerLot: boolean | null;
  /** Fronts two streets that run roughly parallel on opposite sides (a through lot). null: no front found. */
  throughLot: boolean | null;
  /** Street keys of frontByStreet, longest frontage first. */
  streets: string[];
  /** The lot counts as right of way (street land): its lines hide no neighbour's front. Its own fronts are derived as usual. */
  rightOfWay: boolean;
  /** Present when the lot fronts two or more streets but is not a corner lot: why (docs/lot-metrics.md). */
  notCorner?: NotCorner;
  /**
   * Only in a place without street centrelines (Somerville): the lot's outer edges no other lot shares,
   * grouped into sides (runs facing within UNSHARED_SIDE_ANGLE_DEG of one way), longest first, each
   * with the lot's depth across it. Which street a side faces is not known (docs/lot-geometry.md).
   */
  unshared?: {
    sides: UnsharedSide[];
    /** With exactly one side: its unshared runs as lon/lat segments (the front lot line the buildable footprint cuts from). */
    front?: [number, number][][];
  };
}

export interface UnsharedSide {
  /** Length of the side's unshared edges, metres. */
  lengthM: number;
  /** The lot's extent perpendicular to the side, metres. */
  depthM: number;
}

/** Unshared runs whose outward normals are within this angle of a side's join it (a side of the lot). */
const UNSHARED_SIDE_ANGLE_DEG = 30;

/** The place's street centrelines as an index of straight edges. */
export class StreetIndex {
  readonly index: Flatbush;
  readonly keys: string[] = [];
  private readonly keyOf = new Map<string, number>();
  /** edge e: ax, ay, bx, by at 4e. */
  private readonly coords: Float64Array;
  private readonly keyIdx: Uint32Array;
  /** edge e: bit 1 = its start is a dead end (a line end no other line touches), bit 2 = its end is. */
  private readonly deadEnds: Uint8Array;
  /** Set by facingAmong on a hit: the faced centreline's direction (unit, frame metres; the bulb's tangent at a dead end) ... */
  hitDirX = 1;
  hitDirY = 0;
  /** ... and the unit vector from the piece towards the street. */
  hitToX = 0;
  hitToY = 0;
  /** ... and whether the hit was by the dead-end rule (the piece faces a cul-de-sac's end point). */
  hitDeadEnd = false;

  constructor(lines: { streetKey: string; coords: Float64Array }[]) {
    let edges = 0;
    for (const l of lines) edges += Math.max(0, l.coords.length / 2 - 1);
    this.coords = new Float64Array(edges * 4);
    this.keyIdx = new Uint32Array(edges);
    this.deadEnds = new Uint8Array(edges);
    // Line ends touched by one line only (to the centimetre) are dead ends: cul-de-sacs, stubs.
    const endKey = (x: number, y: number) => `${Math.round(x * 100)},${Math.round(y * 100)}`;
    const touches = new Map<string, number>();
    for (const l of lines) {
      const n = l.coords.length / 2;
      if (n < 2) continue;
      for (let v = 0; v < n; v++) {
        const k = endKey(l.coords[2 * v]!, l.coords[2 * v + 1]!);
        // a line's ends count once; an inner vertex touched by another line's end makes that end no dead end
        touches.set(k, (touches.get(k) ?? 0) + (v === 0 || v === n - 1 ? 1 : 2));
      }
    }
    this.index = new Flatbush(Math.max(1, edges));
    let e = 0;
    for (const l of lines) {
      let k = this.keyOf.get(l.streetKey);
      if (k === undefined) {
        k = this.keys.length;
        this.keys.push(l.streetKey);
        this.keyOf.set(l.streetKey, k);
      }
      for (let v = 0; v + 3 < l.coords.length; v += 2) {
        const ax = l.coords[v]!;
        const ay = l.coords[v + 1]!;
        const bx = l.coords[v + 2]!;
        const by = l.coords[v + 3]!;
        this.coords.set([ax, ay, bx, by], 4 * e);
        this.keyIdx[e] = k;
        if (v === 0 && touches.get(endKey(ax, ay)) === 1) this.deadEnds[e]! |= 1;
        if (v + 4 >= l.coords.length && touches.get(endKey(bx, by)) === 1) this.deadEnds[e]! |= 2;
        this.index.add(Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by));
        e++;
      }
    }
    if (edges === 0) this.index.add(0, 0, 0, 0);
    this.index.finish();
  }

  get edgeCount(): number {
    return this.keyIdx.length;
  }

  /** Calls fn with each centreline edge's end points (frame metres). */
  forEachEdge(fn: (ax: number, ay: number, bx: number, by: number) => void): void {
    const c = this.coords;
    for (let e = 0; e < this.keyIdx.length; e++) fn(c[4 * e]!, c[4 * e + 1]!, c[4 * e + 2]!, c[4 * e + 3]!);
  }

  /**
   * The street that the lot-line piece centred at (mx,my), direction (ux,uy), outward normal
   * (nx,ny) faces, or -1.
   */
  facing(mx: number, my: number, ux: number, uy: number, nx: number, ny: number): number {
    return this.facingAmong(this.near(mx, my, mx, my), mx, my, ux, uy, nx, ny);
  }

  /** Centreline edges within FACING_MAX_M of the box. */
  near(minX: number, minY: number, maxX: number, maxY: number): number[] {
    if (this.keyIdx.length === 0) return [];
    return this.index.search(minX - FACING_MAX_M, minY - FACING_MAX_M, maxX + FACING_MAX_M, maxY + FACING_MAX_M);
  }

  /**
   * As facing(), choosing among the edges `candidates` (from near()). On a hit, hitDir* and hitTo*
   * hold the faced street's direction and the direction towards it.
   */
  facingAmong(candidates: readonly number[], mx: number, my: number, ux: number, uy: number, nx: number, ny: number): number {
    const cosFacing = COS_FACING;
    const cosParallel = COS_PARALLEL;
    let best = -1;
    let bestD2 = FACING_MAX_M * FACING_MAX_M;
    const c = this.coords;
    for (const e of candidates) {
      const ax = c[4 * e]!;
      const ay = c[4 * e + 1]!;
      const bx = c[4 * e + 2]!;
      const by = c[4 * e + 3]!;
      const dx = bx - ax;
      const dy = by - ay;
      const len = Math.hypot(dx, dy);
      if (len === 0) continue;
      const len2 = len * len;
      const tRaw = ((mx - ax) * dx + (my - ay) * dy) / len2;
      // Beyond a dead end (the piece lies around a cul-de-sac's end): the lot line need not run
      // parallel to the stub, it must face the end point (checked below), like an arc around it.
      const atDeadEnd = (tRaw <= 0 && (this.deadEnds[e]! & 1) !== 0) || (tRaw >= 1 && (this.deadEnds[e]! & 2) !== 0);
      if (!atDeadEnd && Math.abs((dx * ux + dy * uy) / len) < cosParallel) continue;
      const t = tRaw < 0 ? 0 : tRaw > 1 ? 1 : tRaw;
      const wx = ax + t * dx - mx;
      const wy = ay + t * dy - my;
      const d2 = wx * wx + wy * wy;
      if (d2 >= bestD2) continue;
      const d = Math.sqrt(d2);
      if (d > 0.5 && (wx * nx + wy * ny) / d < cosFacing) continue;
      if (atDeadEnd && d <= 0.5) continue;
      best = this.keyIdx[e]!;
      bestD2 = d2;
      this.hitDeadEnd = atDeadEnd;
      if (d > 0.5) {
        this.hitToX = wx / d;
        this.hitToY = wy / d;
      } else {
        this.hitToX = nx; // on the centreline: the street is on the outward side
        this.hitToY = ny;
      }
      if (atDeadEnd) {
        // tangent of the circle about the end point
        this.hitDirX = -wy / d;
        this.hitDirY = wx / d;
      } else {
        this.hitDirX = dx / len;
        this.hitDirY = dy / len;
      }
    }
    return best;
  }
}

/** All lots of a place with the indexes lot-facts needs: lot boxes, big lots' edges, right of way. */
export class LotFabric {
  readonly lotIndex: Flatbush;
  /** 1 for lots whose lines do not hide a neighbour's front (right of way). */
  readonly rightOfWay: Uint8Array;
  private readonly big: Uint8Array;
  private readonly bigEdges: Flatbush | null;
  private readonly bigFrom: Uint32Array;
  private readonly bigTo: Uint32Array;
  private readonly bigLot: Uint32Array;

  constructor(
    readonly lots: PolygonSet,
    lotIndex: Flatbush,
    streets: StreetIndex,
    readonly frame: PlaceFrame,
  ) {
    this.lotIndex = lotIndex;
    const n = lots.count;
    this.big = new Uint8Array(n);
    let edges = 0;
    for (let i = 0; i < n; i++) {
      const v = lots.ringVert[lots.polyRing[lots.itemPoly[i + 1]!]!]! - lots.ringVert[lots.polyRing[lots.itemPoly[i]!]!]!;
      if (v > BIG_LOT_VERTICES) {
        this.big[i] = 1;
        edges += v;
      }
    }
    this.bigFrom = new Uint32Array(edges);
    this.bigTo = new Uint32Array(edges);
    this.bigLot = new Uint32Array(edges);
    this.bigEdges = edges ? new Flatbush(edges) : null;
    const xy = lots.xy;
    let e = 0;
    for (let i = 0; i < n; i++) {
      if (!this.big[i]) continue;
      forEachEdgeOf(lots, i, (j, k) => {
        this.bigFrom[e] = j;
        this.bigTo[e] = k;
        this.bigLot[e] = i;
        this.bigEdges!.add(
          Math.min(xy[2 * j]!, xy[2 * k]!),
          Math.min(xy[2 * j + 1]!, xy[2 * k + 1]!),
          Math.max(xy[2 * j]!, xy[2 * k]!),
          Math.max(xy[2 * j + 1]!, xy[2 * k + 1]!),
        );
        e++;
      });
    }
    this.bigEdges?.finish();
    this.rightOfWay = this.findRightOfWay(streets);
  }

  isBig(i: number): boolean {
    return this.big[i] === 1;
  }

  /** Point in lot i (even-odd), through the edge index for big lots. */
  contains(i: number, px: number, py: number): boolean {
    const b = 4 * i;
    const L = this.lots;
    if (px < L.bbox[b]! || px > L.bbox[b + 2]! || py < L.bbox[b + 1]! || py > L.bbox[b + 3]!) return false;
    if (!this.big[i] || !this.bigEdges) return pointInItem(L, i, px, py);
    const xy = L.xy;
    let inside = false;
    this.bigEdges.search(px, py, L.bbox[b + 2]!, py, (e) => {
      if (this.bigLot[e] !== i) return false;
      const j = this.bigFrom[e]!;
      const k = this.bigTo[e]!;
      const xj = xy[2 * j]!,
        yj = xy[2 * j + 1]!,
        xk = xy[2 * k]!,
        yk = xy[2 * k + 1]!;
      if (yk > py !== yj > py && px < ((xj - xk) * (py - yk)) / (yj - yk) + xk) inside = !inside;
      return false;
    });
    return inside;
  }

  /** Edges of big lot i near the box, as flat (from, to) vertex pairs. */
  bigEdgesNear(i: number, minX: number, minY: number, maxX: number, maxY: number): number[] {
    const out: number[] = [];
    if (!this.bigEdges) return out;
    for (const e of this.bigEdges.search(minX, minY, maxX, maxY)) if (this.bigLot[e] === i) out.push(this.bigFrom[e]!, this.bigTo[e]!);
    return out;
  }

  private findRightOfWay(streets: StreetIndex): Uint8Array {
    const n = this.lots.count;
    const inside = new Float64Array(n);
    const sx = (y: number) => this.frame.xScaleAt(y);
    streets.forEachEdge((ax, ay, bx, by) => {
      const len = Math.hypot((bx - ax) * sx(ay), by - ay);
      const pieces = Math.max(1, Math.ceil(len / 10));
      for (let q = 0; q < pieces; q++) {
        const t = (q + 0.5) / pieces;
        const px = ax + (bx - ax) * t;
        const py = ay + (by - ay) * t;
        for (const i of this.lotIndex.search(px, py, px, py)) if (this.contains(i, px, py)) inside[i]! += len / pieces;
      }
    });
    const row = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      if (inside[i]! === 0) continue;
      const area = itemFrameArea(this.lots, i) * sx(this.lots.bbox[4 * i + 1]!);
      if (inside[i]! >= 20 && inside[i]! >= ROW_MIN_ELONGATION * Math.sqrt(area)) row[i] = 1;
    }
    return row;
  }
}

function forEachEdgeOf(lots: PolygonSet, i: number, fn: (from: number, to: number) => void): void {
  for (let p = lots.itemPoly[i]!; p < lots.itemPoly[i + 1]!; p++) {
    for (let r = lots.polyRing[p]!; r < lots.polyRing[p + 1]!; r++) {
      const from = lots.ringVert[r]!;
      const to = lots.ringVert[r + 1]!;
      for (let k = from, j = to - 1; k < to; j = k++) fn(j, k);
    }
  }
}

interface FrontAcc {
  length: number;
  // Length-weighted doubled-angle sums of the faced centreline's direction: lines, not vectors, so
  // opposite senses agree.
  c2: number;
  s2: number;
  // Length-weighted sum of the unit vectors towards the street (true metres): which side it is on.
  tx: number;
  ty: number;
  /** Piece midpoints (frame metres), x, y pairs: where the front runs, to tell whether two fronts meet. */
  mids: number[];
  /** Length of the pieces that front the street by the dead-end rule (around a cul-de-sac's end). */
  bulb: number;
}

/**
 * Facts of lot i of the fabric. Only outer rings can be front lot lines; every ring of a neighbour
 * (other than a right-of-way lot) can hide one.
 * Long because: the hot loop of every import (a million lots), one pass over the lot's edges whose
 * arrays (pieces, fronts, depths, corners) each later part reads; docs/lot-geometry.md walks it in order.
 */
export function lotFacts(fabric: LotFabric, i: number, streets: StreetIndex): LotFacts {
  const { lots, lotIndex, frame } = fabric;
  const xy = lots.xy;
  const b = 4 * i;
  const sx = frame.xScaleAt((lots.bbox[b + 1]! + lots.bbox[b + 3]!) / 2);
  const tol = SHARED_TOLERANCE_M;
  const big = fabric.isBig(i);
  // Neighbours: lots whose boxes meet this lot's box; for a big lot (a box spanning much of the city) per edge instead.
  const neighboursNear = (minX: number, minY: number, maxX: number, maxY: number): number[] => {
    const out: number[] = [];
    for (const j of lotIndex.search(minX - tol, minY - tol, maxX + tol, maxY + tol)) if (j !== i && !fabric.rightOfWay[j]) out.push(j);
    return out;
  };
  const lotNeighbours = big ? [] : neighboursNear(lots.bbox[b]!, lots.bbox[b + 1]!, lots.bbox[b + 2]!, lots.bbox[b + 3]!);
  const acc = new Map<number, FrontAcc>();
  const intervals: number[] = [];
  // Centreline edges that any lot line of this lot could face: one index search per lot, or per
  // exposed run for big lots (whose box may span the city).
  if (streets.edgeCount === 0) {
    // No centrelines: the front is the lot's one unshared side, when it has exactly one (a corner lot has two).
    const front: number[][] = [];
    const sides = unsharedSides(fabric, i, big ? null : lotNeighbours, neighboursNear, sx, front);
    const one = sides.length === 1;
    const unshared = one
      ? {
          sides,
          front: front
            .map((r) => [frame.lonOf(r[0]!), frame.latOf(r[1]!), frame.lonOf(r[2]!), frame.latOf(r[3]!)].map(round7))
            .map(
              (q) =>
                [
                  [q[0]!, q[1]!],
                  [q[2]!, q[3]!],
                ] as [number, number][],
            ),
        }
      : { sides };
    return { frontByStreet: {}, cornerLot: one ? false : null, throughLot: one ? false : null, streets: [], rightOfWay: false, unshared };
  }
  const nearLot = big ? [] : streets.near(lots.bbox[b]!, lots.bbox[b + 1]!, lots.bbox[b + 2]!, lots.bbox[b + 3]!);
  if (!big && nearLot.length === 0) return { frontByStreet: {}, cornerLot: null, throughLot: null, streets: [], rightOfWay: fabric.rightOfWay[i] === 1 };

  for (let p = lots.itemPoly[i]!; p < lots.itemPoly[i + 1]!; p++) {
    const r = lots.polyRing[p]!; // outer ring only
    const from = lots.ringVert[r]!;
    const to = lots.ringVert[r + 1]!;
    const ccw = ringSignedArea(xy, from, to) > 0;
    for (let k = from, j = to - 1; k < to; j = k++) {
      const ax = xy[2 * j]!;
      const ay = xy[2 * j + 1]!;
      const ex = xy[2 * k]! - ax;
      const ey = xy[2 * k + 1]! - ay;
      const len = Math.hypot(ex, ey);
      if (len < MIN_EXPOSED_M) continue;
      const ux = ex / len;
      const uy = ey / len;
      // Outward normal: right of travel on a counter-clockwise outer ring.
      const nx = ccw ? uy : -uy;
      const ny = ccw ? -ux : ux;
      intervals.length = 0;
      const neighbours = big ? neighboursNear(Math.min(ax, ax + ex), Math.min(ay, ay + ey), Math.max(ax, ax + ex), Math.max(ay, ay + ey)) : lotNeighbours;
      collectShared(fabric, neighbours, ax, ay, ux, uy, len, intervals);
      for (const [t0, t1] of exposedRuns(intervals, len)) {
        const runLen = t1 - t0;
        const near = big
          ? streets.near(
              Math.min(ax + ux * t0, ax + ux * t1),
              Math.min(ay + uy * t0, ay + uy * t1),
              Math.max(ax + ux * t0, ax + ux * t1),
              Math.max(ay + uy * t0, ay + uy * t1),
            )
          : nearLot;
        const pieces = Math.max(1, Math.ceil(runLen / PIECE_M));
        const step = runLen / pieces;
        for (let q = 0; q < pieces; q++) {
          const tm = t0 + step * (q + 0.5);
          const s = streets.facingAmong(near, ax + ux * tm, ay + uy * tm, ux, uy, nx, ny);
          if (s < 0) continue;
          // True length and directions in metres (frame x corrected for latitude).
          const pieceM = step * Math.hypot(ux * sx, uy);
          const ang = Math.atan2(streets.hitDirY, streets.hitDirX * sx);
          const towardX = streets.hitToX * sx;
          const towardL = Math.hypot(towardX, streets.hitToY) || 1;
          let a = acc.get(s);
          if (!a) acc.set(s, (a = { length: 0, c2: 0, s2: 0, tx: 0, ty: 0, mids: [], bulb: 0 }));
          a.length += pieceM;
          if (streets.hitDeadEnd) a.bulb += pieceM;
          a.c2 += pieceM * Math.cos(2 * ang);
          a.s2 += pieceM * Math.sin(2 * ang);
          a.tx += (pieceM * towardX) / towardL;
          a.ty += (pieceM * streets.hitToY) / towardL;
          a.mids.push((ax + ux * tm) * sx, ay + uy * tm);
        }
      }
    }
  }

  const fronts: { key: string; frontageM: number; depthM: number; angle: number; toward: number; mids: number[]; bulb: number }[] = [];
  for (const [s, a] of acc) {
    if (a.length < MIN_FRONTAGE_M) continue;
    const angle = Math.atan2(a.s2, a.c2) / 2;
    fronts.push({
      key: streets.keys[s]!,
      frontageM: a.length,
      depthM: extentAcross(lots, i, angle, sx),
      angle,
      toward: Math.atan2(a.ty, a.tx),
      mids: a.mids,
      bulb: a.bulb,
    });
  }
  fronts.sort((x, y) => y.frontageM - x.frontageM || (x.key < y.key ? -1 : 1));
  const frontByStreet: Record<string, StreetFront> = {};
  for (const f of fronts) {
    const bulbM = round2(f.bulb);
    frontByStreet[f.key] =
      bulbM > 0 ? { frontageM: round2(f.frontageM), depthM: round2(f.depthM), bulbM } : { frontageM: round2(f.frontageM), depthM: round2(f.depthM) };
  }
  let corner = false;
  let through = false;
  const minAngle = (CORNER_MIN_ANGLE_DEG * Math.PI) / 180;
  const throughAngle = (THROUGH_MIN_ANGLE_DEG * Math.PI) / 180;
  const grids = fronts.length > 1 ? fronts.map((f) => new FrontGrid(f.mids)) : [];
  for (let x = 0; x < fronts.length && !(corner && through); x++) {
    for (let y = x + 1; y < fronts.length && !(corner && through); y++) {
      // angle between the directions towards the two streets: 0 same side, 180° opposite sides;
      // the interior angle of the streets' junction, as the lot sees it, is 180° minus this
      let d = Math.abs(fronts[x]!.toward - fronts[y]!.toward) % (2 * Math.PI);
      if (d > Math.PI) d = 2 * Math.PI - d;
      const meet = frontsMeet(grids[x]!, grids[y]!);
      if (meet && d >= minAngle) corner = true;
      else if (!meet && d >= throughAngle) through = true;
    }
  }
  const out: LotFacts = {
    frontByStreet,
    cornerLot: fronts.length ? corner : null,
    throughLot: fronts.length ? through : null,
    streets: fronts.map((f) => f.key),
    rightOfWay: fabric.rightOfWay[i] === 1,
  };
  if (fronts.length > 1 && !corner && !out.rightOfWay) out.notCorner = whyNotCorner(fronts, grids);
  return out;
}

/**
 * Why a lot fronting two or more streets is not a corner lot: for the pair closest to being one (fronts
 * that do not meet although the streets turn, nearest first; then fronts that meet where the streets do
 * not turn enough; then fronts on opposite sides), which condition failed and by how much.
 */
function whyNotCorner(fronts: readonly { key: string; toward: number; mids: number[] }[], grids: readonly FrontGrid[]): NotCorner {
  const minAngle = (CORNER_MIN_ANGLE_DEG * Math.PI) / 180;
  const throughAngle = (THROUGH_MIN_ANGLE_DEG * Math.PI) / 180;
  let best: { rank: number; gap: number; x: number; y: number; d: number; meet: boolean } | null = null;
  for (let x = 0; x < fronts.length; x++) {
    for (let y = x + 1; y < fronts.length; y++) {
      let d = Math.abs(fronts[x]!.toward - fronts[y]!.toward) % (2 * Math.PI);
      if (d > Math.PI) d = 2 * Math.PI - d;
      const meet = frontsMeet(grids[x]!, grids[y]!);
      const rank = !meet && d >= minAngle && d < throughAngle ? 0 : meet ? 1 : d >= throughAngle ? 2 : 3;
      if (best && rank > best.rank) continue;
      const gap = nearestGap(fronts[x]!.mids, fronts[y]!.mids);
      if (!best || rank < best.rank || gap < best.gap) best = { rank, gap, x, y, d, meet };
    }
  }
  const b = best!;
  return {
    streets: [fronts[b.x]!.key, fronts[b.y]!.key],
    reason: b.meet ? 'streets_do_not_turn' : b.d >= throughAngle ? 'through_lot' : 'fronts_apart',
    gapM: round2(b.gap),
    turnDeg: Math.round((b.d * 180) / Math.PI),
    meetWithinM: CORNER_ADJACENT_M,
    minTurnDeg: CORNER_MIN_ANGLE_DEG,
  };
}

/** Smallest distance between two sets of piece midpoints (x, y pairs, true metres). */
function nearestGap(a: readonly number[], b: readonly number[]): number {
  let best = Infinity;
  for (let p = 0; p < a.length; p += 2) {
    for (let q = 0; q < b.length; q += 2) {
      const dx = a[p]! - b[q]!;
      const dy = a[p + 1]! - b[q + 1]!;
      const d2 = dx * dx + dy * dy;
      if (d2 < best) best = d2;
    }
  }
  return Math.sqrt(best);
}

/** Whether two fronts' pieces come within CORNER_ADJACENT_M of each other (they meet at a corner of the lot). */
/** Piece midpoints of one front in a grid of CORNER_ADJACENT_M cells (built once per front). */
class FrontGrid {
  readonly cells = new Map<string, number[]>();
  constructor(readonly pts: readonly number[]) {
    const cell = CORNER_ADJACENT_M;
    for (let q = 0; q < pts.length; q += 2) {
      const k = `${Math.floor(pts[q]! / cell)},${Math.floor(pts[q + 1]! / cell)}`;
      const list = this.cells.get(k);
      if (list) list.push(q);
      else this.cells.set(k, [q]);
    }
  }
}

/** Whether two fronts' pieces come within CORNER_ADJACENT_M of each other (they meet at a corner of the lot). */
function frontsMeet(x: FrontGrid, y: FrontGrid): boolean {
  // the fewer points against the other's grid (a right-of-way lot fronts many streets with thousands of pieces)
  const [a, b] = x.pts.length <= y.pts.length ? [x.pts, y] : [y.pts, x];
  const cell = CORNER_ADJACENT_M;
  const lim = cell * cell;
  for (let p = 0; p < a.length; p += 2) {
    const cx = Math.floor(a[p]! / cell);
    const cy = Math.floor(a[p + 1]! / cell);
    for (let gx = cx - 1; gx <= cx + 1; gx++) {
      for (let gy = cy - 1; gy <= cy + 1; gy++) {
        const list = b.cells.get(`${gx},${gy}`);
        if (!list) continue;
        for (const q of list) {
          const dx = a[p]! - b.pts[q]!;
          const dy = a[p + 1]! - b.pts[q + 1]!;
          if (dx * dx + dy * dy <= lim) return true;
        }
      }
    }
  }
  return false;
}

/** Pushes [t0, t1] (metres along the edge from a) for every neighbour lot line lying on the edge. */
function collectShared(fabric: LotFabric, neighbours: number[], ax: number, ay: number, ux: number, uy: number, len: number, out: number[]): void {
  const lots = fabric.lots;
  const tol = SHARED_TOLERANCE_M;
  const minX = Math.min(ax, ax + ux * len) - tol;
  const maxX = Math.max(ax, ax + ux * len) + tol;
  const minY = Math.min(ay, ay + uy * len) - tol;
  const maxY = Math.max(ay, ay + uy * len) + tol;
  for (const n of neighbours) {
    const nb = 4 * n;
    if (lots.bbox[nb]! > maxX || lots.bbox[nb + 2]! < minX || lots.bbox[nb + 1]! > maxY || lots.bbox[nb + 3]! < minY) continue;
    if (fabric.isBig(n)) {
      const pairs = fabric.bigEdgesNear(n, minX, minY, maxX, maxY);
      for (let q = 0; q < pairs.length; q += 2) sharedSpan(lots.xy, pairs[q]!, pairs[q + 1]!, ax, ay, ux, uy, len, out);
      continue;
    }
    for (let p = lots.itemPoly[n]!; p < lots.itemPoly[n + 1]!; p++) {
      for (let r = lots.polyRing[p]!; r < lots.polyRing[p + 1]!; r++) {
        const from = lots.ringVert[r]!;
        const to = lots.ringVert[r + 1]!;
        for (let k = from, j = to - 1; k < to; j = k++) sharedSpan(lots.xy, j, k, ax, ay, ux, uy, len, out);
      }
    }
  }
}

/** Pushes the span of [0, len] along the edge (a, u) that the line between vertices j and k lies on, if any. */
function sharedSpan(xy: Float64Array, j: number, k: number, ax: number, ay: number, ux: number, uy: number, len: number, out: number[]): void {
  const tol = SHARED_TOLERANCE_M;
  const cx = xy[2 * j]! - ax;
  const cy = xy[2 * j + 1]! - ay;
  const dx = xy[2 * k]! - ax;
  const dy = xy[2 * k + 1]! - ay;
  // Both ends within tol of the edge's line, and overlapping it along its length.
  const oc = cx * uy - cy * ux;
  const od = dx * uy - dy * ux;
  if (oc > tol || oc < -tol || od > tol || od < -tol) return;
  let t0 = cx * ux + cy * uy;
  let t1 = dx * ux + dy * uy;
  if (t0 > t1) {
    const x = t0;
    t0 = t1;
    t1 = x;
  }
  if (t1 <= 0 || t0 >= len) return;
  out.push(t0 > 0 ? t0 : 0, t1 < len ? t1 : len);
}

/** The parts of [0, len] not covered by the (flattened) intervals, at least MIN_EXPOSED_M long. */
function exposedRuns(flat: number[], len: number): [number, number][] {
  const iv: [number, number][] = [];
  for (let k = 0; k + 1 < flat.length; k += 2) iv.push([flat[k]!, flat[k + 1]!]);
  iv.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  let cursor = 0;
  for (const [a, z] of iv) {
    if (a - cursor >= MIN_EXPOSED_M) out.push([cursor, a]);
    if (z > cursor) cursor = z;
  }
  if (len - cursor >= MIN_EXPOSED_M) out.push([cursor, len]);
  return out;
}

/**
 * The sides of lot i's outer boundary that no other lot shares (a place without street centrelines):
 * every exposed run, grouped by the way it faces (outward normals within UNSHARED_SIDE_ANGLE_DEG of the
 * side's length-weighted mean), sides under MIN_FRONTAGE_M dropped, longest first.
 */
function unsharedSides(
  fabric: LotFabric,
  i: number,
  lotNeighbours: number[] | null,
  neighboursNear: (minX: number, minY: number, maxX: number, maxY: number) => number[],
  sx: number,
  frontRuns: number[][],
): UnsharedSide[] {
  const { lots } = fabric;
  const xy = lots.xy;
  const sides: { length: number; nx: number; ny: number; c2: number; s2: number; runs: number[][] }[] = [];
  const cosSide = Math.cos((UNSHARED_SIDE_ANGLE_DEG * Math.PI) / 180);
  const intervals: number[] = [];
  for (let p = lots.itemPoly[i]!; p < lots.itemPoly[i + 1]!; p++) {
    const r = lots.polyRing[p]!; // outer ring only
    const from = lots.ringVert[r]!;
    const to = lots.ringVert[r + 1]!;
    const ccw = ringSignedArea(xy, from, to) > 0;
    for (let k = from, j = to - 1; k < to; j = k++) {
      const ax = xy[2 * j]!;
      const ay = xy[2 * j + 1]!;
      const ex = xy[2 * k]! - ax;
      const ey = xy[2 * k + 1]! - ay;
      const len = Math.hypot(ex, ey);
      if (len < MIN_EXPOSED_M) continue;
      const ux = ex / len;
      const uy = ey / len;
      intervals.length = 0;
      const neighbours = lotNeighbours ?? neighboursNear(Math.min(ax, ax + ex), Math.min(ay, ay + ey), Math.max(ax, ax + ex), Math.max(ay, ay + ey));
      collectShared(fabric, neighbours, ax, ay, ux, uy, len, intervals);
      // The edge's direction and outward normal in true metres.
      const tx = ux * sx;
      const tl = Math.hypot(tx, uy);
      const dx = tx / tl;
      const dy = uy / tl;
      const nx = ccw ? dy : -dy;
      const ny = ccw ? -dx : dx;
      for (const [t0, t1] of exposedRuns(intervals, len)) {
        const m = (t1 - t0) * tl;
        let side = sides.find((q) => (q.nx * nx + q.ny * ny) / (Math.hypot(q.nx, q.ny) || 1) >= cosSide);
        if (!side) sides.push((side = { length: 0, nx: 0, ny: 0, c2: 0, s2: 0, runs: [] }));
        side.runs.push([ax + ux * t0, ay + uy * t0, ax + ux * t1, ay + uy * t1]);
        side.length += m;
        side.nx += m * nx;
        side.ny += m * ny;
        const ang = Math.atan2(dy, dx);
        side.c2 += m * Math.cos(2 * ang);
        side.s2 += m * Math.sin(2 * ang);
      }
    }
  }
  const kept = sides.filter((q) => q.length >= MIN_FRONTAGE_M).sort((a, b) => b.length - a.length);
  if (kept.length === 1) frontRuns.push(...kept[0]!.runs);
  return kept.map((q) => ({ lengthM: round2(q.length), depthM: round2(extentAcross(lots, i, Math.atan2(q.s2, q.c2) / 2, sx)) }));
}

/** Extent of lot i across the direction `angle` (radians, true metres), in metres. */
function extentAcross(lots: PolygonSet, i: number, angle: number, sx: number): number {
  const vx = -Math.sin(angle);
  const vy = Math.cos(angle);
  let lo = Infinity;
  let hi = -Infinity;
  const xy = lots.xy;
  for (let p = lots.itemPoly[i]!; p < lots.itemPoly[i + 1]!; p++) {
    const r = lots.polyRing[p]!;
    for (let v = lots.ringVert[r]!; v < lots.ringVert[r + 1]!; v++) {
      const d = xy[2 * v]! * sx * vx + xy[2 * v + 1]! * vy;
      if (d < lo) lo = d;
      if (d > hi) hi = d;
    }
  }
  return hi > lo ? hi - lo : 0;
}

function round7(x: number): number {
  return Math.round(x * 1e7) / 1e7;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
