// Source features and rows -> table rows, per load target. Every row that cannot be loaded is counted
// with its reason; nothing is dropped silently.
import { withoutPersonal } from './personal-columns.ts';
import polygonClipping from 'polygon-clipping';
import {
  bboxOf,
  multiPolygonAreaM2,
  pointInMultiPolygon,
  pointOnSurface,
  toMultiPolygon,
  type MultiPolygonCoords,
  type Position,
} from '../core/geo/primitives.ts';
import { displayStreet, streetKey, streetKeyFromParts } from '../geocoder/street-key.ts';
import type { AddressRow, LotLocationRow, ParcelRow, StreetSegmentRow, ZoneRow } from './load-tables.ts';
import { parseLotLocation } from '../geocoder/lot-location.ts';
import type { CodeMapping, Manifest, ManifestSource } from '../places/manifest.ts';
import type { SourceData } from './read-source.ts';
import { RejectCounter } from './import-report.ts';
import { joinRate, type AddressLotJoin, type SourceReport } from '../places/import-report.ts';
import { LotIndex } from './lot-index.ts';
import { parseAddress } from '../geocoder/parse-address.ts';
import type { SourceFeature } from './readers/features.ts';

export interface PlaceRows {
  boundary: MultiPolygonCoords | null;
  zones: ZoneRow[];
  parcels: Map<string, ParcelRow>;
  addresses: AddressRow[];
  segments: StreetSegmentRow[];
  /** Street addresses a parcel-attribute source names for its lots (manifest `locationField`). */
  lotLocations: LotLocationRow[];
  /** How the address table found its lots (set by the addresses source). */
  addressLots?: AddressLotJoin;
}

export function emptyPlaceRows(): PlaceRows {
  return { boundary: null, zones: [], parcels: new Map(), addresses: [], segments: [], lotLocations: [] };
}

/** Targets are applied in this order, whatever the manifest's order (names need zones, attributes need parcels). */
const TARGET_ORDER = ['boundary', 'zones', 'zone_names', 'parcels', 'parcel_attributes', 'addresses', 'street_segments'] as const;

export class SourceTally {
  readonly rejects = new RejectCounter();
  rowsRead = 0;
  rowsLoaded = 0;
  rowsSkipped = 0;
  readonly notes: string[] = [];
  constructor(readonly source: ManifestSource) {}
  report(): SourceReport {
    return {
      id: this.source.id,
      file: this.source.file,
      format: this.source.format,
      target: this.source.load.target,
      rowsRead: this.rowsRead,
      rowsLoaded: this.rowsLoaded,
      rowsSkipped: this.rowsSkipped,
      rowsRejected: this.rejects.total,
      rejects: this.rejects.list(),
      notes: this.notes,
    };
  }
}

/** A CSV row the reader flagged (malformed, wrong field count, NUL byte) is rejected alone, naming its file and line. */
function rejectedByReader(r: { problem?: string | undefined; problemReason?: string | undefined; recordNo: number }, tally: SourceTally): boolean {
  if (!r.problem) return false;
  tally.rejects.add(r.problemReason ?? 'wrong number of fields', r.problem.includes('line ') ? r.problem : `record ${r.recordNo}: ${r.problem}`);
  return true;
}

/** How many physical lines the CSV had against the records read: a quoted line break shows here. */
function notePhysicalLines(data: SourceData, tally: SourceTally): void {
  if (data.kind === 'rows' && data.physicalLines !== undefined) tally.notes.push(`${data.physicalLines} physical lines, ${data.rows.length} records`);
}

const text = (v: unknown): string => (v === null || v === undefined ? '' : String(v).trim());

/** Source value -> rules-file code through the manifest's exact map, then its patterns. */
function mapCode(raw: string, m: CodeMapping): string {
  const exact = m.map[raw];
  if (exact !== undefined) return exact;
  for (const p of m.patterns) {
    const re = new RegExp(p.match);
    if (re.test(raw)) return raw.replace(re, p.replace);
  }
  return raw;
}

function pickAttrs(props: Record<string, unknown>, spec: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, field] of Object.entries(spec)) {
    const v = props[field];
    if (v !== undefined && v !== null && v !== '') out[k] = v;
  }
  return out;
}

/** Drops rings with fewer than 4 positions and polygons without an outer ring. */
function cleanMultiPolygon(mp: MultiPolygonCoords): MultiPolygonCoords {
  return mp.map((poly) => poly.filter((ring) => Array.isArray(ring) && ring.length >= 4)).filter((poly) => poly.length > 0);
}

/** Self-intersecting rings made valid (the union of a polygon with itself resolves the crossings). */
function repairMultiPolygon(mp: MultiPolygonCoords): MultiPolygonCoords {
  return polygonClipping.union(mp as unknown as polygonClipping.MultiPolygon) as unknown as MultiPolygonCoords;
}

const featureLabel = (f: SourceFeature) => `feature ${f.index}`;

function polygonOf(f: SourceFeature, tally: SourceTally): MultiPolygonCoords | null {
  const mp = toMultiPolygon(f.geometry);
  if (!mp) {
    tally.rejects.add(f.geometry ? `geometry is ${f.geometry.type}, not a polygon` : 'no geometry', featureLabel(f));
    return null;
  }
  const clean = cleanMultiPolygon(mp);
  if (clean.length === 0) {
    tally.rejects.add('empty geometry', featureLabel(f));
    return null;
  }
  return clean;
}

function transformBoundary(data: SourceData, tally: SourceTally, rows: PlaceRows): void {
  if (data.kind !== 'features') throw new Error(`${tally.source.id}: a boundary needs a spatial format`);
  const parts: MultiPolygonCoords = rows.boundary ? [...rows.boundary] : [];
  for (const f of data.features) {
    tally.rowsRead++;
    const mp = polygonOf(f, tally);
    if (!mp) continue;
    parts.push(...mp);
    tally.rowsLoaded++;
  }
  rows.boundary = parts.length ? parts : null;
}

const NO_NAMES: ReadonlySet<string> = new Set();

function transformZones(data: SourceData, tally: SourceTally, rows: PlaceRows): void {
  const load = tally.source.load;
  if (load.target !== 'zones') return;
  if (data.kind !== 'features') throw new Error(`${tally.source.id}: zones need a spatial format`);
  let repaired = 0;
  let repairFailed = 0;
  let tags = 0;
  let rewritten = 0;
  for (const f of data.features) {
    tally.rowsRead++;
    const p = f.properties;
    if (load.where && !Object.entries(load.where).every(([k, v]) => (Array.isArray(v) ? v.includes(p[k] as never) : p[k] === v))) {
      tally.rowsSkipped++;
      continue;
    }
    const raw = text(p[load.code.field]);
    if (raw === '') {
      tally.rejects.add(`no district code in ${load.code.field}`, `${featureLabel(f)} ${JSON.stringify(withoutPersonal(p, NO_NAMES)).slice(0, 120)}`);
      continue;
    }
    let mp = polygonOf(f, tally);
    if (!mp) continue;
    if (load.repair) {
      try {
        const fixed = repairMultiPolygon(mp);
        if (fixed.length > 0) {
          const shape = (x: MultiPolygonCoords) => x.map((poly) => poly.length).join(',');
          if (shape(fixed) !== shape(mp)) repaired++;
          mp = fixed;
        }
      } catch {
        repairFailed++;
      }
    }
    const code = mapCode(raw, load.code);
    const attrs = pickAttrs(p, load.attrs);
    if (code !== raw) {
      attrs['sourceCode'] = raw;
      rewritten++;
    }
    const zoneId = `${tally.source.id}:${f.index}`;
    const bbox = bboxOf(mp);
    const name = load.nameField ? text(p[load.nameField]) || null : null;
    rows.zones.push({ zoneId, layer: load.zoneLayer, code, name, geom: mp, bbox, attrs });
    tally.rowsLoaded++;
    if (load.overlayTagField) {
      const tag = text(p[load.overlayTagField]);
      if (tag !== '') {
        rows.zones.push({
          zoneId: `${zoneId}:tag`,
          layer: 'overlay',
          code: tag,
          name: null,
          geom: mp,
          bbox,
          attrs: { taggedOn: code, tagField: load.overlayTagField },
        });
        tags++;
      }
    }
  }
  if (load.repair) tally.notes.push(`polygons made valid by a self-union (self-intersecting rings resolved); ${repaired} changed shape (parts or holes)`);
  if (repairFailed) tally.notes.push(`${repairFailed} polygons could not be repaired and were loaded as they are`);
  if (rewritten) tally.notes.push(`${rewritten} district codes rewritten by the manifest's code map (source value kept as attrs.sourceCode)`);
  if (tags) tally.notes.push(`${tags} features carry ${load.overlayTagField}: each also loaded as an overlay district`);
}

function transformZoneNames(data: SourceData, tally: SourceTally, rows: PlaceRows): void {
  const load = tally.source.load;
  if (load.target !== 'zone_names') return;
  if (data.kind !== 'rows') throw new Error(`${tally.source.id}: zone names need a table`);
  const byCode = new Map<string, ZoneRow[]>();
  for (const z of rows.zones) if (z.layer === 'base') byCode.set(z.code, [...(byCode.get(z.code) ?? []), z]);
  for (const r of data.rows) {
    tally.rowsRead++;
    if (rejectedByReader(r, tally)) continue;
    const code = text(r.values[load.codeField]);
    const name = text(r.values[load.nameField]);
    if (code === '' || name === '') {
      tally.rejects.add('no code or name', `record ${r.recordNo}`);
      continue;
    }
    const zones = byCode.get(code);
    if (!zones) {
      tally.rejects.add('district not in the zoning layer', `record ${r.recordNo}: ${code}`);
      continue;
    }
    const description = load.descriptionField ? text(r.values[load.descriptionField]) : '';
    for (const z of zones) {
      z.name ??= name;
      if (description) z.attrs = { ...z.attrs, description };
    }
    tally.rowsLoaded++;
  }
  const named = new Set(rows.zones.filter((z) => z.layer === 'base' && z.name).map((z) => z.code));
  const unnamed = [...byCode.keys()].filter((c) => !named.has(c));
  if (unnamed.length) tally.notes.push(`${unnamed.length} district codes in the zoning layer have no name in this list: ${unnamed.join(', ')}`);
}

function parcelRow(id: string, mp: MultiPolygonCoords, inside: Position | null, attrs: Record<string, unknown>, source: ManifestSource): ParcelRow {
  const p = inside && pointInMultiPolygon(inside, mp) ? inside : pointOnSurface(mp);
  return {
    parcelExtId: id,
    geom: mp,
    bbox: bboxOf(mp),
    insideLon: p[0],
    insideLat: p[1],
    areaM2: multiPolygonAreaM2(mp),
    attrs,
    source: source.id,
    vintage: source.vintage,
  };
}

function transformParcels(data: SourceData, tally: SourceTally, rows: PlaceRows): void {
  const load = tally.source.load;
  if (load.target !== 'parcels') return;
  const notLot = load.rejectIdPattern ? new RegExp(load.rejectIdPattern) : null;
  if (data.kind === 'ozfs-parcels') {
    tally.rowsRead = data.featuresRead;
    if (data.strayFeatures) tally.rejects.add('feature without parcel_id or usable geometry', `${data.strayFeatures} features`);
    let placeholders = 0;
    for (const p of data.parcels) {
      if (!p.ring) {
        tally.rejects.add(`lot edges do not form a polygon (${p.problem ?? 'unknown'})`, p.parcelId);
        continue;
      }
      const placeholder = p.lotWidthFt === 1 && p.lotDepthFt === 1;
      if (placeholder) placeholders++;
      const attrs: Record<string, unknown> = {
        lotWidthFt: placeholder ? null : p.lotWidthFt,
        lotDepthFt: placeholder ? null : p.lotDepthFt,
        lotAreaAcres: p.lotAreaAcres,
        placeholderDimensions: placeholder,
        edges: p.edges.map((e) => ({ side: e.side, coordinates: e.coords })),
      };
      rows.parcels.set(p.parcelId, parcelRow(p.parcelId, [[p.ring]], p.centroid, attrs, tally.source));
      tally.rowsLoaded += 1 + p.edges.length;
    }
    if (placeholders) tally.notes.push(`${placeholders} parcels carry placeholder lot_width = lot_depth = 1.0: dimensions stored as null`);
    return;
  }
  if (data.kind !== 'features') throw new Error(`${tally.source.id}: parcels need a spatial format`);
  const groups = new Map<string, { mp: MultiPolygonCoords; attrs: Record<string, unknown>; features: number }>();
  for (const f of data.features) {
    tally.rowsRead++;
    const id = text(f.properties[load.idField]);
    if (id === '') {
      tally.rejects.add(`no parcel id in ${load.idField}`, featureLabel(f));
      continue;
    }
    if (notLot?.test(id)) {
      tally.rejects.add('not a lot id (road or placeholder piece)', `${featureLabel(f)}: ${id}`);
      continue;
    }
    const mp = polygonOf(f, tally);
    if (!mp) continue;
    const g = groups.get(id);
    if (g) {
      g.mp.push(...mp);
      g.features++;
    } else groups.set(id, { mp: [...mp], attrs: pickAttrs(f.properties, load.attrs), features: 1 });
    tally.rowsLoaded++;
  }
  let multi = 0;
  for (const [id, g] of groups) {
    if (g.features > 1) {
      multi++;
      g.attrs['sourceFeatures'] = g.features;
    }
    rows.parcels.set(id, parcelRow(id, g.mp, null, g.attrs, tally.source));
  }
  tally.notes.push(`${groups.size} parcels from ${tally.rowsLoaded} features (${multi} ids on several features, grouped into one multipolygon)`);
}

function transformParcelAttributes(data: SourceData, tally: SourceTally, rows: PlaceRows): void {
  const load = tally.source.load;
  if (load.target !== 'parcel_attributes') return;
  if (data.kind !== 'rows') throw new Error(`${tally.source.id}: parcel attributes need a table`);
  const acc = new Map<string, { values: Record<string, unknown>; rows: number }>();
  const locations = new Set<string>();
  let locationsUnread = 0;
  for (const r of data.rows) {
    tally.rowsRead++;
    if (rejectedByReader(r, tally)) continue;
    const id = text(r.values[load.idField]);
    if (id === '') {
      tally.rejects.add(`no parcel id in ${load.idField}`, `record ${r.recordNo}`);
      continue;
    }
    if (!rows.parcels.has(id)) {
      tally.rejects.add('no parcel with this id', `record ${r.recordNo}: ${id}`);
      continue;
    }
    let a = acc.get(id);
    if (!a) {
      a = { values: {}, rows: 0 };
      acc.set(id, a);
    }
    a.rows++;
    if (load.locationField) {
      const raw = text(r.values[load.locationField]);
      const loc = raw ? parseLotLocation(raw) : null;
      if (!loc) {
        if (raw) locationsUnread++;
      } else {
        const dedupe = `${id}\u0000${loc.streetKey}\u0000${loc.numberLo}\u0000${loc.numberHi}\u0000${loc.numberSuffix}`;
        if (!locations.has(dedupe)) {
          locations.add(dedupe);
          rows.lotLocations.push({ ...loc, parcelExtId: id, location: raw.replace(/\s+/g, ' '), source: tally.source.id });
        }
      }
    }
    for (const [name, spec] of Object.entries(load.fields)) {
      const raw = text(r.values[spec.field]);
      if (raw === '') continue;
      if (spec.kind === 'number') {
        const n = Number(raw);
        if (!Number.isFinite(n)) continue;
        const prev = a.values[name];
        if (typeof prev !== 'number' || n > prev) a.values[name] = n;
      } else if (a.values[name] === undefined) a.values[name] = raw;
    }
    tally.rowsLoaded++;
  }
  for (const [id, a] of acc) {
    const p = rows.parcels.get(id)!;
    p.attrs = { ...p.attrs, [load.as]: { ...a.values, rows: a.rows } };
  }
  tally.notes.push(`${acc.size} of ${rows.parcels.size} parcels have ${load.as} values (numbers: maximum over rows; text: first value)`);
  if (load.locationField) {
    tally.notes.push(
      `${locations.size} distinct lot locations read from ${load.locationField} for the geocoder${locationsUnread ? `; ${locationsUnread} rows have a ${load.locationField} without a house number or street, not indexed` : ''}`,
    );
  }
}

/**
 * The house number, suffix, street key, unit and postcode of an address record: from the number and
 * street columns, or from a one-line address read by the parser that reads what users type. Null (and
 * the reason tallied) when the record names no usable number or street.
 */
function readStreetAddress(
  r: { recordNo: number; values: Record<string, unknown> },
  tally: SourceTally,
  oneLineText: string,
  partPostcode: string,
): { numText: string; suffix: string; key: string; unit: string; postcode: string } | null {
  const load = tally.source.load;
  if (load.target !== 'addresses') return null;
  const fm = load.fields;
  const v = r.values;
  let numText: string, suffix: string, key: string, unit: string, postcode: string;
  if (fm.number !== undefined && fm.streetName !== undefined) {
    numText = text(v[fm.number]);
    if (!/^\d{1,9}$/.test(numText)) {
      tally.rejects.add('house number is not a whole number', `record ${r.recordNo}: '${numText}'`);
      return null;
    }
    const name = text(v[fm.streetName]);
    if (name === '') {
      tally.rejects.add('no street name', `record ${r.recordNo}`);
      return null;
    }
    key = streetKeyFromParts({
      name,
      type: fm.streetType ? text(v[fm.streetType]) : null,
      predir: fm.predir ? text(v[fm.predir]) : null,
      postdir: fm.postdir ? text(v[fm.postdir]) : null,
    });
    if (key === '') {
      tally.rejects.add('street name has no letters or digits', `record ${r.recordNo}: '${name}'`);
      return null;
    }
    suffix = fm.numberSuffix ? text(v[fm.numberSuffix]).toUpperCase() : '';
    unit = fm.unit ? text(v[fm.unit]) : '';
    postcode = fm.postcode ? text(v[fm.postcode]) : '';
  } else {
    // A one-line address column, read by the same parser that reads what users type.
    let parsed;
    try {
      parsed = oneLineText ? parseAddress(oneLineText) : null;
    } catch (err) {
      tally.rejects.add('one-line address cannot be read', `record ${r.recordNo}: '${oneLineText.slice(0, 60)}' (${(err as Error).message.split('\n')[0]})`);
      return null;
    }
    if (!parsed?.number || !/^\d{1,9}$/.test(parsed.number) || (load.zeroIsNoNumber && Number(parsed.number) === 0)) {
      tally.rejects.add('one-line address has no house number', `record ${r.recordNo}: '${oneLineText.slice(0, 60)}'`);
      return null;
    }
    if (!parsed.streetKey) {
      tally.rejects.add('one-line address has no street', `record ${r.recordNo}: '${oneLineText.slice(0, 60)}'`);
      return null;
    }
    numText = parsed.number;
    key = parsed.streetKey;
    suffix = (fm.numberSuffix ? text(v[fm.numberSuffix]) : (parsed.numberSuffix ?? '')).toUpperCase();
    unit = fm.unit ? text(v[fm.unit]) : (parsed.unit ?? '');
    postcode = fm.postcode ? text(v[fm.postcode]) : /^\d{5}$/.test(partPostcode) ? partPostcode : (parsed.postcode ?? '');
  }
  return { numText, suffix, key, unit, postcode };
}

// Long because: one pass over the address rows, each column parsed in turn with its own rejection reason.
function transformAddresses(data: SourceData, tally: SourceTally, rows: PlaceRows): void {
  const load = tally.source.load;
  if (load.target !== 'addresses') return;
  const fm = load.fields;
  const nullIds = new Set(load.nullParcelIds);
  const rightOfWay = new Set(load.rightOfWayParcelIds);
  const nullIdPattern = load.nullParcelIdPattern ? new RegExp(load.nullParcelIdPattern) : null;
  const lotBy = load.lotBy ?? (fm.parcelId ? 'id' : 'point');
  let noParcel = 0;
  let expanded = 0;
  let extraRows = 0;
  const records: { recordNo: number; values: Record<string, unknown>; problem?: string | undefined; problemReason?: string | undefined }[] =
    data.kind === 'rows'
      ? data.rows
      : data.kind === 'features'
        ? data.features.map((f) => ({
            recordNo: f.index + 1,
            values: {
              ...f.properties,
              __lon: (f.geometry?.coordinates as number[] | undefined)?.[0],
              __lat: (f.geometry?.coordinates as number[] | undefined)?.[1],
            },
          }))
        : [];
  if (data.kind === 'ozfs-parcels') throw new Error(`${tally.source.id}: addresses need a table or points`);
  const project = data.kind === 'rows' ? data.project : undefined;
  const lotIndex = new LotIndex([...rows.parcels.values()].map((p) => ({ id: p.parcelExtId, geom: p.geom, bbox: p.bbox })));
  const join = { byId: 0, byPoint: 0, withPoint: 0, disagreements: 0, examples: [] as string[] };
  for (const r of records) {
    tally.rowsRead++;
    const v = r.values;
    if (rejectedByReader(r, tally)) continue;
    const oneLineWhole = fm.oneLine ? text(v[fm.oneLine]) : '';
    // "11 WINDOM ST #1, WINDOM ST, SOMERVILLE, 02144": the street address is one part, the ZIP another ("NA" when none).
    const parts = fm.oneLineParts ? oneLineWhole.split(',').map((x) => x.trim()) : null;
    const oneLineText = parts ? (parts[fm.oneLineParts!.address] ?? '') : oneLineWhole;
    const partPostcode = parts && fm.oneLineParts!.postcode !== undefined ? (parts[fm.oneLineParts!.postcode] ?? '') : '';
    const read = readStreetAddress(r, tally, oneLineText, partPostcode);
    if (!read) continue;
    const { numText, key, unit, postcode } = read;
    let { suffix } = read;
    const display = displayStreet(key);
    const parcelRaw = fm.parcelId ? text(v[fm.parcelId]) : '';
    const idLot = parcelRaw === '' || nullIds.has(parcelRaw) || nullIdPattern?.test(parcelRaw) ? null : parcelRaw;
    let x = fm.lon ? Number(text(v[fm.lon]) || NaN) : data.kind === 'features' ? Number(v['__lon']) : NaN;
    let y = fm.lat ? Number(text(v[fm.lat]) || NaN) : data.kind === 'features' ? Number(v['__lat']) : NaN;
    if (project && Number.isFinite(x) && Number.isFinite(y)) [x, y] = project([x, y]);
    const hasPoint = Number.isFinite(x) && Number.isFinite(y);
    const pointLots = hasPoint ? lotIndex.lotsAt([x, y]) : [];
    const idFound = idLot !== null && rows.parcels.has(idLot);
    if (idFound) join.byId++;
    if (hasPoint) join.withPoint++;
    if (pointLots.length) join.byPoint++;
    if (idFound && pointLots.length && !pointLots.includes(idLot)) {
      join.disagreements++;
      if (join.examples.length < 5) join.examples.push(`record ${r.recordNo} (${numText} ${display}): id ${idLot}, point in ${pointLots.join(' / ')}`);
    }
    const parcelExtId = lotBy === 'id' ? idLot : lotBy === 'point' ? (pointLots[0] ?? null) : idFound ? idLot : (pointLots[0] ?? null);
    if (parcelExtId === null) noParcel++;
    // "26-28 IRVINGTON RD": the building's numbers on its side of the street, each its own row of the same lot.
    const range = load.expandNumberRanges ? numberRange(numText, suffix) : null;
    if (range) {
      expanded++;
      suffix = '';
    }
    const numbers = range ?? [Number.parseInt(numText, 10)];
    for (let k = 0; k < numbers.length; k++)
      rows.addresses.push({
        // A range's further numbers get row numbers after the source's last record (row_no is the table's key).
        rowNo: k === 0 ? r.recordNo : records.length + ++extraRows,
        number: numbers[k]!,
        addressId: fm.addressId ? text(v[fm.addressId]) || null : null,
        numberSuffix: suffix,
        streetKey: key,
        streetDisplay: display,
        unit,
        postcode,
        fullAddress:
          (fm.fullAddress ? text(v[fm.fullAddress]) : '') || oneLineText.replace(/\s+/g, ' ') || `${numText}${suffix ? `-${suffix}` : ''} ${display}`,
        parcelExtId,
        sourceLotId: idLot,
        inRightOfWay: rightOfWay.has(parcelRaw),
        lon: hasPoint ? x : null,
        lat: hasPoint ? y : null,
      });
    tally.rowsLoaded++;
  }
  const total = tally.rowsLoaded;
  rows.addressLots = {
    lotBy,
    byId: fm.parcelId ? joinRate(join.byId, total) : null,
    byPoint: join.withPoint > 0 && rows.parcels.size > 0 ? joinRate(join.byPoint, total) : null,
    disagreements: join.disagreements,
    examples: join.examples,
  };
  if (fm.parcelId && noParcel && lotBy === 'id')
    tally.notes.push(`${noParcel} addresses have no parcel id (empty, or a road / placeholder id): loaded without a lot`);
  if (lotBy !== 'id' && noParcel)
    tally.notes.push(
      `${noParcel} addresses found no lot (${lotBy === 'point' ? 'their point is in no parcel' : 'no matching parcel id and their point is in no parcel'}): loaded without a lot`,
    );
  if (expanded)
    tally.notes.push(
      `${expanded} addresses write a range of numbers (e.g. 26-28): loaded as each number of the range on its side of the street, every row naming the same lot`,
    );
  if (join.disagreements)
    tally.notes.push(`${join.disagreements} addresses name one lot by id but their point lies in another (e.g. ${join.examples.slice(0, 2).join('; ')})`);
}

/** "26" with suffix "28" (the parser's reading of "26-28"): 26, 28; null when the suffix is not a higher number of the same parity within 20. */
function numberRange(numText: string, suffix: string): number[] | null {
  if (!/^\d{1,9}$/.test(suffix)) return null;
  const lo = Number.parseInt(numText, 10);
  const hi = Number.parseInt(suffix, 10);
  if (!(hi > lo) || hi - lo > 20 || (hi - lo) % 2 !== 0) return null;
  const out: number[] = [];
  for (let n = lo; n <= hi; n += 2) out.push(n);
  return out;
}

function transformStreetSegments(data: SourceData, tally: SourceTally, rows: PlaceRows): void {
  const load = tally.source.load;
  if (load.target !== 'street_segments') return;
  if (data.kind !== 'features') throw new Error(`${tally.source.id}: street segments need a spatial format`);
  const fm = load.fields;
  const seen = new Set<string>();
  const range = (v: unknown): number | null => {
    const n = typeof v === 'number' ? v : Number(text(v));
    return text(v) === '' || !Number.isFinite(n) || n === load.noRangeValue ? null : Math.trunc(n);
  };
  for (const f of data.features) {
    tally.rowsRead++;
    const g = f.geometry;
    if (!g || (g.type !== 'LineString' && g.type !== 'MultiLineString')) {
      tally.rejects.add(g ? `geometry is ${g.type}, not a line` : 'no geometry', featureLabel(f));
      continue;
    }
    const p = f.properties;
    const streetText = fm.street
      ? text(p[fm.street])
      : [fm.streetName ? text(p[fm.streetName]) : '', fm.streetType ? text(p[fm.streetType]) : ''].join(' ').trim();
    const key = streetKey(streetText);
    if (key === '') {
      tally.rejects.add('no street name', featureLabel(f));
      continue;
    }
    let id = fm.id ? text(p[fm.id]) : '';
    if (id === '' || seen.has(id)) id = `${id || 'segment'}#${f.index}`;
    seen.add(id);
    const zip = (field: string | undefined) => (field ? text(p[field]) || null : null);
    const geom = g.coordinates as Position[] | Position[][];
    rows.segments.push({
      segmentId: id,
      streetKey: key,
      streetDisplay: displayStreet(key),
      lFrom: range(p[fm.lFrom]),
      lTo: range(p[fm.lTo]),
      rFrom: range(p[fm.rFrom]),
      rTo: range(p[fm.rTo]),
      zipLeft: zip(fm.zipLeft),
      zipRight: zip(fm.zipRight),
      geom,
      bbox: bboxOf(geom),
    });
    tally.rowsLoaded++;
  }
}

/** Applies one source's data to the place's rows, counting into its tally. */
export function transformSource(data: SourceData, tally: SourceTally, rows: PlaceRows): void {
  notePhysicalLines(data, tally);
  switch (tally.source.load.target) {
    case 'boundary':
      return transformBoundary(data, tally, rows);
    case 'zones':
      return transformZones(data, tally, rows);
    case 'zone_names':
      return transformZoneNames(data, tally, rows);
    case 'parcels':
      return transformParcels(data, tally, rows);
    case 'parcel_attributes':
      return transformParcelAttributes(data, tally, rows);
    case 'addresses':
      return transformAddresses(data, tally, rows);
    case 'street_segments':
      return transformStreetSegments(data, tally, rows);
  }
}

/** Sources in load order (see TARGET_ORDER), stable within a target. */
export function sourcesInLoadOrder(m: Manifest): ManifestSource[] {
  return [...m.sources].sort((a, b) => TARGET_ORDER.indexOf(a.load.target) - TARGET_ORDER.indexOf(b.load.target));
}
