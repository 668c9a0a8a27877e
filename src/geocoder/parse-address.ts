// Free-text US / Canadian address -> structured parts. The tail is peeled first (country, postcode,
// state/province), then the unit, then the house number; what is left is the street (and, when the
// input has commas, the city). Unusable input is a SitelineError('bad_input') with a sentence a person
// can act on; anything else parses and simply fails to match later.
import { badInput } from '../core/errors.ts';
import { displayStreet, streetKey } from './street-key.ts';
import { MAX_REGION_NAME_WORDS, regionByCode, regionByFoldedName, type Country, type Region } from './regions.ts';
import { provincesForPostalCode, statesForZip } from '../places/regions.ts';

export const MAX_ADDRESS_CHARS = 300;

/** What an over-long address is told, in the same words on every surface (core, MCP, REST, CLI). */
export function addressTooLongMessage(length: number): string {
  return `The address is ${length} characters long; the limit is ${MAX_ADDRESS_CHARS}.`;
}
/** Longest house number accepted; longer digit runs are not civic numbers (and would overflow integer columns). */
const MAX_NUMBER_DIGITS = 6;

export interface ParsedAddress {
  /** House number digits, e.g. "123"; null when the input has none. */
  number: string | null;
  /** Number suffix, upper case: "A", "R", "1/2"; null when none. */
  numberSuffix: string | null;
  /** Street for people (Title Case of the key), e.g. "Massachusetts Ave". */
  street: string | null;
  /** Canonical street key (see street-key.ts), e.g. "MASSACHUSETTS AVE". */
  streetKey: string | null;
  /** Unit / apartment / suite, upper case without designator: "4B". */
  unit: string | null;
  city: string | null;
  /** Two-letter state or province code. */
  region: string | null;
  /** ZIP 5 ("02139") or Canadian "A1A 1A1". */
  postcode: string | null;
  country: Country | null;
  warnings: string[];
  /** Other readings of an ambiguous number ("4-123" without a country), for the geocoder to try after this one. */
  alternatives?: AddressReading[];
}

/** One reading of the number / suffix / unit, with the note that explains it to a person. */
export interface AddressReading {
  number: string | null;
  numberSuffix: string | null;
  unit: string | null;
  note?: string;
}

interface Tok {
  raw: string;
  /** Upper case, accents folded, only letters, digits, '/', '#', '-' kept. */
  f: string;
  seg: number;
}

/** Control characters (C0 but tab, line feed and carriage return; DEL; C1) and the bidirectional marks and overrides: refused in an address, and in the words stated with one (src/snapshot/stated-district.ts). */
export const CONTROL_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const COUNTRY_NAMES: ReadonlyMap<string, Country> = new Map([
  ['US', 'US'],
  ['USA', 'US'],
  ['CA', 'CA'],
  ['UNITEDSTATES', 'US'],
  ['UNITEDSTATESOFAMERICA', 'US'],
  ['ETATSUNIS', 'US'],
  ['CANADA', 'CA'],
  ['CAN', 'CA'],
]);

const UNIT_WORDS: ReadonlySet<string> = new Set(['APT', 'APARTMENT', 'UNIT', 'SUITE', 'STE', 'BUREAU', 'APP', 'APPT', 'APPARTEMENT', 'LOGEMENT', 'RM', 'ROOM']);

/** Street-type words that end a street in comma-less input ("123 Main St Cambridge MA"). */
const TRAILING_TYPE_WORDS: ReadonlySet<string> = new Set([
  'ST',
  'STREET',
  'AVE',
  'AV',
  'AVENUE',
  'RD',
  'ROAD',
  'DR',
  'DRIVE',
  'LN',
  'LANE',
  'CT',
  'COURT',
  'PL',
  'PLACE',
  'BLVD',
  'BOULEVARD',
  'TER',
  'TERRACE',
  'WAY',
  'PKWY',
  'PARKWAY',
  'HWY',
  'HIGHWAY',
  'SQ',
  'SQUARE',
  'CIR',
  'CIRCLE',
  'PARK',
  'ROW',
  'PATH',
  'WALK',
  'CRES',
  'CRESCENT',
  'GDNS',
  'GARDENS',
  'GRN',
  'GREEN',
  'ALY',
  'ALLEY',
  'PLZ',
  'PLAZA',
  'EXT',
  'TRL',
  'TRAIL',
  'LOOP',
  'MEWS',
  'CRT',
  'CSWY',
  'CAUSEWAY',
  'HL',
  'HILL',
  'HTS',
  'HEIGHTS',
  'XING',
  'CV',
  'MALL',
]);
/** Street types that lead a French street name ("10 rue Principale"). */
const LEADING_TYPE_WORDS: ReadonlySet<string> = new Set([
  'RUE',
  'CHEMIN',
  'CH',
  'BOULEVARD',
  'BLVD',
  'AVENUE',
  'AVE',
  'ROUTE',
  'RTE',
  'PLACE',
  'MONTEE',
  'RANG',
]);

/**
 * A segment that is itself a street address: a house number, then a name with a street type
 * ("57 Inman St", "10 rue Principale"). "2e étage" or "100 Mile House" (a town) are not.
 */
function looksLikeStreetAddress(seg: readonly Tok[]): boolean {
  if (seg.length < 3 || readNumber(seg[0]!.f) === null) return false;
  if (LEADING_TYPE_WORDS.has(seg[1]!.f)) return true;
  for (let i = 2; i < seg.length; i++) if (TRAILING_TYPE_WORDS.has(seg[i]!.f)) return true;
  return false;
}

const DIRECTION_WORDS: ReadonlySet<string> = new Set([
  'N',
  'S',
  'E',
  'W',
  'NE',
  'NW',
  'SE',
  'SW',
  'NORTH',
  'SOUTH',
  'EAST',
  'WEST',
  'NORD',
  'SUD',
  'EST',
  'OUEST',
  'O',
]);

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function fold(raw: string): string {
  // printable ASCII (the usual case): no normalisation or marks to remove
  if (PRINTABLE_ASCII.test(raw)) return foldAscii(raw);
  return raw
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .replace(/\u2044/g, '/')
    .replace(/[^A-Z0-9/#-]/g, '');
}

function foldAscii(raw: string): string {
  return raw.toUpperCase().replace(/[^A-Z0-9/#-]/g, '');
}

function lettersOnly(s: string): string {
  return s.replace(/[^A-Z]/g, '');
}

/** A word of letters (and hyphens) only, as country and region names are: "NEW", "COLOMBIE-BRITANNIQUE". */
const LETTER_WORD = /^-*[A-Z][A-Z-]*$/;

/**
 * How many of the last tokens are letter words: a name window at the end can only be that long. The
 * windows are suffixes, so checking this once replaces checking every token of every window.
 */
function trailingLetterWords(toks: readonly Tok[], max: number): number {
  let n = 0;
  while (n < max && n < toks.length && LETTER_WORD.test(toks[toks.length - 1 - n]!.f)) n++;
  return n;
}

/** The last k tokens' folded text run together, hyphens dropped (for letter words, the same as lettersOnly). */
function joinLastLetters(toks: readonly Tok[], k: number): string {
  let s = '';
  for (let i = toks.length - k; i < toks.length; i++) s += toks[i]!.f;
  return s.includes('-') ? s.replace(/-/g, '') : s;
}

/** The tokens' raw words, space-separated. */
function rawText(toks: readonly Tok[]): string {
  let s = '';
  for (let i = 0; i < toks.length; i++) s += i === 0 ? toks[i]!.raw : ' ' + toks[i]!.raw;
  return s;
}

/** A word with a letter or digit (punctuation-only words like "--" or "&" carry nothing). */
function hasLetterOrDigit(s: string): boolean {
  // the ASCII test first: it decides nearly every word without the Unicode property classes
  return /[A-Za-z0-9]/.test(s) || /[\p{L}\p{N}]/u.test(s);
}

/**
 * Words by segment (between commas / semicolons; empty segments do not count), each folded. `text`
 * has no whitespace but single spaces; `ascii` says it is printable ASCII, so the words need no
 * Unicode folding.
 */
function tokenize(text: string, ascii: boolean): Tok[] {
  // ASCII upper-casing keeps every character in place, so with nothing for foldAscii to drop each
  // word's folded form is just its slice of the upper-cased text
  const upper = ascii ? text.toUpperCase() : '';
  const sliceUpper = ascii && !/[^A-Z0-9/#\- ,;]/.test(upper);
  const toks: Tok[] = [];
  let seg = 0;
  let segUsed = false;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 44;
    if (c !== 32 && c !== 44 && c !== 59) continue; // not ' ', ',' or ';'
    if (i > start) {
      const raw = text.slice(start, i);
      toks.push({ raw, f: sliceUpper ? upper.slice(start, i) : ascii ? foldAscii(raw) : fold(raw), seg });
      segUsed = true;
    }
    start = i + 1;
    if (c !== 32 && segUsed) {
      seg++;
      segUsed = false;
    }
  }
  return toks;
}

/**
 * Parse one address. Throws SitelineError('bad_input') when it cannot be an address.
 * Long because: one left-to-right pass over the tokens, every stage (number, unit, street, city,
 * region, postcode) consuming from the same cursor and flags; split, each would take and return them all.
 */
export function parseAddress(input: string): ParsedAddress {
  if (typeof input !== 'string') throw badInput('The address must be text.');
  if (input.length > MAX_ADDRESS_CHARS) {
    throw badInput(addressTooLongMessage(input.length));
  }
  let text: string;
  const ascii = PRINTABLE_ASCII.test(input);
  if (ascii) {
    // printable ASCII (the usual case): no surrogates, control characters, tabs, newlines or "½", and
    // NFC leaves it as it is; the only whitespace is the space
    text = (input.includes('  ') ? input.replace(/ {2,}/g, ' ') : input).trim();
  } else {
    if (LONE_SURROGATE.test(input)) throw badInput('The address contains broken Unicode (an unpaired surrogate).');
    if (CONTROL_CHARS.test(input)) {
      throw badInput('The address contains control characters; send it as plain text on one line.');
    }
    text = input
      .normalize('NFC')
      .replace(/[\t\r\n]+/g, ',')
      .replace(/½/g, ' 1/2')
      .replace(/\s+/g, ' ')
      .trim();
  }
  if (!/[^\s,;]/.test(text)) throw badInput('The address is empty.');
  // A postcode alone ("02138", "V8X 2W9") names an area, not a site.
  if (/^(\d{5}(-\d{4})?|[A-Za-z]\d[A-Za-z] ?\d[A-Za-z]\d)$/.test(text)) {
    throw badInput(`"${text}" is only a postcode: give a street address with its city, e.g. "57 Inman St, Cambridge, MA".`);
  }

  const warnings: string[] = [];
  let unit: string | null = null;
  let toks = tokenize(text, ascii);

  // 0. Unit, anywhere ("Apt 4", "#4", "Suite 200", "Unit 4, ..."), before anything else is read.
  const unitTaken = takeUnits(toks);
  toks = unitTaken.rest;
  if (unitTaken.units.length > 0) {
    unit = unitTaken.units[0]!;
    if (unitTaken.units.length > 1) warnings.push(`Several units given (${unitTaken.units.join(', ')}); using ${unit}.`);
  }

  // 1. Country, at the very end.
  let country: Country | null = null;
  // a country name is letter words only, so the window never reaches past the last other word
  for (let k = trailingLetterWords(toks, Math.min(4, toks.length - 1)); k >= 1; k--) {
    const c = COUNTRY_NAMES.get(joinLastLetters(toks, k));
    // "CA" alone is California unless a Canadian province or postal code comes just before it;
    // "US" is only a country when it stands apart from the street
    const lone = k === 1 ? toks[toks.length - 1]!.f : null;
    if (c && !(lone === 'CA' && !afterCanadianPart(toks))) {
      if (lone === 'US' && !segmentStart(toks, toks.length - 1)) continue;
      country = c;
      toks = toks.slice(0, -k);
      break;
    }
  }

  // 2. Postcode.
  let postcode: string | null = null;
  let postcodeCountry: Country | null = null;
  const pc = takePostcode(toks, warnings);
  if (pc) {
    postcode = pc.postcode;
    postcodeCountry = pc.country;
    toks = toks.slice(0, toks.length - pc.tokens);
  }

  // 3. State / province.
  let region: Region | null = null;
  const rg = takeRegion(toks, postcode !== null);
  if (rg && !(rg.byName && postcode === null && !hasCitySegment(toks.slice(0, toks.length - rg.tokens)))) {
    region = rg.region;
    toks = toks.slice(0, toks.length - rg.tokens);
  }
  if (!postcode && region && toks.length >= 2) {
    // postcode written before the region ("Cambridge 02139 MA")
    const again = takePostcode(toks, warnings);
    if (again) {
      postcode = again.postcode;
      postcodeCountry = again.country;
      toks = toks.slice(0, toks.length - again.tokens);
    }
  }

  // 4. Consistency of country, region and postcode.
  if (mixedCountries(country, region?.country ?? null, postcodeCountry)) {
    const parts = [
      country ? `country ${country}` : null,
      region ? `${region.country === 'US' ? 'state' : 'province'} ${region.code}` : null,
      postcode ? `postcode ${postcode}` : null,
    ].filter((p) => p !== null);
    throw badInput(`The address mixes US and Canadian parts (${parts.join(', ')}); they cannot all be right.`);
  }
  const resolvedCountry = country ?? region?.country ?? postcodeCountry ?? null;
  if (postcode && region) {
    if (postcodeCountry === 'US') {
      const states = statesForZip(postcode);
      if (states.length > 0 && !states.includes(region.code)) {
        warnings.push(`ZIP code ${postcode} belongs to ${states.join('/')}, not ${region.code}.`);
      }
    } else {
      const provs = provincesForPostalCode(postcode);
      if (!provs.includes(region.code)) {
        warnings.push(`Postal code ${postcode} belongs to ${provs.join('/')}, not ${region.code}.`);
      }
    }
  }

  // 5. Segments: the street is the first segment that starts with a house number. Punctuation-only
  // words ("--", "&") carry nothing.
  const segs = groupSegments(toks.filter((t) => hasLetterOrDigit(t.raw)));
  if (segs.length === 0) throw badInput('The address has no street.');
  // "123, rue Principale": a segment holding only the number belongs to the next one
  for (let i = 0; i < segs.length - 1; i++) {
    const s = segs[i]!;
    if (s.length === 1 && readNumber(s[0]!.f) !== null) {
      segs.splice(i, 2, [...s, ...segs[i + 1]!]);
    }
  }
  let streetIdx = 0;
  for (let i = 0; i < segs.length; i++) {
    if (readNumber(segs[i]![0]!.f) !== null) {
      streetIdx = i;
      break;
    }
  }
  let streetToks = segs[streetIdx]!;
  let city: string | null = null;
  const after = segs.slice(streetIdx + 1);
  // A second "number + name" segment is a second street address: which one is meant cannot be
  // guessed, and answering for the wrong lot costs the caller more than a refusal.
  const second = after.find(looksLikeStreetAddress);
  if (second) {
    throw badInput(`The text holds two street addresses ("${rawText(streetToks)}" and "${rawText(second)}"); ask about one address at a time.`);
  }
  if (after.length > 0) {
    city = rawText(after[after.length - 1]!);
    for (let i = 0; i < after.length - 1; i++) warnings.push(`Ignored "${rawText(after[i]!)}".`);
  }
  for (let i = 0; i < streetIdx; i++) warnings.push(`Ignored "${rawText(segs[i]!)}".`);

  // 6. House number (and suffix, Canadian unit-number form).
  let number: string | null = null;
  let numberSuffix: string | null = null;
  const first = streetToks[0]!;
  const num = readNumber(first.f);
  let alternatives: AddressReading[] = [];
  if (num) {
    for (const d of [num.digits, num.dashed]) {
      if (d !== null && d.length > MAX_NUMBER_DIGITS) throw badInput(`The house number ${d} is too long to be a civic number.`);
    }
    streetToks = streetToks.slice(1);
    number = stripZeros(num.digits);
    numberSuffix = num.suffix;
    if (num.dashed !== null) {
      // "18-2": Cambridge's table stores number 18, suffix "2" (also ranges, "101-103"); in Canada
      // "4-123" is unit 4 of number 123. Without a country, both readings go to the geocoder.
      const usReading: AddressReading = { number: stripZeros(num.dashed), numberSuffix: num.digits + (num.suffix ?? ''), unit };
      const caReading: AddressReading = { number: stripZeros(num.digits), numberSuffix: num.suffix, unit: unit ?? num.dashed };
      const caStyle = resolvedCountry === 'CA' || num.unitOnly;
      if (caStyle && unit !== null) warnings.push(`Both "${first.raw}" and unit ${unit} name a unit; using ${unit}.`);
      const chosen = caStyle ? caReading : usReading;
      number = chosen.number;
      numberSuffix = chosen.numberSuffix;
      unit = chosen.unit;
      if (resolvedCountry === null && !num.unitOnly) {
        alternatives = [{ ...caReading, note: `Read "${first.f}" as unit ${num.dashed} of number ${caReading.number}.` }];
      }
    }
    // "6 1/2 Acacia St", "12 A Elm St"
    const next = streetToks[0];
    if (numberSuffix === null && next) {
      if (next.f === '1/2') {
        numberSuffix = '1/2';
        streetToks = streetToks.slice(1);
      } else if (/^[A-Z]$/.test(next.f) && !DIRECTION_WORDS.has(next.f) && streetToks.length >= 3 && !/^[A-Z]$/.test(streetToks[1]!.f)) {
        // a lone letter followed by another is a run of initials ("129 T C Trl", "12 J F Kennedy St"), not a suffix
        numberSuffix = next.f;
        streetToks = streetToks.slice(1);
      }
    }
  }

  // 7. Comma-less city: "123 Main St Cambridge" -> street "Main St", city "Cambridge".
  if (city === null) {
    const split = splitCityFromStreet(streetToks);
    if (split) {
      streetToks = split.street;
      if (split.city.some((t) => /\d/.test(t.f))) {
        warnings.push(`Ignored "${rawText(split.city)}".`);
      } else {
        city = rawText(split.city);
      }
    }
  }

  const streetText = rawText(streetToks);
  const key = streetKey(streetText);
  if (key === '' || !hasLetterOrDigit(key)) {
    throw badInput(number ? `The address has a house number (${number}) but no street name.` : 'The address has no street.');
  }
  if (/^(PO BOX|P O BOX|POST OFFICE BOX|BOX|CP|CASE POSTALE)\b/.test(key) && /\d/.test(key)) {
    throw badInput('A post office box is not a site; give the street address of the lot.');
  }

  const scripts = scriptsOf(streetText);
  if (scripts.length > 1) {
    warnings.push(`The street name mixes writing systems (${scripts.join(', ')}); look-alike letters do not match.`);
  }

  const parsed: ParsedAddress = {
    number,
    numberSuffix,
    street: displayStreet(key),
    streetKey: key,
    unit,
    city: city === null || city.trim() === '' ? null : city,
    region: region?.code ?? null,
    postcode,
    country: resolvedCountry,
    warnings,
  };
  if (alternatives.length) parsed.alternatives = alternatives;
  return parsed;
}

/** Whether the country, the region's country and the postcode's country (those given) disagree. */
function mixedCountries(...given: (Country | null)[]): boolean {
  let seen: Country | null = null;
  for (const c of given) {
    if (c === null) continue;
    if (seen !== null && c !== seen) return true;
    seen = c;
  }
  return false;
}

const SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Armenian', 'Hebrew', 'Arabic', 'Han', 'Hiragana', 'Katakana', 'Hangul', 'Thai', 'Devanagari'] as const;
const SCRIPT_RES = SCRIPTS.map((name) => [name, new RegExp(`\\p{Script=${name}}`, 'u')] as const);

/** Writing systems of the letters in a text (letters of other scripts count as "other"). */
export function scriptsOf(text: string): string[] {
  if (PRINTABLE_ASCII.test(text)) return /[A-Za-z]/.test(text) ? ['Latin'] : [];
  const found = new Set<string>();
  for (const ch of text) {
    if (!/\p{L}/u.test(ch)) continue;
    const hit = SCRIPT_RES.find(([, re]) => re.test(ch));
    found.add(hit ? hit[0] : 'other');
  }
  return [...found];
}

function stripZeros(digits: string): string {
  const s = digits.replace(/^0+(?=\d)/, '');
  return s;
}

/** Whether the token before the last one is a Canadian province or (the end of) a Canadian postal code. */
function afterCanadianPart(toks: readonly Tok[]): boolean {
  const prev = toks[toks.length - 2];
  if (!prev) return false;
  return regionByCode(prev.f)?.country === 'CA' || /^(\d[A-Z]\d|[A-Z]\d[A-Z]-?\d[A-Z]\d)$/.test(prev.f);
}

function segmentStart(toks: readonly Tok[], i: number): boolean {
  return i > 0 && toks[i - 1]!.seg !== toks[i]!.seg;
}

interface NumberToken {
  digits: string;
  suffix: string | null;
  /** The part before a dash in "4-123" / "B-123": a unit in Canada; number (with suffix after) in the US. */
  dashed: string | null;
  /** The dashed part can only be a unit ("B-123", "4B-123"). */
  unitOnly: boolean;
}

function plainNumber(digits: string, suffix: string | null): NumberToken {
  return { digits, suffix, dashed: null, unitOnly: false };
}

function readNumber(f: string): NumberToken | null {
  const c = f.charCodeAt(0);
  // every form starts with a digit but "B-123" (a letter, then a dash or digits): skip the others at once
  if (!(c >= 48 && c <= 57)) {
    if (!(c >= 65 && c <= 90)) return null;
    const u = /^([A-Z]\d*)-(\d+)-?([A-Z]?)$/.exec(f);
    return u ? { digits: u[2]!, suffix: u[3] || null, dashed: u[1]!, unitOnly: true } : null;
  }
  let m = /^(\d+)$/.exec(f);
  if (m) return plainNumber(m[1]!, null);
  m = /^(\d+)-?([A-Z])$/.exec(f);
  if (m) return plainNumber(m[1]!, m[2]!);
  m = /^(\d+)-(1\/2)$/.exec(f);
  if (m) return plainNumber(m[1]!, m[2]!);
  m = /^(\d+)-(\d+)-?([A-Z]?)$/.exec(f);
  if (m) return { digits: m[2]!, suffix: m[3] || null, dashed: m[1]!, unitOnly: false };
  m = /^([A-Z]\d*|\d+[A-Z])-(\d+)-?([A-Z]?)$/.exec(f);
  if (m) return { digits: m[2]!, suffix: m[3] || null, dashed: m[1]!, unitOnly: true };
  // Cambridge's other suffixes: "20-1B", "26-C1", "343-1/2-R"
  m = /^(\d+)-([A-Z0-9][A-Z0-9/]*(?:-[A-Z0-9/]+)*)$/.exec(f);
  if (m) return plainNumber(m[1]!, m[2]!);
  return null;
}

/** A trailing postcode: ZIP 5 / ZIP+4, or Canadian "A1A 1A1" / "A1A1A1". */
function takePostcode(toks: readonly Tok[], warnings: string[]): { postcode: string | null; country: Country; tokens: number } | null {
  const n = toks.length;
  if (n < 2) return null;
  const last = toks[n - 1]!.f;
  const prev = toks[n - 2]!.f;
  // Canadian, as two tokens or one
  let ca: string | null = null;
  let used = 0;
  if (n >= 3 && /^[A-Z]\d[A-Z]$/.test(prev) && /^\d[A-Z]\d$/.test(last)) {
    ca = prev + last;
    used = 2;
  } else if (/^[A-Z]\d[A-Z]-?\d[A-Z]\d$/.test(last)) {
    ca = last.replace('-', '');
    used = 1;
  }
  if (ca) {
    if (/[DFIOQU]/.test(ca) || /^[WZ]/.test(ca)) {
      throw badInput(
        `The postal code ${ca.slice(0, 3)} ${ca.slice(3)} cannot exist: Canadian postal codes never use D, F, I, O, Q or U, and never start with W or Z.`,
      );
    }
    return { postcode: `${ca.slice(0, 3)} ${ca.slice(3)}`, country: 'CA', tokens: used };
  }
  const zip = /^(\d{5})(?:-?(\d{4}))?$/.exec(last);
  if (zip) {
    const z = zip[1]!;
    if (statesForZip(z).length === 0 && Number.parseInt(z.slice(0, 3), 10) <= 4) {
      throw badInput(`The ZIP code ${z} cannot exist: no US ZIP code starts with ${z.slice(0, 3)}.`);
    }
    return { postcode: z, country: 'US', tokens: 1 };
  }
  // Wrong-length digits or a bare forward sortation area right after a state/province code (the
  // region look-up only when the last word could be one of those)
  const wrongDigits = /^\d{1,4}$|^\d{6,8}$/.test(last);
  if (!wrongDigits && !/^[A-Z]\d[A-Z]$/.test(last)) return null;
  const prevIsRegion = regionByCode(prev) !== null || regionByFoldedName(lettersOnly(prev)) !== null;
  if (prevIsRegion && n >= 3) {
    if (wrongDigits) {
      throw badInput(`"${toks[n - 1]!.raw}" is not a postcode: US ZIP codes have 5 digits, Canadian postal codes look like A1A 1A1.`);
    }
    if (/^[A-Z]\d[A-Z]$/.test(last)) {
      warnings.push(`Ignored the partial postal code ${last}.`);
      return { postcode: null, country: 'CA', tokens: 1 };
    }
  }
  return null;
}

/**
 * Whether, besides the street, a segment is left that can be the city. Without one, a lone region
 * name ("1 Rue Principale, Québec", "5 Main St, New York") is read as the city it also names.
 */
function hasCitySegment(toks: readonly Tok[]): boolean {
  const segs = groupSegments(toks).filter((s) => {
    const f = s[0]!.f;
    return !(s.length === 1 && readNumber(f) !== null) && !UNIT_WORDS.has(f) && !f.startsWith('#');
  });
  if (segs.length >= 2) return true;
  const only = segs[0];
  if (only === undefined) return false;
  const words = readNumber(only[0]!.f) !== null ? only.slice(1) : only;
  return splitCityFromStreet(words) !== null;
}

function takeRegion(toks: readonly Tok[], hadPostcode: boolean): { region: Region; tokens: number; byName: boolean; ownSegment: boolean } | null {
  // region names are letter words only, so the window never reaches past the last other word
  for (let k = trailingLetterWords(toks, Math.min(MAX_REGION_NAME_WORDS, toks.length - 1)); k >= 1; k--) {
    const start = toks.length - k;
    const folded = joinLastLetters(toks, k);
    const region = k === 1 && folded.length === 2 && toks[start]!.f.length <= 3 ? regionByCode(folded) : regionByFoldedName(folded);
    if (!region) continue;
    // A region word inside the street ("12 Oak Ct", "Washington St") is not a region: accept it only
    // when a postcode follows, a comma precedes it, or a street type comes before it.
    if (hadPostcode || segmentStart(toks, start) || typeWordBetween(toks, 1, start)) {
      return { region, tokens: k, byName: !(k === 1 && folded.length === 2), ownSegment: segmentStart(toks, start) };
    }
  }
  return null;
}

function typeWordBetween(toks: readonly Tok[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (TRAILING_TYPE_WORDS.has(toks[i]!.f)) return true;
  return false;
}

/** A unit value: short, of letters, digits and dashes, with a digit (or a single letter, but not after "Suite"). */
function isUnitValue(f: string, word: string): boolean {
  return /^[A-Z0-9-]{1,8}$/.test(f) && (/\d/.test(f) || (f.length === 1 && word !== 'STE' && word !== 'SUITE'));
}

function takeUnits(toks: readonly Tok[]): { rest: Tok[]; units: string[] } {
  const rest: Tok[] = [];
  const units: string[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    const next = toks[i + 1];
    const sameSeg = next !== undefined && next.seg === t.seg;
    // "#4", "# 4"
    if (t.f.startsWith('#')) {
      const v = t.f.slice(1);
      if (v !== '' && isUnitValue(v.replace(/#/g, ''), '#')) {
        units.push(v.replace(/#/g, ''));
        continue;
      }
      if (v === '' && sameSeg && isUnitValue(next.f.replace(/^#/, ''), '#')) {
        units.push(next.f.replace(/^#/, ''));
        i++;
        continue;
      }
    }
    // "Apt 4", "Unit #4B", "Suite 200", "Apt4"
    // (a glued unit starts with A, S or U: skip the regex for other words)
    const c = t.f.charCodeAt(0);
    const glued = c === 65 || c === 83 || c === 85 ? /^(APT|UNIT|STE|SUITE|APP)(\d+[A-Z]?)$/.exec(t.f) : null;
    if (glued) {
      units.push(glued[2]!);
      continue;
    }
    if (UNIT_WORDS.has(t.f) && sameSeg) {
      let j = i + 1;
      if (toks[j]!.f === '#' && toks[j + 1]?.seg === t.seg) j++;
      const v = toks[j]!.f.replace(/^#/, '');
      // the unit word must not be the first word of a street ("Ste Catherine"): values need a digit for STE
      if (isUnitValue(v, t.f)) {
        units.push(v);
        i = j;
        continue;
      }
    }
    rest.push(t);
  }
  return { rest, units };
}

function groupSegments(toks: readonly Tok[]): Tok[][] {
  const segs: Tok[][] = [];
  let cur: Tok[] = [];
  let seg = -1;
  for (const t of toks) {
    if (t.seg !== seg && cur.length > 0) {
      segs.push(cur);
      cur = [];
    }
    seg = t.seg;
    cur.push(t);
  }
  if (cur.length > 0) segs.push(cur);
  return segs;
}

const LONG_DIRECTIONS: ReadonlySet<string> = new Set(['NORTH', 'SOUTH', 'EAST', 'WEST']);

/** The street ends at its type word (plus a direction); the rest is the city. Needs a name before the type. */
function splitCityFromStreet(toks: readonly Tok[]): { street: Tok[]; city: Tok[] } | null {
  for (let i = 1; i < toks.length - 1; i++) {
    if (!TRAILING_TYPE_WORDS.has(toks[i]!.f)) continue;
    let end = i + 1;
    const next = toks[end]!;
    if (TRAILING_TYPE_WORDS.has(next.f)) continue; // "Ash Street Pl": the later type ends it
    if (DIRECTION_WORDS.has(next.f) && next.f.length <= 2) end++;
    else if (LONG_DIRECTIONS.has(next.f) && toks.length - end >= 2) end++;
    if (end >= toks.length) return null;
    return { street: toks.slice(0, end), city: toks.slice(end) };
  }
  return null;
}
