// The distance between a lot's outline and a street's centreline, on shapes whose answer is known.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metresPerDegree, type Position } from '../core/geo/primitives.ts';
import { polygonLineDistanceM } from './lot-fronts-street.ts';

const LAT0 = 42.37,
  LNG0 = -71.11;
const { kx, ky } = metresPerDegree(LAT0);
const at = (xM: number, yM: number): Position => [LNG0 + xM / kx, LAT0 + yM / ky];
// A 20 m x 30 m lot with its south-west corner at the origin.
const lot = [[[at(0, 0), at(20, 0), at(20, 30), at(0, 30), at(0, 0)]]];

test('polygonLineDistanceM: a street 12 m south, a street 100 m east, a street that crosses the lot', () => {
  assert.ok(Math.abs(polygonLineDistanceM(lot, [[at(-50, -12), at(70, -12)]], at(10, 15)) - 12) < 0.01);
  assert.ok(Math.abs(polygonLineDistanceM(lot, [[at(120, -40), at(120, 80)]], at(10, 15)) - 100) < 0.01);
  // A line whose vertices are all far but whose segment passes a lot corner: measured from the corner.
  assert.ok(Math.abs(polygonLineDistanceM(lot, [[at(-100, 35), at(100, 35)]], at(10, 15)) - 5) < 0.01);
  // Several lines: the nearest counts.
  assert.ok(
    Math.abs(
      polygonLineDistanceM(
        lot,
        [
          [at(120, -40), at(120, 80)],
          [at(-8, -40), at(-8, 80)],
        ],
        at(10, 15),
      ) - 8,
    ) < 0.01,
  );
});
