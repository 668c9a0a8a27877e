// Which build lots stand apart from the site: touching within 1 m (slivers between lot lines), overlap,
// a lot across a 15 m street, and a site joined through a lot attached later.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lotGapM, separateBuildLots } from './lot-adjacency.ts';
import type { MultiPolygonCoords } from '../core/geo/primitives.ts';

const LAT0 = 42.37;
const M_LAT = 1 / 110_574;
const M_LON = 1 / (111_320 * Math.cos((LAT0 * Math.PI) / 180));
/** A rectangle x0..x1, y0..y1 in metres east/north of a point in Cambridge. */
const rect = (x0: number, y0: number, x1: number, y1: number): MultiPolygonCoords => {
  const p = (x: number, y: number): [number, number] => [-71.1 + x * M_LON, LAT0 + y * M_LAT];
  return [[[p(x0, y0), p(x1, y0), p(x1, y1), p(x0, y1), p(x0, y0)]]];
};

test('the gap between two lots: a shared line, a sliver, an overlap, a street', () => {
  assert.ok(lotGapM(rect(0, 0, 20, 30), rect(20, 0, 40, 30)) < 0.01, 'a shared lot line');
  assert.ok(Math.abs(lotGapM(rect(0, 0, 20, 30), rect(20.4, 0, 40, 30)) - 0.4) < 0.01, 'a 0.4 m sliver');
  assert.equal(lotGapM(rect(0, 0, 20, 30), rect(10, 10, 30, 40)), 0, 'overlapping');
  assert.ok(
    Math.abs(lotGapM(rect(0, 0, 20, 30), rect(0, 45, 20, 75)) - 15) < 0.2,
    'across a 15 m street (the projector and the fixture differ by under 1 % in metres per degree)',
  );
});

test('the site is the first build lot and those joined to it; only the others are apart', () => {
  const lot = (id: string, r: MultiPolygonCoords) => ({ parcelExternalId: id, polygon: r });
  assert.deepEqual(separateBuildLots([lot('A', rect(0, 0, 20, 30))]), [], 'one lot');
  assert.deepEqual(separateBuildLots([lot('A', rect(0, 0, 20, 30)), lot('B', rect(20.5, 0, 40, 30))]), [], 'neighbours with a sliver');
  assert.deepEqual(
    separateBuildLots([lot('A', rect(0, 0, 20, 30)), lot('X', rect(0, 45, 20, 75))]),
    [{ parcelExternalId: 'X', nearestM: 15 }],
    'across the street: the later lot',
  );
  // C was attached apart (two doors down), then B joined A and C: one site.
  assert.deepEqual(separateBuildLots([lot('A', rect(0, 0, 20, 30)), lot('C', rect(40, 0, 60, 30)), lot('B', rect(20, 0, 40, 30))]), []);
});
