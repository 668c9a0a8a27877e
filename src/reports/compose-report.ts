// Composes a report: check the input -> outline (what it says) -> PDF (how it looks). The PDF embeds
// DejaVu Sans (subset, TrueType) so the text is selectable and renders the same everywhere; every
// drawing instruction comes from the input, and the PDF's dates and file id come from generatedAt,
// so the same input gives the same bytes.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import PDFDocument from 'pdfkit';
import { z } from 'zod';
import { badInput } from '../core/errors.ts';
import { reportInputSchema, type ReportInput } from './report-input.ts';
import { buildOutline, type Block, type ReportOutline, type ValueRow } from './report-outline.ts';
import { drawMap, mapFigureHeight } from './map-figure.ts';

const FONT_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const FONT_FILES = { regular: path.join(FONT_DIR, 'DejaVuSans.ttf'), bold: path.join(FONT_DIR, 'DejaVuSans-Bold.ttf') };
let fontBytes: { regular: Buffer; bold: Buffer } | undefined;
/** The font files, read once per process (pdfkit embeds only the glyphs a report uses). */
const fontData = () => (fontBytes ??= { regular: fs.readFileSync(FONT_FILES.regular), bold: fs.readFileSync(FONT_FILES.bold) });

const PAGE = { width: 612, height: 792, margin: 54 };
const CONTENT_W = PAGE.width - 2 * PAGE.margin;
const BOTTOM = PAGE.height - PAGE.margin - 14;
const MAP_H = 300;

export interface ComposedReport {
  pdf: Buffer;
  pageCount: number;
  outline: ReportOutline;
  /** SHA-256 of the PDF bytes. */
  sha256: string;
}

/** Checks a report input, naming every problem (nothing is composed from bad input). */
function checkReportInput(raw: unknown): ReportInput {
  const parsed = reportInputSchema.safeParse(raw);
  if (!parsed.success) throw badInput(`The report input is not valid: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ')}`);
  return parsed.data as ReportInput;
}

/** Removes control characters (a request is text to print, nothing else). */
const printable = (s: string) => s.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, ''); // eslint-disable-line no-control-regex

export async function composeReport(raw: unknown): Promise<ComposedReport> {
  const input = checkReportInput(raw);
  const outline = buildOutline(input);
  const created = new Date(input.generatedAt);
  const doc = new PDFDocument({
    size: [PAGE.width, PAGE.height],
    margins: { top: PAGE.margin, bottom: PAGE.margin, left: PAGE.margin, right: PAGE.margin },
    bufferPages: true,
    compress: true,
    lang: 'en-US',
    displayTitle: true,
    info: {
      Title: outline.title,
      Subject: outline.subtitle,
      Author: 'siteline',
      Creator: 'siteline',
      Producer: 'siteline',
      CreationDate: created,
      ModDate: created,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', reject);
  });
  doc.registerFont('regular', fontData().regular);
  doc.registerFont('bold', fontData().bold);
  const fonts = { regular: 'regular', bold: 'bold' };

  const ensure = (height: number) => {
    if (doc.y + height > BOTTOM) doc.addPage();
  };

  doc.font('bold').fontSize(18).fillColor('#111111').text(printable(outline.title), PAGE.margin, PAGE.margin, { width: CONTENT_W });
  doc.moveDown(0.2);
  doc.font('regular').fontSize(10).fillColor('#444444').text(printable(outline.subtitle), { width: CONTENT_W });
  if (outline.districtSource)
    doc.moveDown(0.2).font('regular').fontSize(9.5).fillColor('#444444').text(printable(outline.districtSource), { width: CONTENT_W });
  doc.moveDown(0.8);

  for (const section of outline.sections) {
    ensure(40);
    doc.font('bold').fontSize(13).fillColor('#1d3557').text(section.heading, PAGE.margin, doc.y, { width: CONTENT_W });
    doc.moveDown(0.3);
    for (const block of section.blocks) renderBlock(doc, block, input, fonts, ensure);
    doc.moveDown(0.6);
  }

  // Footer on every page: the title and "page n of N".
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // The footer sits in the bottom margin; without this pdfkit would open a new page for it.
    doc.page.margins.bottom = 0;
    doc.font('regular').fontSize(7.5).fillColor('#777777');
    doc.text(`${printable(outline.title)} · page ${i + 1} of ${range.count}`, PAGE.margin, PAGE.height - PAGE.margin + 10, {
      width: CONTENT_W,
      align: 'center',
      lineBreak: false,
    });
  }
  doc.end();
  await done;
  const pdf = Buffer.concat(chunks);
  return { pdf, pageCount: range.count, outline, sha256: crypto.createHash('sha256').update(pdf).digest('hex') };
}

function renderBlock(doc: PDFKit.PDFDocument, block: Block, input: ReportInput, fonts: { regular: string; bold: string }, ensure: (h: number) => void): void {
  const x = PAGE.margin;
  switch (block.kind) {
    case 'paragraph': {
      doc.font('regular').fontSize(10).fillColor('#222222');
      ensure(doc.heightOfString(block.text, { width: CONTENT_W }));
      doc.text(printable(block.text), x, doc.y, { width: CONTENT_W });
      doc.moveDown(0.4);
      return;
    }
    case 'quote': {
      const text = printable(block.text);
      doc.font('regular').fontSize(10);
      const h = doc.heightOfString(text, { width: CONTENT_W - 16 }) + 18;
      ensure(h);
      const top = doc.y;
      doc.rect(x, top, 3, h - 4).fill('#9aa5b1');
      doc
        .font('bold')
        .fontSize(8)
        .fillColor('#555555')
        .text(block.label, x + 12, top, { width: CONTENT_W - 16 });
      doc
        .font('regular')
        .fontSize(10)
        .fillColor('#222222')
        .text(text, x + 12, doc.y + 2, { width: CONTENT_W - 16 });
      doc.moveDown(0.5);
      return;
    }
    case 'list': {
      doc.font('regular').fontSize(9.5).fillColor('#222222');
      for (const item of block.items) {
        const text = printable(item);
        ensure(doc.heightOfString(text, { width: CONTENT_W - 14 }) + 2);
        const top = doc.y;
        doc.text('•', x, top, { width: 10, lineBreak: false });
        doc.text(text, x + 14, top, { width: CONTENT_W - 14 });
        doc.moveDown(0.15);
      }
      doc.moveDown(0.3);
      return;
    }
    case 'map': {
      // Room for the map and its whole legend, so the legend never runs into the footer.
      ensure(4 + mapFigureHeight(doc, input, { x, y: 0, w: CONTENT_W, h: MAP_H }, fonts));
      const y = drawMap(doc, input, { x, y: doc.y + 4, w: CONTENT_W, h: MAP_H }, fonts);
      doc.x = x;
      doc.y = y;
      doc.moveDown(0.3);
      return;
    }
    case 'values':
      renderValues(doc, block.rows, block.withCitations, ensure);
      return;
  }
}

const COLS = { label: 170, value: 120, status: CONTENT_W - 170 - 120 };

function renderValues(doc: PDFKit.PDFDocument, rows: ValueRow[], withCitations: boolean, ensure: (h: number) => void): void {
  const x = PAGE.margin;
  const header = () => {
    const y = doc.y;
    doc.font('bold').fontSize(8.5).fillColor('#555555');
    doc.text('Standard', x, y, { width: COLS.label, lineBreak: false });
    doc.text('Value', x + COLS.label, y, { width: COLS.value, lineBreak: false });
    doc.text('Status', x + COLS.label + COLS.value, y, { width: COLS.status, lineBreak: false });
    doc
      .moveTo(x, y + 12)
      .lineTo(x + CONTENT_W, y + 12)
      .lineWidth(0.5)
      .stroke('#bbbbbb');
    doc.y = y + 16;
  };
  ensure(40);
  header();
  for (const r of rows) {
    const extra = [withCitations && r.citation ? r.citation : null, r.note].filter((s): s is string => !!s).map(printable);
    doc.font('regular').fontSize(9.5);
    const mainH = Math.max(doc.heightOfString(r.label, { width: COLS.label - 6 }), doc.heightOfString(r.statusWords, { width: COLS.status }), 12);
    doc.fontSize(8);
    const extraH = extra.reduce((h, s) => h + doc.heightOfString(s, { width: CONTENT_W - 12 }) + 1, 0);
    if (doc.y + mainH + extraH + 6 > BOTTOM) {
      doc.addPage();
      header();
    }
    const y = doc.y;
    doc
      .font('regular')
      .fontSize(9.5)
      .fillColor('#222222')
      .text(r.label, x, y, { width: COLS.label - 6 });
    doc
      .font('bold')
      .fontSize(9.5)
      .text(r.value, x + COLS.label, y, { width: COLS.value - 6 });
    doc
      .font('regular')
      .fontSize(9.5)
      .fillColor(r.status.startsWith('cited') || r.status === 'no_limit_in_bylaw' || r.status === 'derived_from_cited' ? '#1e6b34' : '#8a4b00');
    doc.text(r.statusWords, x + COLS.label + COLS.value, y, { width: COLS.status });
    let yy = y + mainH + 1;
    doc.font('regular').fontSize(8).fillColor('#555555');
    for (const s of extra) {
      doc.text(s, x + 12, yy, { width: CONTENT_W - 12 });
      yy = doc.y + 1;
    }
    doc
      .moveTo(x, yy + 2)
      .lineTo(x + CONTENT_W, yy + 2)
      .lineWidth(0.3)
      .stroke('#e0e0e0');
    doc.x = x;
    doc.y = yy + 5;
  }
  doc.moveDown(0.4);
}
