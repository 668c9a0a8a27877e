// The report's map: a vector drawing of the lots, districts and overlays from siteline's own geometry,
// with a scale bar and a north arrow. Projection: a local equirectangular plane around the lots'
// centre (metres), which is accurate to well under 1% across a few blocks; north is up.
import type { LonLat, PolygonRings, ReportInput } from './report-input.ts';
import { CATEGORY_STYLE, zoneCategory, type ZoneCategory } from '../maps/zone-category.ts';

export interface Frame {
  x: number;
  y: number;
  w: number;
  h: number;
}

const M_PER_DEG_LAT = 110_574;
const M_PER_DEG_LON_EQUATOR = 111_320;

export interface MapProjection {
  /** PDF points per metre on the ground. */
  pointsPerMetre: number;
  toPage(p: LonLat): [number, number];
}

/** Fits the build and context lots (plus a margin) into the frame, north up. */
export function projectLots(input: Pick<ReportInput, 'lots'>, frame: Frame): MapProjection {
  const pts = input.lots.flatMap((l) => l.polygons.flatMap((p) => p[0] ?? []));
  let minLon = Infinity;
  let maxLon = -Infinity;
  let minLat = Infinity;
  let maxLat = -Infinity;
  for (const [lon, lat] of pts) {
    minLon = Math.min(minLon, lon);
    maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
  }
  const lat0 = (minLat + maxLat) / 2;
  const lon0 = (minLon + maxLon) / 2;
  const mPerDegLon = M_PER_DEG_LON_EQUATOR * Math.cos((lat0 * Math.PI) / 180);
  // At least 60 m across, so a single small lot still shows its street context.
  const widthM = Math.max((maxLon - minLon) * mPerDegLon, 60) * 1.3;
  const heightM = Math.max((maxLat - minLat) * M_PER_DEG_LAT, 60) * 1.3;
  const pointsPerMetre = Math.min(frame.w / widthM, frame.h / heightM);
  const cx = frame.x + frame.w / 2;
  const cy = frame.y + frame.h / 2;
  return {
    pointsPerMetre,
    toPage: ([lon, lat]) => [round2(cx + (lon - lon0) * mPerDegLon * pointsPerMetre), round2(cy - (lat - lat0) * M_PER_DEG_LAT * pointsPerMetre)],
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** A scale-bar length that reads well (1, 2 or 5 times a power of ten) close to the target. */
export function niceMetres(target: number): number {
  const p = 10 ** Math.floor(Math.log10(target));
  const m = target / p;
  return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * p;
}

/** A scale-bar length in feet that reads well (1, 2 or 5 times a power of ten): the US report's figures are in feet. */
export function niceFeet(target: number): number {
  return niceMetres(target);
}

const FOOT_M = 0.3048;

/** True when any part of the polygons falls inside the frame (what the map actually shows). */
function drawnInFrame(proj: MapProjection, f: Frame, polygons: PolygonRings[]): boolean {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const poly of polygons)
    for (const p of poly[0] ?? []) {
      const [x, y] = proj.toPage(p);
      x0 = Math.min(x0, x);
      y0 = Math.min(y0, y);
      x1 = Math.max(x1, x);
      y1 = Math.max(y1, y);
    }
  return x1 > f.x && x0 < f.x + f.w && y1 > f.y && y0 < f.y + f.h;
}

/** True when a street line crosses the frame (its extent overlaps it). */
function streetsShown(proj: MapProjection, f: Frame, input: Pick<ReportInput, 'streets'>): boolean {
  return (input.streets ?? []).some((s) => s.lines.some((l) => drawnInFrame(proj, f, [[l]])));
}

/** Each code once, first name given, among the areas the frame shows. */
function legendAreas(proj: MapProjection, f: Frame, areas: ReportInput['areas']): ReportInput['areas'] {
  const byCode = new Map<string, ReportInput['areas'][number]>();
  for (const a of areas) {
    if (!drawnInFrame(proj, f, a.polygons)) continue;
    const seen = byCode.get(a.code);
    if (!seen) byCode.set(a.code, a);
    else if (!seen.name && a.name) byCode.set(a.code, { ...seen, name: a.name });
  }
  return [...byCode.values()];
}

/** The map's paper colour (under the districts). */
export const MAP_BACKGROUND = '#fbfbf8';
/** The web map's zoning fill opacity without a basemap (src/maps/style.ts): the PDF prints the same colour on paper. */
export const DISTRICT_FILL_OPACITY = 0.45;

/**
 * The fill of a district category: the web map's colour for it (CATEGORY_STYLE), laid at the web's
 * opacity over the paper and printed opaque, so a district reads the same colour on the page and on
 * the web, and two categories never share one (each district used to take the next colour of a list,
 * so BA-1 business and OS open space could both print pale green).
 */
export function categoryFill(category: ZoneCategory): string {
  const hex = (h: string) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
  const [fg, bg] = [hex(CATEGORY_STYLE[category].colour), hex(MAP_BACKGROUND)];
  const mix = fg.map((c, i) => Math.round(DISTRICT_FILL_OPACITY * c + (1 - DISTRICT_FILL_OPACITY) * bg[i]!));
  return `#${mix.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

const categoryOf = (a: { code: string; name: string | null }): ZoneCategory => zoneCategory(a.code, a.name);
/** Neighbouring lots: thin warm-grey outlines, under the project's own lots. */
const NEIGHBOUR_STROKE = '#a8a29a';
const OVERLAY_STROKES = ['#8e44ad', '#c0392b', '#16a085', '#d35400'];

function ringsPath(doc: PDFKit.PDFDocument, proj: MapProjection, polygons: PolygonRings[]): void {
  for (const poly of polygons) {
    for (const ring of poly) {
      ring.forEach((pt, i) => {
        const [x, y] = proj.toPage(pt);
        if (i === 0) doc.moveTo(x, y);
        else doc.lineTo(x, y);
      });
      doc.closePath();
    }
  }
}

function centroid(proj: MapProjection, polygons: PolygonRings[]): [number, number] {
  const ring = polygons[0]?.[0] ?? [];
  let sx = 0;
  let sy = 0;
  for (const p of ring) {
    const [x, y] = proj.toPage(p);
    sx += x;
    sy += y;
  }
  return [sx / Math.max(ring.length, 1), sy / Math.max(ring.length, 1)];
}

const inside = (f: Frame, [x, y]: [number, number], pad = 12) => x > f.x + pad && x < f.x + f.w - pad && y > f.y + pad && y < f.y + f.h - pad;

/** Draws the map into the frame and a legend under it; returns the y below the legend. */
// Long because: the figure's layers are painted in order, then its legend, on one PDF state and one projection.
export function drawMap(doc: PDFKit.PDFDocument, input: ReportInput, frame: Frame, fonts: { regular: string; bold: string }): number {
  const proj = projectLots(input, frame);
  const districts = input.areas.filter((a) => a.kind === 'district').sort((a, b) => a.code.localeCompare(b.code));
  const overlays = input.areas.filter((a) => a.kind === 'overlay').sort((a, b) => a.code.localeCompare(b.code));
  const fillOf = new Map(districts.map((d) => [d.code, categoryFill(categoryOf(d))]));
  const strokeOf = new Map(overlays.map((o, i) => [o.code, OVERLAY_STROKES[i % OVERLAY_STROKES.length]!]));

  doc.save();
  doc.rect(frame.x, frame.y, frame.w, frame.h).fill(MAP_BACKGROUND);
  doc.rect(frame.x, frame.y, frame.w, frame.h).clip();
  for (const d of districts) {
    ringsPath(doc, proj, d.polygons);
    doc.lineWidth(0.6).fillAndStroke(fillOf.get(d.code)!, '#9aa5b1', 'even-odd');
  }
  // Streets under the lots: centre lines, light, so the lots read on top.
  const streets = input.streets ?? [];
  for (const st of streets)
    for (const line of st.lines) {
      line.forEach((pt, i) => {
        const [px, py] = proj.toPage(pt);
        if (i === 0) doc.moveTo(px, py);
        else doc.lineTo(px, py);
      });
      doc.lineWidth(2.2).lineCap('round').stroke('#b8b8b8');
    }
  for (const n of input.neighbours ?? []) {
    ringsPath(doc, proj, n.polygons);
    doc.lineWidth(0.35).stroke(NEIGHBOUR_STROKE);
  }
  for (const lot of input.lots.filter((l) => l.role === 'context')) {
    ringsPath(doc, proj, lot.polygons);
    doc.lineWidth(0.8).stroke('#5f5f5f');
  }
  for (const lot of input.lots.filter((l) => l.role === 'build')) {
    ringsPath(doc, proj, lot.polygons);
    doc.lineWidth(1.8).fillOpacity(0.55).fillAndStroke('#f4a261', '#1d3557', 'even-odd');
    doc.fillOpacity(1);
  }
  for (const o of overlays) {
    ringsPath(doc, proj, o.polygons);
    doc.lineWidth(1.2).dash(4, { space: 3 }).stroke(strokeOf.get(o.code)!);
    doc.undash();
  }
  // Labels: district codes, then the build lots' labels on top.
  doc.font(fonts.bold).fontSize(8).fillColor('#34495e');
  for (const d of districts) {
    const c = centroid(proj, d.polygons);
    if (inside(frame, c)) doc.text(d.code, c[0] - 30, c[1] - 4, { width: 60, align: 'center', lineBreak: false });
  }
  doc.font(fonts.bold).fontSize(8).fillColor('#1d3557');
  for (const lot of input.lots.filter((l) => l.role === 'build')) {
    const c = centroid(proj, lot.polygons);
    if (inside(frame, c, 4)) doc.text(lot.label ?? lot.lotId, c[0] - 40, c[1] - 4, { width: 80, align: 'center', lineBreak: false });
  }
  doc.restore();
  doc.lineWidth(0.8).rect(frame.x, frame.y, frame.w, frame.h).stroke('#555555');

  // Scale bar, bottom left: about a quarter of the frame, in the units of the report's figures (feet
  // in the US, metres elsewhere).
  const feet = (input.project.geoDivisionId ?? '').startsWith('US-');
  const length = feet ? niceFeet(frame.w / 4 / proj.pointsPerMetre / FOOT_M) : niceMetres(frame.w / 4 / proj.pointsPerMetre);
  const barW = length * (feet ? FOOT_M : 1) * proj.pointsPerMetre;
  const bx = frame.x + 12;
  const by = frame.y + frame.h - 16;
  doc
    .rect(bx - 4, by - 12, barW + 8, 22)
    .fillOpacity(0.8)
    .fill('#ffffff')
    .fillOpacity(1);
  doc.rect(bx, by, barW / 2, 4).fill('#222222');
  doc
    .rect(bx + barW / 2, by, barW / 2, 4)
    .lineWidth(0.6)
    .stroke('#222222');
  doc
    .font(fonts.regular)
    .fontSize(7)
    .fillColor('#222222')
    .text(`0`, bx - 2, by - 10, { lineBreak: false });
  doc.text(`${length.toLocaleString('en-US')} ${feet ? 'ft' : 'm'}`, bx + barW - 20, by - 10, { width: 40, align: 'center', lineBreak: false });

  // North arrow, top right.
  const nx = frame.x + frame.w - 20;
  const ny = frame.y + 14;
  doc.polygon([nx, ny], [nx - 6, ny + 18], [nx, ny + 13], [nx + 6, ny + 18]).fill('#222222');
  doc
    .font(fonts.bold)
    .fontSize(9)
    .text('N', nx - 4, ny + 19, { width: 8, align: 'center', lineBreak: false });

  // Legend under the frame: only what the map shows, each entry once.
  const y = frame.y + frame.h + 6;
  const swatches: Record<LegendEntry['kind'], (e: LegendEntry, x: number, sy: number) => void> = {
    build: (_e, x, sy) => doc.rect(x, sy, 14, 8).fillOpacity(0.55).fillAndStroke('#f4a261', '#1d3557').fillOpacity(1),
    context: (_e, x, sy) => doc.rect(x, sy, 14, 8).lineWidth(0.8).stroke('#5f5f5f'),
    neighbour: (_e, x, sy) => doc.rect(x, sy, 14, 8).lineWidth(0.35).stroke(NEIGHBOUR_STROKE),
    street: (_e, x, sy) =>
      doc
        .moveTo(x, sy + 4)
        .lineTo(x + 14, sy + 4)
        .lineWidth(2.2)
        .stroke('#b8b8b8'),
    category: (e, x, sy) => doc.rect(x, sy, 14, 8).lineWidth(0.6).fillAndStroke(categoryFill(e.category!), '#9aa5b1'),
    overlay: (e, x, sy) => {
      doc.lineWidth(1.2).dash(4, { space: 3 }).rect(x, sy, 14, 8).stroke(strokeOf.get(e.code!)!);
      doc.undash();
    },
  };
  const items = legendEntries(proj, frame, input);
  doc.font(fonts.regular).fontSize(7.5).fillColor('#222222');
  const layout = legendLayout(
    doc,
    items.map((i) => i.text),
    frame.x,
    y,
    frame.w,
  );
  for (const at of layout.at) {
    const item = items[at.i]!;
    swatches[item.kind](item, at.x, at.y + 1);
    doc.fillColor('#222222').text(item.text, at.x + 18, at.y, { lineBreak: false });
  }
  return layout.bottom;
}

interface LegendEntry {
  kind: 'build' | 'context' | 'neighbour' | 'street' | 'category' | 'overlay';
  text: string;
  category?: ZoneCategory;
  code?: string;
}

/**
 * The legend's entries, in order: the lots, the streets, one entry per district the frame shows (in its
 * category's colour: districts of one category share it), one per overlay.
 */
function legendEntries(proj: MapProjection, frame: Frame, input: ReportInput): LegendEntry[] {
  const districts = legendAreas(
    proj,
    frame,
    input.areas.filter((a) => a.kind === 'district').sort((a, b) => a.code.localeCompare(b.code)),
  );
  const overlays = legendAreas(
    proj,
    frame,
    input.areas.filter((a) => a.kind === 'overlay').sort((a, b) => a.code.localeCompare(b.code)),
  );
  const neighbours = (input.neighbours ?? []).some((n) => drawnInFrame(proj, frame, n.polygons));
  return [
    { kind: 'build', text: 'Build lot' },
    ...(input.lots.some((l) => l.role === 'context') ? [{ kind: 'context' as const, text: 'Context lot' }] : []),
    ...(neighbours ? [{ kind: 'neighbour' as const, text: 'Neighbouring lot' }] : []),
    ...(streetsShown(proj, frame, input) ? [{ kind: 'street' as const, text: 'Street' }] : []),
    ...districts.map((d) => ({ kind: 'category' as const, category: categoryOf(d), text: `District ${d.code}${d.name ? ` (${d.name})` : ''}` })),
    ...overlays.map((o) => ({ kind: 'overlay' as const, code: o.code, text: `Overlay ${o.code}${o.name ? ` (${o.name})` : ''}` })),
  ];
}

/** Where each legend entry goes (rows of 12 pt, wrapping at the frame's width) and the y below the last row; in the current font. */
function legendLayout(
  doc: PDFKit.PDFDocument,
  texts: string[],
  x0: number,
  y0: number,
  width: number,
): { at: { i: number; x: number; y: number }[]; bottom: number } {
  let x = x0;
  let y = y0;
  const at: { i: number; x: number; y: number }[] = [];
  texts.forEach((text, i) => {
    const w = 20 + doc.widthOfString(text) + 14;
    if (x + w > x0 + width && x > x0) {
      x = x0;
      y += 12;
    }
    at.push({ i, x, y });
    x += w;
  });
  return { at, bottom: y + 16 };
}

/** The height the map and its legend take (so the page can make room for both before drawing). */
export function mapFigureHeight(doc: PDFKit.PDFDocument, input: ReportInput, frame: Frame, fonts: { regular: string; bold: string }): number {
  const proj = projectLots(input, frame);
  doc.font(fonts.regular).fontSize(7.5);
  return (
    legendLayout(
      doc,
      legendEntries(proj, frame, input).map((e) => e.text),
      frame.x,
      frame.y + frame.h + 6,
      frame.w,
    ).bottom - frame.y
  );
}
