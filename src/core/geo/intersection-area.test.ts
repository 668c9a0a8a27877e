import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PlaceFrame, PolygonSetBuilder } from './polygon-set.ts';
import { ClipScratch, intersectionArea } from './intersection-area.ts';
import { splitIntoPieces } from './lot-pieces.ts';
import { MISS_RADII, MISS_TRIANGLE, starOfRadii } from '../../../test/support/polygon-clipping-miss.ts';

type Ring = [number, number][];
const frame = new PlaceFrame(-71.1, 42.37);

function setOf(polys: Ring[][]) {
  const b = new PolygonSetBuilder(frame);
  b.addFrame(polys.map((poly) => poly.map((ring) => Float64Array.from(ring.flat()))));
  return b.finish();
}

/**
 * The reference area of a ∩ b for simple rings, by an algorithm unlike the one under test: cut the
 * plane into vertical slabs at every vertex and every crossing of an a-edge with a b-edge. Inside a
 * slab no edge starts, ends or crosses another, so the length of a ∩ b on a vertical line is linear
 * in x, and the slab holds its width times that length at its middle. (polygon-clipping was the
 * reference once; it silently returns wrong rings on some inputs, and a random seed found one.)
 */
function slabArea(a: Ring, b: Ring): number {
  type Edge = readonly [[number, number], [number, number]];
  const edges = (r: Ring): Edge[] => r.map((p, i) => [p, r[(i + 1) % r.length]!] as const);
  const ea = edges(a),
    eb = edges(b);
  const xs = [...a, ...b].map((p) => p[0]);
  for (const [p, q] of ea) {
    for (const [r, s] of eb) {
      const dx1 = q[0] - p[0],
        dy1 = q[1] - p[1],
        dx2 = s[0] - r[0],
        dy2 = s[1] - r[1];
      const den = dx1 * dy2 - dy1 * dx2;
      if (den === 0) continue; // parallel: where collinear edges overlap, their ends are vertices already
      const t = ((r[0] - p[0]) * dy2 - (r[1] - p[1]) * dx2) / den;
      const u = ((r[0] - p[0]) * dy1 - (r[1] - p[1]) * dx1) / den;
      if (t > 0 && t < 1 && u > 0 && u < 1) xs.push(p[0] + t * dx1);
    }
  }
  xs.sort((m, n) => m - n);
  /** A ring's y-intervals on the vertical line at x, even-odd (x is strictly inside a slab). */
  const intervals = (es: Edge[], x: number): [number, number][] => {
    const ys: number[] = [];
    for (const [p, q] of es) if (p[0] < x !== q[0] < x) ys.push(p[1] + ((x - p[0]) / (q[0] - p[0])) * (q[1] - p[1]));
    ys.sort((m, n) => m - n);
    const out: [number, number][] = [];
    for (let k = 0; k + 1 < ys.length; k += 2) out.push([ys[k]!, ys[k + 1]!]);
    return out;
  };
  let area = 0;
  for (let k = 0; k + 1 < xs.length; k++) {
    const x0 = xs[k]!,
      x1 = xs[k + 1]!;
    if (x1 <= x0) continue;
    const ia = intervals(ea, (x0 + x1) / 2),
      ib = intervals(eb, (x0 + x1) / 2);
    let length = 0;
    for (const [a0, a1] of ia) for (const [b0, b1] of ib) length += Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
    area += (x1 - x0) * length;
  }
  return area;
}

/** A star-shaped (so simple) ring about (cx, cy); vertices snapped to a 1 m grid to force collinear and shared edges. */
const starRing = (snap: boolean) =>
  fc
    .record({
      cx: fc.integer({ min: -20, max: 20 }),
      cy: fc.integer({ min: -20, max: 20 }),
      radii: fc.array(fc.integer({ min: 3, max: 30 }), { minLength: 3, maxLength: 12 }),
      ccw: fc.boolean(),
    })
    .map(({ cx, cy, radii, ccw }) => {
      const ring: Ring = radii.map((r, k) => {
        const a = (2 * Math.PI * k) / radii.length;
        const x = cx + r * Math.cos(a);
        const y = cy + r * Math.sin(a);
        return snap ? [Math.round(x), Math.round(y)] : [x, y];
      });
      const dedup = ring.filter((p, k) => k === 0 || p[0] !== ring[k - 1]![0] || p[1] !== ring[k - 1]![1]);
      return ccw ? dedup : dedup.reverse();
    })
    .filter(
      (ring) =>
        ring.length >= 3 && Math.abs(ring.reduce((s, p, i) => s + p[0] * ring[(i + 1) % ring.length]![1] - ring[(i + 1) % ring.length]![0] * p[1], 0)) > 1,
    );

test('intersectionArea equals the slab reference on random polygons, either orientation, snapped or not', () => {
  const scratch = new ClipScratch();
  for (const snap of [false, true]) {
    fc.assert(
      fc.property(starRing(snap), starRing(snap), (a, b) => {
        const want = slabArea(a, b);
        const got = intersectionArea(setOf([[a]]), 0, setOf([[b]]), 0, scratch);
        assert.ok(Math.abs(got - want) <= 1e-6 * Math.max(1, want), `got ${got}, slab reference ${want}`);
      }),
      { numRuns: 300 },
    );
  }
});

test('intersectionArea handles holes and identical rings', () => {
  const scratch = new ClipScratch();
  const outer: Ring = [
    [0, 0],
    [10, 0],
    [10, 10],
    [0, 10],
  ];
  const hole: Ring = [
    [2, 2],
    [2, 8],
    [8, 8],
    [8, 2],
  ];
  const donut = setOf([[outer, hole]]);
  const square = setOf([[outer]]);
  assert.ok(Math.abs(intersectionArea(donut, 0, square, 0, scratch) - 64) < 1e-9);
  assert.ok(Math.abs(intersectionArea(square, 0, donut, 0, scratch) - 64) < 1e-9);
  assert.ok(Math.abs(intersectionArea(square, 0, square, 0, scratch) - 100) < 1e-9);
  const right = setOf([
    [
      [
        [5, -5],
        [20, -5],
        [20, 20],
        [5, 20],
      ],
    ],
  ]);
  assert.ok(Math.abs(intersectionArea(right, 0, donut, 0, scratch) - (50 - 18)) < 1e-9);
});

const POLYGON_CLIPPING_MISS: [number[], Ring] = [MISS_RADII, MISS_TRIANGLE];

test('the slab reference agrees with known areas, including where polygon-clipping went wrong', () => {
  const square: Ring = [
    [0, 0],
    [10, 0],
    [10, 10],
    [0, 10],
  ];
  assert.ok(Math.abs(slabArea(square, square) - 100) < 1e-9);
  assert.ok(
    Math.abs(
      slabArea(square, [
        [5, -5],
        [20, -5],
        [20, 20],
        [5, 20],
      ]) - 50,
    ) < 1e-9,
  );
  assert.ok(
    Math.abs(
      slabArea([...square].reverse(), [
        [5, 5],
        [15, 5],
        [5, 15],
      ]) - 25,
    ) < 1e-9,
  );
  assert.equal(
    slabArea(square, [
      [20, 20],
      [30, 20],
      [30, 30],
    ]),
    0,
  );
  const [radii, triangle] = POLYGON_CLIPPING_MISS;
  const ring = starOfRadii(radii);
  const scratch = new ClipScratch();
  const got = intersectionArea(setOf([[triangle]]), 0, setOf([[ring]]), 0, scratch);
  assert.ok(Math.abs(slabArea(ring, triangle) - got) < 1e-9, `slab ${slabArea(ring, triangle)}, exact path ${got}`);
  assert.ok(Math.abs(got - 46.3415) < 1e-3, String(got));
});

test('pieces of a large lot keep its area and its intersections', () => {
  const scratch = new ClipScratch();
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 5, max: 40 }), { minLength: 80, maxLength: 200 }), starRing(false), (radii, other) => {
      const ring = starOfRadii(radii);
      const lot = setOf([[ring]]);
      const pieces = splitIntoPieces(lot, 0, 16, frame);
      assert.ok(pieces.count > 1);
      const zone = setOf([[other]]);
      let sum = 0;
      for (let k = 0; k < pieces.count; k++) sum += intersectionArea(zone, 0, pieces, k, scratch);
      const want = slabArea(ring, other);
      assert.ok(Math.abs(sum - want) <= 1e-6 * Math.max(1, want), `pieces ${sum}, whole ${want}`);
    }),
    { numRuns: 100, examples: [POLYGON_CLIPPING_MISS] },
  );
});
