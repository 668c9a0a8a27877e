import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  bboxOf,
  distanceM,
  multiPolygonAreaM2,
  offsetM,
  pointAlongLine,
  pointInMultiPolygon,
  pointOnSurface,
  pointSegmentDistanceM,
  type MultiPolygonCoords,
  type Position,
} from './primitives.ts';

// A 100 m x 50 m rectangle near Cambridge, built from metre offsets.
const origin: Position = [-71.1, 42.37];
const rect = (w: number, h: number, at: Position = origin): MultiPolygonCoords => {
  const a = at;
  const b = offsetM(at, w, 0);
  const c = offsetM(at, w, h);
  const d = offsetM(at, 0, h);
  return [[[a, b, c, d, a]]];
};

test('area of a known rectangle is within 0.1 %', () => {
  const area = multiPolygonAreaM2(rect(100, 50));
  assert.ok(Math.abs(area - 5000) / 5000 < 0.001, `area ${area}`);
});

test('holes are subtracted from area and excluded from containment', () => {
  const outer = rect(100, 100)[0]![0]!;
  const hole = rect(20, 20, offsetM(origin, 40, 40))[0]![0]!.slice().reverse();
  const mp: MultiPolygonCoords = [[outer, hole]];
  assert.ok(Math.abs(multiPolygonAreaM2(mp) - 9600) < 10);
  assert.equal(pointInMultiPolygon(offsetM(origin, 50, 50), mp), false);
  assert.equal(pointInMultiPolygon(offsetM(origin, 10, 10), mp), true);
});

test('pointOnSurface is inside for L-shaped and U-shaped lots', () => {
  const p = (x: number, y: number) => offsetM(origin, x, y);
  const u: MultiPolygonCoords = [[[p(0, 0), p(30, 0), p(30, 30), p(20, 30), p(20, 10), p(10, 10), p(10, 30), p(0, 30), p(0, 0)]]];
  const l: MultiPolygonCoords = [[[p(0, 0), p(30, 0), p(30, 5), p(5, 5), p(5, 30), p(0, 30), p(0, 0)]]];
  for (const mp of [u, l, rect(7, 90)]) assert.ok(pointInMultiPolygon(pointOnSurface(mp), mp));
});

test('pointOnSurface is inside for random convex-ish lots (property)', () => {
  fc.assert(
    fc.property(fc.array(fc.double({ min: 5, max: 60, noNaN: true }), { minLength: 5, maxLength: 12 }), (radii) => {
      // A star-shaped polygon around the origin: always simple.
      const n = radii.length;
      const ring: Position[] = radii.map((r, i) => offsetM(origin, r * Math.cos((2 * Math.PI * i) / n), r * Math.sin((2 * Math.PI * i) / n)));
      ring.push(ring[0]!);
      const mp: MultiPolygonCoords = [[ring]];
      return pointInMultiPolygon(pointOnSurface(mp), mp);
    }),
  );
});

test('distances: offsets and segment distance agree', () => {
  const b = offsetM(origin, 300, 400);
  assert.ok(Math.abs(distanceM(origin, b) - 500) < 0.5);
  const seg = pointSegmentDistanceM(offsetM(origin, 50, 10), origin, offsetM(origin, 100, 0));
  assert.ok(Math.abs(seg.distanceM - 10) < 0.05);
  assert.ok(Math.abs(seg.t - 0.5) < 0.001);
});

test('pointAlongLine walks the line', () => {
  const line = [origin, offsetM(origin, 100, 0), offsetM(origin, 100, 100)];
  const mid = pointAlongLine(line, 0.75);
  assert.ok(distanceM(mid.point, offsetM(origin, 100, 50)) < 0.5);
  assert.ok(Math.abs(mid.dir[1] - 1) < 1e-6);
  assert.deepEqual(bboxOf(line).map((x) => Math.round(x * 1e4)), bboxOf([origin, offsetM(origin, 100, 100)]).map((x) => Math.round(x * 1e4)));
});
