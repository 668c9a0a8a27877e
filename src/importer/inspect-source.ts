// `siteline data init`: looks at a folder of files as a town publishes them and drafts a manifest and
// a rules skeleton. Every guess is measured (formats, layers, fields with sample values, the CRS and
// why, address columns, join keys ranked by the share of addresses they match, the point-in-parcel
// join, lot -> zone) and reported with what the analyst must confirm. Nothing here writes a database.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { open as openShapefile } from 'shapefile';
import { bboxOf, pointOnSurface, toMultiPolygon, type BBox, type Position } from '../core/geo/primitives.ts';
import { parseAddress } from '../geocoder/parse-address.ts';
import type { SourceFeature } from './readers/features.ts';
import { decodeGeoJson, toLonLat } from './readers/geojson.ts';
import { decodeTopoJson, topoJsonObjects } from './readers/topojson.ts';
import { readCsvRows } from './readers/csv.ts';
import { parseOzfsParcels, parseOzfsZoning } from './readers/ozfs.ts';
import { detectEncoding, decodeText } from './readers/text-encoding.ts';
import { coordinateRange, crsDefinition, isLonLatCrs, looksLonLat, normaliseCrsName, projectorFor, reprojectCoords } from './readers/crs.ts';
import { LotIndex } from './lot-index.ts';
import { DEFAULT_JOIN_THRESHOLDS } from '../places/manifest.ts';

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

export interface JoinKeyCandidate {
  addressField: string;
  parcelField: string;
  matched: number;
  total: number;
  rate: number;
}

export interface Inspection {
  dir: string;
  layers: InspectedLayer[];
  skipped: { file: string; reason: string }[];
  roles: { addresses?: InspectedLayer; parcels?: InspectedLayer; zoning?: InspectedLayer; boundary?: InspectedLayer };
  address?: { oneLine?: string; number?: string; streetName?: string; unit?: string; postcode?: string; why: string; parsed: number; total: number };
  parcelIdField?: { field: string; why: string };
  zoneField?: { field: string; nameField?: string; codes: string[]; why: string; /** Sample values, fill, code-shaped and rules-matched shares, rivals. */ evidence?: string };
  joinKeys: JoinKeyCandidate[];
  pointInParcel?: { matched: number; total: number; rate: number };
  /** Addresses found by both the best key and the point whose lots differ. */
  disagreements?: number;
  lotBy?: { mode: 'id' | 'point' | 'id_then_point'; why: string };
  lotToZone?: { matched: number; total: number; rate: number };
  /** Human-readable guesses and what to confirm. */
  notes: string[];
  confirm: string[];
}

// OZFS files (.zoning, .parcel: the Open Zoning Feature Specification) are GeoJSON FeatureCollections.
const GEO_EXT = /\.(geojson|json|zoning|parcel)(\.gz)?$/i;
const TABLE_EXT = /\.(csv|tsv|txt)$/i;
const MAX_ROWS = 200_000;

function listFiles(dir: string, depth = 3, prefix = ''): string[] {
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

const str = (v: unknown) => (v === null || v === undefined ? '' : String(v).trim());

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
    const personal = PERSONAL.test(name);
    return { name, samples: personal ? [] : [...seen].slice(0, 3), filled, distinct: seen.size, numeric: filled > 0 && numeric / filled > 0.95, ...(personal ? { personal: true } : {}) };
  });
}

/** Columns that hold people's names or contact details (assessors' owner tables): never sampled, never printed. */
export const PERSONAL = /(owner|own_?nam|own1|own2|taxpayer|tax_?payer|mail(ing)?_?(addr|name|to|city|street)|^mail|grantor|grantee|buyer|seller|resident|occupant|contact|phone|e_?mail|first_?name|last_?name|surname|full_?name|person|care_?of|^c_?o$|in_?care)/i;

function geometryCounts(features: SourceFeature[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of features) {
    const t = f.geometry?.type ?? 'none';
    out[t] = (out[t] ?? 0) + 1;
  }
  return out;
}

/** CSV: the delimiter that splits the first lines into the same, largest number of fields. */
function guessDelimiter(text: string): string {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '').slice(0, 20);
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
  const rows = [...readCsvRows(text, { header, delimiter, file })].filter((r) => !r.problem).slice(0, MAX_ROWS);
  const names = rows[0] ? Object.keys(rows[0].values) : [];
  const fields = describeFields(rows.map((r) => r.values), names);
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
    return { index, properties: r.values, geometry: Number.isFinite(px) && Number.isFinite(py) && (px !== 0 || py !== 0) ? { type: 'Point', coordinates: [px, py] } : null };
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
  const src = await openShapefile(fs.readFileSync(path.join(dir, file)), fs.readFileSync(path.join(dir, dbf)), { encoding });
  const features: SourceFeature[] = [];
  for (let index = 0; index < MAX_ROWS; index++) {
    const r = await src.read();
    if (r.done) break;
    features.push({ index, properties: r.value.properties ?? {}, geometry: r.value.geometry ? ({ type: r.value.geometry.type, coordinates: r.value.geometry.coordinates } as SourceFeature['geometry']) : null });
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

async function readLayers(dir: string, skipped: Inspection['skipped']): Promise<InspectedLayer[]> {
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
          layers.push({ file, format: 'ozfs-parcel', rows: features.length, geometry: geometryCounts(features), fields: describeFields(features.map((f) => f.properties)), crs: null, crsReason: 'OZFS: lon/lat', crsToConfirm: false, rawRange: null, lonLatBBox: null, features });
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
            layers.push({ file, format: 'topojson', object, rows: features.length, geometry: geometryCounts(features), fields: describeFields(features.map((f) => f.properties)), crs: null, crsReason: '', crsToConfirm: false, rawRange: null, lonLatBBox: null, features });
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
function resolveCrs(dir: string, layers: InspectedLayer[], files: Set<string>): void {
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
    const host = layers.find((o) => o !== l && o.crs && !isLonLatCrs(o.crs) && o.rawRange && r.minX >= o.rawRange.minX - (o.rawRange.maxX - o.rawRange.minX) && r.maxX <= o.rawRange.maxX + (o.rawRange.maxX - o.rawRange.minX) && r.minY >= o.rawRange.minY - (o.rawRange.maxY - o.rawRange.minY) && r.maxY <= o.rawRange.maxY + (o.rawRange.maxY - o.rawRange.minY));
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
        for (const f of l.features) if (f.geometry) f.geometry = { ...f.geometry, coordinates: reprojectCoords(f.geometry.coordinates, xy) } as SourceFeature['geometry'];
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

const ONE_LINE_NAMES = /^(full_?addr(ess)?|address|addr|site_?addr(ess)?|situs(_?addr(ess)?)?|location|loc_?addr|street_?address|address_?1|addr_?line_?1|fulladd|prop_?addr(ess)?)$/i;
const NUMBER_NAMES = /^(add?r?_?num(ber)?|house_?(num|no|number)|st(reet)?_?(num|no|number)|number|civic(_?(num|no|number))?|hse_?num|addno)$/i;
const STREET_NAMES = /^(st(reet)?_?name|street|road|str_?name|full_?street(_?name)?|st_?nm|streetname)$/i;
const UNIT_NAMES = /^(unit|apt|suite|unit_?(num|no|number))$/i;
const POSTCODE_NAMES = /^(zip|zip_?code|zipcode|postcode|postal_?code|postal)$/i;

/** Share of a column's non-empty values that siteline's address parser reads as a house number and a street. */
function oneLineShare(layer: InspectedLayer, field: string): { parsed: number; total: number } {
  let parsed = 0;
  let total = 0;
  for (const f of layer.features.slice(0, 2000)) {
    const v = str(f.properties[field]);
    if (v === '') continue;
    total++;
    try {
      const p = parseAddress(v);
      if (p.number && p.streetKey) parsed++;
    } catch {
      /* unreadable: not counted */
    }
  }
  return { parsed, total };
}

function findAddressColumns(l: InspectedLayer): Inspection['address'] | undefined {
  const byName = (re: RegExp) => l.fields.find((f) => re.test(f.name) && f.filled > 0)?.name;
  const unit = byName(UNIT_NAMES);
  const postcode = byName(POSTCODE_NAMES);
  const number = l.fields.find((f) => NUMBER_NAMES.test(f.name) && f.numeric)?.name;
  const streetName = byName(STREET_NAMES);
  if (number && streetName) {
    return { number, streetName, ...(unit ? { unit } : {}), ...(postcode ? { postcode } : {}), why: `header names: ${number} (house numbers, e.g. ${l.fields.find((f) => f.name === number)!.samples[0]}) and ${streetName} (e.g. ${l.fields.find((f) => f.name === streetName)!.samples[0]})`, parsed: 0, total: 0 };
  }
  // A one-line column: by header name first, then by the shape of its values.
  const candidates = [...l.fields.filter((f) => ONE_LINE_NAMES.test(f.name)), ...l.fields.filter((f) => !ONE_LINE_NAMES.test(f.name) && !f.numeric)];
  for (const f of candidates) {
    const s = oneLineShare(l, f.name);
    if (s.total > 0 && s.parsed / s.total >= 0.6) {
      const how = ONE_LINE_NAMES.test(f.name) ? 'its header name' : 'the shape of its values';
      return {
        oneLine: f.name,
        ...(unit ? { unit } : {}),
        ...(postcode ? { postcode } : {}),
        why: `one-line address column ${f.name} (by ${how}; e.g. "${f.samples[0]}"): siteline's address parser reads a house number and a street in ${s.parsed} of ${s.total} sampled values`,
        parsed: s.parsed,
        total: s.total,
      };
    }
  }
  return undefined;
}

const isPolygons = (l: InspectedLayer) => (l.geometry['Polygon'] ?? 0) + (l.geometry['MultiPolygon'] ?? 0) > l.rows * 0.8 && l.rows > 0;
const isPoints = (l: InspectedLayer) => (l.geometry['Point'] ?? 0) > l.rows * 0.5;
const ZONE_FIELD = /(zon|district|dist_?abbr|zone_?code|zoning)/i;
const ID_FIELD = /(pin|parcel|apn|map_?lot|maplot|mbl|gis_?id|prop_?id|lot_?id|objectid|fid|^id$|_id$|^ml$|acct|account)/i;

const ZONE_CODE = /^[A-Z]{1,5}[- ]?\d{0,3}(\.\d)?[A-Z]?(-\d{1,3}[A-Z]?)?$/i;

/** Why a field was taken as the district code: its values, measured. */
export interface ZoneFieldEvidence {
  field: InspectedField;
  /** Share of non-empty values shaped like district codes (R-1, C-3, RA-10, B). */
  shapeShare: number;
  /** Share of polygons with a value. */
  fillShare: number;
  /** Share of non-empty values that are districts of the known rules (re-init, OZFS definitions); null without rules. */
  ruleShare: number | null;
  /** Other fields considered, with their code-shaped share. */
  rivals: { name: string; shapeShare: number; ruleShare: number | null }[];
  byContent: boolean;
}

/**
 * The district-code field, by content: the field whose values look like district codes (and, when the
 * place's rules are known, are its districts), filled on most polygons with few distinct values. A
 * field named REZONING holding dates and notes loses to BASE_DISTR holding R-1, B-2. The name decides
 * only between equals, or when no field's values look like codes (in a layer named like zoning).
 */
export function zoneFieldOf(l: InspectedLayer, known?: Set<string>): ZoneFieldEvidence | undefined {
  const few = (f: InspectedField) => f.filled > 0 && f.distinct >= 1 && f.distinct <= Math.max(60, l.rows * 0.5);
  const scored = l.fields
    .filter((f) => few(f) && !f.personal && !(f.numeric && !known) && f.name !== '__id')
    .map((f) => {
      const vals = l.features.slice(0, 2000).map((x) => str(x.properties[f.name])).filter(Boolean);
      const shapeShare = vals.length ? vals.filter((v) => ZONE_CODE.test(v)).length / vals.length : 0;
      const ruleShare = known && known.size ? (vals.length ? vals.filter((v) => known.has(v)).length / vals.length : 0) : null;
      const fillShare = l.rows ? f.filled / l.rows : 0;
      const named = ZONE_FIELD.test(f.name) && !/name|desc/i.test(f.name);
      const score = (ruleShare ?? 0) * 2 + shapeShare * fillShare + (named ? 0.05 : 0) - (/name|desc|note|comment|date/i.test(f.name) ? 0.3 : 0) - (f.distinct < 2 && l.rows > 2 ? 0.3 : 0);
      return { f, shapeShare, ruleShare, fillShare, named, score };
    });
  const qualified = scored.filter((x) => (x.ruleShare ?? 0) >= 0.5 || (x.shapeShare >= 0.6 && !x.f.numeric));
  const layerNamed = /zon|district/i.test(`${l.file} ${l.object ?? ''}`);
  // A layer counts as zoning when it is named so, or one of its code-shaped fields is named like a district.
  const pool = layerNamed || (known && qualified.some((x) => (x.ruleShare ?? 0) >= 0.5)) ? qualified : qualified.filter((x) => x.named);
  const best = [...pool].sort((a, b) => b.score - a.score || b.f.filled - a.f.filled)[0];
  const rivals = (chosen: InspectedField) => scored.filter((x) => x.f !== chosen && (x.named || x.shapeShare > 0)).sort((a, b) => b.score - a.score).slice(0, 3).map((x) => ({ name: x.f.name, shapeShare: x.shapeShare, ruleShare: x.ruleShare }));
  if (best) return { field: best.f, shapeShare: best.shapeShare, fillShare: best.fillShare, ruleShare: best.ruleShare, rivals: rivals(best.f), byContent: true };
  // No field's values look like codes: the old rule, by name (codes like "Residential A").
  const byName = scored.filter((x) => x.named).sort((a, b) => b.f.filled - a.f.filled)[0];
  if (byName) return { field: byName.f, shapeShare: byName.shapeShare, fillShare: byName.fillShare, ruleShare: byName.ruleShare, rivals: rivals(byName.f), byContent: false };
  return undefined;
}

function idFieldOf(l: InspectedLayer): InspectedField | undefined {
  const unique = l.fields.filter((f) => f.filled >= l.rows * 0.9 && f.distinct >= f.filled * 0.95);
  return unique.find((f) => ID_FIELD.test(f.name) && !/objectid|^fid$/i.test(f.name)) ?? unique.find((f) => ID_FIELD.test(f.name)) ?? unique[0];
}

/** Row numbers, not keys: an address table's own id and a layer's feature id match each other by accident. */
const ROW_ID = /^(objectid|object_id|fid|oid|gid|rowid|id|addr(ess)?_?id|__id)$/i;

/**
 * Ranks (address column, parcel field) pairs by the share of addresses whose value is a parcel's value.
 * Only parcel fields that identify a lot (nearly one value per feature) are keys.
 */
function rankJoinKeys(addresses: InspectedLayer, parcels: InspectedLayer, exclude: Set<string>): JoinKeyCandidate[] {
  const out: JoinKeyCandidate[] = [];
  for (const f of addresses.fields) if (ROW_ID.test(f.name)) exclude.add(f.name);
  const parcelSets = parcels.fields.filter((f) => f.distinct >= 2 && f.distinct >= f.filled * 0.8 && !ROW_ID.test(f.name)).map((f) => ({ name: f.name, values: new Set(parcels.features.map((p) => str(p.properties[f.name])).filter(Boolean)) }));
  for (const af of addresses.fields) {
    if (exclude.has(af.name) || af.distinct < 2) continue;
    for (const pf of parcelSets) {
      let matched = 0;
      for (const a of addresses.features) {
        const v = str(a.properties[af.name]);
        if (v !== '' && pf.values.has(v)) matched++;
      }
      if (matched > 0) out.push({ addressField: af.name, parcelField: pf.name, matched, total: addresses.rows, rate: matched / addresses.rows });
    }
  }
  return out.sort((a, b) => b.rate - a.rate).slice(0, 5);
}

const pc = (n: number, d: number) => (d === 0 ? 'n/a' : `${((n / d) * 100).toFixed(1)} %`);

/** Inspects a folder and decides the roles, fields and joins (see the file comment). */
export async function inspectSourceDir(dir: string, opts: { knownDistricts?: string[] } = {}): Promise<Inspection> {
  const known = opts.knownDistricts?.length ? new Set(opts.knownDistricts) : undefined;
  const abs = path.resolve(dir);
  const skipped: Inspection['skipped'] = [];
  const layers = await readLayers(abs, skipped);
  resolveCrs(abs, layers, new Set(listFiles(abs)));
  const notes: string[] = [];
  const confirm: string[] = [];
  const roles: Inspection['roles'] = {};

  // Addresses: the layer with an address column and the most rows.
  let address: Inspection['address'];
  for (const l of [...layers].filter((l) => l.format === 'csv' || isPoints(l)).sort((a, b) => b.rows - a.rows)) {
    const a = findAddressColumns(l);
    if (a) {
      roles.addresses = l;
      address = a;
      break;
    }
  }
  // Polygons: zoning has a district-code field; a boundary is a handful of polygons; parcels are the rest with the most features.
  const polys = layers.filter(isPolygons);
  const zoning = polys.filter((l) => zoneFieldOf(l, known)).sort((a, b) => Number(/zon/i.test(b.file + (b.object ?? ''))) - Number(/zon/i.test(a.file + (a.object ?? ''))) || a.rows - b.rows)[0];
  if (zoning) roles.zoning = zoning;
  const boundary = polys.filter((l) => l !== zoning && l.rows <= 5).sort((a, b) => Number(/limit|bound|town|city|munic/i.test(b.file)) - Number(/limit|bound|town|city|munic/i.test(a.file)))[0];
  if (boundary) roles.boundary = boundary;
  const parcels = polys.filter((l) => l !== zoning && l !== boundary).sort((a, b) => b.rows - a.rows)[0];
  if (parcels) roles.parcels = parcels;

  let zoneField: Inspection['zoneField'];
  if (zoning) {
    const ev = zoneFieldOf(zoning, known)!;
    const f = ev.field;
    const codes = [...new Set(zoning.features.map((z) => str(z.properties[f.name])).filter(Boolean))].sort();
    const nameField = zoning.fields.find((n) => n !== f && !n.personal && /name|desc/i.test(n.name) && n.distinct <= codes.length * 1.5 && n.filled > 0)?.name;
    const how = ev.byContent ? (ev.ruleShare !== null && ev.ruleShare >= 0.5 ? 'by its values: they are districts of the rules' : 'by its values: they look like district codes') : 'by its name (no field holds values shaped like district codes)';
    const rivals = ev.rivals.length ? `; not ${ev.rivals.map((r) => `${r.name} (${pc(r.shapeShare, 1)} code-shaped${r.ruleShare !== null ? `, ${pc(r.ruleShare, 1)} in the rules` : ''})`).join(', ')}` : '';
    const evidence = `${codes.length} distinct values (e.g. ${codes.slice(0, 5).join(', ')}), on ${pc(ev.fillShare, 1)} of ${zoning.rows} polygons, ${pc(ev.shapeShare, 1)} shaped like district codes${ev.ruleShare !== null ? `, ${pc(ev.ruleShare, 1)} districts of the rules` : ''}${rivals}`;
    zoneField = { field: f.name, ...(nameField ? { nameField } : {}), codes, why: `(${how}) field ${f.name}: ${evidence}`, evidence };
  }

  // Join keys, ranked by measured overlap, and the point-in-parcel join.
  let joinKeys: JoinKeyCandidate[] = [];
  let pointInParcel: Inspection['pointInParcel'];
  let disagreements: number | undefined;
  let parcelIdField: Inspection['parcelIdField'];
  let lotBy: Inspection['lotBy'];
  if (roles.addresses && parcels) {
    const exclude = new Set([address?.oneLine, address?.number, address?.streetName, roles.addresses.xy?.x, roles.addresses.xy?.y].filter((x): x is string => Boolean(x)));
    joinKeys = rankJoinKeys(roles.addresses, parcels, exclude);
    const lots = parcels.features.flatMap((p) => {
      const mp = toMultiPolygon(p.geometry);
      return mp ? [{ id: String(p.index), geom: mp, bbox: bboxOf(mp) }] : [];
    });
    const index = new LotIndex(lots);
    const pointLots = roles.addresses.features.map((a) => (a.geometry?.type === 'Point' ? index.lotsAt(a.geometry.coordinates as Position) : []));
    const withPoint = roles.addresses.features.filter((a) => a.geometry?.type === 'Point').length;
    if (withPoint > 0) {
      const matched = pointLots.filter((l) => l.length > 0).length;
      pointInParcel = { matched, total: roles.addresses.rows, rate: matched / roles.addresses.rows };
    }
    const best = joinKeys[0] && joinKeys[0].rate >= 0.2 ? joinKeys[0] : undefined;
    if (best) {
      parcelIdField = { field: best.parcelField, why: `the parcel field the best join key matches (${best.addressField} -> ${best.parcelField}: ${pc(best.matched, best.total)} of addresses)` };
      if (pointInParcel) {
        const byValue = new Map<string, number[]>();
        parcels.features.forEach((p) => {
          const v = str(p.properties[best.parcelField]);
          if (v) byValue.set(v, [...(byValue.get(v) ?? []), p.index]);
        });
        disagreements = 0;
        roles.addresses.features.forEach((a, i) => {
          const ids = byValue.get(str(a.properties[best.addressField]));
          const at = pointLots[i]!;
          if (ids && at.length && !ids.some((id) => at.includes(String(id)))) disagreements!++;
        });
      }
    } else {
      const f = idFieldOf(parcels);
      if (f) parcelIdField = { field: f.name, why: `no address column matches a parcel field well (best: ${joinKeys[0] ? `${joinKeys[0].addressField} -> ${joinKeys[0].parcelField} ${pc(joinKeys[0].matched, joinKeys[0].total)}` : 'none'}); ${f.name} is the parcel field with unique values (e.g. ${f.samples[0]})` };
    }
    const idRate = best?.rate ?? 0;
    const ptRate = pointInParcel?.rate ?? 0;
    if (best && idRate >= ptRate) lotBy = { mode: pointInParcel ? 'id_then_point' : 'id', why: `the id join (${pc(best.matched, best.total)}) is at least as good as the point join (${pointInParcel ? pc(pointInParcel.matched, pointInParcel.total) : 'no points'})${pointInParcel ? '; addresses without a matching id fall back to their point' : ''}` };
    else if (pointInParcel) lotBy = { mode: 'point', why: `the point join (${pc(pointInParcel.matched, pointInParcel.total)}) beats the best id join (${best ? pc(best.matched, best.total) : 'none found'})` };
  } else if (parcels) {
    const f = idFieldOf(parcels);
    if (f) parcelIdField = { field: f.name, why: `the parcel field with unique values (e.g. ${f.samples[0]})` };
  }

  let lotToZone: Inspection['lotToZone'];
  if (parcels && zoning && zoneField) {
    const zones = zoning.features.flatMap((z) => {
      const mp = toMultiPolygon(z.geometry);
      return mp && str(z.properties[zoneField!.field]) ? [{ id: String(z.index), geom: mp, bbox: bboxOf(mp) }] : [];
    });
    const zi = new LotIndex(zones);
    let matched = 0;
    let total = 0;
    for (const p of parcels.features) {
      const mp = toMultiPolygon(p.geometry);
      if (!mp) continue;
      total++;
      if (zi.lotsAt(pointOnSurface(mp)).length) matched++;
    }
    lotToZone = { matched, total, rate: total ? matched / total : 0 };
  }

  // What the analyst must confirm.
  for (const l of layers) if (l.crsToConfirm && Object.values(roles).includes(l)) confirm.push(`the CRS of ${l.file}: ${l.crsReason}`);
  if (!roles.addresses) confirm.push('no address table found (a CSV or point layer with a one-line address column, or house number + street columns): the place cannot go live without one');
  if (!parcels) confirm.push('no parcel layer found (polygons with an id per lot)');
  if (!zoning) confirm.push('no zoning layer found (polygons with a district code field such as ZONE or DISTRICT)');
  if (address?.oneLine) confirm.push(`that ${address.oneLine} is the street address (not a mailing address): ${address.why}`);
  else if (address) confirm.push(`the address columns: ${address.why}`);
  if (zoneField) confirm.push(`the district code field ${zoneField.field} of ${zoning!.file}: ${zoneField.evidence ?? zoneField.why}${lotToZone ? `; lot -> zone ${pc(lotToZone.matched, lotToZone.total)}` : ''}`);
  if (parcelIdField) confirm.push(`the parcel id field ${parcelIdField.field} of ${parcels!.file}: ${parcelIdField.why}`);
  if (lotBy) confirm.push(`lots found by ${lotBy.mode}: ${lotBy.why}`);
  for (const l of [roles.boundary, roles.zoning, roles.parcels, roles.addresses]) if (l?.dateStated) confirm.push(`the vintage of ${l.file}: ${l.dateStated}, the date the file itself states`);
  const personal = layers.flatMap((l) => l.fields.filter((f) => f.personal).map((f) => `${l.file}: ${f.name}`));
  if (personal.length) notes.push(`personal data (names, contacts) not shown and not loaded: ${personal.join(', ')}`);
  if (lotBy?.mode !== 'point' && joinKeys[0] && joinKeys[0].rate < DEFAULT_JOIN_THRESHOLDS.addressToLot) confirm.push(`the join key ${joinKeys[0].addressField} -> ${joinKeys[0].parcelField} matches only ${pc(joinKeys[0].matched, joinKeys[0].total)} of addresses`);
  if (disagreements) confirm.push(`${disagreements} addresses name one lot by id but their point lies in another: check which the town trusts (manifest lotBy)`);
  if (!roles.addresses || !parcels || !zoning) confirm.push('status: written as planned_not_live (a place answers addresses only with addresses, parcels and zoning)');
  confirm.push('each source\'s vintage, licence and attribution (written as "TO CONFIRM")');
  confirm.push('rules.json: no ordinance was read, so every value is not_extracted; cite the ordinance to give values');
  if (roles.addresses && roles.parcels && roles.zoning) notes.push('status is "live": the import keeps the place planned_not_live unless address -> lot >= 90 % and lot -> zone >= 95 % (joinThresholds)');
  return { dir: abs, layers, skipped, roles, ...(address ? { address } : {}), ...(parcelIdField ? { parcelIdField } : {}), ...(zoneField ? { zoneField } : {}), joinKeys, ...(pointInParcel ? { pointInParcel } : {}), ...(disagreements !== undefined ? { disagreements } : {}), ...(lotBy ? { lotBy } : {}), ...(lotToZone ? { lotToZone } : {}), notes, confirm };
}

function sha256(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

export interface PlaceIdentity {
  slug: string;
  name: string;
  region: string;
  country: 'US' | 'CA';
  /** What the clerk knows about every file (data init --vintage / --licence / --attribution); else "TO CONFIRM". */
  provenance?: { vintage?: string; licence?: string; attribution?: string };
}

/** The geoDivisionId name key: lower-case ASCII words joined by dashes. */
export function nameKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/^(city|town|village|township|district|municipality) of /, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const TO_CONFIRM = 'TO CONFIRM';

function sourceBase(ins: Inspection, l: InspectedLayer, id: string, name: string, given: PlaceIdentity['provenance'] = {}): Record<string, unknown> {
  const s: Record<string, unknown> = {
    id,
    name,
    file: l.file,
    sha256: sha256(path.join(ins.dir, l.file)),
    vintage: given.vintage ?? l.dateStated ?? `${TO_CONFIRM}: the date the town published ${l.file}`,
    licence: given.licence ?? `${TO_CONFIRM}: the licence of ${l.file}`,
    attribution: given.attribution ?? `${TO_CONFIRM}: the attribution the town requires`,
    format: l.format,
  };
  if (l.format === 'geojson' && l.gzip) s['gzip'] = true;
  if (l.format === 'topojson') s['object'] = l.object;
  if (l.format === 'csv') {
    s['encoding'] = l.encoding;
    s['csv'] = { header: l.csv!.header, delimiter: l.csv!.delimiter };
  }
  if (l.format === 'shapefile') {
    s['encoding'] = l.encoding;
    const ref = (f: string) => ({ file: f, sha256: sha256(path.join(ins.dir, f)) });
    s['dbf'] = ref(l.companions!.dbf);
    if (l.companions!.prj) s['prj'] = ref(l.companions!.prj);
    else throw new Error(`${l.file}: a shapefile without a .prj cannot be placed`);
    if (l.companions!.shx) s['shx'] = ref(l.companions!.shx);
  }
  // The CRS goes into the manifest when the file does not name it itself (a GeoJSON crs member, a .prj).
  if (l.format !== 'shapefile' && l.crs && !isLonLatCrs(l.crs) && !(l.format === 'geojson' && l.crsReason.startsWith("the file's crs member"))) s['crs'] = l.crs;
  return s;
}

/** The manifest and rules skeleton for an inspection (plain JSON, validated by the caller). */
export function draftPlace(ins: Inspection, id: PlaceIdentity): { manifest: Record<string, unknown>; rules: Record<string, unknown> } {
  const sources: Record<string, unknown>[] = [];
  const { roles } = ins;
  if (roles.boundary) sources.push({ ...sourceBase(ins, roles.boundary, 'boundary', 'Town limits', id.provenance), load: { target: 'boundary' } });
  if (roles.zoning && ins.zoneField) {
    sources.push({
      ...sourceBase(ins, roles.zoning, 'zoning', 'Zoning districts', id.provenance),
      load: {
        target: 'zones',
        zoneLayer: 'base',
        code: { field: ins.zoneField.field },
        ...(ins.zoneField.nameField ? { nameField: ins.zoneField.nameField } : {}),
        // OZFS: the residential types each district allows, kept as the shipped OZFS place keeps them.
        ...(roles.zoning.format === 'ozfs-zoning' && roles.zoning.fields.some((f) => f.name === 'res_types_allowed') ? { attrs: { resTypesAllowed: 'res_types_allowed' } } : {}),
      },
    });
  }
  if (roles.parcels && ins.parcelIdField) {
    sources.push({ ...sourceBase(ins, roles.parcels, 'parcels', 'Parcels', id.provenance), load: { target: 'parcels', idField: ins.parcelIdField.field } });
  }
  if (roles.addresses && ins.address) {
    const a = ins.address;
    const key = ins.joinKeys[0];
    const fields: Record<string, string> = {};
    if (a.oneLine) fields['oneLine'] = a.oneLine;
    if (a.number) fields['number'] = a.number;
    if (a.streetName) fields['streetName'] = a.streetName;
    if (a.unit) fields['unit'] = a.unit;
    if (a.postcode) fields['postcode'] = a.postcode;
    // The town's own lot id is kept whatever the join (lotBy point too): the audit checks it against the point.
    if (key && key.rate >= 0.2) fields['parcelId'] = key.addressField;
    if (roles.addresses.xy) {
      fields['lon'] = roles.addresses.xy.x;
      fields['lat'] = roles.addresses.xy.y;
    }
    sources.push({
      ...sourceBase(ins, roles.addresses, 'addresses', 'Address points', id.provenance),
      load: { target: 'addresses', fields, ...(ins.lotBy ? { lotBy: ins.lotBy.mode } : {}) },
    });
  }
  const boxes = [roles.boundary, roles.zoning, roles.parcels, roles.addresses].map((l) => l?.lonLatBBox).filter((b): b is BBox => Boolean(b));
  const bbox: BBox = boxes.length ? [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))] : [0, 0, 0, 0];
  const round = (x: number) => Math.round(x * 1e5) / 1e5;
  const missing = [!sources.some((s) => s['id'] === 'addresses') && 'address table', !sources.some((s) => s['id'] === 'parcels') && 'parcels', !sources.some((s) => s['id'] === 'zoning') && 'zoning layer'].filter((x): x is string => Boolean(x));
  const manifest = {
    slug: id.slug,
    geoDivisionId: `${id.country}-${id.region}:${nameKey(id.name)}`,
    name: id.name,
    region: id.region,
    country: id.country,
    aliases: [`${id.name}, ${id.region}`],
    ...(missing.length
      ? { status: 'planned_not_live', statusReason: `${id.name} has no ${missing.join(' and no ')} in its data yet, so addresses there cannot be answered.` }
      : { status: 'live' }),
    bbox: bbox.map(round),
    sourceFolder: path.basename(ins.dir),
    rulesFile: 'rules.json',
    defaultImport: false,
    sources,
    // Licence files beside the data are held (checksummed) as the place's documents.
    documents: fs
      .readdirSync(ins.dir)
      .filter((f) => /^licen[cs]e(\.(md|txt))?$/i.test(f) && fs.statSync(path.join(ins.dir, f)).isFile())
      .sort()
      .map((f) => ({ file: f, sha256: sha256(path.join(ins.dir, f)), role: 'licence' })),
  };
  const why = `No ordinance was read for ${id.name}: every value is not_extracted until someone reads the zoning ordinance and cites it (docs/data.md, "The rules file").`;
  const districts: Record<string, unknown> = {};
  const names = new Map<string, string>();
  if (roles.zoning && ins.zoneField?.nameField) for (const f of roles.zoning.features) names.set(str(f.properties[ins.zoneField.field]), str(f.properties[ins.zoneField.nameField]));
  for (const code of ins.zoneField?.codes ?? []) {
    districts[code] = {
      name: names.get(code) || code,
      standards: {},
      otherStandards: { status: 'not_extracted', note: why },
      uses: [{ use: 'all uses', permission: 'unknown', status: 'not_extracted', note: why }],
    };
  }
  const rules = {
    slug: id.slug,
    country: id.country,
    bylaw: { name: `${id.name} zoning ordinance`, date: 'not read', note: 'No ordinance text was read: the districts come from the zoning layer only.' },
    notes: [`Skeleton written by siteline data init from the zoning layer ${roles.zoning?.file ?? '(none found)'}. ${why}`],
    aliases: {},
    patterns: [],
    overlays: {},
    districts,
  };
  return { manifest, rules };
}

/** The inspection as text: layers, guesses with reasons, joins, and what to confirm. */
export function formatInspection(ins: Inspection): string {
  const L: string[] = [`Inspected ${ins.dir}: ${ins.layers.length} layer(s)`];
  for (const l of ins.layers) {
    const role = Object.entries(ins.roles).find(([, v]) => v === l)?.[0];
    const geom = Object.entries(l.geometry).map(([k, n]) => `${n} ${k}`).join(', ');
    L.push('', `  ${l.file}${l.object ? ` (object ${l.object})` : ''}: ${l.format}${l.encoding ? `, ${l.encoding}` : ''}${l.csv ? `, ${l.csv.header ? 'header row' : 'no header (columns numbered 1..n)'}, delimiter ${JSON.stringify(l.csv.delimiter)}` : ''}; ${l.rows} rows (${geom})${role ? ` -> ${role.toUpperCase()}` : ' -> not used'}`);
    L.push(`    CRS: ${l.crs ? shortCrs(l.crs) : 'lon/lat'}${l.crsReason ? ` (${l.crsReason})` : ''}`);
    if (l.xy) L.push(`    coordinates: x = ${l.xy.x}, y = ${l.xy.y}`);
    for (const f of l.fields.slice(0, 25)) L.push(`    ${f.name.padEnd(22)} ${String(f.distinct).padStart(6)} distinct  ${f.personal ? '(personal data: values not shown)' : `e.g. ${f.samples.map((s) => JSON.stringify(s.slice(0, 40))).join(', ')}`}`);
    if (l.fields.length > 25) L.push(`    ... and ${l.fields.length - 25} more fields`);
  }
  for (const s of ins.skipped) L.push(`  skipped ${s.file}: ${s.reason}`);
  L.push('', 'Guesses:');
  if (ins.address) L.push(`  address: ${ins.address.why}`);
  if (ins.zoneField) L.push(`  district code: ${ins.zoneField.why}${ins.zoneField.nameField ? `; names from ${ins.zoneField.nameField}` : ''}`);
  if (ins.parcelIdField) L.push(`  parcel id: ${ins.parcelIdField.field} (${ins.parcelIdField.why})`);
  if (ins.joinKeys.length) {
    L.push('  address -> lot join keys, by measured overlap:');
    for (const k of ins.joinKeys) L.push(`    ${k.addressField} -> ${k.parcelField}: ${k.matched} of ${k.total} = ${pc(k.matched, k.total)}`);
  } else if (ins.roles.addresses && ins.roles.parcels) L.push('  address -> lot join keys: no address column matches a parcel field');
  if (ins.pointInParcel) L.push(`  address point inside a parcel: ${ins.pointInParcel.matched} of ${ins.pointInParcel.total} = ${pc(ins.pointInParcel.matched, ins.pointInParcel.total)}`);
  if (ins.disagreements !== undefined) L.push(`  best key and point disagree on ${ins.disagreements} addresses`);
  if (ins.lotBy) L.push(`  lots found by: ${ins.lotBy.mode} (${ins.lotBy.why})`);
  if (ins.lotToZone) L.push(`  lot -> zone (a point inside each lot in a district): ${ins.lotToZone.matched} of ${ins.lotToZone.total} = ${pc(ins.lotToZone.matched, ins.lotToZone.total)}`);
  for (const n of ins.notes) L.push(`  note: ${n}`);
  L.push('', 'Confirm:');
  for (const c of ins.confirm) L.push(`  - ${c}`);
  return L.join('\n') + '\n';
}
