import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placePostcodes } from './place-postcodes.ts';

const rows = (pc: string, n: number) => Array.from({ length: n }, () => ({ postcode: pc }));

test('a postcode joins its place only when a real share of its records carry it: one stray assessor row does not', () => {
  // Somerville's shape: three real ZIPs, and one row each typed with Brighton's 02135 and two others'.
  const addresses = [
    ...rows('02143', 436),
    ...rows('02144', 624),
    ...rows('02145', 419),
    ...rows('02135', 1),
    ...rows('01244', 1),
    ...rows('02474', 1),
    { postcode: '' },
    {},
  ];
  const p = placePostcodes(addresses, []);
  assert.deepEqual(p.kept, ['02143', '02144', '02145']);
  assert.deepEqual(p.left, [
    { postcode: '01244', records: 1 },
    { postcode: '02135', records: 1 },
    { postcode: '02474', records: 1 },
  ]);
  assert.equal(p.records, 1482);
});

test("street segments' left and right ZIPs count one record a side; a small real ZIP stays, a handful of sides does not", () => {
  const seg = (l: string, r: string, n: number) => Array.from({ length: n }, () => ({ zipLeft: l, zipRight: r }));
  // Cambridge's shape: 02142 on 4.4 % of the sides stays; 01940 on 4 sides (0.08 %) does not.
  const p = placePostcodes([], [...seg('02138', '02139', 1000), ...seg('02142', '02142', 50), ...seg('01940', '02138', 4), ...seg('', 'n/a', 3)]);
  assert.deepEqual(p.kept, ['02138', '02139', '02142']);
  assert.deepEqual(p.left, [{ postcode: '01940', records: 4 }]);
  assert.equal(p.records, 2108);
});

test('a handful of records is not a share: five are needed even in a tiny place', () => {
  assert.deepEqual(placePostcodes(rows('12345', 4), []).kept, []);
  assert.deepEqual(placePostcodes(rows('12345', 5), []).kept, ['12345']);
});
