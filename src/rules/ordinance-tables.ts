// The tables of a held document's section as rows a citation can be checked against. An ordinance's
// dimensional tables often reach us flattened from multi-column HTML (Somerville's two-panel tables:
// "Lot Standards" left, "Building Placement" right, interleaved line by line, cells shifted by a
// column here and there). So a row is read by its label, never by its position:
//  - a segment is a label cell and the value cells that follow it on its line ("Lot Width (min) | –",
//    "Primary Front Setback 1 (min/max) | 10 ft | 20 ft"); a line can hold two (one per panel);
//  - a panel (column) is told by where the label sits: the first three cells are the left panel;
//  - a sub-row is a segment whose label is a condition of a known family ("No Driveway Access",
//    "Abutting an Alley or R-ROW"); it belongs to the nearest row above it in its own panel that can
//    take it (a "–" row or a labelled row), a sub-row with a "–" opening a nested level
//    ("End Lot in Sequence | –" then "No Driveway Access | 29 ft");
//  - a heading is a label with no value ("Building Setbacks", "Parking Setbacks").
import { normalizeForMatch, type DocumentSection, type HeldDocument } from './held-documents.ts';
import { conditionFamily, type Vocabulary } from './citation-vocabulary.ts';

export interface Segment {
  label: string;
  /** The value cells as written ("32 ft", "–", "3 or 20 ft"). */
  values: string[];
  /** 1-based line in the document. */
  line: number;
  /** 0 = left panel (label in the first three cells), 1 = right. */
  panel: 0 | 1;
  /** Order in the section. */
  index: number;
  /** The segment as a quote piece, normalised: "Label | v1 | v2". */
  text: string;
  /** Which table of the section (0-based). */
  table: number;
}

export interface TableRow {
  seg: Segment;
  /** Null for a row of its own (a head); the row it is a sub-row of otherwise. */
  parent: TableRow | null;
  children: TableRow[];
  /** The condition family of a sub-row (null for a head). */
  family: string | null;
}

export interface SectionTables {
  segments: Segment[];
  heads: TableRow[];
  /** Every row, heads and sub-rows, in section order. */
  rows: TableRow[];
  /** Labels with no value: headings ("Building Setbacks"), and rows whose value cell is empty. */
  headings: Segment[];
}

const DASH = /^(?:[–—-]|--)$/;
const IMAGE = /^\[Image \d+/;
const NUM = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+`;
const UNIT = String.raw`(?:ft\.?|feet|%|sf|sq\.? ?ft|stories|storeys|units?|\/DU)`;
/** A value cell: a number with its unit, a choice ("3 or 20 ft"), a comparison, "none" or "n/a". */
const VALUE = new RegExp(String.raw`^(?:[<>]=?\s*)?(?:${NUM})\s*${UNIT}?(?:\s+(?:or|to|-|–)\s+(?:${NUM})\s*${UNIT}?)*$|^(?:none|n\/a)$`, 'i');
/** A range in one cell ("4 to 6 units"): its ends are the minimum and the maximum. */
export const RANGE_CELL = new RegExp(String.raw`^\s*(${NUM})\s*${UNIT}?\s+(?:to|-|–)\s+(${NUM})\s*${UNIT}?\s*$`, 'i');

export const isDash = (cell: string) => DASH.test(cell.trim());
export const isValueCell = (cell: string) => VALUE.test(cell.trim()) || isDash(cell);

/** A label cell: words, not an image placeholder, not a value. */
function isLabelCell(cell: string): boolean {
  return /[A-Za-z]{2}/.test(cell) && !IMAGE.test(cell) && !isValueCell(cell);
}

const cache = new WeakMap<HeldDocument, Map<string, SectionTables>>();

/** The section's tables read into rows (cached per document and section). */
export function sectionTables(doc: HeldDocument, s: DocumentSection, vocab: Vocabulary): SectionTables {
  let perDoc = cache.get(doc);
  if (!perDoc) {
    perDoc = new Map();
    cache.set(doc, perDoc);
  }
  const key = `${s.start}:${s.end}:${vocabKey(vocab)}`;
  let t = perDoc.get(key);
  if (!t) {
    t = readTables(doc, s, vocab);
    perDoc.set(key, t);
  }
  return t;
}

const vocabKeys = new WeakMap<Vocabulary, string>();
let nextVocab = 0;
function vocabKey(v: Vocabulary): string {
  let k = vocabKeys.get(v);
  if (!k) {
    k = `v${nextVocab++}`;
    vocabKeys.set(v, k);
  }
  return k;
}

function readTables(doc: HeldDocument, s: DocumentSection, vocab: Vocabulary): SectionTables {
  const body = doc.text.slice(s.start, s.end);
  const firstLine = doc.text.slice(0, s.start).split('\n').length;
  const segments: Segment[] = [];
  const headings: Segment[] = [];
  let table = -1;
  let inTable = false;
  body.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line.startsWith('|')) {
      inTable = false;
      return;
    }
    if (!inTable) {
      table++;
      inTable = true;
    }
    if (/^\|(?:\s*:?-+:?\s*\|)+$/.test(line)) return;
    // Markdown rows close with "|"; an HTML page's text rows (held-documents.ts) do not.
    const cells = line
      .split('|')
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .map((c) => c.trim());
    for (let c = 0; c < cells.length; c++) {
      if (!isLabelCell(cells[c]!)) continue;
      const values: string[] = [];
      let j = c + 1;
      for (; j < cells.length && isValueCell(cells[j]!); j++) values.push(cells[j]!);
      const label = cells[c]!;
      const seg: Segment = {
        label,
        values,
        line: firstLine + i,
        panel: c <= 2 ? 0 : 1,
        index: segments.length + headings.length,
        text: normalizeForMatch([label, ...values].join(' | ')),
        table,
      };
      if (values.length) segments.push(seg);
      else headings.push(seg);
      c = j - 1;
    }
  });
  // Rows: heads and sub-rows, panel by panel, in reading order.
  const rows: TableRow[] = [];
  const heads: TableRow[] = [];
  const chains: TableRow[][] = [];
  const all = [...segments, ...headings].sort((a, b) => a.index - b.index);
  let lastTable = -1;
  for (const seg of all) {
    if (seg.table !== lastTable) {
      chains.length = 0;
      lastTable = seg.table;
    }
    const chain = (chains[seg.panel] ??= []);
    const family = seg.values.length ? conditionFamily(vocab, seg.label) : null;
    if (!seg.values.length) {
      // A heading (or a row whose value cell is empty) closes the rows above it in its panel.
      if (!family) chain.length = 0;
      continue;
    }
    const row: TableRow = { seg, parent: null, children: [], family };
    if (!family) {
      chain.length = 0;
      chain.push(row);
      heads.push(row);
      rows.push(row);
      continue;
    }
    // A sub-row: the nearest row above it in its panel that can take it.
    let placed = false;
    while (chain.length) {
      const top = chain[chain.length - 1]!;
      if (top.family === family) {
        chain.pop();
        continue;
      }
      const opens = top.parent === null || isDash(top.seg.values[0]!);
      const dup = top.children.some((c) => normalizeForMatch(c.seg.label).toLowerCase() === normalizeForMatch(seg.label).toLowerCase());
      const otherFamily = top.children.some((c) => c.family !== family);
      if (opens && !dup && !otherFamily) {
        row.parent = top;
        top.children.push(row);
        chain.push(row);
        rows.push(row);
        placed = true;
        break;
      }
      chain.pop();
    }
    if (!placed) {
      // A sub-row no row above can take (a shifted cell): it stands alone, and is cited by no one.
      rows.push(row);
    }
  }
  return { segments, heads, rows, headings };
}

/** The nearest heading before a segment whose label matches the family (e.g. "Building Setbacks" / "Parking Setbacks"). */
export function blockOf(t: SectionTables, seg: Segment, family: RegExp): Segment | null {
  let best: Segment | null = null;
  for (const h of t.headings) if (h.table === seg.table && h.index < seg.index && family.test(normalizeForMatch(h.label))) best = h;
  return best;
}

/** A row's path of condition labels from its head down (the head's own label excluded). */
export function conditionPath(r: TableRow): string[] {
  const path: string[] = [];
  for (let x: TableRow | null = r; x?.parent; x = x.parent) path.unshift(x.seg.label);
  return path;
}

/** The leaves under a row (itself when it has no sub-rows). */
export function leaves(r: TableRow): TableRow[] {
  return r.children.length ? r.children.flatMap(leaves) : [r];
}
