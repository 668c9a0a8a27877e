// Canonical street keys: one upper-case spelling per street, so free text typed by a person and the
// parts in a source table (name / type / directions) meet on equality.
//
// Key shape: [PREDIR] NAME... [TYPE] [POSTDIR], or for leading (French-style) types TYPE NAME... [POSTDIR].
// Types use USPS Publication 28 C1 abbreviations (Canada Post's French types folded onto them), directions
// are abbreviated (N, NE, ... and Canada Post's O for ouest), ordinals are numeric (FIRST -> 1ST),
// SAINT/ST. -> ST, accents are folded, punctuation is dropped. The function is idempotent.

/** Every spelling of a street type -> its canonical abbreviation (USPS C1; French types from Canada Post). */
const TYPE_CANON: ReadonlyMap<string, string> = buildTypeTable([
  ['ALY', 'ALLEY', 'ALLEE', 'ALLY'],
  ['ANX', 'ANNEX', 'ANNX', 'ANEX'],
  ['ARC', 'ARCADE'],
  ['AVE', 'AVENUE', 'AV', 'AVEN', 'AVENU', 'AVN', 'AVNUE'],
  ['BCH', 'BEACH'],
  ['BLF', 'BLUFF', 'BLUF'],
  ['BLVD', 'BOULEVARD', 'BOUL', 'BOULV', 'BLV'],
  ['BND', 'BEND'],
  ['BR', 'BRANCH', 'BRNCH'],
  ['BRG', 'BRIDGE', 'BRDGE'],
  ['BRK', 'BROOK'],
  ['BYP', 'BYPASS', 'BYPA', 'BYPAS', 'BYPS'],
  ['CIR', 'CIRCLE', 'CIRC', 'CIRCL', 'CRCL', 'CRCLE', 'CERCLE'],
  ['CH', 'CHEMIN'],
  ['CLF', 'CLIFF'],
  ['CMN', 'COMMON'],
  ['COR', 'CORNER'],
  ['COTE'],
  ['CRES', 'CRESCENT', 'CRSENT', 'CRSNT', 'CROISSANT', 'CROIS'],
  ['CRK', 'CREEK'],
  ['CRST', 'CREST'],
  ['CSWY', 'CAUSEWAY', 'CAUSWA'],
  ['CT', 'COURT', 'CRT'],
  ['CTR', 'CENTER', 'CENTRE', 'CEN', 'CENT', 'CENTR', 'CNTER', 'CNTR'],
  ['CV', 'COVE'],
  ['CYN', 'CANYON', 'CANYN', 'CNYN'],
  ['DR', 'DRIVE', 'DRIV', 'DRV'],
  ['EXPY', 'EXPRESSWAY', 'EXP', 'EXPR', 'EXPRESS', 'EXPW'],
  ['EXT', 'EXTENSION', 'EXTN', 'EXTNSN'],
  ['FWY', 'FREEWAY', 'FREEWY', 'FRWAY', 'FRWY'],
  ['GDNS', 'GARDENS', 'GARDN', 'GRDEN', 'GRDN', 'GDN', 'GARDEN'],
  ['GLN', 'GLEN'],
  ['GRN', 'GREEN'],
  ['GRV', 'GROVE', 'GROV'],
  ['HL', 'HILL'],
  ['HTS', 'HEIGHTS', 'HT'],
  ['HWY', 'HIGHWAY', 'HIGHWY', 'HIWAY', 'HIWY', 'HWAY'],
  ['IMP', 'IMPASSE'],
  ['IS', 'ISLAND', 'ISLND'],
  ['JCT', 'JUNCTION', 'JCTION', 'JCTN', 'JUNCTN', 'JUNCTON'],
  ['LN', 'LANE'],
  ['LNDG', 'LANDING', 'LNDNG'],
  ['LOOP', 'LOOPS'],
  ['MALL'],
  ['MDW', 'MEADOW'],
  ['MEWS'],
  ['MNR', 'MANOR'],
  ['MONTEE', 'MTEE'],
  ['MT', 'MOUNT', 'MNT'],
  ['OVAL', 'OVL'],
  ['PARK', 'PRK', 'PK', 'PARQUE'],
  ['PASS'],
  ['PATH', 'PATHS'],
  ['PIKE', 'PIKES'],
  ['PKWY', 'PARKWAY', 'PARKWY', 'PKWAY', 'PKY'],
  ['PL', 'PLACE'],
  ['PLZ', 'PLAZA', 'PLZA'],
  ['PROM', 'PROMENADE'],
  ['PT', 'POINT'],
  ['QUAI'],
  ['RANG'],
  ['RD', 'ROAD'],
  ['RDG', 'RIDGE', 'RDGE'],
  ['RLE', 'RUELLE'],
  ['ROW'],
  ['RTE', 'ROUTE'],
  ['RUE'],
  ['RUN'],
  ['SENT', 'SENTIER'],
  ['SQ', 'SQUARE', 'SQR', 'SQRE', 'SQU'],
  ['ST', 'STREET', 'STR', 'STRT'],
  ['TER', 'TERRACE', 'TERR', 'TERRASSE', 'TSSE'],
  ['TPKE', 'TURNPIKE', 'TRNPK', 'TURNPK'],
  ['TRL', 'TRAIL', 'TRAILS', 'TRLS'],
  ['VIA', 'VIADUCT', 'VDCT', 'VIADCT'],
  ['VW', 'VIEW'],
  ['WALK', 'WALKS'],
  ['WAY', 'WY'],
  ['XING', 'CROSSING', 'CRSSNG'],
]);

/** Types that may lead the street (French usage, "Avenue of the Americas", "Highway 7"). */
const LEADING_TYPES: ReadonlySet<string> = new Set([
  'RUE',
  'CH',
  'BLVD',
  'AVE',
  'PL',
  'RTE',
  'MONTEE',
  'RANG',
  'COTE',
  'CRES',
  'IMP',
  'PROM',
  'TER',
  'ALY',
  'CIR',
  'AUT',
  'RLE',
  'QUAI',
  'SENT',
  'HWY',
  'CARRE',
]);
const LEADING_ONLY: ReadonlyMap<string, string> = new Map([
  ['AUTOROUTE', 'AUT'],
  ['AUT', 'AUT'],
  ['CARRE', 'CARRE'],
]);

const DIRECTION_CANON: ReadonlyMap<string, string> = new Map([
  ['N', 'N'],
  ['NORTH', 'N'],
  ['NORD', 'N'],
  ['S', 'S'],
  ['SOUTH', 'S'],
  ['SUD', 'S'],
  ['E', 'E'],
  ['EAST', 'E'],
  ['EST', 'E'],
  ['W', 'W'],
  ['WEST', 'W'],
  ['O', 'O'],
  ['OUEST', 'O'],
  ['NE', 'NE'],
  ['NORTHEAST', 'NE'],
  ['NORDEST', 'NE'],
  ['NW', 'NW'],
  ['NORTHWEST', 'NW'],
  ['NO', 'NO'],
  ['NORDOUEST', 'NO'],
  ['SE', 'SE'],
  ['SOUTHEAST', 'SE'],
  ['SUDEST', 'SE'],
  ['SW', 'SW'],
  ['SOUTHWEST', 'SW'],
  ['SO', 'SO'],
  ['SUDOUEST', 'SO'],
]);
/** Direction words short enough to be ordinary words; only treated as directions by position. */
const AMBIGUOUS_DIRECTION: ReadonlySet<string> = new Set(['NO', 'SO', 'EST', 'O']);

/** Name words with a conventional short form (name position only). */
const NAME_WORD_CANON: ReadonlyMap<string, string> = new Map([
  ['SAINT', 'ST'],
  ['ST', 'ST'],
  ['SAINTE', 'STE'],
  ['STE', 'STE'],
  ['MOUNT', 'MT'],
  ['MT', 'MT'],
  ['FORT', 'FT'],
  ['FT', 'FT'],
  ['MONSIGNOR', 'MSGR'],
  ['MSGR', 'MSGR'],
]);

const ORDINAL_WORDS: readonly string[] = [
  'FIRST',
  'SECOND',
  'THIRD',
  'FOURTH',
  'FIFTH',
  'SIXTH',
  'SEVENTH',
  'EIGHTH',
  'NINTH',
  'TENTH',
  'ELEVENTH',
  'TWELFTH',
  'THIRTEENTH',
  'FOURTEENTH',
  'FIFTEENTH',
  'SIXTEENTH',
  'SEVENTEENTH',
  'EIGHTEENTH',
  'NINETEENTH',
  'TWENTIETH',
];
const ORDINAL_CANON: ReadonlyMap<string, string> = new Map(ORDINAL_WORDS.map((w, i) => [w, ordinalOf(i + 1)]));

function ordinalOf(n: number): string {
  const mod100 = n % 100;
  const mod10 = n % 10;
  const suffix = mod100 >= 11 && mod100 <= 13 ? 'TH' : mod10 === 1 ? 'ST' : mod10 === 2 ? 'ND' : mod10 === 3 ? 'RD' : 'TH';
  return `${n}${suffix}`;
}

function buildTypeTable(rows: readonly (readonly string[])[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const [canon, ...variants] of rows) {
    if (canon === undefined) continue;
    m.set(canon, canon);
    for (const v of variants) m.set(v, canon);
  }
  return m;
}

// Printable ASCII, the usual case: normalisation and marks cannot change it, so the same folding
// runs with ASCII classes (the Unicode-aware regexes cost a third of the street key on the hot path).
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** ASCII words of letters and digits, one space apart: folding only upper-cases them (keys themselves look so). */
const PLAIN_WORDS = /^[A-Za-z0-9]+(?: [A-Za-z0-9]+)*$/;

/** Upper case, accents folded, apostrophes and periods dropped, other punctuation -> space. */
export function foldStreetText(text: string): string[] {
  if (PLAIN_WORDS.test(text)) return text.toUpperCase().split(' ');
  if (PRINTABLE_ASCII.test(text)) {
    let f = text.toUpperCase();
    // the initials rule needs a period; skip its lookbehind scan when there is none
    if (f.includes('.')) f = f.replace(/(?<![A-Z0-9])([A-Z])\.(?=[A-Z](?![A-Z0-9]))/g, '$1 ');
    f = f
      .replace(/['`.]/g, '')
      .replace(/[^A-Z0-9]+/g, ' ')
      .trim();
    return f === '' ? [] : f.split(' ');
  }
  return foldStreetTextUnicode(text);
}

/** The general folding (any script); foldStreetText takes an ASCII path that must agree with it. */
export function foldStreetTextUnicode(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toUpperCase()
    .replace(/ẞ/g, 'SS') // capital sharp s: lower-cases to ß, which upper-cases to SS; fold it once here
    // initials keep their letters apart: "J.F. Kennedy", "T.C. Trl" read as "J F KENNEDY", "T C TRL"
    .replace(/(?<![\p{L}\p{N}])(\p{L})\.(?=\p{L}(?![\p{L}\p{N}]))/gu, '$1 ')
    .replace(/['’‘`´.]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return folded === '' ? [] : folded.split(' ');
}

function canonNameToken(tok: string): string {
  const word = NAME_WORD_CANON.get(tok) ?? ORDINAL_CANON.get(tok);
  if (word) return word;
  // 1st, 2nd, 2d, 3rd, 3d, 4th ... -> numeric ordinal in one spelling (only words starting with a digit)
  const c = tok.charCodeAt(0);
  if (!(c >= 48 && c <= 57)) return tok;
  const m = /^(\d+)(ST|ND|RD|TH|D)$/.exec(tok);
  if (m && m[1] !== undefined) return ordinalOf(Number.parseInt(m[1], 10));
  return tok;
}

function isDirectionWord(tok: string): boolean {
  return DIRECTION_CANON.has(tok);
}

/** A street read into its parts, each canonical. `type` is the leading or trailing type, whichever it has. */
export interface StreetKeyParts {
  predir: string;
  /** Leading type ("RUE", "CH"), '' when the type trails or is absent. */
  leadType: string;
  name: string[];
  trailType: string;
  postdir: string;
}

/** Canonical key of a street given as free text ("Massachusetts Ave", "Rue Saint-Denis", "Elm St N"). */
export function streetKey(street: string): string {
  // Canonical words can change how a street reads ("SAINT EST" -> "ST EST", where ST now looks like a
  // type and EST like a direction): re-read until stable, which makes the key idempotent by construction.
  let key = joinParts(readParts(street));
  for (let i = 0; i < 4; i++) {
    const again = joinParts(readParts(key));
    if (again === key) break;
    key = again;
  }
  return key;
}

function joinParts(p: StreetKeyParts): string {
  // the non-empty parts, space-separated (a plain loop: this runs at least twice per key)
  let key = joinWord('', p.predir);
  key = joinWord(key, p.leadType);
  for (const w of p.name) key = joinWord(key, w);
  key = joinWord(key, p.trailType);
  return joinWord(key, p.postdir);
}

function joinWord(key: string, word: string): string {
  if (word === '') return key;
  return key === '' ? word : key + ' ' + word;
}

/** The parts of the street's key. */
export function streetKeyParts(street: string): StreetKeyParts {
  return readParts(streetKey(street));
}

function readParts(street: string): StreetKeyParts {
  const toks = foldStreetText(street);
  if (toks.length === 0) return { predir: '', leadType: '', name: [], trailType: '', postdir: '' };

  // Post-directional: last token, behind at least one non-direction token ("ELM ST N", "SHERBROOKE O").
  let postdir = '';
  const lastTok = toks[toks.length - 1]!;
  if (toks.length >= 2 && isDirectionWord(lastTok) && toks.slice(0, -1).some((t) => !isDirectionWord(t))) {
    const prev = toks[toks.length - 2]!;
    // "NO"/"SO"/"EST"/"O" are only directions after a type or a two-word name ("RUE X EST"), not "HOUSE NO"
    if (!AMBIGUOUS_DIRECTION.has(lastTok) || TYPE_CANON.has(prev) || toks.length >= 3) {
      postdir = DIRECTION_CANON.get(lastTok)!;
      toks.pop();
    }
  }

  // Leading type (French style): "RUE SAINT DENIS", "CHEMIN DU LAC", "AVENUE OF THE AMERICAS".
  let leadType = '';
  const first = toks[0]!;
  const firstAsType = LEADING_ONLY.get(first) ?? TYPE_CANON.get(first);
  if (toks.length >= 2 && firstAsType !== undefined && LEADING_TYPES.has(firstAsType)) {
    // Not when the street also ends in a type: "Avenue Rd" keeps AVENUE as its name.
    if (!TYPE_CANON.has(toks[toks.length - 1]!)) {
      leadType = firstAsType;
      toks.shift();
    }
  }

  // Trailing type: last token, behind at least one name token.
  let trailType = '';
  if (leadType === '' && toks.length >= 2) {
    const t = TYPE_CANON.get(toks[toks.length - 1]!);
    if (t !== undefined) {
      trailType = t;
      toks.pop();
    }
  }

  // Pre-directional: first token, followed by at least one name token ("N MAIN ST"); "NORTH ST" keeps NORTH.
  let predir = '';
  if (toks.length >= 2 && isDirectionWord(toks[0]!) && !AMBIGUOUS_DIRECTION.has(toks[0]!)) {
    predir = DIRECTION_CANON.get(toks.shift()!)!;
  }

  return { predir, leadType, name: toks.map(canonNameToken), trailType, postdir };
}

export interface StreetParts {
  name: string;
  type?: string | null;
  predir?: string | null;
  postdir?: string | null;
}

/** Key from a source table's parts (Cambridge: street_name, street_suffix, dir_suffix). Same key as the joined text. */
export function streetKeyFromParts(parts: StreetParts): string {
  const pre = (parts.predir ?? '').trim();
  const post = (parts.postdir ?? '').trim();
  const preTok = foldStreetText(pre).join(' ');
  const postTok = foldStreetText(post).join(' ');
  // Explicit directions are spelled as the free-text path would abbreviate them.
  const preAbbr = DIRECTION_CANON.get(preTok) ?? preTok;
  const postAbbr = DIRECTION_CANON.get(postTok) ?? postTok;
  return streetKey([preAbbr, parts.name, parts.type ?? '', postAbbr].filter((s) => s.trim() !== '').join(' '));
}

const LOWER_PARTICLES: ReadonlySet<string> = new Set(['DU', 'DE', 'DES', 'LA', 'LE', 'LES', 'D', 'L', 'OF', 'THE', 'AND', 'ET', 'AUX', 'AU']);
const UPPER_TOKENS: ReadonlySet<string> = new Set(['N', 'S', 'E', 'W', 'O', 'NE', 'NW', 'NO', 'SE', 'SW', 'SO', 'JFK']);

/** Title Case for people: "MASSACHUSETTS AVE" -> "Massachusetts Ave", "ELM ST N" -> "Elm St N", "1ST ST" -> "1st St". */
export function displayStreet(key: string): string {
  let toks = key.split(' ');
  if (toks.includes('')) toks = toks.filter((t) => t !== '');
  let out = '';
  for (let i = 0; i < toks.length; i++) {
    if (i > 0) out += ' ';
    out += displayWord(toks[i]!, i, toks.length);
  }
  return out;
}

function displayWord(t: string, i: number, n: number): string {
  if (UPPER_TOKENS.has(t) && (t.length > 2 || i === n - 1 || (i === 0 && n > 2))) return t;
  if (i > 0 && i < n - 1 && LOWER_PARTICLES.has(t)) return t.toLowerCase();
  const c = t.charCodeAt(0);
  if (c >= 48 && c <= 57) return t.toLowerCase(); // starts with a digit: "1st"
  return t.charAt(0) + t.slice(1).toLowerCase();
}
