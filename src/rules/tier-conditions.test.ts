// The conditions a caller may state, read from the rules' own tier words (never listed per building
// type): on the real Somerville rules, and none where the tiers are expressions over the lot (Chicago)
// or there are no tiers (Cambridge).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadPlaceRules } from './load-rules.ts';
import { rulesIn } from '../../test/support/rules-context.ts';
import { conditionsOfTable, districtConditions, readStatedConditions, statedAgainstTable } from './tier-conditions.ts';
import { SitelineError } from '../core/errors.ts';

const SOURCE_DIR = path.resolve(import.meta.dirname, '../../../shared/data');
const somerville = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'somerville-ma');
const table = (code: string, type: string | null) => conditionsOfTable(somerville, somerville.districts[code]!, type);

test("a building type's conditions are its table's sub-row families, with the rows as values and the standards they set", () => {
  assert.deepEqual(table('NR', 'Detached House'), [
    {
      key: 'driveway',
      name: 'Driveway access',
      values: ['No Driveway Access', 'Side or Rear Driveway Access', 'Front Driveway Access'],
      words: [['No Driveway Access'], ['Side or Rear Driveway Access'], ['Front Driveway Access']],
      standards: ['minLotWidthFt', 'minSideYardFt', 'minSideYardSumFt'],
    },
  ]);
  // Two families in one tier (Row Houses' lot width: "End Lot in Sequence" and "No Driveway Access"), each its own condition.
  assert.deepEqual(
    table('UR', 'Row Houses').map((c) => [c.key, c.name, c.values]),
    [
      ['sequence', 'Lot in a sequence', ['Interior Lot in Sequence', 'End Lot in Sequence']],
      ['driveway', 'Driveway access', ['No Driveway Access', 'Side or Rear Driveway Access', 'Front Driveway Access']],
      ['lotline', 'Lot line', ['Party Lot Line', 'Side Lot Line']],
    ],
  );
  // "Not abutting NR" (the row without a condition of its own) joins its standard's other family.
  assert.deepEqual(table('UR', 'Apartment Building').find((c) => c.key === 'abutting')?.values, ['Not abutting NR', 'Abutting NR']);
  // Rows by storey are one value whose rows differ by storey.
  const mr4 = table('MR4', 'Apartment Building').find((c) => c.key === 'abutting')!;
  assert.deepEqual(mr4.values, ['Abutting an Alley or R-ROW', 'Abutting any non-NR or -LHD', 'Abutting NR or LHD']);
  assert.deepEqual(mr4.words[2], ['1 st – 3 rd Story Abutting NR or LHD', '4 th Story Abutting NR or LHD']);
  // A family with one row in a table is no choice: Semi-Detached House's "Party Lot Line" is its party wall's side.
  assert.deepEqual(
    table('NR', 'Semi-Detached House').map((c) => c.key),
    ['driveway'],
  );
  // No building type stated in a district that zones by type: no table, no conditions.
  assert.deepEqual(table('NR', null), []);
});

test("a district's choice block lists each condition once per set of values, with the building types that state it so", () => {
  const nr = districtConditions(somerville, somerville.districts['NR']!);
  assert.deepEqual(
    nr.map((c) => [c.key, c.buildingTypes]),
    [
      ['driveway', ['Cottage', 'Detached House', 'Semi-Detached House', 'Duplex', 'Detached Triple Decker', 'Backyard Cottage']],
      ['alley', ['Backyard Cottage']],
    ],
  );
});

test('no conditions where tiers are expressions over the lot (Chicago) or there are none (Cambridge)', async () => {
  const chicago = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'chicago-il');
  const cambridge = await loadPlaceRules(rulesIn({ sourceDir: SOURCE_DIR }), 'cambridge-ma');
  for (const rules of [chicago, cambridge]) for (const d of Object.values(rules.districts)) assert.deepEqual(districtConditions(rules, d), []);
});

test('stated conditions: "Name=Value", "key=Value" or the value alone; unknown, misspelt or twice-stated ones are bad input naming the choices', () => {
  const t = table('NR', 'Detached House');
  const front = {
    key: 'driveway',
    name: 'Driveway access',
    value: 'Front Driveway Access',
    holds: ['Front Driveway Access'],
    fails: ['No Driveway Access', 'Side or Rear Driveway Access'],
  };
  for (const said of ['Driveway access=Front Driveway Access', 'driveway = front driveway access', 'Front  Driveway Access'])
    assert.deepEqual(readStatedConditions([said], t, 'Detached House'), [front]);
  const refused = (texts: string[], re: RegExp) =>
    assert.throws(
      () => readStatedConditions(texts, t, 'the Detached House table'),
      (e: Error) => e instanceof SitelineError && e.code === 'bad_input' && re.test(e.message),
      texts.join(),
    );
  refused(
    ['Alley'],
    /"Alley" is not a condition of the Detached House table\. Its conditions: Driveway access \(No Driveway Access, Side or Rear Driveway Access, Front Driveway Access\)/,
  );
  refused(
    ['Driveway access=Back'],
    /"Back" is not a value of Driveway access in the Detached House table\. Its values: No Driveway Access, Side or Rear Driveway Access, Front Driveway Access/,
  );
  refused(['Parking=Front Driveway Access'], /"Parking" is not a condition of the Detached House table/);
  refused(['Front Driveway Access', 'No Driveway Access'], /Driveway access was stated twice/);
  assert.throws(() => readStatedConditions(['Front Driveway Access'], [], 'the Cottage table'), /states no value under a condition a caller can state/);
  // Kept with a lot as key and value, made whole again against the table as it is now.
  assert.deepEqual(statedAgainstTable([{ key: 'driveway', value: 'Front Driveway Access' }], t), [front]);
  assert.deepEqual(statedAgainstTable([{ key: 'alley', value: 'Alley' }], t), [], 'a condition the table no longer has is dropped');
});
