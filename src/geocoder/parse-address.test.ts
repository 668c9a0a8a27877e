import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseAddress, type ParsedAddress } from './parse-address.ts';
import { streetKey } from './street-key.ts';
import { SitelineError } from '../core/errors.ts';

function badInputMessage(input: string): string {
  try {
    parseAddress(input);
  } catch (e) {
    assert.ok(e instanceof SitelineError, `not a SitelineError: ${String(e)}`);
    assert.equal(e.code, 'bad_input');
    assert.ok(e.message.length > 10 && /[.]$/.test(e.message), `a sentence: ${e.message}`);
    return e.message;
  }
  assert.fail(`expected bad_input for ${JSON.stringify(input)}`);
}

test('US address, every part pulled out', () => {
  const p = parseAddress('123 Massachusetts Ave, Cambridge, MA 02139-4307, USA');
  assert.deepEqual(p, {
    number: '123',
    numberSuffix: null,
    street: 'Massachusetts Ave',
    streetKey: 'MASSACHUSETTS AVE',
    unit: null,
    city: 'Cambridge',
    region: 'MA',
    postcode: '02139',
    country: 'US',
    warnings: [],
  } satisfies ParsedAddress);
});

test('Cambridge table forms: dash suffixes, halves, post-directionals', () => {
  const r = parseAddress('56-R Aberdeen Ave, Cambridge MA');
  assert.equal(r.number, '56');
  assert.equal(r.numberSuffix, 'R');
  for (const s of ['6-1/2 Acacia St', '6 1/2 Acacia St', '6½ Acacia St']) {
    const h = parseAddress(s);
    assert.equal(h.number, '6');
    assert.equal(h.numberSuffix, '1/2');
    assert.equal(h.streetKey, 'ACACIA ST');
  }
  assert.equal(parseAddress('128 Elm St N, Cambridge').streetKey, 'ELM ST N');
  assert.equal(parseAddress('12 N Elm St').numberSuffix, null, 'a direction is not a number suffix');
  assert.equal(parseAddress('12 A St').streetKey, 'A ST', 'a one-letter street is not a suffix');
  assert.equal(parseAddress('12 A Elm St').numberSuffix, 'A', 'a lone letter before a two-word street is a suffix');
});

test('street names with initials (issue 15): lone letters in a row are the name, not a suffix', () => {
  for (const [text, key] of [
    ['129 T C TRL', 'T C TRL'],
    ['129 T C Trail, Smalltown, TX 76078', 'T C TRL'],
    ['129 T.C. Trl', 'T C TRL'],
    ['12 J F Kennedy St, Cambridge, MA', 'J F KENNEDY ST'],
    ['40 J.F. Kennedy St', 'J F KENNEDY ST'],
    ['5 A B C Rd', 'A B C RD'],
  ] as const) {
    const r = parseAddress(text);
    assert.equal(r.numberSuffix, null, text);
    assert.equal(r.streetKey, key, text);
  }
});

test('Canadian civic forms', () => {
  const fr = parseAddress('123, rue Saint-Denis, Montréal (Québec) H2X 1Y4, Canada');
  assert.equal(fr.number, '123');
  assert.equal(fr.streetKey, 'RUE ST DENIS');
  assert.equal(fr.city, 'Montréal');
  assert.equal(fr.region, 'QC');
  assert.equal(fr.postcode, 'H2X 1Y4');
  assert.equal(fr.country, 'CA');
  const dash = parseAddress('4-123 Main St, Victoria, BC V8W1A1');
  assert.equal(dash.unit, '4');
  assert.equal(dash.number, '123');
  assert.equal(dash.postcode, 'V8W 1A1');
  assert.equal(parseAddress('1 Rue Ste-Catherine O, Montréal, QC').streetKey, 'RUE STE CATHERINE O', '"Ste" here is Sainte, not a suite');
  assert.equal(parseAddress('10 Chemin du Lac, Lac-Beauport, Québec').region, 'QC');
  // "CA" after a province or postal code is Canada; otherwise it is California
  const cc = parseAddress('4-123 Main St, Victoria, BC, CA');
  assert.deepEqual([cc.city, cc.region, cc.country], ['Victoria', 'BC', 'CA']);
  assert.equal(parseAddress('1 Main St, Victoria, BC V8W 1A1 CA').country, 'CA');
  const cal = parseAddress('1 Main St, Los Angeles, CA 90012');
  assert.deepEqual([cal.region, cal.country], ['CA', 'US']);
  assert.deepEqual([parseAddress('1 Main St, Los Angeles, CA').region, parseAddress('1 Main St, Los Angeles, CA').country], ['CA', 'US']);
});

test('units in their usual places', () => {
  for (const s of [
    '100 Main St Apt 4B, Boston, MA',
    '100 Main St, Apt 4B, Boston, MA',
    'Apt 4B, 100 Main St, Boston, MA',
    '100 Main St #4B Boston MA',
    '100 Main St Unit # 4B, Boston MA',
  ]) {
    const p = parseAddress(s);
    assert.equal(p.unit, '4B', s);
    assert.equal(p.number, '100', s);
    assert.equal(p.streetKey, 'MAIN ST', s);
    assert.equal(p.city, 'Boston', s);
  }
  assert.equal(parseAddress('100 Main St Suite 200, Boston, MA').unit, '200');
});

test('dashed numbers: number and suffix in the US, unit and number in Canada, both readings without a country', () => {
  // Cambridge stores "18-2 Bay St" and the range "101-103 Plympton St" as number + suffix
  const us = parseAddress('101-103 Plympton St, Cambridge, MA 02138');
  assert.deepEqual([us.number, us.numberSuffix, us.unit, us.alternatives], ['101', '103', null, undefined]);
  const cambridge = parseAddress('20-1B Prescott St, Cambridge, MA');
  assert.deepEqual([cambridge.number, cambridge.numberSuffix], ['20', '1B']);
  assert.deepEqual(
    [parseAddress('343-1/2-R Broadway, Cambridge, MA').number, parseAddress('343-1/2-R Broadway, Cambridge, MA').numberSuffix],
    ['343', '1/2-R'],
  );
  const ca = parseAddress('4-123 Main St, Victoria, BC');
  assert.deepEqual([ca.number, ca.numberSuffix, ca.unit, ca.alternatives], ['123', null, '4', undefined]);
  const unknown = parseAddress('4-123 Main St, Victoria');
  assert.deepEqual([unknown.number, unknown.numberSuffix, unknown.unit], ['4', '123', null]);
  assert.deepEqual(
    unknown.alternatives?.map((a) => [a.number, a.numberSuffix, a.unit]),
    [['123', null, '4']],
  );
  // a letter unit can only be a unit
  const letter = parseAddress('B-12 Elm St, Cambridge, MA');
  assert.deepEqual([letter.number, letter.unit], ['12', 'B']);
});

test('postcode and region must agree', () => {
  assert.match(parseAddress('1 Main St, Cambridge, MA 90210').warnings.join(' '), /90210 belongs to CA, not MA/);
  assert.match(parseAddress('1 Main St, Victoria, BC H2X 1Y4').warnings.join(' '), /belongs to QC, not BC/);
  assert.match(badInputMessage('1 Main St, Cambridge, MA H2X 1Y4'), /US and Canadian/);
  assert.match(badInputMessage('1 Main St, Victoria, BC 02139'), /US and Canadian/);
  assert.match(badInputMessage('1 Main St, Toronto, ON M5V 2T6, USA'), /US and Canadian/);
});

test('impossible postcodes are bad input', () => {
  assert.match(badInputMessage('1 Main St, Cambridge, MA 00000'), /00000 cannot exist/);
  assert.match(badInputMessage('1 Main St, Cambridge, MA 00123'), /cannot exist/);
  for (const pc of ['H2X 1D4', 'D2X 1Y4', 'W1A 1A1', 'Z1A 1A1', 'H2U 1Y4', 'Q2X 1Y4']) {
    assert.match(badInputMessage(`1 Main St, Montréal, QC ${pc}`), /cannot exist/, pc);
  }
  assert.match(badInputMessage('1 Main St, Cambridge, MA 0213'), /5 digits/);
});

test('two street addresses in one text are refused, not one of them guessed', () => {
  assert.match(badInputMessage('10 Ware St, 57 Inman St, Cambridge, MA'), /two street addresses \("10 Ware St" and "57 Inman St"\)/);
  assert.match(badInputMessage('57 Inman St, 57 Inman St, Cambridge, MA'), /two street addresses/);
  assert.match(badInputMessage('10 Ware St, 57 Inman St'), /two street addresses/);
  // Other extra parts are ignored with a warning: a floor, a building or square name.
  assert.match(parseAddress('10 Ware St, 2nd Floor, Cambridge, MA').warnings.join(' '), /Ignored "2nd Floor"/);
  assert.match(parseAddress('Harvard Square, 10 Ware St, Cambridge, MA').warnings.join(' '), /Ignored "Harvard Square"/);
  assert.match(badInputMessage('123 rue Principale, 10 rue Saint-Denis, Montréal, QC'), /two street addresses/);
  // A French floor and a town whose name starts with a number are not street addresses.
  assert.match(parseAddress('123 rue Principale, 2e étage, Montréal, QC').warnings.join(' '), /Ignored "2e étage"/);
  assert.equal(parseAddress('4920 Cariboo Hwy, 100 Mile House, BC').city, '100 Mile House');
});

test('unusable input is bad_input with a clear sentence', () => {
  assert.match(badInputMessage(''), /empty/);
  assert.match(badInputMessage('   , ,  '), /empty/);
  assert.match(badInputMessage('x'.repeat(10_240)), /10240 characters.*300/);
  assert.match(badInputMessage('12 Main\u0000 St'), /control characters/);
  assert.match(badInputMessage('12 Main St\u001b[31m'), /control characters/);
  assert.match(badInputMessage('12 Main \u202eSt'), /control characters/);
  assert.match(badInputMessage('12 Main St \ud800'), /Unicode/);
  assert.match(badInputMessage('12, MA 02139'), /no street/);
  assert.match(badInputMessage('#!?, MA'), /no street/);
  assert.match(badInputMessage('PO Box 12, Cambridge, MA 02139'), /post office box/);
  assert.match(badInputMessage('1234567890 Main St'), /too long/);
  // a postcode alone is named as one (it read "a house number (2138) but no street name")
  for (const pc of ['02138', '02138-1234', 'V8X 2W9', 'v8x2w9'])
    assert.match(badInputMessage(pc), new RegExp(`^"${pc}" is only a postcode: give a street address`));
});

test('mixed scripts and SQL-looking text parse as plain text', () => {
  const sql = parseAddress("1 Elm St'; DROP TABLE addresses; --");
  assert.equal(sql.number, '1');
  assert.ok(sql.streetKey && sql.streetKey.length > 0);
  const mixed = parseAddress('12 Улица Ленина, Москва');
  assert.equal(mixed.number, '12');
  assert.equal(mixed.streetKey, 'УЛИЦА ЛЕНИНА');
  assert.equal(parseAddress('7 Elm St 中文').number, '7');
  const lookalike = parseAddress('12 Маin St, Cambridge, MA'); // Cyrillic М and а
  assert.match(lookalike.warnings.join(' '), /mixes writing systems \(Cyrillic, Latin\)/);
  // an injection attempt is just words; its punctuation-only tail is dropped
  assert.equal(parseAddress("1 Elm St'; DROP TABLE addresses; --").city, 'DROP TABLE addresses');
  // newlines and tabs separate parts like commas
  assert.equal(parseAddress('12 Elm St\nCambridge\tMA 02139').city, 'Cambridge');
});

test('property: any text parses or is bad_input; never another error', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ maxLength: 400 }), fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 })), (s) => {
      try {
        const p = parseAddress(s);
        assert.ok(p.streetKey && p.streetKey === streetKey(p.streetKey));
        assert.ok(p.number === null || /^\d{1,6}$/.test(p.number));
        assert.ok(p.postcode === null || /^(\d{5}|[A-Z]\d[A-Z] \d[A-Z]\d)$/.test(p.postcode));
        assert.ok(p.region === null || /^[A-Z]{2}$/.test(p.region));
      } catch (e) {
        if (!(e instanceof SitelineError) || e.code !== 'bad_input') throw e;
      }
    }),
    { numRuns: 3000 },
  );
});

// ---- structured addresses, rendered in several styles, parsed back ----

interface Address {
  number: number;
  suffix: string;
  street: { text: string; textAlt: string; trailingType: boolean };
  unit: { value: string; word: string } | null;
  unitPlacement: 'after' | 'own' | 'before' | 'dash';
  city: string;
  region: { code: string; name: string } | null;
  regionAsName: boolean;
  postcode: string | null;
  countryWord: string | null;
  country: 'US' | 'CA';
  commas: boolean;
  casing: 'as' | 'upper' | 'lower';
}

const usStreet = fc
  .record({
    predir: fc.constantFrom(null, ['N', 'North'], ['E', 'East'], ['W', 'West']),
    name: fc.constantFrom('Elm', 'Massachusetts', 'Mount Auburn', 'Saint Paul', 'First', 'Oak', 'Cambridge', 'Maple Hill', 'Brattle'),
    type: fc.constantFrom(['St', 'Street'], ['Ave', 'Avenue'], ['Rd', 'Road'], ['Blvd', 'Boulevard'], ['Pl', 'Place'], ['Ter', 'Terrace'], ['Dr', 'Drive']),
    postdir: fc.constantFrom(null, null, ['N', 'North'], ['S', 'South']),
  })
  .map(({ predir, name, type, postdir }) => ({
    text: [predir?.[0], name, type[0], postdir?.[0]].filter(Boolean).join(' '),
    textAlt: [predir?.[1], name, type[1], postdir?.[0]].filter(Boolean).join(' '),
    trailingType: true,
  }));

const frStreet = fc
  .record({
    type: fc.constantFrom(['Rue', 'rue'], ['Ch.', 'Chemin'], ['Boul.', 'Boulevard'], ['Av.', 'Avenue']),
    particle: fc.constantFrom('', 'du ', 'de la ', 'des '),
    name: fc.constantFrom('Principale', 'Saint-Denis', 'Lac', 'Sherbrooke', 'Mont-Royal', 'Érables'),
    postdir: fc.constantFrom(null, null, ['E', 'Est'], ['O', 'Ouest']),
  })
  .map(({ type, particle, name, postdir }) => ({
    text: `${type[0]} ${particle}${name}${postdir ? ` ${postdir[0]}` : ''}`,
    textAlt: `${type[1]} ${particle}${name}${postdir ? ` ${postdir[1]}` : ''}`,
    trailingType: false,
  }));

const US_CITIES = [
  ['Cambridge', '02139'],
  ['Somerville', '02143'],
  ['Boston', '02108'],
  ['New Bedford', '02740'],
  ['Springfield', '01103'],
] as const;
const CA_CITIES = [
  ['Montréal', 'QC', 'Québec', 'H2X 1Y4'],
  ['Victoria', 'BC', 'British Columbia', 'V8W 1A1'],
  ['Saanich', 'BC', 'Colombie-Britannique', 'V8X 2W7'],
  ['Toronto', 'ON', 'Ontario', 'M5V 2T6'],
  ['Québec', 'QC', 'Quebec', 'G1R 4P5'],
] as const;

const unitArb = fc.option(
  fc.record({
    value: fc.constantFrom('4', '4B', '12', '301', 'B'),
    word: fc.constantFrom('Apt', 'Unit', '#', 'Suite', 'Apt.'),
  }),
  { nil: null },
);

const common = {
  number: fc.integer({ min: 1, max: 99999 }),
  suffix: fc.constantFrom('', '', '', 'A', 'B', 'R', '1/2'),
  unit: unitArb,
  unitPlacement: fc.constantFrom('after', 'own', 'before', 'dash'),
  regionAsName: fc.boolean(),
  withRegion: fc.boolean(),
  withPostcode: fc.boolean(),
  countryWord: fc.boolean(),
  commas: fc.boolean(),
  casing: fc.constantFrom('as', 'upper', 'lower'),
} as const;

const usAddress = fc.record({ ...common, street: usStreet, city: fc.constantFrom(...US_CITIES), cw: fc.constantFrom('USA', 'United States', 'U.S.A.') }).map(
  (a): Address => ({
    number: a.number,
    suffix: a.suffix,
    street: a.street,
    unit: a.unit,
    unitPlacement: a.unitPlacement === 'dash' ? 'after' : a.unitPlacement,
    city: a.city[0],
    region: a.withRegion || a.withPostcode ? { code: 'MA', name: 'Massachusetts' } : null,
    regionAsName: a.regionAsName,
    postcode: a.withPostcode ? a.city[1] : null,
    countryWord: a.countryWord ? a.cw : null,
    country: 'US',
    commas: a.commas,
    casing: a.casing,
  }),
);

const caAddress = fc.record({ ...common, street: fc.oneof(frStreet, usStreet), city: fc.constantFrom(...CA_CITIES) }).map(
  (a): Address => ({
    number: a.number,
    suffix: a.suffix === '1/2' ? '' : a.suffix,
    street: a.street,
    unit: a.unit,
    unitPlacement: a.unitPlacement,
    city: a.city[0],
    region: a.withRegion || a.withPostcode ? { code: a.city[1], name: a.city[2] } : null,
    regionAsName: a.regionAsName,
    postcode: a.withPostcode ? a.city[3] : null,
    countryWord: a.countryWord ? 'Canada' : null,
    country: 'CA',
    // French streets carry no trailing type, so a comma-less city cannot be told from the street
    commas: a.commas || !a.street.trailingType,
    casing: a.casing,
  }),
);

function render(a: Address, alt: boolean): string {
  const unitWord = a.unit && a.unit.word === 'Suite' && !/\d/.test(a.unit.value) ? 'Apt' : a.unit?.word;
  const unitText = a.unit ? (unitWord === '#' ? `#${a.unit.value}` : `${unitWord} ${a.unit.value}`) : '';
  // "4-123" is a unit only when the address says it is Canadian (without a country it is a second reading)
  const dashUnit = a.unit && a.unitPlacement === 'dash' && /^\d+$/.test(a.unit.value) && (a.region || a.postcode || a.countryWord);
  const placement = a.unitPlacement === 'dash' && !dashUnit ? 'after' : a.unitPlacement;
  const suffix = a.suffix === '' ? '' : a.suffix === '1/2' ? ' 1/2' : alt ? `-${a.suffix}` : a.suffix;
  const num = `${dashUnit ? `${a.unit!.value}-` : ''}${a.number}${suffix}`;
  const street = `${num} ${alt ? a.street.textAlt : a.street.text}`;
  const sep = a.commas ? ', ' : ' ';
  const parts: string[] = [];
  if (a.unit && placement === 'before') parts.push(unitText);
  if (a.unit && placement === 'after') parts.push(`${street} ${unitText}`);
  else parts.push(street);
  if (a.unit && placement === 'own') parts.push(unitText);
  parts.push(a.city);
  const tail = [a.region ? (a.regionAsName ? a.region.name : a.region.code) : null, a.postcode].filter(Boolean).join(' ');
  if (tail) parts.push(tail);
  if (a.countryWord) parts.push(a.countryWord);
  const text = a.commas ? parts.join(sep) : parts.join(' ');
  return a.casing === 'upper' ? text.toUpperCase() : a.casing === 'lower' ? text.toLowerCase() : text;
}

const fold = (s: string | null) => (s === null ? null : s.normalize('NFKD').replace(/\p{M}/gu, '').toUpperCase());

function expectParsed(a: Address, text: string) {
  const p = parseAddress(text);
  const ctx = `${text} -> ${JSON.stringify(p)}`;
  assert.equal(p.number, String(a.number), ctx);
  assert.equal(p.numberSuffix, a.suffix === '' ? null : a.suffix, ctx);
  assert.equal(p.streetKey, streetKey(a.street.text), ctx);
  assert.equal(p.unit, a.unit ? a.unit.value : null, ctx);
  assert.equal(fold(p.city), fold(a.city), ctx);
  assert.equal(p.region, a.region?.code ?? null, ctx);
  assert.equal(p.postcode, a.postcode, ctx);
  const country = a.countryWord || a.region || a.postcode ? a.country : null;
  assert.equal(p.country, country, ctx);
  assert.deepEqual(p.warnings, [], ctx);
}

test('property: structured US addresses round-trip through render and parse', () => {
  fc.assert(
    fc.property(usAddress, fc.boolean(), (a, alt) => expectParsed(a, render(a, alt))),
    { numRuns: 3000 },
  );
});

test('property: structured Canadian addresses round-trip through render and parse', () => {
  fc.assert(
    fc.property(caAddress, fc.boolean(), (a, alt) => expectParsed(a, render(a, alt))),
    { numRuns: 3000 },
  );
});

test('property: the parse does not depend on case or spacing', () => {
  fc.assert(
    fc.property(fc.oneof(usAddress, caAddress), (a) => {
      const text = render(a, false);
      const base = parseAddress(text);
      const spaced = parseAddress(`  ${text.replace(/ /g, '   ').replace(/,/g, ' , ')}  `);
      const strip = (p: ParsedAddress) => ({ ...p, city: fold(p.city) });
      assert.deepEqual(strip(spaced), strip(base));
      assert.deepEqual(strip(parseAddress(text.toUpperCase())), strip(parseAddress(text.toLowerCase())));
    }),
    { numRuns: 1500 },
  );
});
