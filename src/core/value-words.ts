// One wording of a sourced value, shared by every surface a person reads (the web site page, the PDF
// report, the CLI's `siteline check` text and the MCP summary): what the source says, its status in
// words, and what the analysis does with it. A surface lays the three parts out as it likes but never
// words a value on its own, so the page, the PDF, the CLI and the MCP text cannot contradict each other.
// Values are named the same way everywhere too (`valueLabel`: "Maximum floor area ratio (FAR)", never
// `maxFar`), and free text written for agents with keys in it reads out in those words (`forPeople`).
import { STATUS_MEANINGS, type ValueStatus } from './statuses.ts';

/** The part of a value the wording reads (a snapshot value, an envelope value or a report value). */
export interface WordedValue {
  value: number | string | null;
  status: ValueStatus;
  unit?: string;
  /** The source (S-id) that states there is no limit, for a value no bylaw text confirms (docs/snapshot.md). */
  statedNoLimit?: string;
  /** A rule's conditional tiers as a rules file states them (the rules pages show each tier's values). */
  tiers?: { when: string[]; values: string[] }[];
  /** The members and lot measures a derived value is worked out from (docs/envelope.md). */
  inputs?: readonly string[];
}

export interface ValueWords {
  /** What the source says: "45 ft", "No limit in the bylaw", "No limit, per S1", "Unknown". */
  says: string;
  /** The status in a few words: "cited from the bylaw", "indicative, unverified", "unknown: not extracted". */
  status: string;
  /** What the feasibility analysis does with the value, in one sentence. */
  analysis: string;
  /** `says — status`: the one line a table cell or a CLI row shows. */
  line: string;
  /** A derived value that could not be worked out: why, in its inputs' words ("Not calculated: …"). */
  why?: string;
}

/** Each value status in a few words (lower case; a surface capitalises where its layout needs it). */
export const VALUE_STATUS_WORDS: Record<ValueStatus, string> = {
  cited: 'cited from the bylaw',
  cited_conditional: 'cited, a conditional rule that applies here',
  conditional_unresolved: 'unknown: depends on conditions not resolved',
  no_limit_in_bylaw: 'the bylaw sets no limit',
  not_extracted: 'unknown: not extracted from the bylaw',
  site_specific_schedule: 'unknown: set by a site-specific schedule',
  unverified_default: 'indicative, unverified',
  derived_from_cited: 'calculated from cited values',
  defaulted: 'assumed: calculated with a stated assumption',
  missing: 'unknown: the lot data lacks what it needs',
};

const UNIT_WORDS: Record<string, (n: string) => string> = {
  ft: (n) => `${n} ft`,
  storeys: (n) => `${n} storeys`,
  ratio: (n) => n,
  percent: (n) => `${n}%`,
  sqft: (n) => `${n} sq ft`,
  'sqft/unit': (n) => `${n} sq ft per unit`,
  'units/acre': (n) => `${n} units per acre`,
  units: (n) => `${n} units`,
};

// One formatter for every call: toLocaleString with options builds a new one each time (tens of µs,
// on every MCP snapshot's summary), with the same output.
const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** A number as every surface writes it: en-US grouping, at most two decimals ("1,994", "0.45"). */
export function formatNumber(n: number): string {
  return NUMBER.format(n);
}

function numberWords(v: number | string, unit: string | undefined): string {
  const n = typeof v === 'number' ? formatNumber(v) : v;
  return unit ? (UNIT_WORDS[unit]?.(n) ?? `${n} ${unit}`) : n;
}

/** True when a source states there is no limit but nothing verifies it against the bylaw. */
export function isStatedNoLimit(v: WordedValue): boolean {
  return v.value === null && v.statedNoLimit !== undefined && !STATUS_MEANINGS[v.status].unknown && v.status !== 'no_limit_in_bylaw';
}

/** A derived value without a number that is not "no limit": it could not be worked out from its inputs. */
function notCalculated(v: WordedValue): boolean {
  return Boolean(v.inputs?.length) && v.value === null && v.status !== 'no_limit_in_bylaw' && v.statedNoLimit === undefined;
}

function says(v: WordedValue): string {
  if (notCalculated(v)) return 'Not calculated';
  if (v.value === null && v.tiers?.length)
    return v.tiers.map((t) => `${t.when.join(' and ') || 'always'}: ${t.values.map((x) => numberWords(x, v.unit)).join(' or ')}`).join('; ');
  if (v.status === 'no_limit_in_bylaw') return 'No limit in the bylaw';
  if (isStatedNoLimit(v)) return `No limit, per ${v.statedNoLimit}`;
  if (v.value === null || STATUS_MEANINGS[v.status].unknown) return 'Unknown';
  return numberWords(v.value, v.unit);
}

function analysis(v: WordedValue): string {
  const m = STATUS_MEANINGS[v.status];
  if (v.status === 'no_limit_in_bylaw') return 'The analysis treats it as no limit.';
  if (isStatedNoLimit(v)) return 'The analysis does not compute on an unverified no-limit.';
  if (notCalculated(v)) return 'The analysis cannot compute it either.';
  if (m.unknown || v.value === null) return 'The analysis cannot compute on it.';
  if (m.authoritative || v.status === 'derived_from_cited') return 'The analysis uses it.';
  return 'The analysis uses it; its results are indicative.';
}

/**
 * The one wording of a value every surface shows. A derived value that could not be worked out says
 * why from its inputs, when the surface can look them up (`inputOf`: an envelope member, or a lot
 * measure as `lot.areaSqft`).
 */
export function valueWords(v: WordedValue, inputOf?: (key: string) => WordedValue | undefined): ValueWords {
  const s = says(v);
  const st = VALUE_STATUS_WORDS[v.status];
  const out: ValueWords = { says: s, status: st, analysis: analysis(v), line: `${s} — ${st}` };
  if (notCalculated(v)) out.why = notCalculatedWords((v.inputs ?? []).map((key) => ({ key, value: inputOf?.(key) })));
  return out;
}

/**
 * Why a derived value could not be worked out, in its inputs' words: "Not calculated: maximum floor
 * area ratio (FAR) reads “No limit, per S1”, which no bylaw text confirms." The analysis writes its
 * notes with it; the pages, the PDF and the CLI show it through `valueWords(…).why`.
 */
export function notCalculatedWords(inputs: { key: string; value: WordedValue | undefined }[]): string {
  const reasons: string[] = [];
  for (const { key, value } of inputs) {
    if (!value || value.status === 'no_limit_in_bylaw') continue;
    const name = lowerFirst(valueLabel(key));
    if (isStatedNoLimit(value)) reasons.push(`${name} reads “${says(value)}”, which no bylaw text confirms`);
    else if (value.value === null || STATUS_MEANINGS[value.status].unknown)
      reasons.push(
        `${name} is ${STATUS_MEANINGS[value.status].unknown ? VALUE_STATUS_WORDS[value.status] : `not known (${VALUE_STATUS_WORDS[value.status]})`}`,
      );
  }
  const needs = inputs.map((i) => lowerFirst(valueLabel(i.key)));
  const why = reasons.length ? [...new Set(reasons)].join('; ') : `it needs ${needs.join(' and ')}, and one of them has no value`;
  return `Not calculated: ${why}.`;
}

/** The readable name of each standard, derived value and lot measure a surface shows. */
export const VALUE_LABELS: Readonly<Record<string, string>> = {
  // the standards a rules file states (src/core/rules-schema.ts)
  maxHeightFt: 'Maximum height',
  maxHeightStoreys: 'Maximum storeys',
  maxFar: 'Maximum floor area ratio (FAR)',
  minLotAreaSqft: 'Minimum lot area',
  minLotAreaPerUnitSqft: 'Minimum lot area per dwelling unit',
  minLotWidthFt: 'Minimum lot width',
  minLotDepthFt: 'Minimum lot depth',
  minFrontYardFt: 'Minimum front yard',
  maxFrontYardFt: 'Maximum front yard',
  minSideYardFt: 'Minimum side yard',
  minSideYardSumFt: 'Minimum sum of the side yards',
  minStreetSideYardFt: 'Minimum street-side yard (corner lot)',
  maxStreetSideYardFt: 'Maximum street-side yard (corner lot)',
  minRearYardFt: 'Minimum rear yard',
  maxLotCoveragePct: 'Maximum lot coverage',
  minOpenSpacePct: 'Minimum open space',
  maxDensityUnitsPerAcre: 'Maximum density',
  maxUnitsPerLot: 'Maximum units per lot',
  maxUnitsPerBuilding: 'Maximum units per building',
  minHeightStoreys: 'Minimum storeys',
  minGreenScore: 'Minimum green score',
  // the envelope's derived members (src/core/envelope.ts)
  maxFloorAreaSqft: 'Maximum floor area',
  maxDwellingUnits: 'Maximum dwelling units',
  maxDwellingUnitsByDensity: 'Maximum dwelling units by density',
  maxFootprintSqft: 'Maximum footprint',
  buildableWidthFt: 'Buildable width',
  buildableDepthFt: 'Buildable depth',
  // the analysis's results (src/analysis/feasibility-analysis.ts)
  buildableFootprintSqft: 'Buildable footprint',
  maxStoreys: 'Maximum storeys',
  gfaEnvelopeSqft: 'Gross floor area envelope',
  // the lot measures derived values use
  'lot.areaSqft': 'Lot area',
  'lot.frontageFt': 'Lot frontage',
  'lot.depthFt': 'Lot depth',
};

/** "maxSideYardFt" → "Max side yard ft": a key no table names still reads as words. */
function humanise(key: string): string {
  const words = key
    .replace(/^lot\./, 'lot ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The one name of a value on every surface. */
export function valueLabel(key: string): string {
  return VALUE_LABELS[key] ?? humanise(key);
}

const lowerFirst = (t: string) => (/^[A-Z][a-z]/.test(t) ? t.charAt(0).toLowerCase() + t.slice(1) : t); // keeps "FAR"

// Keys as they appear in notes: the labelled ones, `buildingTypes` (a rules file's member) and status codes.
const KEY_WORDS = new RegExp(
  `(?<![\\w.])(${Object.keys(VALUE_LABELS)
    .map((k) => k.replace('.', '\\.'))
    .join('|')})(?![\\w])`,
  'g',
);
// Only the codes (with an underscore): "cited", "missing" and "defaulted" are words already.
const STATUS_KEYS = new RegExp(
  `\\b(${Object.keys(VALUE_STATUS_WORDS)
    .filter((k) => k.includes('_'))
    .join('|')})\\b`,
  'g',
);
const MEMBER_WORDS: Record<string, string> = {
  buildingTypes: 'the building types',
  otherStandards: 'the other standards',
  districtChoice: 'the district choice',
  buildingType: 'the building type',
};
// The documentation a note cites, by what it holds (the pages do not serve the repository's docs/).
const DOC_WORDS: Record<string, string> = {
  'lot-metrics': "siteline's rules for measuring lots",
  cli: "the command line's guide",
  snapshot: "the snapshot's documentation",
};
const MEMBER_KEYS = new RegExp(`\\b(${Object.keys(MEMBER_WORDS).join('|')})\\b`, 'g');

/**
 * Free text written with keys ("maxFar is not_extracted", "read buildingTypes", "lot.areaSqft") in
 * the words every surface uses ("maximum floor area ratio (FAR) is unknown: not extracted from the
 * bylaw", "read the building types", "lot area"). The research notes' file name reads as what it is.
 */
export function forPeople(text: string): string {
  return text
    .replace(KEY_WORDS, (k) => lowerFirst(VALUE_LABELS[k]!))
    .replace(STATUS_KEYS, (k) => VALUE_STATUS_WORDS[k as keyof typeof VALUE_STATUS_WORDS])
    .replace(MEMBER_KEYS, (k) => MEMBER_WORDS[k]!)
    .replace(/\bRULES-FACTS\.md\b/g, "the place's research notes")
    .replace(/\b(?:docs\/)?([\w-]+)\.md\b/g, (_, doc: string) => DOC_WORDS[doc] ?? 'the documentation');
}
