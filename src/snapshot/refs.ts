// The last step of the snapshot pipeline: provenance by reference. The envelope is built with a
// citation object on each value and its notes written out in full; the snapshot defines each
// citation, each shared note and each named source once, and the values name them by id:
//   citation -> snapshot.citations[id]   (c1, c2, ... in order of first use)
//   a note several values share -> snapshot.notes[id] (n1, ...), named in the value's `notes`
//   a condition several values share -> snapshot.notes[id], named in the value's `conditionNote`
//   a source a text names ("S1") -> snapshot.sources[id] (the text itself is the reference; its label
//   there, the rest in the place's source catalogue)
// Nothing is dropped: every value keeps its status, condition and a way to each of its sources.
import type { Citation, Lot, PermittedUse, SnapshotUse, SnapshotValue, Sourced, SourceRef, ZoneShare } from '../core/snapshot-types.ts';
import type { WordedValue } from '../core/value-words.ts';

/** The documents a place's notes name by id (the rules file's `sources`). */
export type NamedSources = Record<string, { name: string; vintage: string; url: string }>;

const SOURCE_ID = /\bS\d{1,3}\b/g;

export interface ReferencedParts {
  envelope: Record<string, SnapshotValue>;
  permittedUses: SnapshotUse[];
  citations: Record<string, Citation>;
  notes: Record<string, string>;
  /** Ids of the named documents any of the texts (values, uses, warnings) mention, in id order. */
  namedSourceIds: string[];
}

/** Ids of `named` mentioned in the texts, in order of first mention. */
export function sourceIdsIn(texts: readonly (string | undefined)[], named: NamedSources): string[] {
  const out = new Set<string>();
  for (const t of texts) if (t) for (const id of idsMentioned(t)) if (named[id]) out.add(id);
  return [...out];
}

// Hot path (every snapshot scans ~7 KB of note text): the values' texts are the rules file's notes
// and conditions, so the ids a text mentions are kept per text. A snapshot's warnings are scanned
// but not kept (keep false): many are the lot's own (its area, the caller's address), and keeping
// them filled the table with entries that outlive the request. Bounded: a full table is dropped.
const MENTIONS_MAX = 4_096;
const mentions = new Map<string, readonly string[]>();
function idsMentioned(text: string, keep = true): readonly string[] {
  let ids = mentions.get(text);
  if (!ids) {
    ids = Array.from(text.matchAll(SOURCE_ID), (m) => m[0]);
    if (!keep) return ids;
    if (mentions.size >= MENTIONS_MAX) mentions.clear();
    mentions.set(text, ids);
  }
  return ids;
}

// The identity of a citation (what two values must share to name one entry), kept per citation
// object: the envelope passes the rules file's own citation objects, loaded once per rules generation.
// The fields are compared on each use (cheap), so a changed object is keyed afresh.
interface KeyedCitation {
  key: string;
  document: string;
  section: string;
  quote: string;
  sourceUrl: string;
  date: string;
}
const citationKeys = new WeakMap<Citation, KeyedCitation>();
function citationKey(c: Citation): string {
  const k = citationKeys.get(c);
  if (k && k.document === c.document && k.section === c.section && k.quote === c.quote && k.sourceUrl === c.sourceUrl && k.date === c.date) return k.key;
  const key = JSON.stringify([c.document, c.section, c.quote, c.sourceUrl, c.date]);
  citationKeys.set(c, { key, document: c.document, section: c.section, quote: c.quote, sourceUrl: c.sourceUrl, date: c.date });
  return key;
}

/**
 * One snapshot's reference tables while they are built: citations and shared notes get ids in
 * order of first use, the named documents the texts mention are collected. Methods, not closures:
 * this runs on every snapshot, and under tsx (esbuild keepNames) each named closure made per call
 * costs a defineProperty.
 */
class RefTables {
  // Entries, made into objects at the end (see referenceProvenance).
  readonly citations: [string, Citation][] = [];
  readonly notes: [string, string][] = [];
  readonly mentioned = new Set<string>();
  private readonly citationIds = new Map<string, string>();
  private readonly noteIds = new Map<string, string>();
  /** How many values and uses write each note or condition: two or more share one entry. */
  private readonly uses = new Map<string, number>();

  constructor(private readonly named: NamedSources) {}

  count(t: string | undefined): void {
    if (t) this.uses.set(t, (this.uses.get(t) ?? 0) + 1);
  }

  citationId(c: Citation): string {
    const key = citationKey(c);
    let id = this.citationIds.get(key);
    if (!id) {
      id = `c${this.citationIds.size + 1}`;
      this.citationIds.set(key, id);
      this.citations.push([id, { ...c }]);
    }
    return id;
  }

  /** The shared note's id for a text written on two or more values; null for a text of one value. */
  noteRef(text: string): string | null {
    if ((this.uses.get(text) ?? 0) < 2) return null;
    let id = this.noteIds.get(text);
    if (!id) {
      id = `n${this.noteIds.size + 1}`;
      this.noteIds.set(text, id);
      this.notes.push([id, text]);
    }
    return id;
  }

  refsInto(
    out: { citation?: string; condition?: string; conditionNote?: string; note?: string; notes?: string[] },
    v: { citation?: Citation; note?: string; condition?: string },
  ): void {
    if (v.citation) out.citation = this.citationId(v.citation);
    if (v.condition) {
      const id = this.noteRef(v.condition);
      if (id) out.conditionNote = id;
      else out.condition = v.condition;
    }
    if (v.note) {
      const id = this.noteRef(v.note);
      if (id) out.notes = [id];
      else out.note = v.note;
    }
  }

  /** The named documents a text mentions, each once (keep: see idsMentioned). */
  mention(t: string | undefined, keep = true): void {
    if (t) for (const id of idsMentioned(t, keep)) if (this.named[id]) this.mentioned.add(id);
  }
}

export function referenceProvenance(input: {
  envelope: Record<string, Sourced>;
  permittedUses: PermittedUse[];
  warnings: readonly string[];
  named: NamedSources;
}): ReferencedParts {
  // Every snapshot runs this, so it is written with loops and direct assignments (no intermediate
  // arrays, spreads or closures per value); the output's key order is the documented one.
  const t = new RefTables(input.named);
  // A note or condition written on two or more values is defined once.
  const names = Object.keys(input.envelope);
  for (const name of names) {
    const v = input.envelope[name]!;
    t.count(v.note);
    t.count(v.condition);
  }
  for (const u of input.permittedUses) {
    t.count(u.note);
    t.count(u.condition);
  }

  // Records are collected as entries and made with Object.fromEntries: V8 turns an object that gets
  // more than about 17 properties by computed keys into a dictionary, and one dictionary (or one
  // shared frozen array, hence the copy of `inputs`) in an answer makes JSON.stringify take its slow
  // path for the whole answer, which every surface serialises (measured: bench/json-shape.ts).
  const envelope: [string, SnapshotValue][] = [];
  for (const name of names) {
    const v = input.envelope[name]!;
    const out: SnapshotValue = { value: v.value, status: v.status };
    if (v.value !== null && v.unit) out.unit = v.unit;
    t.refsInto(out, v);
    if (v.inputs) out.inputs = [...v.inputs];
    if (v.statedNoLimit) {
      out.statedNoLimit = v.statedNoLimit;
      t.mention(v.statedNoLimit);
    }
    envelope.push([name, out]);
    t.mention(v.note);
    t.mention(v.condition);
  }
  const permittedUses: SnapshotUse[] = [];
  for (const u of input.permittedUses) {
    const out: SnapshotUse = { use: u.use, permission: u.permission, status: u.status };
    t.refsInto(out, u);
    permittedUses.push(out);
    t.mention(u.note);
    t.mention(u.condition);
  }
  for (const w of input.warnings) t.mention(w, false);
  const ids = [...t.mentioned].sort(compareNamedSourceIds);
  return {
    envelope: Object.fromEntries(envelope),
    permittedUses,
    citations: Object.fromEntries(t.citations),
    notes: Object.fromEntries(t.notes),
    namedSourceIds: ids,
  };
}

/** Orders named sources' ids by their number: S1, S2, ..., S10 (not S1, S10, S2). */
export function compareNamedSourceIds(a: string, b: string): number {
  return Number(a.slice(1)) - Number(b.slice(1));
}

/** The primary district of a snapshot's zones, from its districts (null when there is none). */
export function primaryDistrict(zones: { primary: string | null; districts: ZoneShare[] } | undefined): ZoneShare | null {
  return zones?.primary ? (zones.districts.find((d) => d.code === zones.primary && !d.minorShare) ?? null) : null;
}

/** A source in full by id, from the catalogue inlined in the snapshot (undefined when it is not inline). */
export function sourceOf(snapshot: { sourceCatalogue?: { sources?: Record<string, SourceRef> } }, id: string): SourceRef | undefined {
  return snapshot.sourceCatalogue?.sources?.[id];
}

/** The citation a value names, from the snapshot's table (undefined when it names none). */
export function citationOf(snapshot: { citations?: Record<string, Citation> }, v: { citation?: string } | undefined): Citation | undefined {
  return v?.citation ? snapshot.citations?.[v.citation] : undefined;
}

/** The condition of a value in full, written on it or shared (undefined when it has none). */
export function conditionOf(snapshot: { notes?: Record<string, string> }, v: { condition?: string; conditionNote?: string }): string | undefined {
  return v.condition ?? (v.conditionNote ? snapshot.notes?.[v.conditionNote] : undefined);
}

/** Every note of a value, its own and the shared ones, in full. */
export function notesOf(snapshot: { notes?: Record<string, string> }, v: { note?: string; notes?: string[] }): string[] {
  return [...(v.notes ?? []).map((id) => snapshot.notes?.[id]).filter((t): t is string => !!t), ...(v.note ? [v.note] : [])];
}

/**
 * What a derived value is worked out from, as a surface words it (valueWords' `inputOf`): an envelope
 * member, or a lot measure (`lot.areaSqft`, `lot.frontageFt`, `lot.depthFt`).
 */
export function snapshotInputOf(s: { envelope?: Record<string, SnapshotValue> | undefined; lot?: Lot | undefined }, key: string): WordedValue | undefined {
  if (!key.startsWith('lot.')) return s.envelope?.[key];
  const lot = s.lot;
  if (!lot) return undefined;
  if (key === 'lot.areaSqft') return { value: lot.areaSqft, status: 'cited', unit: 'sqft' };
  const m = key === 'lot.frontageFt' ? lot.frontageFt : key === 'lot.depthFt' ? lot.depthFt : undefined;
  return m ? { value: m.value, status: m.value === null ? (m.status ?? 'missing') : 'cited', unit: 'ft' } : undefined;
}
