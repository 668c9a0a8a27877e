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
  const hole = rect(20, 20, offsetM(origin, 40, 40))[0]![0]!
    .slice()
    .reverse();
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
  assert.deepEqual(
    bboxOf(line).map((x) => Math.round(x * 1e4)),
    bboxOf([origin, offsetM(origin, 100, 100)]).map((x) => Math.round(x * 1e4)),
  );
});

// Issue 8 item 5: areas and lengths were computed on a sphere (~0.16 % small in Massachusetts). The
// independent computation: proj4 (its own ellipsoid code) to a transverse Mercator on GRS 80 centred
// on the lot (scale 1 on its central meridian), then the shoelace formula and Euclidean lengths.
test('areas and lengths agree with proj4 on the ellipsoid (transverse Mercator about the lot)', async () => {
  const { default: proj4 } = await import('proj4');
  const places: Position[] = [
    [-71.11, 42.38],
    [-123.37, 48.48],
    [-87.63, 41.88],
    [-97.5, 33.0],
  ];
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: places.length - 1 }),
      fc.array(fc.double({ min: 5, max: 120, noNaN: true }), { minLength: 3, maxLength: 12 }),
      fc.double({ min: -0.01, max: 0.01, noNaN: true }),
      (pi, radii, shift) => {
        const c: Position = [places[pi]![0] + shift, places[pi]![1] + shift];
        const tm = proj4('EPSG:4326', `+proj=tmerc +lat_0=${c[1]} +lon_0=${c[0]} +k=1 +x_0=0 +y_0=0 +ellps=GRS80 +units=m +no_defs`);
        // a star-shaped ring in lon/lat around c (spacing by degrees, independent of our metres)
        const ring: Position[] = radii.map((r, i) => {
          const a = (2 * Math.PI * i) / radii.length;
          return [c[0] + (r / 80_000) * Math.cos(a), c[1] + (r / 111_000) * Math.sin(a)];
        });
        ring.push(ring[0]!);
        const xy = ring.map((p) => tm.forward(p));
        let twice = 0;
        for (let i = 1; i < xy.length; i++) twice += xy[i - 1]![0] * xy[i]![1] - xy[i]![0] * xy[i - 1]![1];
        const want = Math.abs(twice) / 2;
        const got = multiPolygonAreaM2([[ring]]);
        assert.ok(Math.abs(got - want) / want < 2e-5, `area ${got} vs proj4 ${want}`);
        for (let i = 1; i < ring.length; i++) {
          const len = Math.hypot(xy[i]![0] - xy[i - 1]![0], xy[i]![1] - xy[i - 1]![1]);
          assert.ok(Math.abs(distanceM(ring[i - 1]!, ring[i]!) - len) < 1e-4 * len + 1e-6, `length ${distanceM(ring[i - 1]!, ring[i]!)} vs proj4 ${len}`);
        }
      },
    ),
    { numRuns: 200 },
  );
  // and the difference the sphere made: a 100 m square in Cambridge is 0.155 % larger than on a sphere of mean radius
  const c: Position = [-71.11, 42.38];
  const sq: Position[] = [c, [c[0] + 0.0012, c[1]], [c[0] + 0.0012, c[1] + 0.0009], [c[0], c[1] + 0.0009], c];
  const R = 6_371_008.8 * (Math.PI / 180);
  const sphere = 0.0012 * R * Math.cos((c[1] + 0.00045) * (Math.PI / 180)) * 0.0009 * R;
  const ratio = multiPolygonAreaM2([[sq]]) / sphere;
  assert.ok(ratio > 1.0014 && ratio < 1.0017, `ellipsoid / sphere = ${ratio}`);
});
