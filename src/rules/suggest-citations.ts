// Finds candidate passages for a citation in a place's held documents: the sections that name the
// district or building type, and in them the rows of dimensional tables (flattened to text, keyed on
// their labels, never on column positions) and the sentences that carry a standard's usual labels.
// `siteline rules suggest` prints them; `siteline rules cite` writes one after verifying it.
import { BUILDING_TYPE_STANDARD_UNITS, type BuildingTypeStandardKey } from '../core/rules-schema.ts';
import { normalizeForMatch, type DocumentSection, type HeldDocument } from './held-documents.ts';

/** The labels an ordinance usually gives a standard (lower case, matched as words of a table cell or sentence). */
export const STANDARD_LABELS: Record<BuildingTypeStandardKey, { label: RegExp; bound?: 'min' | 'max' }> = {
  maxHeightFt: { label: /\b(?:building )?height(?:, feet)?\b(?! of)/i, bound: 'max' },
  maxHeightStoreys: { label: /\bnumber of stories\b|\bstor(?:e)?ys\b/i, bound: 'max' },
  minHeightStoreys: { label: /\bnumber of stories\b/i, bound: 'min' },
  maxFar: { label: /\bfloor area ratio\b|\bFAR\b/i, bound: 'max' },
  minLotAreaSqft: { label: /\blot area\b|\blot size\b/i, bound: 'min' },
  minLotAreaPerUnitSqft: { label: /\blot area per (?:dwelling )?unit\b|\bdensity factor\b/i, bound: 'min' },
  minLotWidthFt: { label: /\blot width\b|\blot frontage\b/i, bound: 'min' },
  minLotDepthFt: { label: /\blot depth\b/i, bound: 'min' },
  minFrontYardFt: { label: /\bprimary front setback\b|\bfront (?:yard|setback)\b/i, bound: 'min' },
  maxFrontYardFt: { label: /\bprimary front setback\b|\bfront (?:yard|setback)\b/i, bound: 'max' },
  minStreetSideYardFt: { label: /\bsecondary front setback\b|\bstreet side (?:yard|setback)\b/i, bound: 'min' },
  maxStreetSideYardFt: { label: /\bsecondary front setback\b/i, bound: 'max' },
  minSideYardFt: { label: /^side setback\b|\bside yard\b/i, bound: 'min' },
  minSideYardSumFt: { label: /\bsum of side setbacks\b|\bcombined side yards?\b/i, bound: 'min' },
  minRearYardFt: { label: /\brear (?:setback|yard)\b/i, bound: 'min' },
  maxLotCoveragePct: { label: /\blot coverage\b/i, bound: 'max' },
  minOpenSpacePct: { label: /\bopen space\b/i, bound: 'min' },
  maxDensityUnitsPerAcre: { label: /\bunits per acre\b|\bdensity\b/i, bound: 'max' },
  maxUnitsPerLot: { label: /\bdwelling units\b/i, bound: 'max' },
  maxUnitsPerBuilding: { label: /\bdwelling units\b/i, bound: 'max' },
  minGreenScore: { label: /\bgreen score\b/i, bound: 'min' },
};

export interface TableEntry {
  /** The row's label as the table writes it ("Lot Width (min)"). */
  label: string;
  /** The value cells that follow the label ("10 ft", "20 ft"), or the sub-rows when the cell is a dash. */
  values: string[];
  subRows: { label: string; values: string[] }[];
  /** The quote that carries the entry: label and values, sub-rows joined with "…". */
  quote: string;
  /** Line of the label in the document (1-based). */
  line: number;
}

export interface Candidate {
  section: string;
  heading: string;
  line: number;
  quote: string;
  kind: 'table' | 'text';
  entry?: TableEntry;
}

const VALUE = /^(?:[<>]=?\s*)?(?:\d[\d,]*(?:\.\d+)?|\.\d+)\s*(?:ft|feet|%|sf|sq\.? ?ft|stories|storeys|units?)?(?:\/DU)?$|^(?:none|n\/a)$/i;
const DASH = /^(?:[–—-]|--)$/;
const isLabel = (cell: string) => /[A-Za-z]{3}/.test(cell) && !/^\[Image/.test(cell) && !VALUE.test(cell);

interface Cell {
  text: string;
  line: number;
}

/** A section's table cells in reading order (rows top to bottom, cells left to right), empty ones left out. */
function tableCells(doc: HeldDocument, s: DocumentSection): Cell[] {
  const body = doc.text.slice(s.start, s.end);
  const firstLine = doc.text.slice(0, s.start).split('\n').length;
  const out: Cell[] = [];
  body.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line.startsWith('|') || /^\|(?:\s*-+\s*\|)+$/.test(line)) return;
    for (const c of line.split('|').slice(1, -1)) {
      const text = c.trim();
      if (text) out.push({ text, line: firstLine + i });
    }
  });
  return out;
}

/**
 * The labelled entries of a section's tables. A label is followed by its value cells; a dash in the
 * value cell opens sub-rows, which are the next labels not yet taken by an earlier dash whose values
 * follow them (a flattened two-column table interleaves the columns' sub-rows, so each dash takes the
 * first free sub-rows after it, as many as the table gives before the next main label of its column).
 */
export function tableEntries(doc: HeldDocument, s: DocumentSection): TableEntry[] {
  const cells = tableCells(doc, s);
  const entries: TableEntry[] = [];
  const taken = new Set<number>();
  const valuesAfter = (i: number) => {
    const vals: string[] = [];
    for (let j = i + 1; j < cells.length && (VALUE.test(cells[j]!.text) || DASH.test(cells[j]!.text)); j++) vals.push(cells[j]!.text);
    return vals;
  };
  const SUB = /^(?:No Driveway Access|Side or Rear Driveway Access|Front Driveway Access|Minimum|Ideal|Alley or R-ROW|No Alley(?: & Abutting NR or LHD)?|Surface Parking|Structured Parking|Party Lot Line|Side Lot Line|Primary Front|Secondary Front|Lot Area [<>]=? ?[\d,]+ sf|Abutting an Alley or R-ROW|Abutting any non-NR or -LHD|\d+ ?(?:st|nd|rd|th)(?: [–-] \d+ ?(?:st|nd|rd|th))? Story Abutting NR or LHD)$/i;
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!;
    if (!isLabel(c.text) || SUB.test(c.text) || taken.has(i)) continue;
    const values = valuesAfter(i);
    if (values.length === 0) continue;
    const subRows: TableEntry['subRows'] = [];
    if (DASH.test(values[0]!)) {
      const names = new Set<string>();
      for (let j = i + 2; j < cells.length && subRows.length < 5; j++) {
        const sc = cells[j]!;
        if (taken.has(j) || !SUB.test(sc.text) || names.has(sc.text.toLowerCase())) continue;
        const sv = valuesAfter(j).filter((v) => !DASH.test(v));
        if (sv.length === 0) continue;
        // A sub-row family is one kind: driveway access, green score, alley, parking, lot lines, fronts.
        if (subRows.length && family(sc.text) !== family(subRows[0]!.label)) continue;
        taken.add(j);
        names.add(sc.text.toLowerCase());
        subRows.push({ label: sc.text, values: sv });
      }
    }
    const head = `${c.text} | ${values.join(' | ')}`;
    const quote = subRows.length ? [head, ...subRows.map((r) => `${r.label} | ${r.values.join(' | ')}`)].join(' … ') : head;
    entries.push({ label: c.text, values: DASH.test(values[0]!) ? [] : values, subRows, quote, line: c.line });
  }
  return entries;
}

function family(label: string): string {
  if (/driveway/i.test(label)) return 'driveway';
  if (/^(?:minimum|ideal)$/i.test(label)) return 'score';
  if (/abutting/i.test(label)) return 'abutting';
  if (/alley/i.test(label)) return 'alley';
  if (/parking/i.test(label)) return 'parking';
  if (/lot line/i.test(label)) return 'lotline';
  if (/front$/i.test(label)) return 'front';
  return 'lotarea';
}

/** Sections whose heading names the district or building type (by code, name or number). */
export function sectionsNaming(doc: HeldDocument, name: string): DocumentSection[] {
  const want = normalizeForMatch(name).toLowerCase();
  return doc.sections.filter((s) => s.id === name || normalizeForMatch(s.heading).toLowerCase().includes(want) || new RegExp(`\\(${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`).test(s.heading.toLowerCase()));
}

/** Candidate passages for a standard in the named sections (table rows first, then sentences). */
export function suggestCitations(doc: HeldDocument, opts: { within: string; standard: BuildingTypeStandardKey | null }): Candidate[] {
  const out: Candidate[] = [];
  const label = opts.standard ? STANDARD_LABELS[opts.standard].label : null;
  const roots = sectionsNaming(doc, opts.within);
  const seen = new Set<string>();
  for (const root of roots) {
    // The root and its subsections.
    const inside = doc.sections.filter((s) => s.start >= root.start && s.start < root.end);
    for (const s of inside) {
      for (const e of tableEntries(doc, s)) {
        if (label && !label.test(e.label)) continue;
        const key = `${s.id}|${e.quote}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ section: s.id, heading: s.heading, line: e.line, quote: e.quote, kind: 'table', entry: e });
      }
      if (!label) continue;
      const body = doc.text.slice(s.start, s.end);
      const firstLine = doc.text.slice(0, s.start).split('\n').length;
      body.split('\n').forEach((l, i) => {
        if (l.trim().startsWith('|')) return;
        for (const sentence of l.split(/(?<=[.;])\s+(?=[A-Z0-9])/)) {
          if (!label.test(sentence) || !/\d/.test(sentence)) continue;
          const quote = sentence.trim().slice(0, 400);
          const key = `${s.id}|${quote}`;
          if (seen.has(key)) continue;
          seen.add(key);
          out.push({ section: s.id, heading: s.heading, line: firstLine + i, quote, kind: 'text' });
        }
      });
    }
  }
  return out;
}

export const UNITS_OF = BUILDING_TYPE_STANDARD_UNITS;
