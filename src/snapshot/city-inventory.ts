// What the service holds for one city: a name, a geoDivisionId or a point -> the place's grouped
// catalogue (layers by kind, zoning districts, rule coverage, vintage, licence). Several matches ->
// candidates to pick from; a city without data -> a pointer to recording demand (nothing is recorded).
// Also the lighter coverage probe behind /api/geo/coverage-status. Pipeline:
//   refuseSlug -> resolvePlaces -> (candidates | unmapped | inventory: layers, districts, rules).
import { onReadReplica, type AppContext } from '../context.ts';
import type { CoverageStatus, ValueStatus } from '../core/statuses.ts';
import { badInput } from '../core/errors.ts';
import { findPlaceByPoint, getPlace, type PlaceLayer, type PlaceRecord } from '../places/catalogue.ts';
import { placeCandidates, type PlaceCandidate } from '../places/resolve-place.ts';
import { findGazetteerCities } from '../places/gazetteer.ts';
import { lookupRegion } from '../places/regions.ts';
import { loadPlaceRules } from '../rules/load-rules.ts';
import type { PlaceRules } from '../core/rules-schema.ts';
import { findDistrict } from '../core/rules-schema.ts';
import { STANDARD_KEYS } from '../core/rules-schema.ts';
import { citedValueCount, districtSummaries, districtView, type DistrictRulesView, type DistrictSummary } from '../rules/district-view.ts';
import { citableDocuments } from '../rules/load-rules.ts';
import { loadManifest } from '../places/manifest.ts';

export type PlaceQuery = (
  | { kind: 'name'; city: string; region?: string | undefined }
  | { kind: 'id'; geoDivisionId: string }
  | { kind: 'point'; latitude: number; longitude: number }
) & {
  /** A district of the place's rules: its values, each with its citation, are returned in full. */
  district?: string | undefined;
};

export interface PlaceSummary {
  geoDivisionId: string;
  name: string;
  region: string;
  country: 'US' | 'CA';
  status: CoverageStatus;
}

export interface LayerEntry {
  layer: string;
  name: string;
  vintage: string;
  licence: string;
  attribution: string;
  features: number | null;
}

export interface DistrictEntry {
  code: string;
  name: string | null;
  /** Zoning polygons carrying this code in the loaded layer. */
  polygons: number;
  /** True when the rules file covers the district (directly, by alias or by pattern). */
  rulesCovered: boolean;
  /** Standards with a cited (or cited_conditional / no_limit_in_bylaw) value, of those the service tracks. */
  citedStandards: number;
  siteSpecificSchedule: boolean;
}

export interface CityInventory {
  kind: 'inventory';
  place: PlaceSummary & { statusReason: string | null; aliases: string[]; importedAt: string | null };
  /** Layers grouped by what they describe. */
  layers: Record<'boundary' | 'lots' | 'addresses' | 'zoning' | 'other', LayerEntry[]>;
  zoning: {
    baseDistricts: number;
    overlayDistricts: number;
    districts: DistrictEntry[];
    /** Trimmed to keep the result small; hasMore says so. */
    hasMore: boolean;
  };
  rules: {
    bylaw: { name: string; url?: string; date: string; note?: string } | null;
    districtsWithRules: number;
    standardsTracked: number;
    /** Count of district standards by status across the rules file (otherStandards included). */
    standardStatuses: Partial<Record<ValueStatus, number>>;
    usesListed: number;
    note: string | null;
    /** Cited values whose quote verified against a document the place holds (nothing else is cited). */
    citedValues: number;
    /** The documents the citations point into, with the service's page for each. */
    documents: { id: string; title: string; edition: string; retrieved: string; licence: string; url: string; href: string }[];
    /**
     * The rules file's districts, when the place has no zoning layer to list them by (a rules-only place
     * such as Somerville): code, name, building types and cited values. Ask with `district` for one in full.
     */
    districts?: DistrictSummary[];
    /** The district asked for (query `district`), every value with its status and citation. */
    district?: DistrictRulesView;
  };
  vintage: { newest: string | null; oldest: string | null };
  licences: string[];
}

export interface CityCandidates {
  kind: 'candidates';
  query: string;
  candidates: PlaceSummary[];
  message: string;
}

export interface CityUnmapped {
  kind: 'unmapped';
  query: string;
  /** A real city the service knows of (gazetteer) but holds no data for; false: the name is unknown. */
  knownCity: { name: string; region: string; country: 'US' | 'CA' } | null;
  status: CoverageStatus;
  eligibilityKnown: boolean;
  message: string;
  recordDemand: string;
}

export type CityInventoryResult = CityInventory | CityCandidates | CityUnmapped;

const MAX_DISTRICTS = 60;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*-[a-z]{2}$/;
const GEO_DIVISION_ID = /^(US|CA)-[A-Z]{2}:[a-z0-9][a-z0-9-]*$/;

export const RECORD_DEMAND_POINTER =
  'To ask for this city, a signed-in user can send a request with submitServiceFeedback (category city_request, naming the city) or on the web page /feedback?city=<name>; this lookup records nothing.';

/** Slugs (cambridge-ma) are an internal key, not an input: the caller names the city or passes a geoDivisionId. */
export function refuseSlug(value: string): void {
  if (SLUG.test(value.trim())) {
    throw badInput(
      `"${value}" looks like an internal slug, which is not accepted. Pass the city name (for example city "Cambridge", region "MA") or a geoDivisionId such as "US-MA:cambridge".`,
    );
  }
}

function summary(p: PlaceRecord): PlaceSummary {
  return { geoDivisionId: p.geoDivisionId, name: p.name, region: p.region, country: p.country, status: p.status };
}

function describeQuery(q: PlaceQuery): string {
  if (q.kind === 'name') return q.region ? `${q.city}, ${q.region}` : q.city;
  if (q.kind === 'id') return q.geoDivisionId;
  return `${q.latitude}, ${q.longitude}`;
}

/** Checks a query's shape: a name, a geoDivisionId, or a point inside the valid range. */
export function validatePlaceQuery(q: PlaceQuery): void {
  if (q.district !== undefined && (!q.district.trim() || q.district.length > 40))
    throw badInput('The district is empty or too long. Pass a district code as the inventory lists it, for example "NR".');
  if (q.kind === 'name') {
    if (!q.city.trim()) throw badInput('The city name is empty. Pass a city name such as "Cambridge".');
    refuseSlug(q.city);
    if (q.region?.trim() && !lookupRegion(q.region)) {
      throw badInput(`"${q.region}" is not a US state or Canadian province. Pass a code such as "MA" or "BC", or leave region out.`);
    }
  } else if (q.kind === 'id') {
    refuseSlug(q.geoDivisionId);
    if (!GEO_DIVISION_ID.test(q.geoDivisionId.trim())) {
      throw badInput(
        `"${q.geoDivisionId}" is not a geoDivisionId. They look like "US-MA:cambridge"; use one returned by a previous call, or pass the city name.`,
      );
    }
  } else if (!(Math.abs(q.latitude) <= 90 && Math.abs(q.longitude) <= 180)) {
    throw badInput('The point is out of range: latitude must be within -90..90 and longitude within -180..180.');
  }
}

type Resolved = { kind: 'one'; place: PlaceRecord } | { kind: 'many'; places: PlaceSummary[] } | { kind: 'none' };

/** The id a city without data would have ("US-MO:springfield"): candidates carry it; passing it back gives the unmapped answer. */
export function gazetteerGeoDivisionId(name: string, region: string, country: 'US' | 'CA'): string {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${country}-${region}:${slug}`;
}

function candidateSummary(c: PlaceCandidate): PlaceSummary {
  return c.kind === 'place'
    ? summary(c.place)
    : { geoDivisionId: gazetteerGeoDivisionId(c.name, c.region, c.country), name: c.name, region: c.region, country: c.country, status: 'unseeded_place' };
}

async function resolvePlaces(ctx: AppContext, q: PlaceQuery): Promise<Resolved> {
  if (q.kind === 'id') {
    const p = await getPlace(ctx, q.geoDivisionId.trim());
    return p ? { kind: 'one', place: p } : { kind: 'none' };
  }
  if (q.kind === 'point') {
    const p = await findPlaceByPoint(ctx, q.longitude, q.latitude);
    return p ? { kind: 'one', place: p } : { kind: 'none' };
  }
  // The one rule for ambiguity (placeCandidates, shared with the snapshot): several candidates -> the
  // candidates, catalogued or not; "Springfield" alone is not Springfield, MO.
  const region = q.region?.trim() ? lookupRegion(q.region.trim()) : null;
  const cands = await placeCandidates(ctx, q.city.trim(), region?.code ?? null, region?.country ?? null);
  if (cands.length > 1) return { kind: 'many', places: cands.map(candidateSummary) };
  const only = cands[0];
  if (only?.kind === 'place') return { kind: 'one', place: only.place };
  return { kind: 'none' };
}

function unmapped(ctx: AppContext, q: PlaceQuery): CityUnmapped {
  const query = describeQuery(q);
  // an id handed out with a candidate for a city without data: "US-MO:springfield"
  const idText = q.kind === 'id' ? q.geoDivisionId.trim() : '';
  const fromId = q.kind === 'id' ? /^(US|CA)-([A-Z]{2}):([a-z0-9-]+)$/.exec(idText) : null;
  if (q.kind === 'name' || fromId) {
    const known =
      q.kind === 'name'
        ? findGazetteerCities(ctx, q.city.trim(), q.region?.trim() || null)[0]
        : findGazetteerCities(ctx, fromId![3]!.replace(/-/g, ' '), fromId![2]!, fromId![1] as 'US' | 'CA').find(
            (g) => gazetteerGeoDivisionId(g.name, g.region, g.country) === idText,
          );
    if (known) {
      return {
        kind: 'unmapped',
        query,
        knownCity: { name: known.name, region: known.region, country: known.country },
        status: 'unseeded_place',
        eligibilityKnown: true,
        message: `${known.name}, ${known.region} is a known city, but the service holds no lot or zoning data for it: addresses there are not covered.`,
        recordDemand: RECORD_DEMAND_POINTER,
      };
    }
  }
  return {
    kind: 'unmapped',
    query,
    knownCity: null,
    status: 'geo_division_uncatalogued',
    eligibilityKnown: false,
    message:
      q.kind === 'point'
        ? 'No city in the catalogue contains this point, so coverage there could not be determined.'
        : q.kind === 'id'
          ? `No place in the catalogue has the geoDivisionId "${q.geoDivisionId}". Pass a city name instead.`
          : `"${query}" is not a US or Canadian city the service knows. Check the spelling, or add the state or province.`,
    recordDemand: RECORD_DEMAND_POINTER,
  };
}

function candidates(q: PlaceQuery, places: PlaceSummary[]): CityCandidates {
  return {
    kind: 'candidates',
    query: describeQuery(q),
    candidates: places,
    message: `${places.length} places match. Pick one and call again with its geoDivisionId (or add the state or province).`,
  };
}

/** The full grouped inventory for one city. */
export async function cityInventory(ctx: AppContext, q: PlaceQuery): Promise<CityInventoryResult> {
  validatePlaceQuery(q);
  return onReadReplica(ctx, (readCtx) => cityInventoryOn(readCtx, q));
}

async function cityInventoryOn(ctx: AppContext, q: PlaceQuery): Promise<CityInventoryResult> {
  const r = await resolvePlaces(ctx, q);
  if (r.kind === 'none') return unmapped(ctx, q);
  if (r.kind === 'many') return candidates(q, r.places);
  return inventoryOf(ctx, r.place, q.district);
}

const LAYER_GROUP: Record<string, keyof CityInventory['layers']> = {
  boundary: 'boundary',
  parcels: 'lots',
  parcel_attributes: 'lots',
  addresses: 'addresses',
  street_centrelines: 'addresses',
  zoning: 'zoning',
  zoning_overlay: 'zoning',
  zone_names: 'zoning',
};

/** The citable documents a place's manifest declares, with the service's page for each. */
function heldDocuments(ctx: AppContext, slug: string): CityInventory['rules']['documents'] {
  try {
    return citableDocuments(loadManifest(slug, ctx.config.placesDir)).map((d) => ({
      id: d.id,
      title: d.title,
      edition: d.edition,
      retrieved: d.retrieved,
      licence: d.licence,
      url: d.url,
      href: `/sources/${slug}/${d.id}`,
    }));
  } catch (err) {
    // A catalogued place whose manifest is gone from this server's places directory holds no documents here.
    if (err instanceof Error && 'code' in err && (err as { code: string }).code === 'not_found') return [];
    throw err;
  }
}

async function inventoryOf(ctx: AppContext, place: PlaceRecord, district?: string): Promise<CityInventory> {
  const layers: CityInventory['layers'] = { boundary: [], lots: [], addresses: [], zoning: [], other: [] };
  for (const l of place.layers) layers[LAYER_GROUP[l.layer] ?? 'other'].push(layerEntry(l));

  const zoneRows = await ctx.db.query<{ layer: string; code: string; name: string | null; polygons: number }>(
    `SELECT layer, code, MIN(name) AS name, COUNT(*)::int AS polygons FROM zones WHERE place_id = $1 GROUP BY layer, code ORDER BY layer, code`,
    [place.geoDivisionId],
  );
  let rules: PlaceRules | null = null;
  let rulesNote: string | null = null;
  try {
    rules = await loadPlaceRules(ctx, place.slug);
  } catch (err) {
    rulesNote = `No usable rules file for this place (${err instanceof Error ? err.message.split('\n')[0] : 'unreadable'}): zoning values are not available.`;
  }
  const base = zoneRows.filter((z) => z.layer === 'base');
  const districts: DistrictEntry[] = base.map((z) => {
    const d = rules ? findDistrict(rules, z.code) : null;
    const standards = d ? Object.values(d.district.standards).filter(Boolean) : [];
    return {
      code: z.code,
      name: z.name ?? d?.district.name ?? null,
      polygons: Number(z.polygons),
      rulesCovered: d !== null,
      citedStandards: standards.filter((s) => s!.status === 'cited' || s!.status === 'cited_conditional' || s!.status === 'no_limit_in_bylaw').length,
      siteSpecificSchedule: d?.district.otherStandards?.status === 'site_specific_schedule',
    };
  });

  let askedDistrict: DistrictRulesView | null = null;
  if (district !== undefined) {
    const found = rules ? findDistrict(rules, district.trim()) : null;
    if (!found) {
      const known = rules ? Object.keys(rules.districts) : [];
      throw badInput(
        `${place.name} has no district "${district}" in its rules${known.length ? `. Districts: ${known.slice(0, 40).join(', ')}${known.length > 40 ? ', ...' : ''}` : ' (it has no rules file)'}.`,
      );
    }
    askedDistrict = districtView(rules!, found.code, found.district);
  }
  const statuses: Partial<Record<ValueStatus, number>> = {};
  let usesListed = 0;
  if (rules) {
    for (const d of Object.values(rules.districts)) {
      usesListed += d.uses.length;
      for (const key of STANDARD_KEYS) {
        const status = d.standards[key]?.status ?? d.otherStandards?.status ?? 'not_extracted';
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }
  }
  const vintages = place.layers
    .map((l) => l.vintage)
    .filter(Boolean)
    .sort((a, b) => vintageKey(a).localeCompare(vintageKey(b)));
  return {
    kind: 'inventory',
    place: { ...summary(place), statusReason: place.statusReason, aliases: place.aliases, importedAt: place.importedAt },
    layers,
    zoning: {
      baseDistricts: base.length,
      overlayDistricts: zoneRows.length - base.length,
      districts: districts.slice(0, MAX_DISTRICTS),
      hasMore: districts.length > MAX_DISTRICTS,
    },
    rules: {
      bylaw: rules ? rules.bylaw : null,
      districtsWithRules: rules ? Object.keys(rules.districts).length : 0,
      standardsTracked: STANDARD_KEYS.length,
      standardStatuses: statuses,
      usesListed,
      note: rulesNote ?? rules?.notes[0] ?? null,
      citedValues: rules ? citedValueCount(rules) : 0,
      documents: heldDocuments(ctx, place.slug),
      ...(rules && base.length === 0 ? { districts: districtSummaries(rules) } : {}),
      ...(askedDistrict ? { district: askedDistrict } : {}),
    },
    vintage: { newest: vintages.at(-1) ?? null, oldest: vintages[0] ?? null },
    licences: [...new Set(place.layers.map((l) => l.licence))].sort(),
  };
}

/** Sort key of a free-text vintage ("FY2014 (as of 2013-01-01)", "2026-03-03"): its first ISO date, else its first year. */
function vintageKey(v: string): string {
  return /\d{4}-\d{2}-\d{2}/.exec(v)?.[0] ?? /\d{4}/.exec(v)?.[0] ?? v;
}

function layerEntry(l: PlaceLayer): LayerEntry {
  return { layer: l.layer, name: l.name, vintage: l.vintage, licence: l.licence, attribution: l.attribution, features: l.features };
}

export interface CoverageProbe {
  query: string;
  status: CoverageStatus | 'ambiguous';
  eligibilityKnown: boolean;
  place?: PlaceSummary;
  candidates?: PlaceSummary[];
  message: string;
}

/** The light probe behind /api/geo/coverage-status: is this city (or point) covered, and how? */
export async function probeCoverage(ctx: AppContext, q: PlaceQuery): Promise<CoverageProbe> {
  validatePlaceQuery(q);
  return onReadReplica(ctx, (readCtx) => probeCoverageOn(readCtx, q));
}

async function probeCoverageOn(ctx: AppContext, q: PlaceQuery): Promise<CoverageProbe> {
  const r = await resolvePlaces(ctx, q);
  if (r.kind === 'many') {
    const c = candidates(q, r.places);
    return { query: c.query, status: 'ambiguous', eligibilityKnown: true, candidates: c.candidates, message: c.message };
  }
  if (r.kind === 'none') {
    const u = unmapped(ctx, q);
    return { query: u.query, status: u.status, eligibilityKnown: u.eligibilityKnown, message: u.message };
  }
  const p = r.place;
  return {
    query: describeQuery(q),
    status: p.status,
    eligibilityKnown: true,
    place: summary(p),
    message: p.status === 'live' ? `${p.name}, ${p.region} is covered: addresses there can be answered.` : (p.statusReason ?? `${p.name} is not live.`),
  };
}
