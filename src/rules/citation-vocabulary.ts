// The words a citation is judged by: the labels that name each standard (in a table row or a
// sentence), the bound a label states ("(min)", "(max)", "(min/max)", "minimum"), the condition
// words of sub-rows (driveway access, alley, abutting a district...), the words of a use's permission
// (by right, Site Plan Approval, Special Permit) and the unit words every standard's number must carry.
// Defaults live here; a place's rules file may add its own (`citationVocabulary`, docs/data.md).
import type { BUILDING_TYPE_STANDARD_UNITS, BuildingTypeStandardKey, PlaceRules } from '../core/rules-schema.ts';

export type Bound = 'min' | 'max';
export type UnitKind = (typeof BUILDING_TYPE_STANDARD_UNITS)[BuildingTypeStandardKey];

/** How a table row or a sentence names one standard. */
export interface StandardVocab {
  /** Table-row labels, matched at the start of the label; what follows the match (footnote marks and bound aside) are the row's condition words. */
  labels: RegExp[];
  /** Rows that state the standard under a condition of their own (e.g. "Party Line Setback (min)"): the condition words a tier reading them names. */
  variants: { label: RegExp; condition: string }[];
  /** Words naming the standard in a sentence. */
  prose: RegExp;
  bound: Bound;
  /** An unmarked label (no "(min)"/"(max)") states this bound: a height is a maximum, a lot width a minimum. */
  implied: boolean;
  /** The number sits in the sub-row so labelled (e.g. "Minimum" under "Green Score"); its siblings are not conditions. */
  pick?: RegExp;
  /** A row under a block heading matching `refuse` (the nearest heading matching `family` before it) does not state the standard. */
  block?: { family: RegExp; refuse: RegExp };
}

const SETBACK_BLOCK = { family: /^[a-z ]*setbacks$/i, refuse: /parking/i };

const v = (labels: RegExp[], prose: RegExp, bound: Bound, implied: boolean, extra: Partial<StandardVocab> = {}): StandardVocab => ({
  labels,
  prose,
  bound,
  implied,
  variants: [],
  ...extra,
});

export const DEFAULT_STANDARD_VOCAB: Record<BuildingTypeStandardKey, StandardVocab> = {
  maxHeightFt: v([/^(?:maximum )?(?:building )?height(?:,? (?:in )?feet)?\b/i], /\bheight\b/i, 'max', true),
  maxHeightStoreys: v([/^(?:maximum )?number of stor(?:ies|eys)\b/i, /^(?:maximum )?stor(?:ies|eys)\b/i], /\bstor(?:ies|eys|y)\b/i, 'max', true),
  minHeightStoreys: v([/^(?:minimum )?number of stor(?:ies|eys)\b/i, /^(?:minimum )?stor(?:ies|eys)\b/i], /\bstor(?:ies|eys|y)\b/i, 'min', false),
  maxFar: v([/^(?:maximum )?floor area ratio\b/i, /^(?:maximum )?FAR\b/], /\bfloor area ratio\b|\bFAR\b/, 'max', true),
  minLotAreaSqft: v([/^(?:minimum )?lot (?:area|size)\b(?! per)/i], /\blot (?:area|size)\b(?! per)/i, 'min', true),
  minLotAreaPerUnitSqft: v(
    [/^(?:minimum )?lot area per (?:dwelling )?unit\b/i, /^density factor\b/i],
    /\blot area per (?:dwelling )?unit\b|\bdensity factor\b/i,
    'min',
    true,
  ),
  minLotWidthFt: v([/^(?:minimum )?lot (?:width|frontage)\b/i], /\blot (?:width|frontage)\b|\bfrontage\b/i, 'min', true),
  minLotDepthFt: v([/^(?:minimum )?lot depth\b/i], /\blot depth\b/i, 'min', true),
  minFrontYardFt: v([/^(?:minimum )?(?:primary )?front (?:yard|setback)s?\b/i], /\bfront (?:yard|setback)s?\b/i, 'min', true, { block: SETBACK_BLOCK }),
  maxFrontYardFt: v([/^(?:maximum )?(?:primary )?front (?:yard|setback)s?\b/i], /\bfront (?:yard|setback)s?\b/i, 'max', false, { block: SETBACK_BLOCK }),
  minStreetSideYardFt: v(
    [/^(?:minimum )?secondary front setbacks?\b/i, /^(?:minimum )?(?:street|exterior)[- ]side (?:yard|setback)s?\b/i],
    /\bsecondary front setback\b|\b(?:street|exterior)[- ]side (?:yard|setback)\b/i,
    'min',
    true,
    { block: SETBACK_BLOCK },
  ),
  maxStreetSideYardFt: v(
    [/^(?:maximum )?secondary front setbacks?\b/i, /^(?:maximum )?(?:street|exterior)[- ]side (?:yard|setback)s?\b/i],
    /\bsecondary front setback\b|\b(?:street|exterior)[- ]side (?:yard|setback)\b/i,
    'max',
    false,
    { block: SETBACK_BLOCK },
  ),
  minSideYardFt: v([/^(?:minimum )?(?:interior )?side (?:yard|setback)s?\b/i], /\bside (?:yard|setback)s?\b/i, 'min', true, {
    block: SETBACK_BLOCK,
    variants: [{ label: /^party (?:lot )?line setback\b/i, condition: 'Party Lot Line' }],
  }),
  minSideYardSumFt: v(
    [/^(?:minimum )?sum of (?:the )?side (?:setbacks|yards)\b/i, /^(?:minimum )?combined side (?:yards?|setbacks?)\b/i],
    /\bsum of (?:the )?side (?:setbacks|yards)\b|\bcombined side (?:yards?|setbacks?)\b/i,
    'min',
    true,
    { block: SETBACK_BLOCK },
  ),
  minRearYardFt: v([/^(?:minimum )?rear (?:yard|setback)s?\b/i], /\brear (?:yard|setback)s?\b/i, 'min', true, { block: SETBACK_BLOCK }),
  maxLotCoveragePct: v([/^(?:maximum )?(?:lot|building) coverage\b/i], /\b(?:lot|building) coverage\b/i, 'max', true),
  minOpenSpacePct: v([/^(?:minimum )?(?:usable )?open space\b/i], /\bopen space\b/i, 'min', true),
  maxDensityUnitsPerAcre: v(
    [/^(?:maximum )?(?:residential )?density\b/i, /^(?:maximum )?(?:dwelling )?units per acre\b/i],
    /\bunits per acre\b|\bdensity\b/i,
    'max',
    true,
  ),
  maxUnitsPerLot: v([/^(?:maximum )?dwelling units per lot\b/i], /\bdwelling units per lot\b/i, 'max', true),
  maxUnitsPerBuilding: v([/^(?:maximum )?(?:number of )?dwelling units(?! per)\b/i], /\bdwelling units?\b(?! per)/i, 'max', true),
  minGreenScore: v([/^green score\b/i], /\bgreen score\b/i, 'min', false, { pick: /^minimum$/i }),
};

/** Words by which a sentence states a bound ("no building shall exceed 35 feet", "a minimum of 5,000 square feet"). */
export const BOUND_WORDS: Record<Bound, RegExp> = {
  max: /\bmaximum\b|\bmax\.|\bexceed(?:s|ing)?\b|\bno (?:more|greater|higher|larger) than\b|\bnot (?:be )?(?:more|greater|higher|larger) than\b|\bat most\b|\bup to\b|\bor less\b|\bor fewer\b|\blimited to\b/i,
  min: /\bminimum\b|\bmin\.|\bat least\b|\bno (?:less|fewer|smaller) than\b|\bnot (?:be )?(?:less|fewer|smaller) than\b|\bor more\b|\bor greater\b/i,
};

/** Sub-row labels by family: a sub-row's label is a condition the rows above it do not state. */
export const DEFAULT_CONDITIONS: Record<string, RegExp[]> = {
  driveway: [/^(?:no|side or rear|front|rear|side) driveway access$/i],
  lotline: [/^(?:party|side) lot line$/i],
  alley: [/^(?:no )?alley\b/i],
  abutting: [/^abutting\b/i, /^\d+\s*(?:st|nd|rd|th)\b.*\babutting\b/i],
  parking: [/^(?:surface|structured) parking$/i],
  bound: [/^(?:minimum|maximum|ideal)$/i],
  lotarea: [/^lot area\s*(?:<|>|≤|≥)=?\s*[\d,]+/i],
};

/**
 * What each family of sub-rows is called where a caller states it (the condition of a table's rows:
 * src/rules/tier-conditions.ts); a place names its own families in `citationVocabulary.conditionNames`.
 */
export const DEFAULT_CONDITION_NAMES: Record<string, string> = {
  driveway: 'Driveway access',
  lotline: 'Lot line',
  alley: 'Alley',
  abutting: 'What the lot abuts',
  parking: 'Parking',
  lotarea: 'Lot area',
};

/** The words of each permission a use may be given; a cited use's quote must say its own and no other. */
export const DEFAULT_PERMISSION_WORDS: Record<'as_of_right' | 'special_permit' | 'conditional' | 'prohibited', RegExp[]> = {
  as_of_right: [/\bby[- ]right\b/i, /\bas[- ]of[- ]right\b/i, /\bas a matter of right\b/i],
  special_permit: [/\bspecial permit\b/i],
  conditional: [/\bsite plan approval\b/i, /\bconditional use\b/i, /\bconditionally permitted\b/i],
  prohibited: [/\bprohibited\b/i, /\bnot permitted\b/i],
};

/**
 * Unit rules: the words that must (or may) follow a standard's number. `required`: the number is
 * not the standard's unless the words follow ("32 ft", "60%"). Optional words: a bare number is read
 * in the unit, but a number followed by another unit's words ("5 ft" for a storey count) is not.
 */
export const UNIT_RULES: Record<UnitKind, { words: RegExp | null; required: boolean; label: string }> = {
  ft: { words: /^\s*(?:ft\b\.?|feet\b|foot\b|'|-foot\b|-feet\b)/i, required: true, label: ' ft' },
  percent: { words: /^\s*(?:%|percent\b|per cent\b)/i, required: true, label: '%' },
  sqft: { words: /^\s*(?:sq\.?\s*ft\b\.?|square feet\b|sf\b|s\.f\.)/i, required: true, label: ' sq ft' },
  'sqft/unit': { words: /^\s*(?:sq\.?\s*ft\b\.?|square feet\b|sf\b|s\.f\.)/i, required: false, label: ' sq ft per unit' },
  storeys: { words: /^\s*(?:stories\b|storeys\b|story\b|storey\b)/i, required: false, label: ' storeys' },
  units: { words: /^\s*(?:dwelling units?\b|units?\b|du\b)/i, required: false, label: ' units' },
  'units/acre': { words: /^\s*(?:(?:dwelling )?units?|du)\s*(?:per|\/)\s*(?:acre|ac)\b/i, required: false, label: ' units per acre' },
  ratio: { words: null, required: false, label: ' (ratio)' },
  score: { words: null, required: false, label: ' (score)' },
};

/** Words of any unit: a number followed by them is not a bare ratio, score or count. */
const ANY_UNIT =
  /^\s*(?:ft\b|feet\b|foot\b|'|%|percent\b|sq\.?\s*ft\b|square feet\b|sf\b|acres?\b|\/\s*du\b|stories\b|storeys\b|story\b|dwelling units?\b|units?\b)/i;

/** Whether the text after a number carries the unit as the rule wants. */
export function unitFollows(after: string, unit: UnitKind): boolean {
  const rule = UNIT_RULES[unit];
  if (rule.words?.test(after)) return true;
  if (rule.required) return false;
  return !ANY_UNIT.test(after);
}

// ---------------------------------------------------------------------------------------------
// Numbers as written: digits ("1,650", "0.40", ".35"), and in prose the number words ("four to six
// dwelling units"; "one (1)" is one number).

const WORDS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
};

export interface WrittenNumber {
  value: number;
  start: number;
  end: number;
  /** As written ("1,650", "four"). */
  text: string;
}

/** Numbers written in a text, digits always, number words when asked; a section number like 3.1.8 is not one. */
export function numbersIn(text: string, opts: { words?: boolean } = {}): WrittenNumber[] {
  const out: WrittenNumber[] = [];
  const re = opts.words
    ? new RegExp(`\\b(${Object.keys(WORDS).join('|')})\\b|(?<![\\w.,])(\\d{1,3}(?:,\\d{3})+|\\d+)?(\\.\\d+)?(?![\\d]|\\.\\d|,\\d{3})`, 'gi')
    : /(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)?(\.\d+)?(?![\d]|\.\d|,\d{3})/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!m[0]) {
      re.lastIndex++;
      continue;
    }
    const [word, whole, frac] = opts.words ? [m[1], m[2], m[3]] : [undefined, m[1], m[2]];
    if (word) {
      out.push({ value: WORDS[word.toLowerCase()]!, start: m.index, end: m.index + m[0].length, text: m[0] });
      continue;
    }
    if (!whole && !frac) continue;
    // "3.1.8": a section number, not a value.
    if (/^\.\d/.test(text.slice(m.index + m[0].length))) continue;
    out.push({ value: Number(`${(whole ?? '0').replace(/,/g, '')}${frac ?? ''}`), start: m.index, end: m.index + m[0].length, text: m[0] });
  }
  // "four (4)": the figure in brackets repeats the word.
  return out.filter((n, i) => {
    const prev = out[i - 1];
    return !(prev && prev.value === n.value && /^\s*\($/.test(text.slice(prev.end, n.start)) && text[n.end] === ')');
  });
}

/**
 * The numbers of a text stated in the unit. In a sentence (`prose`) a unit that has words must be
 * written ("3 stories", "six dwelling units"): a bare number in a sentence is no one's count.
 */
export function statedWithUnit(text: string, unit: UnitKind, opts: { words?: boolean; prose?: boolean } = {}): { value: number; start: number; end: number }[] {
  const words = UNIT_RULES[unit].words;
  return numbersIn(text, opts).filter((n) => {
    const after = text.slice(n.end).replace(/^\s*\(\d+(?:\.\d+)?\)/, '');
    return opts.prose && words ? words.test(after) : unitFollows(after, unit);
  });
}

// ---------------------------------------------------------------------------------------------
// A place's vocabulary: the defaults plus what its rules file adds.

export interface Vocabulary {
  standards: Record<BuildingTypeStandardKey, StandardVocab>;
  conditions: Record<string, RegExp[]>;
  /** Each condition family's name for a caller (`driveway` -> "Driveway access"). */
  conditionNames: Record<string, string>;
  permissions: Record<keyof typeof DEFAULT_PERMISSION_WORDS, RegExp[]>;
}

const compile = (src: string) => new RegExp(src, 'i');

const vocabCache = new WeakMap<object, Vocabulary>();

/** The vocabulary a place's citations are judged by: the defaults, extended by its rules file's `citationVocabulary`. */
let defaults: Vocabulary | null = null;

export function vocabularyOf(rules: Pick<PlaceRules, 'citationVocabulary'> | null): Vocabulary {
  const extra = rules?.citationVocabulary;
  if (!extra)
    return (defaults ??= {
      standards: DEFAULT_STANDARD_VOCAB,
      conditions: DEFAULT_CONDITIONS,
      conditionNames: DEFAULT_CONDITION_NAMES,
      permissions: DEFAULT_PERMISSION_WORDS,
    });
  if (vocabCache.has(extra)) return vocabCache.get(extra)!;
  const standards = { ...DEFAULT_STANDARD_VOCAB };
  const conditions: Record<string, RegExp[]> = { ...DEFAULT_CONDITIONS };
  const permissions = { ...DEFAULT_PERMISSION_WORDS };
  for (const [k, add] of Object.entries(extra?.labels ?? {})) {
    const key = k as BuildingTypeStandardKey;
    standards[key] = { ...standards[key], labels: [...standards[key].labels, ...add.map(compile)] };
  }
  for (const [k, add] of Object.entries(extra?.variants ?? {})) {
    const key = k as BuildingTypeStandardKey;
    standards[key] = { ...standards[key], variants: [...standards[key].variants, ...add.map((a) => ({ label: compile(a.label), condition: a.condition }))] };
  }
  for (const [fam, add] of Object.entries(extra?.conditions ?? {})) conditions[fam] = [...(conditions[fam] ?? []), ...add.map(compile)];
  for (const [p, add] of Object.entries(extra?.permissions ?? {})) {
    const key = p as keyof typeof permissions;
    permissions[key] = [...permissions[key], ...add.map(compile)];
  }
  const vocab = { standards, conditions, conditionNames: { ...DEFAULT_CONDITION_NAMES, ...(extra.conditionNames ?? {}) }, permissions };
  vocabCache.set(extra, vocab);
  return vocab;
}

/** The family of a sub-row label (driveway, alley, ...), or null when the label is a row of its own. */
export function conditionFamily(vocab: Vocabulary, label: string): string | null {
  const l = label.replace(/\s+/g, ' ').trim();
  // Alley before abutting: "No Alley & Abutting NR or LHD" is an alley condition.
  for (const [fam, res] of Object.entries(vocab.conditions)) if (res.some((r) => r.test(l))) return fam;
  return null;
}

/** Condition words compared as the same words: case, white space and dashes folded. */
export function sameWords(a: string, b: string): boolean {
  return foldWords(a) === foldWords(b);
}
export function foldWords(s: string): string {
  return s
    .normalize('NFKC')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}
