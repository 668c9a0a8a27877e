// The documents a place's citations point into: the ordinance text (or a stored copy of a page) that
// the service itself holds, declared in the place's manifest with its sha256, edition, retrieval date
// and licence. A held document is read (once per context and file digest through ctx.caches), turned into plain text (Markdown and
// plain text as they are, HTML by its text, PDF by its text layer) and cut into sections at its
// headings, so a citation can be checked against the words of the section it names.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Parser } from 'htmlparser2';
import { SitelineError } from '../core/errors.ts';
import type { AppContext } from '../context.ts';
import { cacheKind, type CacheDoors } from '../caches.ts';

export type DocumentFormat = 'markdown' | 'html' | 'text' | 'pdf';

/** A manifest's declaration of a document citations may point into. */
export interface DocumentDeclaration {
  id: string;
  title: string;
  file: string;
  sha256: string;
  format: DocumentFormat;
  /** Edition or effective date of the text. */
  edition: string;
  /** When the copy was retrieved (ISO date or date-time). */
  retrieved: string;
  licence: string;
  /** Where the original is published. */
  url: string;
}

export interface DocumentSection {
  /** The section's number as the document writes it ("3.1.8", "17-3-0402"), or its heading when unnumbered. */
  id: string;
  heading: string;
  level: number;
  /** Offsets in the document's text: the heading line starts at `start`; the section (subsections included) ends at `end`. */
  start: number;
  end: number;
}

export interface HeldDocument {
  declaration: DocumentDeclaration;
  /** The document as text (the Markdown or plain text itself; the text of an HTML page or a PDF's text layer). */
  text: string;
  sections: DocumentSection[];
  /** The text normalised for matching (see normalizeForMatch) and, per normalised character, its offset in `text`. */
  normalized: string;
  offsets: Uint32Array;
}

export class DocumentError extends SitelineError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('bad_input', message, details);
    this.name = 'DocumentError';
  }
}

// ---------------------------------------------------------------------------------------------
// Normalisation: what counts as "the same words". Unicode compatibility forms folded (NFKC),
// typographic quotes and dashes made plain, every run of white space one space.

const FOLD: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201A': "'",
  '\u201B': "'",
  '\u2032': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u201E': '"',
  '\u201F': '"',
  '\u2033': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
};

/** The text normalised for matching, with each normalised character's offset in the original. */
export function normalizeWithOffsets(text: string): { normalized: string; offsets: Uint32Array } {
  const out: string[] = [];
  const offsets = new Uint32Array(text.length + 1);
  let n = 0;
  let pendingSpace = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      if (n > 0) pendingSpace = true;
      continue;
    }
    if (pendingSpace) {
      out.push(' ');
      offsets[n++] = i - 1;
      pendingSpace = false;
    }
    const folded = FOLD[ch] ?? (ch.charCodeAt(0) < 128 ? ch : ch.normalize('NFKC'));
    for (const f of folded) {
      out.push(f);
      offsets[n++] = i;
    }
  }
  offsets[n] = text.length;
  return { normalized: out.join(''), offsets: offsets.slice(0, n + 1) };
}

export function normalizeForMatch(text: string): string {
  return normalizeWithOffsets(text).normalized;
}

/** A quote's parts: an ellipsis ("…" or "...") marks words left out between two parts. */
export function quoteParts(quote: string): string[] {
  return normalizeForMatch(quote)
    .split(/\s*(?:\u2026|\.\.\.)\s*/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
}

/** At most this many characters may be left out between two parts of a quote. */
export const MAX_ELISION = 400;

const WORDCHAR = /[\p{L}\p{N}]/u;

/**
 * Whether [start, end) of a text begins and ends on word and number boundaries: a part never starts
 * or ends inside a word or a number ("4 ft" is not in "24 ft", "2.5" not in "12.5", "Side Setback"
 * not in "Side Setbacks").
 */
export function onBoundaries(text: string, start: number, end: number): boolean {
  const first = text[start] ?? '';
  const last = text[end - 1] ?? '';
  if (WORDCHAR.test(first) && start > 0) {
    const prev = text[start - 1]!;
    if (WORDCHAR.test(prev)) return false;
    if (/\d/.test(first) && /[.,]/.test(prev) && /\d/.test(text[start - 2] ?? '')) return false;
  }
  if (WORDCHAR.test(last) && end < text.length) {
    const next = text[end]!;
    if (WORDCHAR.test(next)) return false;
    if (/\d/.test(last) && /[.,]/.test(next) && /\d/.test(text[end + 1] ?? '')) return false;
  }
  return true;
}

/** Occurrences of a part in [from, to) on word and number boundaries, first first. */
function* occurrences(normalized: string, part: string, from: number, to: number): Generator<number> {
  for (let at = normalized.indexOf(part, from); at >= 0 && at + part.length <= to; at = normalized.indexOf(part, at + 1))
    if (onBoundaries(normalized, at, at + part.length)) yield at;
}

/**
 * Where the quote's parts occur, in order, within [from, to) of the normalised text, each on word and
 * number boundaries and each gap at most MAX_ELISION characters; null when they do not. Every
 * occurrence of each part is tried.
 */
export function findQuote(
  normalized: string,
  quote: string,
  from = 0,
  to = normalized.length,
): { start: number; end: number; parts: [number, number][] } | null {
  const parts = quoteParts(quote);
  if (parts.length === 0) return null;
  const place = (i: number, after: number, spans: [number, number][]): [number, number][] | null => {
    if (i === parts.length) return spans;
    const p = parts[i]!;
    for (const at of occurrences(normalized, p, after, to)) {
      if (i > 0 && at - after > MAX_ELISION) break;
      const r = place(i + 1, at + p.length, [...spans, [at, at + p.length]]);
      if (r) return r;
    }
    return null;
  };
  const spans = place(0, from, []);
  return spans ? { start: spans[0]![0], end: spans[spans.length - 1]![1], parts: spans } : null;
}

// ---------------------------------------------------------------------------------------------
// Text and sections by format.

const NUMBER = /^(?:(?:Section|Sec\.?|§|Article|Art\.?)\s*)?(\d+(?:[.-]\d+)*[A-Za-z]?)\.?(?=\s|$)/;

function sectionId(heading: string): string {
  const m = NUMBER.exec(heading.trim());
  return m ? m[1]! : heading.trim();
}

/** Closes every section at the next heading of the same or a higher level (a lower number). */
function closeSections(open: Omit<DocumentSection, 'end'>[], textLength: number): DocumentSection[] {
  return open.map((s, i) => {
    let end = textLength;
    for (let j = i + 1; j < open.length; j++)
      if (open[j]!.level <= s.level) {
        end = open[j]!.start;
        break;
      }
    return { ...s, end };
  });
}

function markdownSections(text: string): DocumentSection[] {
  const open: Omit<DocumentSection, 'end'>[] = [];
  const re = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/gm;
  let inFence = false;
  let lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    // Skip headings inside fenced code blocks.
    const between = text.slice(lastIndex, m.index);
    for (const _ of between.matchAll(/^```/gm)) inFence = !inFence;
    lastIndex = m.index;
    if (inFence) continue;
    const heading = m[2]!.trim();
    open.push({ id: sectionId(heading), heading, level: m[1]!.length, start: m.index });
  }
  return closeSections(open, text.length);
}

/** Plain text (and a PDF's text layer): a numbered line is a heading; its depth is its number's. */
function textSections(text: string): DocumentSection[] {
  const open: Omit<DocumentSection, 'end'>[] = [];
  const re = /^[ \t]*(.{1,160})$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const line = m[1]!.trim();
    const num = NUMBER.exec(line);
    if (!num || line.length > 120 || !/[A-Za-z]/.test(line.slice(num[0].length))) continue;
    open.push({ id: num[1]!, heading: line, level: num[1]!.split(/[.-]/).length, start: m.index });
  }
  return closeSections(open, text.length);
}

const BLOCK = new Set([
  'p',
  'div',
  'section',
  'article',
  'li',
  'tr',
  'table',
  'br',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'dd',
  'dt',
  'blockquote',
  'pre',
  'header',
  'footer',
  'main',
]);

/** An HTML page's text (block elements on their own lines, table cells separated by " | ") and its h1-h6 sections. */
export function htmlText(html: string): { text: string; sections: DocumentSection[] } {
  let text = '';
  const open: Omit<DocumentSection, 'end'>[] = [];
  let heading: { level: number; start: number; words: string } | null = null;
  let skip = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'script' || name === 'style') skip++;
        if (BLOCK.has(name) && !text.endsWith('\n') && text.length) text += '\n';
        if (name === 'td' || name === 'th') text += '| ';
        const h = /^h([1-6])$/.exec(name);
        if (h) heading = { level: Number(h[1]), start: text.length, words: '' };
      },
      ontext(data) {
        if (skip) return;
        text += data;
        if (heading) heading.words += data;
      },
      onclosetag(name) {
        if (name === 'script' || name === 'style') skip--;
        if (name === 'td' || name === 'th') text += ' ';
        if (/^h[1-6]$/.test(name) && heading) {
          const words = heading.words.replace(/\s+/g, ' ').trim();
          if (words) open.push({ id: sectionId(words), heading: words, level: heading.level, start: heading.start });
          heading = null;
        }
        if (BLOCK.has(name) && !text.endsWith('\n')) text += '\n';
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return { text, sections: closeSections(open, text.length) };
}

/** A PDF's text layer, one line per text line of the page (items joined in reading order). */
export async function pdfText(data: Uint8Array): Promise<string> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await getDocument({ data, useSystemFonts: false, isEvalSupported: false, verbosity: 0 }).promise;
  const pages: string[] = [];
  try {
    for (let i = 1; i <= doc.numPages; i++) {
      const page = await doc.getPage(i);
      const content = await page.getTextContent();
      let line = '';
      const lines: string[] = [];
      for (const item of content.items) {
        if (!('str' in item)) continue;
        line += item.str;
        if (item.hasEOL) {
          lines.push(line);
          line = '';
        }
      }
      if (line) lines.push(line);
      pages.push(lines.join('\n'));
    }
  } finally {
    await doc.destroy();
  }
  return pages.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Reading a held document: from disk each time (verification reads the files as they are), or through
// a context's cache (by absolute path and digest), which its rulesReloaded door empties.

export function sha256Of(data: Uint8Array): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** Where held documents are read from. */
export interface HeldDocuments {
  read(placeRoot: string, decl: DocumentDeclaration): Promise<HeldDocument>;
}

/** From disk, every time. */
export const readDocuments: HeldDocuments = { read: readHeldDocument };

/**
 * Reads a declared document from the place's source folder, checks its sha256 and extracts its text
 * and sections. Throws DocumentError naming the document when the file is missing or changed.
 */
export function readHeldDocument(placeRoot: string, decl: DocumentDeclaration): Promise<HeldDocument> {
  return load(path.join(placeRoot, decl.file), decl);
}

class CachedDocuments implements HeldDocuments, CacheDoors {
  readonly #docs = new Map<string, Promise<HeldDocument>>();
  read(placeRoot: string, decl: DocumentDeclaration): Promise<HeldDocument> {
    const file = path.join(placeRoot, decl.file);
    const key = `${file}\u0000${decl.sha256}\u0000${decl.format}`;
    let p = this.#docs.get(key);
    if (!p) {
      p = load(file, decl);
      this.#docs.set(key, p);
      p.catch(() => {
        if (this.#docs.get(key) === p) this.#docs.delete(key);
      });
    }
    return p;
  }
  rulesReloaded(): void {
    this.#docs.clear();
  }
}
const HELD_DOCUMENTS = cacheKind('held documents', () => new CachedDocuments());

/** The context's held documents, each read once until the rulesReloaded door opens (the rules' loads, the sources page). */
export function heldDocuments(ctx: Pick<AppContext, 'caches'>): HeldDocuments {
  return ctx.caches.of(HELD_DOCUMENTS);
}

async function load(file: string, decl: DocumentDeclaration): Promise<HeldDocument> {
  let data: Buffer;
  try {
    data = await fs.readFile(file);
  } catch (e) {
    throw new DocumentError(`document ${decl.id}: cannot read ${decl.file} (${(e as NodeJS.ErrnoException).code ?? String(e)})`, { document: decl.id });
  }
  const actual = sha256Of(data);
  if (actual !== decl.sha256)
    throw new DocumentError(
      `document ${decl.id}: ${decl.file} has sha256 ${actual}, the manifest says ${decl.sha256} (the document changed: check its citations, then accept the new digest)`,
      {
        document: decl.id,
      },
    );
  let text: string;
  let sections: DocumentSection[];
  if (decl.format === 'pdf') {
    text = await pdfText(new Uint8Array(data));
    sections = textSections(text);
  } else if (decl.format === 'html') {
    ({ text, sections } = htmlText(data.toString('utf8')));
  } else {
    text = data.toString('utf8');
    sections = decl.format === 'markdown' ? markdownSections(text) : textSections(text);
  }
  const { normalized, offsets } = normalizeWithOffsets(text);
  return { declaration: decl, text, sections, normalized, offsets };
}

/** The normalised offset of an offset in the document's text (the first normalised character at or after it). */
export function normalizedOffset(doc: HeldDocument, textOffset: number): number {
  let lo = 0;
  let hi = doc.offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (doc.offsets[mid]! < textOffset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The sections a citation's section names: by number ("3.1.8") or by heading, first match in document order. */
export function findSection(doc: HeldDocument, section: string): DocumentSection | null {
  const want = section.trim().replace(/^(?:Section|Sec\.?|§)\s*/i, '');
  return (
    doc.sections.find((s) => s.id === want) ??
    doc.sections.find((s) => normalizeForMatch(s.heading).toLowerCase() === normalizeForMatch(section).toLowerCase()) ??
    null
  );
}

/** The normalised span [from, to) of a section. */
export function sectionSpan(doc: HeldDocument, s: DocumentSection): { from: number; to: number } {
  return { from: normalizedOffset(doc, s.start), to: normalizedOffset(doc, s.end) };
}
