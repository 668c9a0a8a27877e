// The assessor's lot locations as the importer indexes them for the geocoder (lot_locations).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLotLocation } from '../src/geocoder/lot-location.ts';

test('assessor locations: number ranges, halves, letter suffixes, units dropped', () => {
  const cases: [string, ReturnType<typeof parseLotLocation>][] = [
    ['22 FAIRMONT AVE', { streetKey: 'FAIRMONT AVE', numberLo: 22, numberHi: 22, numberSuffix: '' }],
    ['10-16 FAIRMONT AVE #12', { streetKey: 'FAIRMONT AVE', numberLo: 10, numberHi: 16, numberSuffix: '' }],
    ['9-11  FAIRMONT AVE  #11', { streetKey: 'FAIRMONT AVE', numberLo: 9, numberHi: 11, numberSuffix: '' }],
    ['22.5 FAIRMONT AVE', { streetKey: 'FAIRMONT AVE', numberLo: 22, numberHi: 22, numberSuffix: '1/2' }],
    ['58 1/2 SPRING ST', { streetKey: 'SPRING ST', numberLo: 58, numberHi: 58, numberSuffix: '1/2' }],
    ['17R COMMERCIAL AVE', { streetKey: 'COMMERCIAL AVE', numberLo: 17, numberHi: 17, numberSuffix: 'R' }],
    ['220-222.5 HURLEY ST', { streetKey: 'HURLEY ST', numberLo: 220, numberHi: 222, numberSuffix: '' }],
    ['129-205 RICHDALE AVE #A/1', { streetKey: 'RICHDALE AVE', numberLo: 129, numberHi: 129, numberSuffix: '' }], // wider than 40: its first number
    ['219 MONSIGNOR OBRIEN HWY', { streetKey: 'MSGR OBRIEN HWY', numberLo: 219, numberHi: 219, numberSuffix: '' }],
    ['32 FIRST ST', { streetKey: '1ST ST', numberLo: 32, numberHi: 32, numberSuffix: '' }],
    ['12 N ST', { streetKey: 'N ST', numberLo: 12, numberHi: 12, numberSuffix: '' }],
    ['ATHENAEUM ST', null],
    ['', null],
    ['12', null],
  ];
  for (const [text, want] of cases) assert.deepEqual(parseLotLocation(text), want, text);
});
