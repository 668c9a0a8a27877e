// Share of a lot's area in each zoning district of one layer (base or overlay).
//
// Fast path (most lots): no district boundary passes through the lot's interior (boundaries that
// only touch or run along the lot lines do not count), so the lot lies wholly inside whichever
// districts contain its inside point: share 1 each. Only lots that a boundary really crosses get an
// exact intersection area (intersection-area.ts), against the crossing and containing districts.
import Flatbush from 'flatbush';
import { itemFrameArea, pointInItem, type PolygonSet } from './polygon-set.ts';
import { pointSegmentDist2, segmentsCrossProperly } from './planar-ops.ts';
import { ClipScratch, intersectionArea } from './intersection-area.ts';

/** Boundary within this many metres of a lot line or vertex "touches" rather than crosses. */
const TOUCH_TOLERANCE_M = 0.05;

export interface ZoneRecord {
  zoneId: string;
  code: string;
  name: string | null;
}

export interface RawZoneShare {
  code: string;
  name: string | null;
  /** Fraction of the lot's area inside the district (0..1, summed over the code's polygons). */
  share: number;
}

export interface ZoneShareStats {
  /** Lots that needed an exact intersection. */
  clipped: number;
  /** Lots whose exact shares were unusable (non-finite): they fell back to their inside point. */
  clipFailures: number;
}

/** One layer's districts with an index over their boundary edges. */
export class ZoneLayer {
  readonly edgeIndex: Flatbush;
  /** edge e runs from vertex edgeFrom[e] to edgeTo[e] of the zone set; it belongs to zone edgeZone[e]. */
  private readonly edgeFrom: Uint32Array;
  private readonly edgeTo: Uint32Array;
  private readonly edgeZone: Uint32Array;
  private readonly zoneIndex: Flatbush;
  private readonly scratch = new ClipScratch();

  constructor(
    readonly zones: readonly ZoneRecord[],
    readonly set: PolygonSet,
  ) {
    let edges = 0;
    for (let r = 0; r + 1 < set.ringVert.length; r++) edges += set.ringVert[r + 1]! - set.ringVert[r]!;
    this.edgeFrom = new Uint32Array(edges);
    this.edgeTo = new Uint32Array(edges);
    this.edgeZone = new Uint32Array(edges);
    this.edgeIndex = new Flatbush(Math.max(1, edges));
    const xy = set.xy;
    let e = 0;
    for (let z = 0; z < set.count; z++) {
      for (let p = set.itemPoly[z]!; p < set.itemPoly[z + 1]!; p++) {
        for (let r = set.polyRing[p]!; r < set.polyRing[p + 1]!; r++) {
          const from = set.ringVert[r]!;
          const to = set.ringVert[r + 1]!;
          for (let k = from, j = to - 1; k < to; j = k++) {
            this.edgeFrom[e] = j;
            this.edgeTo[e] = k;
            this.edgeZone[e] = z;
            const ax = xy[2 * j]!;
            const ay = xy[2 * j + 1]!;
            const bx = xy[2 * k]!;
            const by = xy[2 * k + 1]!;
            this.edgeIndex.add(Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by));
            e++;
          }
        }
      }
    }
    if (edges === 0) this.edgeIndex.add(0, 0, 0, 0);
    this.edgeIndex.finish();
    this.zoneIndex = new Flatbush(Math.max(1, set.count));
    for (let z = 0; z < set.count; z++) this.zoneIndex.add(set.bbox[4 * z]!, set.bbox[4 * z + 1]!, set.bbox[4 * z + 2]!, set.bbox[4 * z + 3]!);
    if (set.count === 0) this.zoneIndex.add(0, 0, 0, 0);
    this.zoneIndex.finish();
  }

  get edgeCount(): number {
    return this.edgeFrom.length;
  }

  /** Zones whose polygons contain the point (even-odd over each zone's rings). */
  zonesContaining(px: number, py: number): number[] {
    if (this.set.count === 0) return [];
    return this.zoneIndex.search(px, py, px, py).filter((z) => pointInItem(this.set, z, px, py));
  }

  /**
   * Area shares of lot i of `lots` in this layer's districts, aggregated by code. `inside` is a
   * point strictly inside the lot (frame coordinates).
   */
  sharesForLot(lots: PolygonSet, i: number, insideX: number, insideY: number, stats: ZoneShareStats, pieces?: PolygonSet): RawZoneShare[] {
    if (this.set.count === 0) return [];
    if (pieces) return this.sharesByPieces(lots, i, pieces, stats);
    const lb = 4 * i;
    const minX = lots.bbox[lb]!;
    const minY = lots.bbox[lb + 1]!;
    const maxX = lots.bbox[lb + 2]!;
    const maxY = lots.bbox[lb + 3]!;
    const local = this.edgeIndex.search(minX, minY, maxX, maxY);
    const crossing = new Set<number>();
    for (const e of local) {
      const z = this.edgeZone[e]!;
      if (crossing.has(z)) continue;
      if (this.edgeCrossesLot(e, lots, i)) crossing.add(z);
    }
    const containing = this.zonesContaining(insideX, insideY);
    // A lot in several parts can have its parts in different districts without any boundary crossing
    // it; and an inside point that is not inside (bad input) cannot stand for the lot.
    const multipart = lots.itemPoly[i + 1]! - lots.itemPoly[i]! > 1 || !pointInItem(lots, i, insideX, insideY);
    if (crossing.size === 0 && !multipart) return this.aggregate(containing.map((z) => ({ z, share: 1 })));

    stats.clipped++;
    const candidates = new Set<number>([...containing, ...crossing]);
    if (multipart) for (const z of this.zoneIndex.search(minX, minY, maxX, maxY)) candidates.add(z);
    const lotArea = itemFrameArea(lots, i);
    if (lotArea <= 0) return this.aggregate(containing.map((z) => ({ z, share: 1 })));
    const parts: { z: number; share: number }[] = [];
    for (const z of candidates) {
      const share = intersectionArea(this.set, z, lots, i, this.scratch) / lotArea;
      if (!Number.isFinite(share)) {
        stats.clipFailures++;
        return this.aggregate(containing.map((c) => ({ z: c, share: 1 })));
      }
      if (share > 1e-9) parts.push({ z, share: Math.min(1, share) });
    }
    return this.aggregate(parts);
  }

  /** Exact shares of a big lot, summed over its pieces (lot-pieces.ts) against every nearby district. */
  private sharesByPieces(lots: PolygonSet, i: number, pieces: PolygonSet, stats: ZoneShareStats): RawZoneShare[] {
    stats.clipped++;
    const lotArea = itemFrameArea(lots, i);
    if (lotArea <= 0) return [];
    const areas = new Map<number, number>();
    for (let k = 0; k < pieces.count; k++) {
      const b = 4 * k;
      for (const z of this.zoneIndex.search(pieces.bbox[b]!, pieces.bbox[b + 1]!, pieces.bbox[b + 2]!, pieces.bbox[b + 3]!)) {
        const a = intersectionArea(this.set, z, pieces, k, this.scratch);
        if (a > 0) areas.set(z, (areas.get(z) ?? 0) + a);
      }
    }
    const parts: { z: number; share: number }[] = [];
    for (const [z, a] of areas) {
      const share = a / lotArea;
      if (!Number.isFinite(share)) {
        stats.clipFailures++;
        return [];
      }
      if (share > 1e-9) parts.push({ z, share: Math.min(1, share) });
    }
    return this.aggregate(parts);
  }

  /** Does zone edge e pass through the interior of lot i (not merely touch or run along it)? */
  private edgeCrossesLot(e: number, lots: PolygonSet, i: number): boolean {
    const zxy = this.set.xy;
    const ax = zxy[2 * this.edgeFrom[e]!]!;
    const ay = zxy[2 * this.edgeFrom[e]! + 1]!;
    const bx = zxy[2 * this.edgeTo[e]!]!;
    const by = zxy[2 * this.edgeTo[e]! + 1]!;
    const xy = lots.xy;
    const tol2 = TOUCH_TOLERANCE_M * TOUCH_TOLERANCE_M;
    for (let p = lots.itemPoly[i]!; p < lots.itemPoly[i + 1]!; p++) {
      for (let r = lots.polyRing[p]!; r < lots.polyRing[p + 1]!; r++) {
        const from = lots.ringVert[r]!;
        const to = lots.ringVert[r + 1]!;
        for (let k = from, j = to - 1; k < to; j = k++) {
          if (segmentsCrossProperly(ax, ay, bx, by, xy[2 * j]!, xy[2 * j + 1]!, xy[2 * k]!, xy[2 * k + 1]!, TOUCH_TOLERANCE_M)) return true;
        }
      }
    }
    // No crossing of the lot lines: the edge is inside the lot only if a point of it is, clear of the lot lines.
    for (const [px, py] of [
      [ax, ay],
      [bx, by],
      [(ax + bx) / 2, (ay + by) / 2],
    ] as const) {
      if (!pointInItem(lots, i, px, py)) continue;
      let near = false;
      for (let r = lots.polyRing[lots.itemPoly[i]!]!; r < lots.polyRing[lots.itemPoly[i + 1]!]! && !near; r++) {
        const from = lots.ringVert[r]!;
        const to = lots.ringVert[r + 1]!;
        for (let k = from, j = to - 1; k < to; j = k++) {
          if (pointSegmentDist2(px, py, xy[2 * j]!, xy[2 * j + 1]!, xy[2 * k]!, xy[2 * k + 1]!) <= tol2) {
            near = true;
            break;
          }
        }
      }
      if (!near) return true;
    }
    return false;
  }

  private aggregate(parts: { z: number; share: number }[]): RawZoneShare[] {
    const byCode = new Map<string, RawZoneShare>();
    for (const { z, share } of parts) {
      const zone = this.zones[z]!;
      const got = byCode.get(zone.code);
      if (got) got.share = Math.min(1, got.share + share);
      else byCode.set(zone.code, { code: zone.code, name: zone.name, share });
    }
    return [...byCode.values()].sort((a, b) => b.share - a.share || (a.code < b.code ? -1 : 1));
  }
}
