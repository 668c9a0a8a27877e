// `siteline data init`, second step (src/importer/inspect-source.ts): which columns hold what, measured
// on the values: the address columns (the share siteline's parser reads), the district code field (its
// values shaped like codes, or districts of the rules), the parcel id field, and the address -> parcel
// join keys ranked by the share of addresses they match.
import { parseAddress } from '../geocoder/parse-address.ts';
import { str, type InspectedField, type InspectedLayer } from './inspect-layers.ts';

export interface JoinKeyCandidate {
  addressField: string;
  parcelField: string;
  matched: number;
  total: number;
  rate: number;
}

/** The address columns of the address layer, and why (the share of values the parser reads). */
export interface AddressColumns {
  oneLine?: string;
  number?: string;
  streetName?: string;
  unit?: string;
  postcode?: string;
  why: string;
  parsed: number;
  total: number;
}

const ONE_LINE_NAMES =
  /^(full_?addr(ess)?|address|addr|site_?addr(ess)?|situs(_?addr(ess)?)?|location|loc_?addr|street_?address|address_?1|addr_?line_?1|fulladd|prop_?addr(ess)?)$/i;
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

export function findAddressColumns(l: InspectedLayer): AddressColumns | undefined {
  const byName = (re: RegExp) => l.fields.find((f) => re.test(f.name) && f.filled > 0 && !f.personal)?.name;
  const unit = byName(UNIT_NAMES);
  const postcode = byName(POSTCODE_NAMES);
  const number = l.fields.find((f) => NUMBER_NAMES.test(f.name) && f.numeric)?.name;
  const streetName = byName(STREET_NAMES);
  if (number && streetName) {
    return {
      number,
      streetName,
      ...(unit ? { unit } : {}),
      ...(postcode ? { postcode } : {}),
      why: `header names: ${number} (house numbers, e.g. ${l.fields.find((f) => f.name === number)!.samples[0]}) and ${streetName} (e.g. ${l.fields.find((f) => f.name === streetName)!.samples[0]})`,
      parsed: 0,
      total: 0,
    };
  }
  // A one-line column: by header name first, then by the shape of its values.
  // Never a personal column (an owner's mailing address parses as an address too).
  const candidates = [...l.fields.filter((f) => ONE_LINE_NAMES.test(f.name)), ...l.fields.filter((f) => !ONE_LINE_NAMES.test(f.name) && !f.numeric)].filter(
    (f) => !f.personal,
  );
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

export const isPolygons = (l: InspectedLayer) => (l.geometry['Polygon'] ?? 0) + (l.geometry['MultiPolygon'] ?? 0) > l.rows * 0.8 && l.rows > 0;
export const isPoints = (l: InspectedLayer) => (l.geometry['Point'] ?? 0) > l.rows * 0.5;
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
      const vals = l.features
        .slice(0, 2000)
        .map((x) => str(x.properties[f.name]))
        .filter(Boolean);
      const shapeShare = vals.length ? vals.filter((v) => ZONE_CODE.test(v)).length / vals.length : 0;
      const ruleShare = known?.size ? (vals.length ? vals.filter((v) => known.has(v)).length / vals.length : 0) : null;
      const fillShare = l.rows ? f.filled / l.rows : 0;
      const named = ZONE_FIELD.test(f.name) && !/name|desc/i.test(f.name);
      // A kind field ("base" / "overlay") tells districts from overlays; it is not the district code.
      const kind = f.distinct <= 6 && vals.some((v) => /overlay/i.test(v));
      const score =
        (ruleShare ?? 0) * 2 +
        shapeShare * fillShare +
        (named ? 0.05 : 0) -
        (/name|desc|note|comment|date/i.test(f.name) ? 0.3 : 0) -
        (f.distinct < 2 && l.rows > 2 ? 0.3 : 0) -
        (kind ? 1 : 0);
      return { f, shapeShare, ruleShare, fillShare, named, score };
    });
  const qualified = scored.filter((x) => (x.ruleShare ?? 0) >= 0.5 || (x.shapeShare >= 0.6 && !x.f.numeric));
  const layerNamed = /zon|district/i.test(`${l.file} ${l.object ?? ''}`);
  // A layer counts as zoning when it is named so, or one of its code-shaped fields is named like a district.
  const pool = layerNamed || (known && qualified.some((x) => (x.ruleShare ?? 0) >= 0.5)) ? qualified : qualified.filter((x) => x.named);
  const best = [...pool].sort((a, b) => b.score - a.score || b.f.filled - a.f.filled)[0];
  const rivals = (chosen: InspectedField) =>
    scored
      .filter((x) => x.f !== chosen && (x.named || x.shapeShare > 0))
      .sort((a, b) => b.score - a.score)
      .slice(0, 3)
      .map((x) => ({ name: x.f.name, shapeShare: x.shapeShare, ruleShare: x.ruleShare }));
  if (best)
    return { field: best.f, shapeShare: best.shapeShare, fillShare: best.fillShare, ruleShare: best.ruleShare, rivals: rivals(best.f), byContent: true };
  // No field's values look like codes: the old rule, by name (codes like "Residential A").
  const byName = scored.filter((x) => x.named).sort((a, b) => b.f.filled - a.f.filled)[0];
  if (byName)
    return {
      field: byName.f,
      shapeShare: byName.shapeShare,
      fillShare: byName.fillShare,
      ruleShare: byName.ruleShare,
      rivals: rivals(byName.f),
      byContent: false,
    };
  return undefined;
}

export function idFieldOf(l: InspectedLayer): InspectedField | undefined {
  const unique = l.fields.filter((f) => f.filled >= l.rows * 0.9 && f.distinct >= f.filled * 0.95 && !f.personal);
  return unique.find((f) => ID_FIELD.test(f.name) && !/objectid|^fid$/i.test(f.name)) ?? unique.find((f) => ID_FIELD.test(f.name)) ?? unique[0];
}

/** Row numbers, not keys: an address table's own id and a layer's feature id match each other by accident. */
const ROW_ID = /^(objectid|object_id|fid|oid|gid|rowid|id|addr(ess)?_?id|__id)$/i;

/**
 * Ranks (address column, parcel field) pairs by the share of addresses whose value is a parcel's value.
 * Only parcel fields that identify a lot (nearly one value per feature) are keys.
 */
export function rankJoinKeys(addresses: InspectedLayer, parcels: InspectedLayer, exclude: Set<string>): JoinKeyCandidate[] {
  const out: JoinKeyCandidate[] = [];
  for (const f of addresses.fields) if (ROW_ID.test(f.name)) exclude.add(f.name);
  const parcelSets = parcels.fields
    .filter((f) => f.distinct >= 2 && f.distinct >= f.filled * 0.8 && !ROW_ID.test(f.name) && !f.personal)
    .map((f) => ({ name: f.name, values: new Set(parcels.features.map((p) => str(p.properties[f.name])).filter(Boolean)) }));
  for (const af of addresses.fields) {
    if (exclude.has(af.name) || af.distinct < 2 || af.personal) continue;
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
