// One wording of a sourced value, shared by every surface a person reads (the web site page, the PDF
// report, the CLI's `siteline check` text and the MCP summary): what the source says, its status in
// words, and what the analysis does with it. A surface lays the three parts out as it likes but never
// words a value on its own, so the page, the PDF, the CLI and the MCP text cannot contradict each other.
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

function says(v: WordedValue): string {
  if (v.value === null && v.tiers?.length) return v.tiers.map((t) => `${t.when.join(' and ') || 'always'}: ${t.values.map((x) => numberWords(x, v.unit)).join(' or ')}`).join('; ');
  if (v.status === 'no_limit_in_bylaw') return 'No limit in the bylaw';
  if (isStatedNoLimit(v)) return `No limit, per ${v.statedNoLimit}`;
  if (v.value === null || STATUS_MEANINGS[v.status].unknown) return 'Unknown';
  return numberWords(v.value, v.unit);
}

function analysis(v: WordedValue): string {
  const m = STATUS_MEANINGS[v.status];
  if (v.status === 'no_limit_in_bylaw') return 'The analysis treats it as no limit.';
  if (isStatedNoLimit(v)) return 'The analysis does not compute on an unverified no-limit.';
  if (m.unknown || v.value === null) return 'The analysis cannot compute on it.';
  if (m.authoritative || v.status === 'derived_from_cited') return 'The analysis uses it.';
  return 'The analysis uses it; its results are indicative.';
}

/** The one wording of a value every surface shows. */
export function valueWords(v: WordedValue): ValueWords {
  const s = says(v);
  const st = VALUE_STATUS_WORDS[v.status];
  return { says: s, status: st, analysis: analysis(v), line: `${s} — ${st}` };
}
