// Whether a project's build lots form one site (issue 49): a build lot that touches none of the
// project's other build lots (across the street, a few doors down) is accepted, with a remark, since
// the analysis adds the build lots up as one combined site. Touching: the outlines come within
// TOUCH_TOLERANCE_M of each other (parcel layers leave slivers between neighbours) or overlap.
import { bboxOf, localProjector, pointInMultiPolygon, type MultiPolygonCoords } from '../core/geo/primitives.ts';

/** Two lots whose outlines come this close (metres) touch: a shared lot line, drawn with slivers. */
export const TOUCH_TOLERANCE_M = 1;

/** Shortest distance in metres between two lots' outlines (0 when they overlap). */
export function lotGapM(a: MultiPolygonCoords, b: MultiPolygonCoords): number {
  const [ba, bb] = [bboxOf(a), bboxOf(b)];
  const proj = localProjector((ba[1] + bb[3]) / 2, (ba[0] + bb[2]) / 2);
  const rings = (mp: MultiPolygonCoords) => mp.flatMap((poly) => poly.map((ring) => ring.map(proj)));
  const [ra, rb] = [rings(a), rings(b)];
  // One inside the other (or overlapping): a vertex of either lies in the other.
  if (a.some((p) => p.some((r) => r.some((v) => pointInMultiPolygon(v, b)))) || b.some((p) => p.some((r) => r.some((v) => pointInMultiPolygon(v, a)))))
    return 0;
  return Math.min(ringsGap(ra, rb), ringsGap(rb, ra));
}

/** The shortest distance from any vertex of rings `from` to any edge of rings `to`. */
function ringsGap(from: [number, number][][], to: [number, number][][]): number {
  let best = Infinity;
  for (const ring of from)
    for (const p of ring)
      for (const t of to)
        for (let i = 0; i < t.length; i++) {
          const q0 = t[i]!;
          const q1 = t[(i + 1) % t.length]!;
          best = Math.min(best, pointSegment(p, q0, q1));
        }
  return best;
}

function pointSegment(p: [number, number], a: [number, number], b: [number, number]): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2));
  return Math.hypot(p[0] - (a[0] + t * dx), p[1] - (a[1] + t * dy));
}

export interface SiteLot {
  parcelExternalId: string;
  polygon: MultiPolygonCoords;
}

/**
 * The build lots apart from the site, with the gap to the nearest other build lot (metres, rounded).
 * The site is the first build lot (in the order given: the order they were attached) and every build
 * lot joined to it through touching build lots; a project of one build lot, or of one joined site,
 * has none.
 */
export function separateBuildLots(build: SiteLot[]): { parcelExternalId: string; nearestM: number }[] {
  if (build.length < 2) return [];
  const gap = build.map((a) => build.map((b) => (a === b ? 0 : lotGapM(a.polygon, b.polygon))));
  const site = new Set<number>([0]);
  for (let grew = true; grew; ) {
    grew = false;
    for (let i = 0; i < build.length; i++)
      if (!site.has(i) && [...site].some((k) => gap[i]![k]! <= TOUCH_TOLERANCE_M)) {
        site.add(i);
        grew = true;
      }
  }
  return build.flatMap((lot, i) =>
    site.has(i) ? [] : [{ parcelExternalId: lot.parcelExternalId, nearestM: Math.round(Math.min(...gap[i]!.filter((_, k) => k !== i))) }],
  );
}

/** The remark on a separate build lot, for the attach's answer and the project's page. */
export function separateLotRemark(lot: { parcelExternalId: string; nearestM: number }): string {
  return `Build lot ${lot.parcelExternalId} does not touch the project's other build lots (the nearest is about ${lot.nearestM.toLocaleString('en-US')} m away): the analysis adds the build lots up as one site, so check that it belongs to this one (or detach it).`;
}
