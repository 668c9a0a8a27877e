// `siteline data init`: looks at a folder of files as a town publishes them and drafts a manifest and
// a rules skeleton. Every guess is measured (formats, layers, fields with sample values, the CRS and
// why, address columns, join keys ranked by the share of addresses they match, the point-in-parcel
// join, lot -> zone) and reported with what the analyst must confirm. Nothing here writes a database.
//
// A pipeline, a file per step: read the layers (inspect-layers.ts); give them roles and find their
// columns (inspect-roles.ts); measure the joins (below); say what to confirm (below); draft the
// manifest and the rules skeleton and print it all (draft-place.ts).
import path from 'node:path';
import { bboxOf, pointOnSurface, toMultiPolygon, type Position } from '../core/geo/primitives.ts';
import { LotIndex } from './lot-index.ts';
import { DEFAULT_JOIN_THRESHOLDS } from '../places/manifest.ts';
import { listFiles, readLayers, resolveCrs, str, type InspectedLayer, type SkippedFile } from './inspect-layers.ts';
import { findAddressColumns, idFieldOf, isPoints, isPolygons, rankJoinKeys, zoneFieldOf, type AddressColumns, type JoinKeyCandidate } from './inspect-roles.ts';

export interface Inspection {
  dir: string;
  layers: InspectedLayer[];
  skipped: SkippedFile[];
  roles: { addresses?: InspectedLayer; parcels?: InspectedLayer; zoning?: InspectedLayer; boundary?: InspectedLayer };
  address?: AddressColumns;
  parcelIdField?: { field: string; why: string };
  zoneField?: {
    field: string;
    nameField?: string;
    codes: string[];
    why: string /** Sample values, fill, code-shaped and rules-matched shares, rivals. */;
    evidence?: string;
  };
  /** A field telling base districts from overlays (`kind`: "base" / "overlay"): overlay features are drafted as overlays, never as base districts. */
  zoneKind?: { field: string; baseValues: string[]; overlayValues: string[]; overlayCodes: string[] };
  /** Why nothing may be written: a zoning file that is broken or empty (init never drafts another layer as the districts in its place). */
  refusal?: string;
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

export const pc = (n: number, d: number) => (d === 0 ? 'n/a' : `${((n / d) * 100).toFixed(1)} %`);

/** Inspects a folder and decides the roles, fields and joins (see the file comment). */
export async function inspectSourceDir(dir: string, opts: { knownDistricts?: string[] } = {}): Promise<Inspection> {
  const known = opts.knownDistricts?.length ? new Set(opts.knownDistricts) : undefined;
  const abs = path.resolve(dir);
  const skipped: Inspection['skipped'] = [];
  const layers = await readLayers(abs, skipped);
  resolveCrs(abs, layers, new Set(listFiles(abs)));
  const refusal = brokenZoning(layers, skipped);
  const { roles, address } = assignRoles(layers, known);
  const { zoning, parcels } = roles;
  const zoneKind = zoning ? zoneKindOf(zoning) : undefined;
  const zoneField = zoning ? describeZoneField(zoning, known, zoneKind) : undefined;
  if (zoneKind && zoneField)
    zoneKind.overlayCodes = [
      ...new Set(
        zoning!.features
          .filter((f) => zoneKind.overlayValues.includes(str(f.properties[zoneKind.field])))
          .map((f) => str(f.properties[zoneField.field]))
          .filter(Boolean),
      ),
    ].sort();
  const joins =
    roles.addresses && parcels
      ? measureLotJoins(roles.addresses, parcels, address)
      : parcels
        ? { joinKeys: [], parcelIdField: uniqueIdField(parcels) }
        : { joinKeys: [] };
  const { joinKeys, pointInParcel, disagreements, parcelIdField, lotBy } = joins as LotJoins;
  const lotToZone = parcels && zoning && zoneField ? measureLotToZone(parcels, zoning, zoneField, zoneKind) : undefined;
  const { notes, confirm } = whatToConfirm(layers, roles, { address, zoneField, lotToZone, parcelIdField, lotBy, joinKeys, disagreements });
  if (zoneKind)
    confirm.push(
      `the kind field ${zoneKind.field} of ${zoning!.file}: ${zoneKind.overlayValues.map((v) => JSON.stringify(v)).join(', ')} drafted as overlays (${zoneKind.overlayCodes.join(', ') || 'no codes'}), ${zoneKind.baseValues.map((v) => JSON.stringify(v)).join(', ')} as base districts`,
    );
  return {
    dir: abs,
    layers,
    skipped,
    roles,
    ...(refusal ? { refusal } : {}),
    ...(zoneKind ? { zoneKind } : {}),
    ...(address ? { address } : {}),
    ...(parcelIdField ? { parcelIdField } : {}),
    ...(zoneField ? { zoneField } : {}),
    joinKeys,
    ...(pointInParcel ? { pointInParcel } : {}),
    ...(disagreements !== undefined ? { disagreements } : {}),
    ...(lotBy ? { lotBy } : {}),
    ...(lotToZone ? { lotToZone } : {}),
    notes,
    confirm,
  };
}

const ZONING_FILE = /zon|district/i;
const SPATIAL_FILE = /\.(geojson|json|topojson|shp|zoning|gz)$/i;

/** A spatial file named like zoning that cannot be read or holds no features: init refuses rather than draft another layer as the districts. */
function brokenZoning(layers: InspectedLayer[], skipped: SkippedFile[]): string | undefined {
  const broken = skipped.find((s) => ZONING_FILE.test(s.file) && SPATIAL_FILE.test(s.file));
  if (broken) return `the zoning file ${broken.file} cannot be read (${broken.reason})`;
  const empty = layers.find((l) => ZONING_FILE.test(`${l.file} ${l.object ?? ''}`) && l.format !== 'csv' && l.rows === 0);
  if (empty) return `the zoning file ${empty.file}${empty.object ? ` (object ${empty.object})` : ''} holds no features`;
  return undefined;
}

const KIND_FIELD = /^(kind|type|zone_?type|zone_?kind|layer|category|class|dist_?type|district_?type)$/i;

/** A field with a few values, one of them naming overlays ("overlay", "Overlay District"): the layer mixes base districts and overlays. */
function zoneKindOf(zoning: InspectedLayer): Inspection['zoneKind'] {
  for (const f of zoning.fields) {
    if (!KIND_FIELD.test(f.name) || f.distinct < 2 || f.distinct > 6) continue;
    const values = [...new Set(zoning.features.map((z) => str(z.properties[f.name])))];
    const overlayValues = values.filter((v) => /overlay/i.test(v)).sort();
    if (!overlayValues.length) continue;
    return { field: f.name, baseValues: values.filter((v) => !overlayValues.includes(v)).sort(), overlayValues, overlayCodes: [] };
  }
  return undefined;
}

/** Addresses: the layer with an address column and the most rows. Polygons: zoning has a district-code field; a boundary is a handful of polygons; parcels are the rest with the most features. */
function assignRoles(layers: InspectedLayer[], known: Set<string> | undefined): { roles: Inspection['roles']; address: AddressColumns | undefined } {
  const roles: Inspection['roles'] = {};
  let address: AddressColumns | undefined;
  for (const l of [...layers].filter((l) => l.format === 'csv' || isPoints(l)).sort((a, b) => b.rows - a.rows)) {
    const a = findAddressColumns(l);
    if (a) {
      roles.addresses = l;
      address = a;
      break;
    }
  }
  const polys = layers.filter(isPolygons);
  // Districts are few and lots many: a layer not named like zoning is the districts only beside a larger
  // polygon layer (the parcels' descriptive "Zoning" column is never drafted as the district layer).
  const largest = [...polys].sort((a, b) => b.rows - a.rows)[0];
  const zoning = polys
    .filter((l) => ZONING_FILE.test(`${l.file} ${l.object ?? ''}`) || (polys.length >= 2 && l !== largest))
    .filter((l) => zoneFieldOf(l, known))
    .sort((a, b) => Number(/zon/i.test(b.file + (b.object ?? ''))) - Number(/zon/i.test(a.file + (a.object ?? ''))) || a.rows - b.rows)[0];
  if (zoning) roles.zoning = zoning;
  const boundary = polys
    .filter((l) => l !== zoning && l.rows <= 5)
    .sort((a, b) => Number(/limit|bound|town|city|munic/i.test(b.file)) - Number(/limit|bound|town|city|munic/i.test(a.file)))[0];
  if (boundary) roles.boundary = boundary;
  const parcels = polys.filter((l) => l !== zoning && l !== boundary).sort((a, b) => b.rows - a.rows)[0];
  if (parcels) roles.parcels = parcels;
  return { roles, address };
}

/** The zoning layer's district code field, its codes and name field, with the evidence its values give. */
function describeZoneField(zoning: InspectedLayer, known: Set<string> | undefined, kind: Inspection['zoneKind']): NonNullable<Inspection['zoneField']> {
  const ev = zoneFieldOf(zoning, known)!;
  const f = ev.field;
  const base = zoning.features.filter((z) => !kind?.overlayValues.includes(str(z.properties[kind.field])));
  const codes = [...new Set(base.map((z) => str(z.properties[f.name])).filter(Boolean))].sort();
  const nameField = zoning.fields.find((n) => n !== f && !n.personal && /name|desc/i.test(n.name) && n.distinct <= codes.length * 1.5 && n.filled > 0)?.name;
  const how = ev.byContent
    ? ev.ruleShare !== null && ev.ruleShare >= 0.5
      ? 'by its values: they are districts of the rules'
      : 'by its values: they look like district codes'
    : 'by its name (no field holds values shaped like district codes)';
  const rivals = ev.rivals.length
    ? `; not ${ev.rivals.map((r) => `${r.name} (${pc(r.shapeShare, 1)} code-shaped${r.ruleShare !== null ? `, ${pc(r.ruleShare, 1)} in the rules` : ''})`).join(', ')}`
    : '';
  const evidence = `${codes.length} distinct values (e.g. ${codes.slice(0, 5).join(', ')}), on ${pc(ev.fillShare, 1)} of ${zoning.rows} polygons, ${pc(ev.shapeShare, 1)} shaped like district codes${ev.ruleShare !== null ? `, ${pc(ev.ruleShare, 1)} districts of the rules` : ''}${rivals}`;
  return { field: f.name, ...(nameField ? { nameField } : {}), codes, why: `(${how}) field ${f.name}: ${evidence}`, evidence };
}

interface LotJoins {
  joinKeys: JoinKeyCandidate[];
  pointInParcel?: Inspection['pointInParcel'];
  disagreements?: number;
  parcelIdField?: Inspection['parcelIdField'];
  lotBy?: Inspection['lotBy'];
}

function uniqueIdField(parcels: InspectedLayer): Inspection['parcelIdField'] {
  const f = idFieldOf(parcels);
  return f ? { field: f.name, why: `the parcel field with unique values (e.g. ${f.samples[0]})` } : undefined;
}

/** Join keys ranked by measured overlap, the point-in-parcel join, where the two disagree, and which finds the lots. */
function measureLotJoins(addresses: InspectedLayer, parcels: InspectedLayer, address: AddressColumns | undefined): LotJoins {
  let pointInParcel: Inspection['pointInParcel'];
  let disagreements: number | undefined;
  let parcelIdField: Inspection['parcelIdField'];
  let lotBy: Inspection['lotBy'];
  const exclude = new Set([address?.oneLine, address?.number, address?.streetName, addresses.xy?.x, addresses.xy?.y].filter((x): x is string => Boolean(x)));
  const joinKeys = rankJoinKeys(addresses, parcels, exclude);
  const lots = parcels.features.flatMap((p) => {
    const mp = toMultiPolygon(p.geometry);
    return mp ? [{ id: String(p.index), geom: mp, bbox: bboxOf(mp) }] : [];
  });
  const index = new LotIndex(lots);
  const pointLots = addresses.features.map((a) => (a.geometry?.type === 'Point' ? index.lotsAt(a.geometry.coordinates as Position) : []));
  const withPoint = addresses.features.filter((a) => a.geometry?.type === 'Point').length;
  if (withPoint > 0) {
    const matched = pointLots.filter((l) => l.length > 0).length;
    pointInParcel = { matched, total: addresses.rows, rate: matched / addresses.rows };
  }
  const best = joinKeys[0] && joinKeys[0].rate >= 0.2 ? joinKeys[0] : undefined;
  if (best) {
    parcelIdField = {
      field: best.parcelField,
      why: `the parcel field the best join key matches (${best.addressField} -> ${best.parcelField}: ${pc(best.matched, best.total)} of addresses)`,
    };
    if (pointInParcel) {
      const byValue = new Map<string, number[]>();
      parcels.features.forEach((p) => {
        const v = str(p.properties[best.parcelField]);
        if (v) byValue.set(v, [...(byValue.get(v) ?? []), p.index]);
      });
      disagreements = 0;
      addresses.features.forEach((a, i) => {
        const ids = byValue.get(str(a.properties[best.addressField]));
        const at = pointLots[i]!;
        if (ids && at.length && !ids.some((id) => at.includes(String(id)))) disagreements!++;
      });
    }
  } else {
    const f = idFieldOf(parcels);
    if (f)
      parcelIdField = {
        field: f.name,
        why: `no address column matches a parcel field well (best: ${joinKeys[0] ? `${joinKeys[0].addressField} -> ${joinKeys[0].parcelField} ${pc(joinKeys[0].matched, joinKeys[0].total)}` : 'none'}); ${f.name} is the parcel field with unique values (e.g. ${f.samples[0]})`,
      };
  }
  const idRate = best?.rate ?? 0;
  const ptRate = pointInParcel?.rate ?? 0;
  if (best && idRate >= ptRate)
    lotBy = {
      mode: pointInParcel ? 'id_then_point' : 'id',
      why: `the id join (${pc(best.matched, best.total)}) is at least as good as the point join (${pointInParcel ? pc(pointInParcel.matched, pointInParcel.total) : 'no points'})${pointInParcel ? '; addresses without a matching id fall back to their point' : ''}`,
    };
  else if (pointInParcel)
    lotBy = {
      mode: 'point',
      why: `the point join (${pc(pointInParcel.matched, pointInParcel.total)}) beats the best id join (${best ? pc(best.matched, best.total) : 'none found'})`,
    };
  return {
    joinKeys,
    ...(pointInParcel ? { pointInParcel } : {}),
    ...(disagreements !== undefined ? { disagreements } : {}),
    ...(parcelIdField ? { parcelIdField } : {}),
    ...(lotBy ? { lotBy } : {}),
  };
}

/** Lots whose point on the surface lies in a zoning polygon with a district code. */
function measureLotToZone(
  parcels: InspectedLayer,
  zoning: InspectedLayer,
  zoneField: NonNullable<Inspection['zoneField']>,
  kind: Inspection['zoneKind'],
): NonNullable<Inspection['lotToZone']> {
  const zones = zoning.features
    .filter((z) => !kind?.overlayValues.includes(str(z.properties[kind.field])))
    .flatMap((z) => {
      const mp = toMultiPolygon(z.geometry);
      return mp && str(z.properties[zoneField.field]) ? [{ id: String(z.index), geom: mp, bbox: bboxOf(mp) }] : [];
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
  return { matched, total, rate: total ? matched / total : 0 };
}

/** What the analyst must confirm, and what the inspection noticed. */
function whatToConfirm(
  layers: InspectedLayer[],
  roles: Inspection['roles'],
  found: Pick<Inspection, 'address' | 'zoneField' | 'lotToZone' | 'parcelIdField' | 'lotBy' | 'joinKeys' | 'disagreements'>,
): { notes: string[]; confirm: string[] } {
  const { address, zoneField, lotToZone, parcelIdField, lotBy, joinKeys, disagreements } = found;
  const { parcels, zoning } = roles;
  const notes: string[] = [];
  const confirm: string[] = [];
  for (const l of layers) if (l.crsToConfirm && Object.values(roles).includes(l)) confirm.push(`the CRS of ${l.file}: ${l.crsReason}`);
  if (!roles.addresses)
    confirm.push(
      'no address table found (a CSV or point layer with a one-line address column, or house number + street columns): the place cannot go live without one',
    );
  if (!parcels) confirm.push('no parcel layer found (polygons with an id per lot)');
  if (!zoning) confirm.push('no zoning layer found (polygons with a district code field such as ZONE or DISTRICT)');
  if (address?.oneLine) confirm.push(`that ${address.oneLine} is the street address (not a mailing address): ${address.why}`);
  else if (address) confirm.push(`the address columns: ${address.why}`);
  if (zoneField)
    confirm.push(
      `the district code field ${zoneField.field} of ${zoning!.file}: ${zoneField.evidence ?? zoneField.why}${lotToZone ? `; lot -> zone ${pc(lotToZone.matched, lotToZone.total)}` : ''}`,
    );
  if (parcelIdField) confirm.push(`the parcel id field ${parcelIdField.field} of ${parcels!.file}: ${parcelIdField.why}`);
  if (lotBy) confirm.push(`lots found by ${lotBy.mode}: ${lotBy.why}`);
  for (const l of [roles.boundary, roles.zoning, roles.parcels, roles.addresses])
    if (l?.dateStated) confirm.push(`the vintage of ${l.file}: ${l.dateStated}, the date the file itself states`);
  const personal = layers.flatMap((l) => l.fields.filter((f) => f.personal).map((f) => `${l.file}: ${f.name}`));
  if (personal.length) notes.push(`personal data (names, contacts) not shown and not loaded: ${personal.join(', ')}`);
  if (lotBy?.mode !== 'point' && joinKeys[0] && joinKeys[0].rate < DEFAULT_JOIN_THRESHOLDS.addressToLot)
    confirm.push(
      `the join key ${joinKeys[0].addressField} -> ${joinKeys[0].parcelField} matches only ${pc(joinKeys[0].matched, joinKeys[0].total)} of addresses`,
    );
  if (disagreements)
    confirm.push(`${disagreements} addresses name one lot by id but their point lies in another: check which the town trusts (manifest lotBy)`);
  if (!roles.addresses || !parcels || !zoning)
    confirm.push('status: written as planned_not_live (a place answers addresses only with addresses, parcels and zoning)');
  confirm.push('each source\'s vintage, licence and attribution (written as "TO CONFIRM")');
  confirm.push('rules.json: no ordinance was read, so every value is not_extracted; cite the ordinance to give values');
  if (roles.addresses && roles.parcels && roles.zoning)
    notes.push('status is "live": the import keeps the place planned_not_live unless address -> lot >= 90 % and lot -> zone >= 95 % (joinThresholds)');
  return { notes, confirm };
}
