import { test } from 'node:test';
import { parseCsvRecords } from '../importer/readers/csv.ts';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { streetKey, streetKeyFromParts, displayStreet, foldStreetText, foldStreetTextUnicode } from './street-key.ts';

const CAMBRIDGE_ADDRESSES = path.resolve(
  import.meta.dirname,
  '../../../shared/data/cambridge-ma/Address/Address_Points/Master_Address_Database_with_MapLot_and_BldgID.csv',
);

test('spellings of one street meet on one key', () => {
  const groups: string[][] = [
    ['Massachusetts Ave', 'MASSACHUSETTS AVENUE', 'massachusetts av.', '  Massachusetts   Avenue '],
    ['Elm St N', 'Elm Street North', 'ELM ST. N.'],
    ['First St', '1st St', 'FIRST STREET', '1ST ST'],
    ['Saint Paul St', 'St. Paul St', 'ST PAUL STREET'],
    ['Mt Auburn St', 'Mount Auburn Street', 'Mt. Auburn St.'],
    ['Rue Saint-Denis', 'rue St-Denis', 'RUE SAINT DENIS'],
    ['Chemin du Lac', 'CH DU LAC', 'chemin du lac'],
    ['Boulevard René-Lévesque Est', 'Boul. Rene Levesque E', 'BOULEVARD RENE-LEVESQUE EST'],
    ["Msgr. O'Brien Hwy", 'Monsignor OBrien Highway', 'MONSIGNOR O’BRIEN HWY'],
    ['North First St', 'N 1st Street', 'N. First St.'],
  ];
  for (const g of groups) {
    const keys = new Set(g.map(streetKey));
    assert.equal(keys.size, 1, `${JSON.stringify(g)} -> ${JSON.stringify([...keys])}`);
  }
  assert.equal(streetKey('Massachusetts Ave'), 'MASSACHUSETTS AVE');
  assert.equal(streetKey('Elm St N'), 'ELM ST N');
  assert.equal(streetKey('First St'), '1ST ST');
  assert.equal(streetKey('Rue Saint-Denis'), 'RUE ST DENIS');
  assert.equal(streetKey('Chemin du Lac'), 'CH DU LAC');
  assert.equal(streetKey('Mt Auburn St'), 'MT AUBURN ST');
});

test('names that only look like types or directions stay names', () => {
  assert.equal(streetKey('North St'), 'NORTH ST');
  assert.equal(streetKey('Broadway'), 'BROADWAY');
  assert.equal(streetKey('Avenue Rd'), 'AVENUE RD');
  assert.equal(streetKey('West Broadway'), 'W BROADWAY');
  assert.equal(streetKey('Park Ave'), 'PARK AVE');
  assert.notEqual(streetKey('Elm St'), streetKey('Elm Ave'));
  assert.notEqual(streetKey('Elm St N'), streetKey('Elm St'));
  assert.equal(streetKey(''), '');
  assert.equal(streetKey(' -- '), '');
});

test('parts from a source table give the key of the joined text', () => {
  assert.equal(streetKeyFromParts({ name: 'ELM', type: 'ST', postdir: 'N' }), streetKey('Elm St N'));
  assert.equal(streetKeyFromParts({ name: 'Elm', type: 'Street', postdir: 'North' }), 'ELM ST N');
  assert.equal(streetKeyFromParts({ name: 'Main', type: 'St', predir: 'North' }), 'N MAIN ST');
  assert.equal(streetKeyFromParts({ name: 'BROADWAY', type: '', postdir: null }), 'BROADWAY');
  assert.equal(streetKeyFromParts({ name: 'MT AUBURN', type: 'ST' }), streetKey('Mount Auburn Street'));
});

test('displayStreet is Title Case and keys its own output back to the key', () => {
  assert.equal(displayStreet('MASSACHUSETTS AVE'), 'Massachusetts Ave');
  assert.equal(displayStreet('ELM ST N'), 'Elm St N');
  assert.equal(displayStreet('1ST ST'), '1st St');
  assert.equal(displayStreet('CH DU LAC'), 'Ch du Lac');
  assert.equal(displayStreet('JFK ST'), 'JFK St');
  for (const k of ['MASSACHUSETTS AVE', 'ELM ST N', 'RUE ST DENIS', 'CH DU LAC', 'N 1ST ST', 'GRAY GDNS E']) {
    assert.equal(streetKey(displayStreet(k)), k);
  }
});

// Arbitrary text, including accents, other scripts, punctuation and controls.
const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc
    .array(
      fc.constantFrom(
        'N',
        'North',
        'St',
        'Saint',
        'St.',
        'Ave',
        'Avenue',
        'Rue',
        'Chemin',
        'du',
        'Lac',
        'First',
        '1st',
        '2d',
        'Mount',
        'Mt',
        'E',
        'Est',
        'O',
        'Ouest',
        'Elm',
        'Park',
        'Rd',
        'Road',
        'Route',
        '9',
        'Élan',
        "O'Brien",
        '-',
        'Boulevard',
        'Boul',
        'No',
        'So',
        'Place',
        'Court',
        'Green',
        'Fort',
        'Sainte',
        'Msgr',
        'Terrace',
        'Ter',
      ),
      { maxLength: 6 },
    )
    .map((a) => a.join(' ')),
);

test('property: streetKey is idempotent and deterministic', () => {
  fc.assert(
    fc.property(anyText, (s) => {
      const k = streetKey(s);
      assert.equal(streetKey(k), k);
      assert.equal(streetKey(s), k);
      assert.match(k, /^[^a-z\s]*(?: [^a-z\s]+)*$/u, 'upper case, single spaces, trimmed');
    }),
    { numRuns: 3000 },
  );
});

// Case mapping is only stable for scripts without expanding case forms, so this one stays in Latin text.
const latinText = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."abcdeéèçôîEÉLMNOSTRV .-'1234".split('')), maxLength: 30 }),
  anyText.filter((s) => /^[\x20-\x7eÀ-ÿ]*$/.test(s)),
);

test('property: case, spacing, periods and accents do not change the key', () => {
  fc.assert(
    fc.property(latinText, (s) => {
      const k = streetKey(s);
      assert.equal(streetKey(s.toLowerCase().normalize('NFC')), streetKey(s.toUpperCase().toLowerCase().normalize('NFC')));
      assert.equal(streetKey(`  ${s.replace(/ /g, '   ')}  `), k);
      assert.equal(streetKey(s.normalize('NFD')), streetKey(s.normalize('NFC')));
    }),
    { numRuns: 2000 },
  );
});

test('property: displayStreet round-trips through streetKey', () => {
  fc.assert(
    fc.property(anyText, (s) => {
      const k = streetKey(s);
      assert.equal(streetKey(displayStreet(k)), k);
    }),
    { numRuns: 2000 },
  );
});

test('capital sharp s folds like sharp s, so a key survives displayStreet (fast-check counterexample "²ẞ")', () => {
  assert.equal(streetKey('Großstraße'), streetKey('GROẞSTRAẞE'));
  for (const s of ['²ẞ', 'Ⰰẞ', 'ẞ St']) assert.equal(streetKey(displayStreet(streetKey(s))), streetKey(s), s);
});

test('Cambridge address table: parts and full_address agree on every street', { skip: !fs.existsSync(CAMBRIDGE_ADDRESSES) }, () => {
  const seen = new Set<string>();
  let checked = 0;
  for (const record of parseCsvRecords(fs.readFileSync(CAMBRIDGE_ADDRESSES, 'utf8'))) {
    const cols = record.map((c) => c.trim().replace(/\s+/g, ' '));
    const [, num, suffix, name, type, dir, full] = cols;
    if (num === undefined || name === undefined || full === undefined) continue;
    const fromParts = streetKeyFromParts({ name, type: type ?? '', postdir: dir ?? '' });
    const prefix = suffix ? `${num}-${suffix} ` : `${num} `;
    assert.ok(full.startsWith(prefix), full);
    const fromText = streetKey(full.slice(prefix.length));
    assert.equal(fromText, fromParts, record.join(','));
    if (!seen.has(fromParts)) {
      seen.add(fromParts);
      assert.equal(streetKey(displayStreet(fromParts)), fromParts);
    }
    checked++;
  }
  assert.ok(checked > 24000, `checked ${checked}`);
  assert.ok(seen.size > 700);
});

test('the ASCII folding path agrees with the general one on every printable ASCII text', () => {
  const chars = fc.constantFrom(..."abcdeJKLMNz019 .,'`-#/&()".split(''));
  fc.assert(
    fc.property(
      fc.array(chars, { maxLength: 30 }).map((a) => a.join('')),
      (text) => {
        assert.deepEqual(foldStreetText(text), foldStreetTextUnicode(text));
      },
    ),
    { numRuns: 2000 },
  );
  for (const t of ['J.F. Kennedy St', 'T.C. Trl', "O'Brien Hwy", 'St. Paul St', 'a.b.c.', '.A.B', 'Mt. Auburn St.'])
    assert.deepEqual(foldStreetText(t), foldStreetTextUnicode(t), t);
});
