// `siteline data init`, first step (src/importer/inspect-source.ts): every file of a town's folder read
// as a layer (GeoJSON, TopoJSON, OZFS, CSV, shapefiles, gzipped or not): its rows, geometry kinds,
// fields with sample values (a name-like column listed by name only), and its CRS with the reason.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { open as openShapefile } from 'shapefile';
import { bboxOf, type BBox } from '../core/geo/primitives.ts';
import type { SourceFeature } from './readers/features.ts';
import { decodeGeoJson, toLonLat } from './readers/geojson.ts';
import { decodeTopoJson, topoJsonObjects } from './readers/topojson.ts';
import { csvTruncation, readCsvRows } from './readers/csv.ts';
import { parseOzfsParcels, parseOzfsZoning } from './readers/ozfs.ts';
import { shapefileTruncation } from './readers/shapefile.ts';
import { isPersonalColumn } from './personal-columns.ts';
import { detectEncoding, decodeText } from './readers/text-encoding.ts';
import { coordinateRange, crsDefinition, isLonLatCrs, looksLonLat, normaliseCrsName, projectorFor, reprojectCoords } from './readers/crs.ts';

type Range = { minX: number; minY: number; maxX: number; maxY: number };

export interface InspectedField {
  name: string;
  /** Up to three distinct non-empty values. */
  samples: string[];
  filled: number;
  distinct: number;
  numeric: boolean;
  /** A name-like column (owner, taxpayer, mailing address, contact): listed by name only, its values never printed. */
  personal?: boolean;
}

export interface InspectedLayer {
  /** Relative to the inspected folder. */
  file: string;
  format: 'geojson' | 'topojson' | 'csv' | 'shapefile' | 'ozfs-zoning' | 'ozfs-parcel';
  /** A publication date the file itself states (an OZFS document's `date`): the source's vintage unless given. */
  dateStated?: string;
  object?: string;
  gzip?: boolean;
  encoding?: string;
  csv?: { header: boolean; delimiter: string };
  companions?: { dbf: string; prj?: string; shx?: string };
  rows: number;
  geometry: Record<string, number>;
  fields: InspectedField[];
  /** The CRS the coordinates are in (null: lon/lat or unknown), and why siteline thinks so. */
  crs: string | null;
  crsReason: string;
  /** True when the CRS is a guess the analyst must confirm (or could not be found at all). */
  crsToConfirm: boolean;
  rawRange: Range | null;
  lonLatBBox: BBox | null;
  /** CSV: the x / y columns. */
  xy?: { x: string; y: string };
  /** Features in lon/lat (CSV rows with a point become Points); null geometry when unknown. */
  features: SourceFeature[];
}

/** A file of the folder that is not read as a layer, and why. */
export interface SkippedFile {
  file: string;
  reason: string;
}

// OZFS files (.zoning, .parcel: the Open Zoning Feature Specification) are GeoJSON FeatureCollections.
const GEO_EXT = /\.(geojson|json|zoning|parcel)(\.gz)?$/i;
const TABLE_EXT = /\.(csv|tsv|txt)$/i;
const MAX_ROWS = 200_000;

export function listFiles(dir: string, depth = 3, prefix = ''): string[] {
  if (depth < 0) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(dir, depth - 1, rel));
    else out.push(rel);
  }
  return out;
}

export const str = (v: unknown) => (v === null || v === undefined ? '' : String(v).trim());

function describeFields(records: Record<string, unknown>[], names?: string[]): InspectedField[] {
  const keys = names ?? [...new Set(records.slice(0, 1000).flatMap((r) => Object.keys(r)))].filter((k) => k !== '__id');
  return keys.map((name) => {
    const seen = new Set<string>();
    let filled = 0;
    let numeric = 0;
    for (const r of records) {
      const v = str(r[name]);
      if (v === '') continue;
      filled++;
      seen.add(v);
      if (/^-?\d+(\.\d+)?$/.test(v)) numeric++;
    }
    // By header or by values (a header cut to 10 characters, `Property_O`, still holds owners' names).
    const personal = isPersonalColumn(name, [...seen]);
    return {
      name,
      samples: personal ? [] : [...seen].slice(0, 3),
      filled,
      distinct: seen.size,
      numeric: filled > 0 && numeric / filled > 0.95,
      ...(personal ? { personal: true } : {}),
    };
  });
}

function geometryCounts(features: SourceFeature[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of features) {
    const t = f.geometry?.type ?? 'none';
    out[t] = (out[t] ?? 0) + 1;
  }
  return out;
}

/** CSV: the delimiter that splits the first lines into the same, largest number of fields (data update reads a republished CSV with it too). */
export function guessDelimiter(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(0, 20);
  let best = ',';
  let bestScore = 0;
  for (const d of [',', ';', '\t', '|']) {
    const counts = lines.map((l) => l.split(d).length);
    const same = counts.every((c) => c === counts[0]);
    const score = (counts[0] ?? 1) > 1 ? (counts[0] ?? 1) * (same ? 2 : 1) : 0;
    if (score > bestScore) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}

/** A header row is all names (no value looks like a number or an address) while later rows hold numbers or addresses. */
function guessHeader(first: string[], second: string[] | undefined): boolean {
  const looksValue = (v: string) => /^-?\d+([.,]\d+)?$/.test(v.trim()) || /^\d+[A-Z]?\s+\S/i.test(v.trim());
  if (first.some(looksValue)) return false;
  if (!second) return true;
  if (second.some(looksValue)) return true;
  return new Set(first).size === first.length && first.every((v) => /^[A-Za-z_][\w .#-]*$/.test(v.trim()));
}

const X_NAMES = /^(x|lon|long|lng|longitude|point_x|x_coord|xcoord|easting|coord_x)$/i;
const Y_NAMES = /^(y|lat|latitude|point_y|y_coord|ycoord|northing|coord_y)$/i;

function readCsvLayer(dir: string, file: string): InspectedLayer {
  const buf = fs.readFileSync(path.join(dir, file));
  const encoding = detectEncoding(buf);
  const text = decodeText(buf, encoding);
  const delimiter = /\.tsv$/i.test(file) ? '\t' : guessDelimiter(text);
  const probe = [...readCsvRows(text.split(/\r?\n/).slice(0, 3).join('\n'), { header: false, delimiter })].map((r) => Object.values(r.values).map(String));
  const header = guessHeader(probe[0] ?? [], probe[1]);
  const all = [...readCsvRows(text, { header, delimiter, file })];
  const cut = csvTruncation(text, all, file);
  if (cut) throw new Error(cut);
  const rows = all.filter((r) => !r.problem).slice(0, MAX_ROWS);
  const names = rows[0] ? Object.keys(rows[0].values) : [];
  const fields = describeFields(
    rows.map((r) => r.values),
    names,
  );
  let x = fields.find((f) => X_NAMES.test(f.name) && f.numeric)?.name;
  let y = fields.find((f) => Y_NAMES.test(f.name) && f.numeric)?.name;
  if (!x || !y) {
    // No named coordinate columns: two neighbouring numeric columns with fractional values.
    const num = fields.filter((f) => f.numeric && f.samples.some((s) => s.includes('.')));
    for (let i = 0; i + 1 < num.length && (!x || !y); i++) {
      x = num[i]!.name;
      y = num[i + 1]!.name;
    }
  }
  const features: SourceFeature[] = rows.map((r, index) => {
    const px = x ? Number(r.values[x]) : NaN;
    const py = y ? Number(r.values[y]) : NaN;
    return {
      index,
      properties: r.values,
      geometry: Number.isFinite(px) && Number.isFinite(py) && (px !== 0 || py !== 0) ? { type: 'Point', coordinates: [px, py] } : null,
    };
  });
  return {
    file,
    format: 'csv',
    encoding,
    csv: { header, delimiter },
    rows: rows.length,
    geometry: geometryCounts(features),
    fields,
    crs: null,
    crsReason: '',
    crsToConfirm: false,
    rawRange: null,
    lonLatBBox: null,
    ...(x && y ? { xy: { x, y } } : {}),
    features,
  };
}

async function readShapefileLayer(dir: string, file: string, files: Set<string>): Promise<InspectedLayer> {
  const base = file.replace(/\.shp$/i, '');
  const find = (ext: string) => [...files].find((f) => f.toLowerCase() === `${base}${ext}`.toLowerCase());
  const dbf = find('.dbf');
  if (!dbf) throw new Error('a shapefile without its .dbf');
  const prj = find('.prj');
  const cpg = find('.cpg');
  const shx = find('.shx');
  const encoding = cpg ? normaliseCodePage(fs.readFileSync(path.join(dir, cpg), 'utf8')) : 'windows-1252';
  const shp = fs.readFileSync(path.join(dir, file));
  const dbfBytes = fs.readFileSync(path.join(dir, dbf));
  const cut = shapefileTruncation(shp, dbfBytes, file);
  if (cut) throw new Error(cut);
  const src = await openShapefile(shp, dbfBytes, { encoding });
  const features: SourceFeature[] = [];
  for (let index = 0; index < MAX_ROWS; index++) {
    const r = await src.read();
    if (r.done) break;
    features.push({
      index,
      properties: r.value.properties ?? {},
      geometry: r.value.geometry ? ({ type: r.value.geometry.type, coordinates: r.value.geometry.coordinates } as SourceFeature['geometry']) : null,
    });
  }
  const layer: InspectedLayer = {
    file,
    format: 'shapefile',
    encoding,
    companions: { dbf, ...(prj ? { prj } : {}), ...(shx ? { shx } : {}) },
    rows: features.length,
    geometry: geometryCounts(features),
    fields: describeFields(features.map((f) => f.properties)),
    crs: prj ? fs.readFileSync(path.join(dir, prj), 'utf8').trim() : null,
    crsReason: prj ? `from ${prj}` : '',
    crsToConfirm: false,
    rawRange: null,
    lonLatBBox: null,
    features,
  };
  return layer;
}

function normaliseCodePage(cpg: string): string {
  const t = cpg.trim().toUpperCase();
  if (/UTF-?8/.test(t)) return 'utf-8';
  if (/1252|ANSI/.test(t)) return 'windows-1252';
  if (/8859-?1|LATIN/.test(t)) return 'latin1';
  return 'windows-1252';
}

export async function readLayers(dir: string, skipped: SkippedFile[]): Promise<InspectedLayer[]> {
  const files = listFiles(dir);
  const set = new Set(files);
  const layers: InspectedLayer[] = [];
  for (const file of files) {
    try {
      if (/\.shp$/i.test(file)) {
        layers.push(await readShapefileLayer(dir, file, set));
      } else if (GEO_EXT.test(file) || /\.topojson$/i.test(file)) {
        const buf = fs.readFileSync(path.join(dir, file));
        const gzip = buf[0] === 0x1f && buf[1] === 0x8b;
        const text = (gzip ? zlib.gunzipSync(buf) : buf).toString('utf8');
        const head = text.slice(0, 4000);
        if (/\.parcel$/i.test(file) && !gzip) {
          // OZFS parcels: each lot is its labelled edges (LineStrings) and a centroid, chained into a ring here as the importer does.
          const r = parseOzfsParcels(text, file);
          const features: SourceFeature[] = r.parcels.map((p, index) => ({
            index,
            properties: { parcel_id: p.parcelId, ...(p.lotAreaAcres !== null ? { lot_area_acres: p.lotAreaAcres } : {}) },
            geometry: p.ring ? { type: 'Polygon', coordinates: [p.ring] } : null,
          }));
          layers.push({
            file,
            format: 'ozfs-parcel',
            rows: features.length,
            geometry: geometryCounts(features),
            fields: describeFields(features.map((f) => f.properties)),
            crs: null,
            crsReason: 'OZFS: lon/lat',
            crsToConfirm: false,
            rawRange: null,
            lonLatBBox: null,
            features,
          });
        } else if (/\.zoning$/i.test(file) && !gzip) {
          const doc = parseOzfsZoning(text, file);
          const date = (JSON.parse(text) as { date?: unknown }).date;
          layers.push({
            file,
            format: 'ozfs-zoning',
            ...(typeof date === 'string' && date ? { dateStated: date } : {}),
            rows: doc.features.length,
            geometry: geometryCounts(doc.features),
            fields: describeFields(doc.features.map((f) => f.properties)),
            crs: null,
            crsReason: 'OZFS: lon/lat',
            crsToConfirm: false,
            rawRange: null,
            lonLatBBox: null,
            features: doc.features,
          });
        } else if (/"type"\s*:\s*"Topology"/.test(head) || /\.topojson$/i.test(file)) {
          for (const object of topoJsonObjects(text, file)) {
            const features = decodeTopoJson(text, object, file);
            layers.push({
              file,
              format: 'topojson',
              object,
              rows: features.length,
              geometry: geometryCounts(features),
              fields: describeFields(features.map((f) => f.properties)),
              crs: null,
              crsReason: '',
              crsToConfirm: false,
              rawRange: null,
              lonLatBBox: null,
              features,
            });
          }
        } else {
          const { features, crsMember } = decodeGeoJson(text, file);
          layers.push({
            file,
            format: 'geojson',
            ...(gzip ? { gzip: true } : {}),
            rows: features.length,
            geometry: geometryCounts(features),
            fields: describeFields(features.map((f) => f.properties)),
            crs: crsMember ? normaliseCrsName(crsMember) : null,
            crsReason: crsMember ? `the file's crs member names ${crsMember}` : '',
            crsToConfirm: false,
            rawRange: null,
            lonLatBBox: null,
            features,
          });
        }
      } else if (TABLE_EXT.test(file) && !/(^|\/)(readme|licen[cs]e|notes?)[^/]*$/i.test(file)) {
        layers.push(readCsvLayer(dir, file));
      } else if (!/\.(dbf|prj|shx|cpg|sbn|sbx|xml|qmd|qix|md|pdf|txt|html?)$/i.test(file) && !/(^|\/)(readme|licen[cs]e|notice|copying)$/i.test(file)) {
        skipped.push({ file, reason: 'not a format siteline reads (GeoJSON, TopoJSON, OZFS, CSV, shapefile)' });
      }
    } catch (err) {
      skipped.push({ file, reason: (err as Error).message.split('\n')[0]! });
    }
  }
  return layers;
}

/** Decides each layer's CRS: declared, a .prj beside it, lon/lat by range, or the CRS of a layer whose raw extent holds it. */
export function resolveCrs(dir: string, layers: InspectedLayer[], files: Set<string>): void {
  for (const l of layers) {
    l.rawRange = coordinateRange(l.features.map((f) => f.geometry?.coordinates));
    if (l.crs) continue;
    const prj = [...files].find((f) => f.toLowerCase() === l.file.replace(/\.(geojson|json|topojson|csv|tsv|txt)(\.gz)?$/i, '.prj').toLowerCase());
    if (prj && prj !== l.file) {
      l.crs = fs.readFileSync(path.join(dir, prj), 'utf8').trim();
      l.crsReason = `from ${prj} beside it`;
    } else if (l.rawRange && looksLonLat(l.rawRange)) {
      l.crsReason = `coordinates run from (${l.rawRange.minX.toFixed(4)}, ${l.rawRange.minY.toFixed(4)}) to (${l.rawRange.maxX.toFixed(4)}, ${l.rawRange.maxY.toFixed(4)}): lon/lat degrees`;
    }
  }
  // Projected coordinates with no CRS named: borrow the CRS of a layer whose raw extent covers them.
  for (const l of layers) {
    if (l.crs || !l.rawRange || looksLonLat(l.rawRange)) continue;
    const r = l.rawRange;
    const host = layers.find(
      (o) =>
        o !== l &&
        o.crs &&
        !isLonLatCrs(o.crs) &&
        o.rawRange &&
        r.minX >= o.rawRange.minX - (o.rawRange.maxX - o.rawRange.minX) &&
        r.maxX <= o.rawRange.maxX + (o.rawRange.maxX - o.rawRange.minX) &&
        r.minY >= o.rawRange.minY - (o.rawRange.maxY - o.rawRange.minY) &&
        r.maxY <= o.rawRange.maxY + (o.rawRange.maxY - o.rawRange.minY),
    );
    if (host) {
      l.crs = host.crs;
      l.crsReason = `no CRS named; its coordinates fall within the extent of ${host.file}${host.object ? ` (${host.object})` : ''}, so assumed the same (${shortCrs(host.crs!)}): CONFIRM`;
      l.crsToConfirm = true;
    } else {
      l.crsReason = `coordinates run from (${r.minX.toFixed(0)}, ${r.minY.toFixed(0)}) to (${r.maxX.toFixed(0)}, ${r.maxY.toFixed(0)}): projected, and no CRS is named: SET "crs" in the manifest`;
      l.crsToConfirm = true;
    }
  }
  for (const l of layers) {
    if (!l.rawRange) continue;
    const usable = l.crs ? !('problem' in crsDefinition(l.crs)) || isLonLatCrs(l.crs) : looksLonLat(l.rawRange);
    if (!usable) {
      if (l.crs && !l.crsToConfirm) {
        l.crsReason += `; ${(crsDefinition(l.crs) as { problem: string }).problem}`;
        l.crsToConfirm = true;
      }
      for (const f of l.features) f.geometry = null;
      continue;
    }
    try {
      if (l.crs && !isLonLatCrs(l.crs)) {
        const xy = projectorFor(l.crs, l.file);
        for (const f of l.features)
          if (f.geometry) f.geometry = { ...f.geometry, coordinates: reprojectCoords(f.geometry.coordinates, xy) } as SourceFeature['geometry'];
        if (!l.crsReason) l.crsReason = `named ${shortCrs(l.crs)}`;
      } else toLonLat(l.features, l.crs ?? undefined, l.file);
      l.lonLatBBox = bboxOf(l.features.map((f) => f.geometry?.coordinates).filter(Boolean));
    } catch (err) {
      l.crsReason += `; cannot reproject: ${(err as Error).message}`;
      l.crsToConfirm = true;
      for (const f of l.features) f.geometry = null;
    }
  }
}

export function shortCrs(crs: string): string {
  if (/^(PROJCS|GEOGCS|PROJCRS|GEOGCRS)\[/i.test(crs)) return `${crs.match(/^\w+\["([^"]+)"/)?.[1] ?? 'WKT'} (WKT)`;
  return crs.length > 80 ? `${crs.slice(0, 77)}...` : crs;
}
