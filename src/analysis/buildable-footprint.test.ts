// The check that keeps a wrong polygon-clipping cut from becoming a buildable footprint: the inset may
// claim no ground outside the lot and none inside a yard strip, measured with our own exact areas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import polygonClipping, { type MultiPolygon, type Polygon } from 'polygon-clipping';
import { INSET_CHECK_TOLERANCE_M2, buildableFootprint, insetOverreachM2 } from './buildable-footprint.ts';
import { ClipScratch, intersectionArea } from '../core/geo/intersection-area.ts';
import { PlaceFrame, PolygonSetBuilder } from '../core/geo/polygon-set.ts';
import { metresPerDegree, signedRingArea } from '../core/geo/primitives.ts';
import { MISS_RADII, MISS_TRIANGLE, starOfRadii, type XY } from '../../test/support/polygon-clipping-miss.ts';

const closed = (ring: XY[]): XY[] => [...ring, ring[0]!];
const area = (mp: MultiPolygon): number =>
  mp.reduce((t, poly) => t + poly.reduce((u, ring, k) => u + (k === 0 ? 1 : -1) * Math.abs(signedRingArea(ring)), 0), 0);

const star = starOfRadii(MISS_RADII);
const triangle = MISS_TRIANGLE;

test('an inset that claims a yard or ground beyond the lot is measured; a true cut measures nothing', () => {
  const lot: MultiPolygon = [
    [
      closed([
        [0, 0],
        [20, 0],
        [20, 30],
        [0, 30],
      ]),
    ],
  ];
  const frontYard: Polygon = [
    closed([
      [0, 0],
      [20, 0],
      [20, 3],
      [0, 3],
    ]),
  ];
  const trueInset: MultiPolygon = [
    [
      closed([
        [0, 3],
        [20, 3],
        [20, 30],
        [0, 30],
      ]),
    ],
  ];
  assert.ok(insetOverreachM2(lot, [frontYard], trueInset) <= 1e-9);
  assert.ok(Math.abs(insetOverreachM2(lot, [frontYard], lot) - 60) < 1e-9, 'the whole lot claims the 20 × 3 m yard');
  const beyond: MultiPolygon = [
    [
      closed([
        [0, 3],
        [25, 3],
        [25, 30],
        [0, 30],
      ]),
    ],
  ];
  assert.ok(Math.abs(insetOverreachM2(lot, [frontYard], beyond) - 5 * 27) < 1e-9, 'a 5 m overhang past the side lot line');
});

test('whatever polygon-clipping returns for the pair it once got wrong, the check flags it exactly when it is wrong', () => {
  const lot: MultiPolygon = [[closed(star)]];
  const cut: Polygon = [closed(triangle)];
  const inset = polygonClipping.difference(lot, cut);
  const b = new PolygonSetBuilder(new PlaceFrame(0, 0));
  b.addFrame([[Float64Array.from(star.flat())]]);
  b.addFrame([[Float64Array.from(triangle.flat())]]);
  const set = b.finish();
  const truth = area(lot) - intersectionArea(set, 0, set, 1, new ClipScratch());
  assert.ok(Math.abs(truth - 87.768) < 1e-3, String(truth));
  const wrong = Math.abs(area(inset) - truth) > INSET_CHECK_TOLERANCE_M2;
  assert.equal(insetOverreachM2(lot, [cut], inset) > INSET_CHECK_TOLERANCE_M2, wrong, `polygon-clipping's inset ${area(inset)} m², truth ${truth} m²`);
});

test('a lot ring that crosses itself is not mistaken for an overreach (its reversed lobe is lot to polygon-clipping)', () => {
  // A bow tie: the right lobe runs clockwise, so its winding number is −1.
  const bowTie: MultiPolygon = [
    [
      closed([
        [0, 0],
        [10, 10],
        [10, 0],
        [0, 10],
      ]),
    ],
  ];
  const inset = polygonClipping.difference(bowTie, [
    closed([
      [0, 0],
      [1, 0],
      [1, 10],
      [0, 10],
    ]),
  ]);
  assert.ok(area(inset) > 40, 'polygon-clipping keeps both lobes');
  assert.equal(
    insetOverreachM2(
      bowTie,
      [
        [
          closed([
            [0, 0],
            [1, 0],
            [1, 10],
            [0, 10],
          ]),
        ],
      ],
      inset,
    ),
    0,
  );
});

test('a footprint on an ordinary lot is unchanged by the check', () => {
  const { kx, ky } = metresPerDegree(42.37);
  const ll = ([x, y]: XY): XY => [-71.1 + x / kx, 42.37 + y / ky];
  const ft = 1 / 3.280839895013123;
  const lot = closed([
    [0, 0],
    [60 * ft, 0],
    [60 * ft, 100 * ft],
    [0, 100 * ft],
  ]).map(ll);
  const street = [
    [-20, -8],
    [40, -8],
  ].map((p) => ll(p as XY));
  const r = buildableFootprint([[[lot]]], [street], { frontFt: 10, sideFt: 5, rearFt: 20 });
  assert.ok(r.ok, r.ok ? '' : r.reason);
  assert.ok(Math.abs(r.areaSqft - 50 * 70) <= 2, String(r.areaSqft));
});
