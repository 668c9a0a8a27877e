// `siteline data init`, last step (src/importer/inspect-source.ts inspects): the manifest and rules
// skeleton drafted from an inspection, every guess the clerk did not state written "TO CONFIRM", and
// the inspection as text.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BBox } from '../core/geo/primitives.ts';
import { isLonLatCrs } from './readers/crs.ts';
import { shortCrs, str, type InspectedLayer } from './inspect-layers.ts';
import { pc, type Inspection } from './inspect-source.ts';

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
function nameKey(name: string): string {
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
  if (l.format !== 'shapefile' && l.crs && !isLonLatCrs(l.crs) && !(l.format === 'geojson' && l.crsReason.startsWith("the file's crs member")))
    s['crs'] = l.crs;
  return s;
}

/** The manifest and rules skeleton for an inspection (plain JSON, validated by the caller). */
// Long because: the manifest and the rules skeleton written field by field, in the order the files list them.
export function draftPlace(ins: Inspection, id: PlaceIdentity): { manifest: Record<string, unknown>; rules: Record<string, unknown> } {
  const sources: Record<string, unknown>[] = [];
  const { roles } = ins;
  if (roles.boundary) sources.push({ ...sourceBase(ins, roles.boundary, 'boundary', 'Town limits', id.provenance), load: { target: 'boundary' } });
  const kind = ins.zoneKind;
  const oneOrList = (vs: string[]) => (vs.length === 1 ? vs[0] : vs);
  if (roles.zoning && ins.zoneField) {
    sources.push({
      ...sourceBase(ins, roles.zoning, 'zoning', 'Zoning districts', id.provenance),
      load: {
        target: 'zones',
        zoneLayer: 'base',
        code: { field: ins.zoneField.field },
        // A kind field: only the base districts here; the overlays are their own source below.
        ...(kind ? { where: { [kind.field]: oneOrList(kind.baseValues) } } : {}),
        ...(ins.zoneField.nameField ? { nameField: ins.zoneField.nameField } : {}),
        // OZFS: the residential types each district allows, kept as the shipped OZFS place keeps them.
        ...(roles.zoning.format === 'ozfs-zoning' && roles.zoning.fields.some((f) => f.name === 'res_types_allowed')
          ? { attrs: { resTypesAllowed: 'res_types_allowed' } }
          : {}),
      },
    });
  }
  if (roles.zoning && ins.zoneField && kind) {
    sources.push({
      ...sourceBase(ins, roles.zoning, 'overlays', 'Overlay districts', id.provenance),
      load: {
        target: 'zones',
        zoneLayer: 'overlay',
        code: { field: ins.zoneField.field },
        ...(ins.zoneField.nameField ? { nameField: ins.zoneField.nameField } : {}),
        where: { [kind.field]: oneOrList(kind.overlayValues) },
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
  const bbox: BBox = boxes.length
    ? [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))]
    : [0, 0, 0, 0];
  const round = (x: number) => Math.round(x * 1e5) / 1e5;
  const missing = [
    !sources.some((s) => s['id'] === 'addresses') && 'address table',
    !sources.some((s) => s['id'] === 'parcels') && 'parcels',
    !sources.some((s) => s['id'] === 'zoning') && 'zoning layer',
  ].filter((x): x is string => Boolean(x));
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
  if (roles.zoning && ins.zoneField?.nameField)
    for (const f of roles.zoning.features) names.set(str(f.properties[ins.zoneField.field]), str(f.properties[ins.zoneField.nameField]));
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
    overlays: Object.fromEntries((kind?.overlayCodes ?? []).map((code) => [code, { name: names.get(code) || code, note: why }])),
    districts,
  };
  return { manifest, rules };
}

/** The inspection as text: layers, guesses with reasons, joins, and what to confirm. */
export function formatInspection(ins: Inspection): string {
  const L: string[] = [`Inspected ${ins.dir}: ${ins.layers.length} layer(s)`];
  for (const l of ins.layers) {
    const role = Object.entries(ins.roles).find(([, v]) => v === l)?.[0];
    const geom = Object.entries(l.geometry)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
    L.push(
      '',
      `  ${l.file}${l.object ? ` (object ${l.object})` : ''}: ${l.format}${l.encoding ? `, ${l.encoding}` : ''}${l.csv ? `, ${l.csv.header ? 'header row' : 'no header (columns numbered 1..n)'}, delimiter ${JSON.stringify(l.csv.delimiter)}` : ''}; ${l.rows} rows (${geom})${role ? ` -> ${role.toUpperCase()}` : ' -> not used'}`,
    );
    L.push(`    CRS: ${l.crs ? shortCrs(l.crs) : 'lon/lat'}${l.crsReason ? ` (${l.crsReason})` : ''}`);
    if (l.xy) L.push(`    coordinates: x = ${l.xy.x}, y = ${l.xy.y}`);
    for (const f of l.fields.slice(0, 25))
      L.push(
        `    ${f.name.padEnd(22)} ${String(f.distinct).padStart(6)} distinct  ${f.personal ? '(personal data: values not shown)' : `e.g. ${f.samples.map((s) => JSON.stringify(s.slice(0, 40))).join(', ')}`}`,
      );
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
  if (ins.pointInParcel)
    L.push(
      `  address point inside a parcel: ${ins.pointInParcel.matched} of ${ins.pointInParcel.total} = ${pc(ins.pointInParcel.matched, ins.pointInParcel.total)}`,
    );
  if (ins.disagreements !== undefined) L.push(`  best key and point disagree on ${ins.disagreements} addresses`);
  if (ins.lotBy) L.push(`  lots found by: ${ins.lotBy.mode} (${ins.lotBy.why})`);
  if (ins.lotToZone)
    L.push(
      `  lot -> zone (a point inside each lot in a district): ${ins.lotToZone.matched} of ${ins.lotToZone.total} = ${pc(ins.lotToZone.matched, ins.lotToZone.total)}`,
    );
  for (const n of ins.notes) L.push(`  note: ${n}`);
  L.push('', 'Confirm:');
  for (const c of ins.confirm) L.push(`  - ${c}`);
  return L.join('\n') + '\n';
}
