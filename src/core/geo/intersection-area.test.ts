import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import polygonClipping from 'polygon-clipping';
import { PlaceFrame, PolygonSetBuilder } from './polygon-set.ts';
import { ClipScratch, intersectionArea } from './intersection-area.ts';
import { splitIntoPieces } from './lot-pieces.ts';

type Ring = [number, number][];
const frame = new PlaceFrame(-71.1, 42.37);

function setOf(polys: Ring[][]) {
  const b = new PolygonSetBuilder(frame);
  b.addFrame(polys.map((poly) => poly.map((ring) => Float64Array.from(ring.flat()))));
  return b.finish();
}

/** polygon-clipping's answer, or null when it throws (it does on some near-collinear input, which is why it is not used). */
function clipArea(a: Ring[][], b: Ring[][]): number | null {
  const close = (polys: Ring[][]) => polys.map((poly) => poly.map((ring) => [...ring, ring[0]!] as [number, number][]));
  let result;
  try {
    result = polygonClipping.intersection(close(a), close(b));
  } catch {
    return null;
  }
  let total = 0;
  for (const poly of result) {
    poly.forEach((ring, k) => {
      let s = 0;
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) s += ring[j]![0] * ring[i]![1] - ring[i]![0] * ring[j]![1];
      total += (k === 0 ? 1 : -1) * Math.abs(s / 2);
    });
  }
  return total;
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
    .filter((ring) => ring.length >= 3 && Math.abs(ring.reduce((s, p, i) => s + p[0] * ring[(i + 1) % ring.length]![1] - ring[(i + 1) % ring.length]![0] * p[1], 0)) > 1);

test('intersectionArea equals polygon-clipping on random polygons, either orientation, snapped or not', () => {
  const scratch = new ClipScratch();
  for (const snap of [false, true]) {
    fc.assert(
      fc.property(starRing(snap), starRing(snap), (a, b) => {
        const want = clipArea([[a]], [[b]]);
        fc.pre(want !== null);
        const got = intersectionArea(setOf([[a]]), 0, setOf([[b]]), 0, scratch);
        assert.ok(Math.abs(got - want) <= 1e-6 * Math.max(1, want), `got ${got}, polygon-clipping ${want}`);
      }),
      { numRuns: 300 },
    );
  }
});

test('intersectionArea handles holes and identical rings', () => {
  const scratch = new ClipScratch();
  const outer: Ring = [[0, 0], [10, 0], [10, 10], [0, 10]];
  const hole: Ring = [[2, 2], [2, 8], [8, 8], [8, 2]];
  const donut = setOf([[outer, hole]]);
  const square = setOf([[outer]]);
  assert.ok(Math.abs(intersectionArea(donut, 0, square, 0, scratch) - 64) < 1e-9);
  assert.ok(Math.abs(intersectionArea(square, 0, donut, 0, scratch) - 64) < 1e-9);
  assert.ok(Math.abs(intersectionArea(square, 0, square, 0, scratch) - 100) < 1e-9);
  const right = setOf([[[[5, -5], [20, -5], [20, 20], [5, 20]]]]);
  assert.ok(Math.abs(intersectionArea(right, 0, donut, 0, scratch) - (50 - 18)) < 1e-9);
});

test('pieces of a large lot keep its area and its intersections', () => {
  const scratch = new ClipScratch();
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 5, max: 40 }), { minLength: 80, maxLength: 200 }), starRing(false), (radii, other) => {
      const ring: Ring = radii.map((r, k) => [r * Math.cos((2 * Math.PI * k) / radii.length), r * Math.sin((2 * Math.PI * k) / radii.length)]);
      const lot = setOf([[ring]]);
      const pieces = splitIntoPieces(lot, 0, 16, frame);
      assert.ok(pieces.count > 1);
      const zone = setOf([[other]]);
      let sum = 0;
      for (let k = 0; k < pieces.count; k++) sum += intersectionArea(zone, 0, pieces, k, scratch);
      const want = clipArea([[ring]], [[other]]);
      fc.pre(want !== null);
      assert.ok(Math.abs(sum - want) <= 1e-6 * Math.max(1, want), `pieces ${sum}, whole ${want}`);
    }),
    { numRuns: 100 },
  );
});
