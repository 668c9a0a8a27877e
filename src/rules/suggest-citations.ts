// Finds candidate passages for a citation in a place's held documents and says what each would cite:
// the rows of the section's tables that the standard's own labels name (read as the checker reads
// them: the bound's number, a tier per condition, an ambiguous row refused with the reason) and the
// sentences that carry the standard's words. Every proposal is run through the checker
// (verify-citations.ts) before it is offered as citable. `siteline rules suggest` prints them;
// `siteline rules cite` writes one after the same check.
import {
  BUILDING_TYPE_STANDARD_UNITS,
  type BuildingType,
  type BuildingTypeStandardKey,
  type Citation,
  type DistrictRules,
  type RuleTier,
  type RuleValue,
} from '../core/rules-schema.ts';
import { normalizeForMatch, type DocumentSection, type HeldDocument } from './held-documents.ts';
import { isDash, sectionTables, type TableRow } from './ordinance-tables.ts';
import { numbersIn, statedWithUnit, type UnitKind, type Vocabulary } from './citation-vocabulary.ts';
import { checkItem, proseRange, proseValue, readRowsOf, rowsOfStandard, type ReadRow } from './verify-citations.ts';

export interface Candidate {
  section: string;
  heading: string;
  line: number;
  quote: string;
  kind: 'table' | 'text';
  /** What the passage states for the standard, as the checker reads it (a standard was asked for). */
  proposal?: { value?: number; tiers?: RuleTier[]; reading?: NonNullable<RuleValue['reading']> };
  /** Whether the checker accepts the proposal; why not, when it does not. */
  citable?: boolean;
  why?: string;
}

/** Sections whose heading names the district or building type (by code, name or number). */
export function sectionsNaming(doc: HeldDocument, name: string): DocumentSection[] {
  const want = normalizeForMatch(name).toLowerCase();
  return doc.sections.filter(
    (s) =>
      s.id === name ||
      normalizeForMatch(s.heading).toLowerCase().includes(want) ||
      new RegExp(`\\(${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`).test(s.heading.toLowerCase()),
  );
}

/** The sections inside a root section (itself included), in document order. */
export function sectionsWithin(doc: HeldDocument, root: DocumentSection): DocumentSection[] {
  return doc.sections.filter((s) => s.start >= root.start && s.start < root.end);
}

/** Where a suggestion is checked: the district and building type the value would belong to. */
export interface SuggestScope {
  district: string;
  districtRules: DistrictRules;
  buildingType?: string;
  bt?: BuildingType;
}

function lineOf(_doc: HeldDocument, _s: DocumentSection, row: TableRow): number {
  return row.seg.line;
}

/** The proposal an entry (the rows of a table that state a standard) makes: one value, or a tier per condition. */
function proposalOf(rows: ReadRow[], quoted: TableRow[]): { value?: number; tiers?: RuleTier[]; quote: string } | { why: string } {
  const bad = rows.find((r) => r.why);
  if (bad) return { why: bad.why! };
  const pieces = new Set<TableRow>();
  for (const r of rows) for (let x: TableRow | null = r.row; x; x = x.parent) pieces.add(x);
  for (const q of quoted) pieces.add(q);
  const quote = [...pieces]
    .sort((a, b) => a.seg.index - b.seg.index)
    .map((r) => r.seg.text)
    .join(' … ');
  if (rows.length === 1 && rows[0]!.path.length === 0 && rows[0]!.numbers.length === 1) return { value: rows[0]!.numbers[0]!, quote };
  const others = (r: ReadRow) => rows.filter((o) => o !== r && o.path.length).map((o) => o.path.join(' / '));
  const tiers = rows.map((r) => ({
    when: r.path.length
      ? r.path
      : [
          `Not ${others(r)
            .join(' or ')
            .replace(/^./, (c) => c.toLowerCase())}`,
        ],
    values: r.numbers.map(String),
  }));
  return { tiers, quote };
}

/** A passage of the section that states two numbers as a range in the unit (a sentence, or a table row with the row above it). */
function supportFor(doc: HeldDocument, s: DocumentSection, values: string[], unit: UnitKind): { quote: string; range: [number, number] } | null {
  const cells = values.filter((v) => !isDash(v));
  if (cells.length !== 2) return null;
  const want = cells.map((c) => numbersIn(c)[0]?.value);
  const lines = doc.text.slice(s.start, s.end).split('\n');
  const cellsOf = (l: string) =>
    l
      .trim()
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim())
      .filter(Boolean);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    const isRow = l.startsWith('|');
    if (isRow && /^\|(?:\s*:?-+:?\s*\|)+$/.test(l)) continue;
    const texts = isRow ? [cellsOf(l).join(' | ')] : l.split(/(?<=[.;])\s+(?=[A-Z0-9])/);
    for (const t of texts) {
      const r = proseRange(t, unit);
      if (!r || r[0] !== want[0] || r[1] !== want[1]) continue;
      if (!isRow) {
        // The words around the range, as far as the sentence's clause goes.
        const m = new RegExp(
          `[^,;:]*\\b(?:${numbersIn(t, { words: true })
            .map((n) => n.text)
            .join('|')})\\b[^,;:.]*`,
        ).exec(t);
        return { quote: (m ? m[0] : t).trim(), range: r };
      }
      const above = lines[i - 1]?.trim() ?? '';
      const head = above.startsWith('|') && !/^\|(?:\s*:?-+:?\s*\|)+$/.test(above) ? cellsOf(above).join(' | ') : '';
      return { quote: head ? `${head} … ${t}` : t, range: r };
    }
  }
  return null;
}

/**
 * Candidate passages in the given sections (table rows first, then sentences). With a standard, each
 * carries what the checker reads from it and whether the checker accepts it for `scope`.
 */
// Long because: one walk over the sections' rows and sentences, each candidate read the way the checker reads it.
export function suggestCitations(
  doc: HeldDocument,
  vocab: Vocabulary,
  opts: { sections: DocumentSection[]; standard: BuildingTypeStandardKey | null; scope?: SuggestScope },
): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const key = opts.standard;
  const sv = key ? vocab.standards[key] : null;
  const unit = key ? (BUILDING_TYPE_STANDARD_UNITS[key] as UnitKind) : null;
  const judge = (c: Candidate, citation: Citation, rv: RuleValue) => {
    if (!opts.scope || !key) return;
    const why = checkItem({ get: (id) => (id === doc.declaration.id ? doc : `document ${id} is not this one`) }, vocab, {
      ...opts.scope,
      item: key,
      unit,
      value: rv,
      use: null,
      status: rv.status,
      citation,
    });
    c.citable = !why;
    if (why) c.why = why;
  };
  for (const s of opts.sections) {
    const t = sectionTables(doc, s, vocab);
    if (!sv || !unit) {
      for (const h of t.heads) {
        const quote = [h, ...h.children].map((r) => r.seg.text).join(' … ');
        if (seen.has(`${s.id}|${quote}`)) continue;
        seen.add(`${s.id}|${quote}`);
        out.push({ section: s.id, heading: s.heading, line: lineOf(doc, s, h), quote, kind: 'table' });
      }
      continue;
    }
    const rows = rowsOfStandard(t, sv);
    for (const table of [...new Set(rows.map((r) => r.head.seg.table))]) {
      const entry = rows.filter((r) => r.head.seg.table === table);
      const read = readRowsOf(entry, sv, unit, null);
      const p = proposalOf(
        read.rows,
        entry.map((e) => e.head),
      );
      const first = entry[0]!.head;
      const quote = 'quote' in p ? p.quote : entry.map((e) => e.head.seg.text).join(' … ');
      if (seen.has(`${s.id}|${quote}`)) continue;
      seen.add(`${s.id}|${quote}`);
      const c: Candidate = { section: s.id, heading: s.heading, line: lineOf(doc, s, first), quote, kind: 'table' };
      const support = 'why' in p && read.rows.length === 1 ? supportFor(doc, s, read.rows[0]!.row.seg.values, unit) : null;
      if (support && opts.scope) {
        // Two numbers under one bound: the section's own words may state them as a range.
        const [a, b] = support.range;
        const value = sv.bound === 'min' ? a : b;
        c.quote = read.rows[0]!.row.seg.text;
        c.proposal = {
          value,
          reading: {
            columns: 'min/max',
            support: { document: doc.declaration.id, section: s.id, quote: support.quote } as Citation,
            note: `The row gives ${a} and ${b}; the section states the range.`,
          },
        };
        judge(c, { document: doc.declaration.id, section: s.id, quote: c.quote } as Citation, {
          status: 'cited_conditional',
          value,
          condition: 'suggested',
          reading: c.proposal.reading!,
        });
        if (!c.citable) {
          c.why = `${(p as { why: string }).why}; with the range "${support.quote}" as its reading: ${c.why}`;
          delete c.proposal;
        }
      } else if ('why' in p) {
        c.citable = false;
        c.why = p.why;
      } else {
        c.proposal = p.tiers ? { tiers: p.tiers } : { value: p.value! };
        judge(c, { document: doc.declaration.id, section: s.id, quote } as Citation, {
          status: 'cited_conditional',
          ...(p.tiers ? { tiers: p.tiers } : { value: p.value! }),
          condition: 'suggested',
        });
      }
      out.push(c);
    }
    // Sentences that carry the standard's words and a number in its unit.
    const body = doc.text.slice(s.start, s.end);
    const firstLine = doc.text.slice(0, s.start).split('\n').length;
    body.split('\n').forEach((l, i) => {
      if (l.trim().startsWith('|') || l.trim().startsWith('#')) return;
      // Only the section's own lines, not its subsections' (they are suggested under their own number).
      if (opts.sections.some((o) => o !== s && o.start > s.start && o.start < s.end && firstLine + i > doc.text.slice(0, o.start).split('\n').length)) return;
      for (const sentence of l.split(/(?<=[.;])\s+(?=[A-Z0-9])/)) {
        const text = sentence.trim().slice(0, 400);
        const label = sv.prose.exec(text);
        if (!label) continue;
        const stated = statedWithUnit(text, unit, { words: true, prose: true });
        if (stated.length === 0) continue;
        if (seen.has(`${s.id}|${text}`)) continue;
        seen.add(`${s.id}|${text}`);
        const first = proseValue(text, sv, unit);
        const tries = [...new Set(['value' in first ? first.value : stated[0]!.value, ...stated.map((x) => x.value), ...(proseRange(text, unit) ?? [])])];
        let c: Candidate | null = null;
        for (const value of tries) {
          const t: Candidate = { section: s.id, heading: s.heading, line: firstLine + i, quote: text, kind: 'text', proposal: { value } };
          judge(t, { document: doc.declaration.id, section: s.id, quote: text } as Citation, { status: 'cited_conditional', value, condition: 'suggested' });
          c ??= t;
          if (t.citable) {
            c = t;
            break;
          }
        }
        out.push(c!);
      }
    });
  }
  return out;
}
