// Which lot holds a point: a uniform grid over the lots' bounding boxes, then an exact
// point-in-polygon test. Used by the import (an address point -> its lot) and by `siteline data init`.
import { pointInMultiPolygon, type BBox, type MultiPolygonCoords, type Position } from '../core/geo/primitives.ts';

export interface IndexedLot {
  id: string;
  geom: MultiPolygonCoords;
  bbox: BBox;
}

export class LotIndex {
  private readonly cells = new Map<string, IndexedLot[]>();
  private readonly size: number;
  private readonly x0: number;
  private readonly y0: number;

  constructor(lots: Iterable<IndexedLot>) {
    const list = [...lots];
    const ext = list.reduce<BBox>(
      (b, l) => [Math.min(b[0], l.bbox[0]), Math.min(b[1], l.bbox[1]), Math.max(b[2], l.bbox[2]), Math.max(b[3], l.bbox[3])],
      [Infinity, Infinity, -Infinity, -Infinity],
    );
    this.x0 = Number.isFinite(ext[0]) ? ext[0] : 0;
    this.y0 = Number.isFinite(ext[1]) ? ext[1] : 0;
    // About one lot per cell on average.
    const area = Math.max((ext[2] - ext[0]) * (ext[3] - ext[1]), 1e-12);
    this.size = Number.isFinite(area) && list.length ? Math.max(Math.sqrt(area / list.length), 1e-6) : 1;
    for (const l of list) {
      const [cx0, cy0] = this.cell(l.bbox[0], l.bbox[1]);
      const [cx1, cy1] = this.cell(l.bbox[2], l.bbox[3]);
      for (let x = cx0; x <= cx1; x++)
        for (let y = cy0; y <= cy1; y++) {
          const k = `${x},${y}`;
          const c = this.cells.get(k);
          if (c) c.push(l);
          else this.cells.set(k, [l]);
        }
    }
  }

  private cell(x: number, y: number): [number, number] {
    return [Math.floor((x - this.x0) / this.size), Math.floor((y - this.y0) / this.size)];
  }

  /** Ids of every lot whose polygon holds the point (usually one; overlapping lots give several). */
  lotsAt(p: Position): string[] {
    const [cx, cy] = this.cell(p[0], p[1]);
    const out: string[] = [];
    for (const l of this.cells.get(`${cx},${cy}`) ?? []) {
      if (p[0] < l.bbox[0] || p[0] > l.bbox[2] || p[1] < l.bbox[1] || p[1] > l.bbox[3]) continue;
      if (pointInMultiPolygon(p, l.geom)) out.push(l.id);
    }
    return out;
  }
}
