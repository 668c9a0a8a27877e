import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { rankStreets, similarity, type PlaceStreets } from './street-match.ts';
import { editDistance } from '../core/edit-distance.ts';
import { displayStreet, streetKey, streetKeyParts } from './street-key.ts';

function streetsOf(names: string[]): PlaceStreets {
  const list = names.map((n) => {
    const key = streetKey(n);
    return { key, display: displayStreet(key), name: streetKeyParts(key).name.join(' ') };
  });
  return { byKey: new Map(list.map((s) => [s.key, s])), list };
}

test('edit distance: known values, transpositions count once', () => {
  assert.equal(editDistance('', ''), 0);
  assert.equal(editDistance('ABC', ''), 3);
  assert.equal(editDistance('KITTEN', 'SITTING'), 3);
  assert.equal(editDistance('MASACHUSETTS', 'MASSACHUSETTS'), 1);
  assert.equal(editDistance('ELM', 'EML'), 1);
});

test('property: edit distance is a symmetric measure bounded by the longer length', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (a, b) => {
      const d = editDistance(a, b);
      assert.equal(d, editDistance(b, a));
      assert.equal(d === 0, a === b);
      assert.ok(d <= Math.max(a.length, b.length));
      assert.ok(d >= Math.abs(a.length - b.length));
      const s = similarity(a, b);
      assert.ok(s >= 0 && s <= 1);
    }),
    { numRuns: 2000 },
  );
});

test('ranking: typos, missing types and short forms find the street; unrelated names do not', () => {
  const streets = streetsOf(['Massachusetts Ave', 'Main St', 'Maple Ave', 'Elm St N', 'Oak St', 'Oak Ave', 'Mount Auburn St']);
  assert.equal(rankStreets(streetKey('Masachusetts Ave'), streets)[0]?.street.key, 'MASSACHUSETTS AVE');
  assert.equal(rankStreets(streetKey('Mass Ave'), streets)[0]?.street.key, 'MASSACHUSETTS AVE');
  assert.equal(rankStreets(streetKey('Massachusetts'), streets)[0]?.street.key, 'MASSACHUSETTS AVE');
  assert.equal(rankStreets(streetKey('Elm St'), streets)[0]?.street.key, 'ELM ST N');
  assert.equal(rankStreets(streetKey('Mt Auburn'), streets)[0]?.street.key, 'MT AUBURN ST');
  const oak = rankStreets(streetKey('Oak Rd'), streets);
  assert.equal(oak[0]?.score, oak[1]?.score, 'two equally good candidates');
  assert.deepEqual(rankStreets(streetKey('Zzyzx Blvd'), streets), []);
  assert.ok(rankStreets(streetKey('Main St'), streets).length <= 5);
});
