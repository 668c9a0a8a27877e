// The citation checker: one function for every path (every rules load, `siteline rules verify`,
// `rules cite`, `rules suggest`, `data check`, `data import`). A value may be `cited` (or
// `cited_conditional`, or `no_limit_in_bylaw`) only when:
//  - the section it names lies in the section of its district, or of its building type, as the rules
//    declare them (`districts.<D>.section`, `buildingTypes.<T>.section`) and as the document's own
//    headings number them (the type's heading names the type, inside the district's heading);
//  - its quote occurs in that section, every part on word and number boundaries;
//  - for a table row: every part of the quote is a whole row (label and value cells) of the row the
//    standard's own label names (never a row under another label, nor under "Parking Setbacks" for a
//    building setback), so an elision ("…") never crosses into another row; the number is the one that
//    row states for the standard's bound ("(min/max) | 10 ft | 20 ft": 10 is the minimum); a row whose
//    numbers do not say which is which is not citable without a stated reading whose own quote settles
//    it; every condition the table states for the standard (a sub-row such as "Front Driveway Access",
//    a row such as "Side Setback Abutting NR (min)") is a tier, each tier's number the one its own
//    condition words carry;
//  - in a sentence: the standard's words are there and the number nearest them, in the unit, is the value;
//  - every number carries its unit's words (feet, percent, square feet) or, for a count, ratio or
//    score, no other unit's;
//  - a use: the quote names the use and says its permission (by right, Site Plan Approval, Special
//    Permit...) and no other.
import {
  BUILDING_TYPE_STANDARD_UNITS,
  type BuildingType,
  type BuildingTypeStandardKey,
  type Citation,
  type DistrictRules,
  type PlaceRules,
  type RuleValue,
  type UseRule,
} from '../core/rules-schema.ts';
import {
  DocumentError,
  findQuote,
  findSection,
  normalizeForMatch,
  quoteParts,
  readDocuments,
  sectionSpan,
  type DocumentDeclaration,
  type DocumentSection,
  type HeldDocument,
  type HeldDocuments,
} from './held-documents.ts';
import {
  BOUND_WORDS,
  foldWords,
  numbersIn,
  sameWords,
  statedWithUnit,
  UNIT_RULES,
  unitFollows,
  vocabularyOf,
  type Bound,
  type StandardVocab,
  type UnitKind,
  type Vocabulary,
} from './citation-vocabulary.ts';
import { blockOf, conditionPath, isDash, leaves, RANGE_CELL, sectionTables, type SectionTables, type TableRow } from './ordinance-tables.ts';

export { numbersIn } from './citation-vocabulary.ts';

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

/** Where a citation sits in a rules file, with what the checker needs to judge it. */
export interface CitedItem {
  district: string;
  districtRules: DistrictRules;
  buildingType?: string;
  bt?: BuildingType;
  /** The standard key, `use:<name>` or `otherStandards`. */
  item: string;
  unit: UnitKind | null;
  value: RuleValue | null;
  use: UseRule | null;
  status: string;
  citation: Citation;
}

/** Every citation of a rules file with where it sits (standards, other standards, uses, building types). */
export function* citationsOfRules(rules: PlaceRules): Generator<CitedItem> {
  for (const [code, d] of Object.entries(rules.districts)) {
    const standards = (bt: [string, BuildingType] | undefined, s: Partial<Record<BuildingTypeStandardKey, RuleValue>>) =>
      Object.entries(s).flatMap(([k, v]) =>
        v?.citation
          ? [
              {
                district: code,
                districtRules: d,
                ...(bt ? { buildingType: bt[0], bt: bt[1] } : {}),
                item: k,
                unit: BUILDING_TYPE_STANDARD_UNITS[k as BuildingTypeStandardKey] ?? null,
                value: v,
                use: null,
                status: v.status,
                citation: v.citation,
              },
            ]
          : [],
      );
    yield* standards(undefined, d.standards);
    if (d.otherStandards?.citation)
      yield {
        district: code,
        districtRules: d,
        item: 'otherStandards',
        unit: null,
        value: null,
        use: null,
        status: d.otherStandards.status,
        citation: d.otherStandards.citation,
      };
    for (const u of d.uses)
      if (u.citation) yield { district: code, districtRules: d, item: `use:${u.use}`, unit: null, value: null, use: u, status: u.status, citation: u.citation };
    for (const [bt, t] of Object.entries(d.buildingTypes ?? {})) yield* standards([bt, t], t.standards);
  }
}

const unitLabel = (unit: UnitKind) => UNIT_RULES[unit].label;
const fmt = (n: number, unit: UnitKind) => `${n}${unitLabel(unit)}`;
const boundWord = (b: Bound) => (b === 'min' ? 'minimum' : 'maximum');

// ---------------------------------------------------------------------------------------------
// Sections: the citation's section must lie in its district's (or building type's) own section.

function within(_doc: HeldDocument, inner: DocumentSection, outer: DocumentSection): boolean {
  return inner.start >= outer.start && inner.end <= outer.end;
}

function headingNames(heading: string, ...names: string[]): boolean {
  const h = ` ${foldWords(heading).replace(/[()]/g, ' ')} `;
  return names.some((n) => n && h.includes(` ${foldWords(n)} `));
}

/** Why the cited section is not the item's own, or null. */
function checkScope(doc: HeldDocument, item: Pick<CitedItem, 'district' | 'districtRules' | 'buildingType' | 'bt'>, section: DocumentSection): string | null {
  const d = item.districtRules;
  if (!d.section)
    return `district ${item.district} declares no section of ${doc.declaration.id} (districts.${item.district}.section), so whether § ${section.id} is the district's own cannot be checked`;
  const ds = findSection(doc, d.section);
  if (!ds) return `district ${item.district}'s section ${d.section} is not a section of ${doc.declaration.id}`;
  if (item.bt) {
    const bs = findSection(doc, item.bt.section);
    if (!bs) return `building type ${item.buildingType}'s section ${item.bt.section} is not a section of ${doc.declaration.id}`;
    if (!headingNames(bs.heading, item.bt.name))
      return `building type ${item.buildingType}'s section ${item.bt.section} is headed "${bs.heading}", which does not name ${item.bt.name}`;
    if (!within(doc, bs, ds))
      return `building type ${item.buildingType}'s section ${item.bt.section} is not inside district ${item.district}'s section ${d.section}`;
    if (!within(doc, section, bs))
      return `§ ${section.id} (${section.heading}) is not ${item.buildingType}'s section ${item.bt.section} of district ${item.district}`;
    return null;
  }
  if (!within(doc, section, ds)) return `§ ${section.id} (${section.heading}) is not in district ${item.district}'s section ${d.section}`;
  return null;
}

/** Finds the quote in the section (on boundaries): where it is, or why not. */
function findIn(doc: HeldDocument, section: DocumentSection, c: { section: string; quote: string }): { parts: [number, number][] } | { why: string } {
  const span = sectionSpan(doc, section);
  const found = findQuote(doc.normalized, c.quote, span.from, span.to);
  if (found) return found;
  const elsewhere = findQuote(doc.normalized, c.quote);
  if (elsewhere) {
    const at = doc.sections.filter((s) => sectionSpan(doc, s).from <= elsewhere.start && elsewhere.start < sectionSpan(doc, s).to).pop();
    return { why: `the quote is not in section ${c.section}${at ? ` (it is in ${at.id})` : ''}` };
  }
  return { why: `the quote does not occur in ${doc.declaration.id} (${doc.declaration.title}) as whole words and numbers` };
}

/**
 * Whether the quote was found in table rows or in running text. A quote is a table quote when its
 * parts lie on table lines (each must then be a whole row); a sentence's parts lie in one paragraph,
 * and never reach into a table.
 */
function quoteKind(doc: HeldDocument, parts: [number, number][]): 'table' | 'text' | { why: string } {
  const textAt = (n: number) => doc.offsets[Math.min(n, doc.offsets.length - 1)]!;
  const lineOf = (offset: number) => {
    const start = doc.text.lastIndexOf('\n', offset - 1) + 1;
    const end = doc.text.indexOf('\n', offset);
    return doc.text.slice(start, end < 0 ? doc.text.length : end);
  };
  const onTable = parts.map(([a]) => lineOf(textAt(a)).trim().startsWith('|'));
  if (onTable.every(Boolean)) return 'table';
  if (onTable.some(Boolean)) return { why: 'the quote joins words of a sentence and of a table row: an elision never crosses into a table' };
  const between = doc.text.slice(textAt(parts[0]![0]), textAt(parts[parts.length - 1]![1] - 1));
  if (/\n\s*\n|\n\s*\||\n#/.test(between)) return { why: "the quote's parts lie in different paragraphs: an elision never crosses a paragraph or a table row" };
  return 'text';
}

// ---------------------------------------------------------------------------------------------
// Table rows: which rows state the standard, and what number each states for its bound.

/** A label's bound marker: "(min)", "(max)", "(min/max)", or a leading "Minimum"/"Maximum". */
export function labelBound(label: string): Bound | 'min/max' | null {
  const l = label.toLowerCase();
  const m = /\((min|max|min\s*\/\s*max|max\s*\/\s*min)\)/.exec(l);
  if (m) return m[1]!.includes('/') ? 'min/max' : (m[1] as Bound);
  if (/^minimum\b/.test(l)) return 'min';
  if (/^maximum\b/.test(l)) return 'max';
  return null;
}

/** The label's words that follow the standard's own (footnote marks and the bound marker aside): a row's condition. */
function remainderWords(label: string, match: RegExpExecArray): string {
  return label
    .slice(match.index + match[0].length)
    .replace(/\((?:min|max|min\s*\/\s*max|max\s*\/\s*min)\)/gi, ' ')
    .replace(/(?:^|\s)\d{1,2}(?=\s|$)/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface StandardRow {
  head: TableRow;
  /** The head's own condition words (a row such as "Side Setback Abutting NR (min)"), if any. */
  headCondition: string | null;
}

/** The rows of a section's tables that state a standard (its labels, not in a refused block), with their conditions. */
export function rowsOfStandard(t: SectionTables, sv: StandardVocab): StandardRow[] {
  const out: StandardRow[] = [];
  for (const head of t.heads) {
    if (sv.block) {
      const b = blockOf(t, head.seg, sv.block.family);
      if (b && sv.block.refuse.test(b.label)) continue;
    }
    let found: StandardRow | null = null;
    for (const re of sv.labels) {
      const m = re.exec(head.seg.label.replace(/\s+/g, ' ').trim());
      if (m && m.index === 0) {
        const rest = remainderWords(head.seg.label.replace(/\s+/g, ' ').trim(), m);
        found = { head, headCondition: rest || null };
        break;
      }
    }
    if (!found) for (const vr of sv.variants) if (vr.label.test(head.seg.label.trim())) found = { head, headCondition: vr.condition };
    if (found) out.push(found);
  }
  return out;
}

/** A number cell as numbers in the unit: "32 ft" -> [32]; "3 or 20 ft" -> [3, 20] (a choice). */
function cellNumbers(cell: string, unit: UnitKind): { numbers: number[]; why?: string } {
  const ns = numbersIn(cell);
  if (ns.length === 0) return { numbers: [], why: `"${cell}" states no number` };
  // "3 or 20 ft": the unit written once, after the last number, serves each.
  const tail = cell.slice(ns[ns.length - 1]!.end);
  for (const n of ns) {
    const after = cell.slice(n.end);
    const ok = unitFollows(after, unit) || (/^\s*(?:or|to|-|–)\s/i.test(after) && unitFollows(tail, unit));
    if (!ok) return { numbers: [], why: `"${cell}" is not in the unit of the standard (${unitLabel(unit).trim()})` };
  }
  return { numbers: ns.map((n) => n.value) };
}

export interface ReadRow {
  row: TableRow;
  /** The condition words that lead to this row, head's own first. */
  path: string[];
  /** The numbers the row states for the standard's bound (two or more: a choice the bylaw makes in words). */
  numbers: number[];
  /** Why the row states no number for the standard, when it does not. */
  why?: string;
  /** The number was read through the value's stated reading. */
  byReading?: boolean;
}

export interface Reading {
  columns: 'min/max';
  /** The two numbers the support quote states as a range (checked by the caller). */
  range: [number, number] | null;
}

/** What a row states for a standard: its number(s) for the standard's bound, or why it states none. */
export function readRow(row: TableRow, head: StandardRow, sv: StandardVocab, unit: UnitKind, reading: Reading | null): ReadRow {
  const path = [...(head.headCondition ? [head.headCondition] : []), ...conditionPath(row)];
  const cells = row.seg.values.filter((c) => !isDash(c));
  const bound = labelBound(head.head.seg.label);
  const quoted = `"${row.seg.text}"`;
  const none = (why: string): ReadRow => ({ row, path, numbers: [], why });
  if (cells.length === 0) return none(`${quoted} states no number`);
  const parsed = cells.map((c) => cellNumbers(c, unit));
  const bad = parsed.find((p) => p.why);
  if (bad) return none(bad.why!);
  const pick = (i: number): ReadRow => ({ row, path, numbers: parsed[i]!.numbers });
  // "4 to 6 units": a range states both bounds, whatever the label's marker.
  if (cells.length === 1 && RANGE_CELL.test(cells[0]!) && parsed[0]!.numbers.length === 2)
    return { row, path, numbers: [parsed[0]!.numbers[sv.bound === 'min' ? 0 : 1]!] };
  if (cells.length === 1) {
    if (bound === 'min/max') return none(`${quoted} gives one number under a (min/max) label: whether it is the minimum or the maximum is not written`);
    if (bound === sv.bound || (bound === null && (sv.implied || (sv.pick && row.parent && sv.pick.test(row.seg.label.trim()))))) return pick(0);
    if (bound === null) return none(`${quoted} does not say whether it is a minimum or a maximum`);
    return none(`${quoted} states a ${boundWord(bound)}, not the ${boundWord(sv.bound)}`);
  }
  if (cells.length === 2) {
    if (parsed.some((p) => p.numbers.length !== 1)) return none(`${quoted} gives more numbers than a minimum and a maximum`);
    const [a, b] = [parsed[0]!.numbers[0]!, parsed[1]!.numbers[0]!];
    const mapped = (): ReadRow => pick(sv.bound === 'min' ? 0 : 1);
    if (bound === 'min/max') return mapped();
    if (reading?.columns === 'min/max') {
      if (!reading.range)
        return none(`${quoted} gives two numbers under a ${bound ? `(${bound})` : 'plain'} label, and the reading's support quote states no range of them`);
      if (reading.range[0] !== a || reading.range[1] !== b)
        return none(`${quoted} gives ${a} and ${b}; the reading's support quote states ${reading.range[0]} to ${reading.range[1]}`);
      return { ...mapped(), byReading: true };
    }
    return none(
      `${quoted} gives two numbers under a ${bound ? `(${bound})` : 'plain'} label: which one is the ${boundWord(sv.bound)} is not written (a shifted cell, or two sub-types); cite it only with a reading whose quote settles it, else mark it not_extracted`,
    );
  }
  return none(`${quoted} gives ${cells.length} numbers: which one is the ${boundWord(sv.bound)} is not written`);
}

/** The rows an entry's standard is read from: each head's leaves (its pick row for a score), and the head itself when it has no sub-rows. */
export function readRowsOf(entry: StandardRow[], sv: StandardVocab, unit: UnitKind, reading: Reading | null): { rows: ReadRow[]; optional: ReadRow[] } {
  const rows: ReadRow[] = [];
  const optional: ReadRow[] = [];
  for (const h of entry) {
    if (sv.pick) {
      const p = h.head.children.find((c) => sv.pick!.test(c.seg.label.trim()));
      // The pick row ("Minimum") is the bound, not a condition: its path is the head's own.
      if (p) rows.push({ ...readRow(p, h, sv, unit, reading), path: h.headCondition ? [h.headCondition] : [] });
      else rows.push({ row: h.head, path: [], numbers: [], why: `"${h.head.seg.text}" has no "${sv.pick.source.replace(/[\^$]/g, '')}" row` });
      continue;
    }
    if (h.head.children.length) {
      for (const leaf of leaves(h.head)) rows.push(readRow(leaf, h, sv, unit, reading));
      if (!isDash(h.head.seg.values[0]!)) optional.push(readRow(h.head, h, sv, unit, reading));
    } else rows.push(readRow(h.head, h, sv, unit, reading));
  }
  return { rows, optional };
}

/** A tier's numbers as written ("32"; an expression is not a number of a table row). */
function tierNumbers(values: string[], scale: number): number[] | null {
  const out: number[] = [];
  for (const v of values) {
    if (!/^\s*-?\d+(?:\.\d+)?\s*$/.test(v)) return null;
    out.push(Number(v) * scale);
  }
  return out;
}

const same = (a: number, b: number) => Math.abs(a - b) < 1e-9;
const sameList = (a: number[], b: number[]) => a.length === b.length && [...a].sort((x, y) => x - y).every((x, i) => same(x, [...b].sort((p, q) => p - q)[i]!));

/** The read row a tier's condition words name: the row whose whole condition path its `when` says, the longest such. */
function rowOfTier(when: string[], rows: ReadRow[]): ReadRow[] {
  const says = (w: string) => when.some((x) => sameWords(x, w));
  const matching = rows.filter((r) => r.path.every(says));
  const longest = Math.max(-1, ...matching.map((r) => r.path.length));
  return matching.filter((r) => r.path.length === longest);
}

function checkTable(t: SectionTables, sv: StandardVocab, key: string, unit: UnitKind, rv: RuleValue, quote: string, reading: Reading | null): string | null {
  const pieces = quoteParts(quote);
  const candidates = rowsOfStandard(t, sv);
  const headPiece = pieces[0]!;
  const first = candidates.find((c) => c.head.seg.text === headPiece);
  if (!first) {
    const row = t.rows.find((r) => r.seg.text === headPiece);
    const labels = candidates.map((c) => `"${c.head.seg.label}"`);
    if (!row) return `the quote's first part "${headPiece}" is not a whole row of the section's tables (a row is its label and its value cells)`;
    const standardsRow = `the rows that state ${key} here: ${labels.length ? labels.join(', ') : 'none'}`;
    if (row.parent) return `the quote starts at the sub-row "${row.seg.text}", not at the row that names ${key} (${standardsRow})`;
    if (sv.block) {
      const b = blockOf(t, row.seg, sv.block.family);
      if (b && sv.block.refuse.test(b.label) && sv.labels.some((re) => re.test(row.seg.label)))
        return `the row "${row.seg.text}" sits under "${b.label}", not a row of ${key} (${standardsRow})`;
    }
    return `the row "${row.seg.text}" is not the row of ${key}: its label is not ${key}'s (${standardsRow})`;
  }
  // The entry: every row of the same table that states the standard.
  const entry = candidates.filter((c) => c.head.seg.table === first.head.seg.table);
  const entryRows = new Set<TableRow>();
  const addAll = (r: TableRow) => {
    entryRows.add(r);
    r.children.forEach(addAll);
  };
  entry.forEach((e) => addAll(e.head));
  // Each part of the quote is a whole row of the entry, in order: an elision never crosses into another row.
  const ordered = [...entryRows].sort((a, b) => a.seg.index - b.seg.index);
  const quoted = new Set<TableRow>();
  let after = -1;
  for (const p of pieces) {
    const r = ordered.find((x) => x.seg.text === p && x.seg.index > after && !quoted.has(x));
    if (!r) {
      const elsewhere = t.rows.find((x) => x.seg.text === p);
      return elsewhere
        ? `the quote's part "${p}" is a row outside "${first.head.seg.label}": an elision may only leave out words between rows of the standard's own row and its sub-rows`
        : `the quote's part "${p}" is not a whole row of the table (label and value cells): an elision may not cut into a row`;
    }
    quoted.add(r);
    after = r.seg.index;
  }
  const { rows, optional } = readRowsOf(entry, sv, unit, reading);
  if (reading && ![...rows, ...optional].some((r) => r.byReading))
    return `the value states a reading, but no row it reads gives two numbers under one bound: a reading settles only such a row`;
  const requireQuoted = (r: TableRow): string | null => {
    for (let x: TableRow | null = r; x; x = x.parent) if (!quoted.has(x)) return `the quote leaves out the row "${x.seg.text}"`;
    return null;
  };
  if (!rv.tiers) {
    if (rv.value === undefined || rv.value === null) return null;
    if (rows.length !== 1) {
      const conds = rows.map((r) => (r.path.length ? r.path.join(' > ') : 'otherwise')).join('; ');
      return `the table states ${key} under ${rows.length} conditions (${conds}): the value ${fmt(rv.value, unit)} needs a tier for each`;
    }
    const r = rows[0]!;
    if (r.why) return r.why;
    const q = requireQuoted(r.row);
    if (q) return q;
    if (r.numbers.length !== 1) return `"${r.row.seg.text}" gives a choice (${r.numbers.join(' or ')}), not one value`;
    if (!same(r.numbers[0]!, rv.value))
      return `the value ${fmt(rv.value, unit)} is not the number "${r.row.seg.text}" states for the ${boundWord(sv.bound)} (${fmt(r.numbers[0]!, unit)})`;
    return null;
  }
  // Tiers: each reads the row its own condition words name; every condition the table states has one.
  if (rows.length === 1 && rows[0]!.path.length === 0 && rv.tiers.length)
    return `"${rows[0]!.row.seg.text}" states ${key} under no condition: it is a value, not a tier (${rv.tiers.map((t) => t.when.join(' and ')).join('; ')})`;
  const read = new Map<ReadRow, number>();
  const all = [...rows, ...optional];
  for (const [i, tier] of rv.tiers.entries()) {
    const hits = rowOfTier(tier.when, all);
    const label = `tier ${i + 1} (${tier.when.join(' and ') || 'always'})`;
    if (hits.length === 0) return `${label} names no row of "${first.head.seg.label}"`;
    if (hits.length > 1) return `${label} does not say which row it reads: ${hits.map((h) => `"${h.row.seg.text}"`).join(', ')}`;
    const r = hits[0]!;
    if (r.why) return `${label}: ${r.why}`;
    if (read.has(r)) return `${label} reads the row "${r.row.seg.text}" that tier ${read.get(r)! + 1} reads`;
    read.set(r, i);
    const q = requireQuoted(r.row);
    if (q) return `${label}: ${q}`;
    const nums = tierNumbers(tier.values, rv.scale ?? 1);
    if (!nums) return `${label} states ${tier.values.join(' | ')}, not the number(s) of the row "${r.row.seg.text}"`;
    if (r.numbers.length > 1 && tier.pick) return `${label} picks the ${tier.pick} of "${r.row.seg.text}", which gives a choice in words`;
    if (!sameList(nums, r.numbers))
      return `${label}: ${nums.map((n) => fmt(n, unit)).join(' or ')} is not what its condition's row "${r.row.seg.text}" states (${r.numbers.map((n) => fmt(n, unit)).join(' or ')})`;
  }
  for (const r of rows)
    if (!read.has(r))
      return `the row "${r.row.seg.text}"${r.path.length ? ` (${r.path.join(' > ')})` : ''} also states ${key}${r.why ? ` (${r.why})` : ''}, and no tier reads it`;
  return null;
}

// ---------------------------------------------------------------------------------------------
// Sentences.

/** A range a sentence states in the unit ("four to six dwelling units", "4 to 10 units"), or null. */
export function proseRange(text: string, unit: UnitKind): [number, number] | null {
  const ns = numbersIn(text, { words: true });
  for (let i = 0; i + 1 < ns.length; i++) {
    const a = ns[i]!;
    const b = ns[i + 1]!;
    if (!/^\s*(?:\(\d+\)\s*)?(?:to|through|-)\s*$/i.test(text.slice(a.end, b.start))) continue;
    if (
      unitFollows(text.slice(b.end).replace(/^\s*\(\d+\)/, ''), unit) &&
      (UNIT_RULES[unit].words?.test(text.slice(b.end).replace(/^\s*\(\d+\)/, '')) ?? false)
    )
      return [a.value, b.value];
  }
  return null;
}

/** The number a sentence states for a standard: the one nearest the standard's words, a range giving the bound's end. */
export function proseValue(text: string, sv: StandardVocab, unit: UnitKind): { value: number; label: string } | { why: string } {
  const label = sv.prose.exec(text);
  if (!label) return { why: `the quote does not name the standard (its words: ${sv.prose.source})` };
  const stated = statedWithUnit(text, unit, { words: true, prose: true });
  if (stated.length === 0) return { why: `the quote states no number in the unit (${unitLabel(unit).trim()})` };
  const at = label.index;
  const nearest = [...stated].sort((a, b) => Math.abs(a.start - at) - Math.abs(b.start - at) || b.start - a.start)[0]!;
  const range = proseRange(text.slice(Math.max(0, nearest.start - 40), nearest.end + 40), unit);
  const inRange = range && (same(range[0], nearest.value) || same(range[1], nearest.value));
  // A sentence states a bound in words ("shall not exceed", "a minimum of") next to the standard's words
  // and its number (not elsewhere in the sentence), or as a range's end ("four to six").
  const lo = Math.min(at, nearest.start);
  const hi = Math.max(at + label[0].length, nearest.end);
  const SEP = /, |; | and |\. /g;
  let from = 0;
  for (const m of text.slice(0, lo).matchAll(SEP)) from = m.index + m[0].length;
  const next = text.slice(hi).search(SEP);
  const clause = text.slice(from, next < 0 ? Math.min(text.length, hi + 30) : Math.min(hi + next, hi + 30));
  if (!inRange && !BOUND_WORDS[sv.bound].test(clause))
    return {
      why: `the quote does not say that ${fmt(nearest.value, unit)} is a ${boundWord(sv.bound)} (no words such as "${sv.bound === 'max' ? 'maximum' : 'minimum'}", "${sv.bound === 'max' ? 'exceed' : 'at least'}", nor a range)`,
    };
  const value = inRange ? (sv.bound === 'min' ? range[0] : range[1]) : nearest.value;
  return { value, label: label[0] };
}

function checkProse(sv: StandardVocab, key: string, unit: UnitKind, rv: RuleValue, quote: string): string | null {
  const text = quoteParts(quote).join(' … ');
  if (rv.tiers) {
    const stated = statedWithUnit(text, unit, { words: true, prose: true });
    if (!sv.prose.test(text)) return `the quote does not name ${key} (its words: ${sv.prose.source})`;
    for (const n of tierNumbers(
      rv.tiers.flatMap((t) => t.values),
      rv.scale ?? 1,
    ) ?? [])
      if (!stated.some((s) => same(s.value, n))) return `the value ${fmt(n, unit)} is not written in the quote`;
    return null;
  }
  // A value with no number (no_limit_in_bylaw): the sentence names the standard.
  if (rv.value === undefined || rv.value === null) return sv.prose.test(text) ? null : `the quote does not name ${key} (its words: ${sv.prose.source})`;
  const r = proseValue(text, sv, unit);
  if ('why' in r) return r.why.replace('the standard', key);
  if (!same(r.value, rv.value)) {
    const written = statedWithUnit(text, unit, { words: true, prose: true }).some((s) => same(s.value, rv.value!));
    return written
      ? `the value ${fmt(rv.value, unit)} is not the number the quote states for ${key} (${fmt(r.value, unit)}, nearest its words "${r.label}")`
      : `the value ${fmt(rv.value, unit)} is not written in the quote (it states ${fmt(r.value, unit)} for ${key})`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Uses.

function checkUse(vocab: Vocabulary, u: UseRule, quote: string): string | null {
  const text = normalizeForMatch(quoteParts(quote).join(' … '));
  if (u.permission === 'unknown') return 'a cited use states its permission (as_of_right, special_permit, conditional or prohibited), not unknown';
  const name = u.use.includes(':') ? u.use.slice(u.use.indexOf(':') + 1).trim() : u.use;
  const esc = normalizeForMatch(name)
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/ /g, '\\s+');
  if (!new RegExp(`(?<![\\p{L}\\p{N}-])${esc}(?:e?s)?(?![\\p{L}\\p{N}-])`, 'iu').test(text)) return `the quote does not name the use "${name}"`;
  const own = vocab.permissions[u.permission];
  if (!own.some((re) => re.test(text))) return `the quote does not say ${u.permission} (its words: ${own.map((r) => r.source.replace(/\\b/g, '')).join(', ')})`;
  for (const [p, res] of Object.entries(vocab.permissions)) {
    if (p === u.permission) continue;
    const hit = res.map((re) => re.exec(text)).find(Boolean);
    if (hit) return `the quote says "${hit[0]}" (${p}), not ${u.permission}`;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------

export interface Held {
  /** The document of an id, or why it cannot be read. */
  get(id: string): HeldDocument | string;
}

/** Checks one cited item against the place's held documents; why it fails, or null. */
export function checkItem(held: Held, vocab: Vocabulary, item: CitedItem): string | null {
  const c = item.citation;
  const doc = held.get(c.document);
  if (typeof doc === 'string') return doc;
  const section = findSection(doc, c.section);
  if (!section) return `section ${c.section} is not a section of ${doc.declaration.id} (${doc.declaration.title})`;
  const scope = checkScope(doc, item, section);
  if (scope) return scope;
  const found = findIn(doc, section, c);
  if ('why' in found) return found.why;
  const kind = quoteKind(doc, found.parts);
  if (typeof kind !== 'string') return kind.why;
  if (item.use) return checkUse(vocab, item.use, c.quote);
  if (!item.value || !item.unit) return null;
  const key = item.item as BuildingTypeStandardKey;
  const sv = vocab.standards[key];
  let reading: Reading | null = null;
  const rd = item.value.reading;
  if (rd) {
    const sdoc = held.get(rd.support.document);
    if (typeof sdoc === 'string') return `the reading's support: ${sdoc}`;
    const ss = findSection(sdoc, rd.support.section);
    if (!ss) return `the reading's support: section ${rd.support.section} is not a section of ${sdoc.declaration.id}`;
    const sScope = checkScope(sdoc, item, ss);
    if (sScope) return `the reading's support: ${sScope}`;
    const sFound = findIn(sdoc, ss, rd.support);
    if ('why' in sFound) return `the reading's support: ${sFound.why}`;
    const sKind = quoteKind(sdoc, sFound.parts);
    if (typeof sKind !== 'string') return `the reading's support: ${sKind.why}`;
    reading = { columns: rd.columns, range: proseRange(quoteParts(rd.support.quote).join(' … '), item.unit) };
  }
  if (kind === 'table') {
    const t = sectionTables(doc, section, vocab);
    return checkTable(t, sv, key, item.unit, item.value, c.quote, reading);
  }
  if (reading) return 'a reading settles a table row with two numbers; this quote is a sentence';
  return checkProse(sv, key, item.unit, item.value, c.quote);
}

/** The held documents of a place, read from `placeRoot` (missing or changed documents fail every citation into them). */
export async function readHeld(
  documents: readonly DocumentDeclaration[],
  placeRoot: string | null,
  docs: HeldDocuments = readDocuments,
): Promise<{ held: Held; reports: VerifyReport['documents'] }> {
  const byId = new Map<string, HeldDocument | string>();
  const reports: VerifyReport['documents'] = [];
  for (const d of documents) {
    if (!placeRoot) {
      const why = 'no source directory is configured (SITELINE_SOURCE_DIR), so the document cannot be read';
      byId.set(d.id, why);
      reports.push({ id: d.id, title: d.title, sha256: d.sha256, ok: false, why });
      continue;
    }
    try {
      byId.set(d.id, await docs.read(placeRoot, d));
      reports.push({ id: d.id, title: d.title, sha256: d.sha256, ok: true });
    } catch (e) {
      if (!(e instanceof DocumentError)) throw e;
      byId.set(d.id, e.message);
      reports.push({ id: d.id, title: d.title, sha256: d.sha256, ok: false, why: e.message });
    }
  }
  return { held: { get: (id) => byId.get(id) ?? `document ${id} is not declared in the manifest's documents` }, reports };
}

/** One cited item checked, as a report line names it (district, building type, item, document, section). */
export function checkOne(held: Held, vocab: Vocabulary, c: CitedItem): CitationCheck {
  const base = {
    district: c.district,
    ...(c.buildingType ? { buildingType: c.buildingType } : {}),
    item: c.item,
    status: c.status,
    document: c.citation.document,
    section: c.citation.section,
    quote: c.citation.quote,
  };
  const why = checkItem(held, vocab, c);
  return why ? { ...base, ok: false, why } : { ...base, ok: true };
}

/** Checks every citation of a rules file with the held documents already read. */
export function checkRules(rules: PlaceRules, held: Held, only?: (item: CitedItem) => boolean): CitationCheck[] {
  const vocab = vocabularyOf(rules);
  const checks: CitationCheck[] = [];
  for (const c of citationsOfRules(rules)) if (!only || only(c)) checks.push(checkOne(held, vocab, c));
  return checks;
}

/**
 * Verifies every citation of a place's rules against the documents its manifest declares, read from
 * `placeRoot`. Documents that are missing or whose digest changed fail every citation into them.
 */
export async function verifyRulesCitations(
  rules: PlaceRules,
  documents: readonly DocumentDeclaration[],
  placeRoot: string | null,
  docs: HeldDocuments = readDocuments,
): Promise<VerifyReport> {
  const { held, reports } = await readHeld(documents, placeRoot, docs);
  const checks = checkRules(rules, held);
  const failures = checks.filter((c) => !c.ok);
  return { place: rules.slug, documents: reports, checked: checks.length, verified: checks.length - failures.length, failures, checks };
}

/** One line per failed citation: value, district, document, section, why. */
export function describeFailures(r: Pick<VerifyReport, 'failures'>, max = 50): string {
  const lines = r.failures.slice(0, max).map((f) => `  ${describeCheck(f)}`);
  if (r.failures.length > max) lines.push(`  ... and ${r.failures.length - max} more`);
  return lines.join('\n');
}

export function describeCheck(f: CitationCheck): string {
  return `${f.district}${f.buildingType ? ` / ${f.buildingType}` : ''} ${f.item} (${f.status}): ${f.document} § ${f.section}: ${f.why}`;
}
