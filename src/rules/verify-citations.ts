// Verifies a place's citations against the documents it holds. A value may be `cited` (or
// `cited_conditional`, or `no_limit_in_bylaw`) only when its quote occurs, word for word (white space,
// typographic quotes and dashes normalised), inside the section it names of a document the place's
// manifest declares, and the value as written there ("45 ft", "2.5", "60%") occurs in the quote.
// `siteline rules verify`, `data check`, `data import` and every rules load run this.
import { STANDARD_UNITS, type Citation, type PlaceRules, type RuleValue, type StandardKey } from '../core/rules-schema.ts';
import { DocumentError, findQuote, findSection, readHeldDocument, sectionSpan, type DocumentDeclaration, type HeldDocument } from './held-documents.ts';

/** One citation as checked: where it sits in the rules file and, when it failed, why. */
export interface CitationCheck {
  district: string;
  buildingType?: string;
  /** The standard (e.g. maxHeightFt) or `use:<name>`. */
  item: string;
  status: string;
  document: string;
  section: string;
  quote: string;
  ok: boolean;
  why?: string;
}

export interface VerifyReport {
  place: string;
  documents: { id: string; title: string; sha256: string; ok: boolean; why?: string }[];
  checked: number;
  verified: number;
  failures: CitationCheck[];
  checks: CitationCheck[];
}

// ---------------------------------------------------------------------------------------------
// "The value, as written there": the number as a token of the quote, with the unit's words after it.

const UNIT_WORDS: Record<string, RegExp | null> = {
  ft: /^\s*(?:ft\b|feet\b|foot\b|'|-foot\b|-feet\b)/i,
  percent: /^\s*(?:%|percent\b|per cent\b)/i,
  sqft: /^\s*(?:sq\.?\s*ft\b|square feet\b|sf\b|s\.f\.)/i,
  'sqft/unit': /^\s*(?:sq\.?\s*ft\b|square feet\b|sf\b|s\.f\.)?/i,
  storeys: null,
  ratio: null,
  units: null,
  'units/acre': null,
  score: null,
};
const OTHER_UNIT = /^\s*(?:ft\b|feet\b|foot\b|%|percent\b|sq\.?\s*ft\b|square feet\b|acres?\b)/i;

/** Numbers written in a text: "1,650", "2.5", "0.40", ".35" (not digits of a section number like 3.1.8). */
export function numbersIn(text: string): { value: number; end: number }[] {
  const out: { value: number; end: number }[] = [];
  const re = /(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)?(\.\d+)?(?![\d]|\.\d|,\d{3})/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (!m[0]) {
      re.lastIndex++;
      continue;
    }
    if (!m[1] && !m[2]) continue;
    out.push({ value: Number(`${(m[1] ?? '0').replace(/,/g, '')}${m[2] ?? ''}`), end: m.index + m[0].length });
  }
  return out;
}

/** Whether the quote writes the value in the unit (a number token followed by the unit's words when the unit has any). */
export function quoteStatesValue(quote: string, value: number, unit: string): boolean {
  const words = UNIT_WORDS[unit];
  for (const n of numbersIn(quote)) {
    if (Math.abs(n.value - value) > 1e-9) continue;
    const after = quote.slice(n.end);
    if (words ? words.test(after) : !OTHER_UNIT.test(after)) return true;
  }
  return false;
}

/** The numbers a rule value states: its value, or each tier value that is a plain number. */
function statedNumbers(v: RuleValue): number[] {
  if (v.value !== undefined && v.value !== null) return [v.value];
  const out: number[] = [];
  for (const t of v.tiers ?? []) for (const x of t.values) if (/^\s*\d+(?:\.\d+)?\s*$/.test(x)) out.push(Number(x) * (v.scale ?? 1));
  return out;
}

// ---------------------------------------------------------------------------------------------

/** Every citation of a rules file with where it sits (standards, other standards, uses, building types). */
export function* citationsOfRules(rules: PlaceRules): Generator<{ district: string; buildingType?: string; item: string; unit: string | null; value: RuleValue | null; status: string; citation: Citation }> {
  for (const [code, d] of Object.entries(rules.districts)) {
    const standards = (bt: string | undefined, s: Partial<Record<StandardKey, RuleValue>>) =>
      Object.entries(s).flatMap(([k, v]) => (v?.citation ? [{ district: code, ...(bt ? { buildingType: bt } : {}), item: k, unit: STANDARD_UNITS[k as StandardKey], value: v, status: v.status, citation: v.citation }] : []));
    yield* standards(undefined, d.standards);
    if (d.otherStandards?.citation) yield { district: code, item: 'otherStandards', unit: null, value: null, status: d.otherStandards.status, citation: d.otherStandards.citation };
    for (const u of d.uses) if (u.citation) yield { district: code, item: `use:${u.use}`, unit: null, value: null, status: u.status, citation: u.citation };
    for (const [bt, t] of Object.entries(d.buildingTypes ?? {})) yield* standards(bt, t.standards);
  }
}

/** Checks one citation against a held document; returns why it fails, or null. */
export function checkCitation(doc: HeldDocument, c: { section: string; quote: string }, stated: { numbers: number[]; unit: string | null }): string | null {
  const section = findSection(doc, c.section);
  if (!section) return `section ${c.section} is not a section of ${doc.declaration.id} (${doc.declaration.title})`;
  const span = sectionSpan(doc, section);
  const found = findQuote(doc.normalized, c.quote, span.from, span.to);
  if (!found) {
    const elsewhere = findQuote(doc.normalized, c.quote);
    if (elsewhere) {
      const at = doc.sections.filter((s) => sectionSpan(doc, s).from <= elsewhere.start && elsewhere.start < sectionSpan(doc, s).to).pop();
      return `the quote is not in section ${c.section}${at ? ` (it is in ${at.id})` : ''}`;
    }
    return `the quote does not occur in ${doc.declaration.id} (${doc.declaration.title})`;
  }
  if (stated.unit)
    for (const n of stated.numbers)
      if (!quoteStatesValue(c.quote, n, stated.unit)) return `the value ${n}${unitLabel(stated.unit)} is not written in the quote`;
  return null;
}

const unitLabel = (unit: string) => (unit === 'ft' ? ' ft' : unit === 'percent' ? '%' : unit === 'sqft' ? ' sq ft' : ` (${unit})`);

/**
 * Verifies every citation of a place's rules against the documents its manifest declares, read from
 * `placeRoot`. Documents that are missing or whose digest changed fail every citation into them.
 */
export async function verifyRulesCitations(rules: PlaceRules, documents: readonly DocumentDeclaration[], placeRoot: string | null): Promise<VerifyReport> {
  const byId = new Map(documents.map((d) => [d.id, d]));
  const held = new Map<string, HeldDocument | string>();
  const docReports: VerifyReport['documents'] = [];
  for (const d of documents) {
    if (!placeRoot) {
      held.set(d.id, 'no source directory is configured (SITELINE_SOURCE_DIR), so the document cannot be read');
      docReports.push({ id: d.id, title: d.title, sha256: d.sha256, ok: false, why: held.get(d.id) as string });
      continue;
    }
    try {
      held.set(d.id, await readHeldDocument(placeRoot, d));
      docReports.push({ id: d.id, title: d.title, sha256: d.sha256, ok: true });
    } catch (e) {
      if (!(e instanceof DocumentError)) throw e;
      held.set(d.id, e.message);
      docReports.push({ id: d.id, title: d.title, sha256: d.sha256, ok: false, why: e.message });
    }
  }
  const checks: CitationCheck[] = [];
  for (const c of citationsOfRules(rules)) {
    const base = { district: c.district, ...(c.buildingType ? { buildingType: c.buildingType } : {}), item: c.item, status: c.status, document: c.citation.document, section: c.citation.section, quote: c.citation.quote };
    const doc = held.get(c.citation.document);
    let why: string | null;
    if (!byId.has(c.citation.document)) why = `document ${c.citation.document} is not declared in the manifest's documents`;
    else if (typeof doc === 'string' || !doc) why = doc ?? 'the document could not be read';
    else why = checkCitation(doc, c.citation, { numbers: c.value ? statedNumbers(c.value) : [], unit: c.unit });
    checks.push(why ? { ...base, ok: false, why } : { ...base, ok: true });
  }
  const failures = checks.filter((c) => !c.ok);
  return { place: rules.slug, documents: docReports, checked: checks.length, verified: checks.length - failures.length, failures, checks };
}

/** One line per failed citation: value, district, document, section, why. */
export function describeFailures(r: VerifyReport, max = 50): string {
  const lines = r.failures.slice(0, max).map((f) => `  ${f.district}${f.buildingType ? ` / ${f.buildingType}` : ''} ${f.item} (${f.status}): ${f.document} § ${f.section}: ${f.why}`);
  if (r.failures.length > max) lines.push(`  ... and ${r.failures.length - max} more`);
  return lines.join('\n');
}

