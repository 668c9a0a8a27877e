// Cuts a lot with very many vertices (a city's single 'ROAD' parcel, a campus) into pieces of
// bounded size by halving its bounding box, so that per-piece work stays local. Pieces are
// Sutherland–Hodgman clips: a piece may carry zero-width seams along the cut lines, which add no
// area, so the pieces' areas (and their intersection areas) sum exactly to the lot's.
import { PolygonSetBuilder, type PlaceFrame, type PolygonSet } from './polygon-set.ts';
import { ClipScratch, clipRingToRect } from './intersection-area.ts';

const MAX_DEPTH = 16;

type Rings = Float64Array[][]; // polygons of flat rings

export function splitIntoPieces(set: PolygonSet, i: number, maxVertices: number, frame: PlaceFrame): PolygonSet {
  const polys: Rings = [];
  for (let p = set.itemPoly[i]!; p < set.itemPoly[i + 1]!; p++) {
    const rings: Float64Array[] = [];
    for (let r = set.polyRing[p]!; r < set.polyRing[p + 1]!; r++) rings.push(set.xy.slice(2 * set.ringVert[r]!, 2 * set.ringVert[r + 1]!));
    polys.push(rings);
  }
  const b = 4 * i;
  const out = new PolygonSetBuilder(frame);
  const scratch = new ClipScratch();
  const visit = (rings: Rings, minX: number, minY: number, maxX: number, maxY: number, depth: number): void => {
    let vertices = 0;
    for (const poly of rings) for (const ring of poly) vertices += ring.length / 2;
    if (vertices === 0) return;
    if (vertices <= maxVertices || depth >= MAX_DEPTH) {
      out.addFrame(rings);
      return;
    }
    const halves: [number, number, number, number][] =
      maxX - minX >= maxY - minY
        ? [
            [minX, minY, (minX + maxX) / 2, maxY],
            [(minX + maxX) / 2, minY, maxX, maxY],
          ]
        : [
            [minX, minY, maxX, (minY + maxY) / 2],
            [minX, (minY + maxY) / 2, maxX, maxY],
          ];
    for (const [x0, y0, x1, y1] of halves) {
      const part: Rings = [];
      for (const poly of rings) {
        const outer = clipRingToRect(poly[0]!, poly[0]!.length / 2, x0, y0, x1, y1, scratch);
        if (outer.length < 6) continue;
        const clipped = [outer];
        for (let k = 1; k < poly.length; k++) {
          const hole = clipRingToRect(poly[k]!, poly[k]!.length / 2, x0, y0, x1, y1, scratch);
          if (hole.length >= 6) clipped.push(hole);
        }
        part.push(clipped);
      }
      visit(part, x0, y0, x1, y1, depth + 1);
    }
  };
  visit(polys, set.bbox[b]!, set.bbox[b + 1]!, set.bbox[b + 2]!, set.bbox[b + 3]!, 0);
  return out.finish();
}
