// address -> snapshot, as a named pipeline (conventions §3); each step is a function of that name:
//   parseAddress                  the words of the address          src/geocoder/parse-address.ts
//   -> resolveCoverage            which place, and is it answerable  src/snapshot/coverage.ts
//   -> locateAddress              the lot, with calibrated confidence src/snapshot/locate.ts
//   -> src.lot                    the lot's row (hot index or SQL)  src/geocoder/place-index.ts
//   -> lotOf, zonesOf             the lot and its districts          below
//   -> loadPlaceRules             the place's rules file             src/rules/load-rules.ts
//   -> buildEnvelope              the sourced envelope               src/core/envelope.ts
//   -> referenceProvenance        citations and notes by reference   src/snapshot/refs.ts
//   -> sourcesOf                  the sources the answer names       below
// previewSiteCoverage (src/snapshot/preview.ts) runs the first three steps only.
// Every surface (MCP tool, REST route, CLI, web page, report) calls getFeasibilitySnapshot.
import type { AppContext } from '../context.ts';
import { parseAddress, type ParsedAddress } from '../geocoder/parse-address.ts';
import { resolveCoverage } from './coverage.ts';
import { locateAddress } from './locate.ts';
import type { PlaceRecord } from '../places/catalogue.ts';
import { loadPlaceRules } from '../rules/load-rules.ts';
import { buildEnvelope } from '../core/envelope.ts';
import { areaWarning } from './lot-area-warning.ts';
import { bulbNotes, notCornerNote, unsharedCornerNote, type NotCornerFacts } from './lot-notes.ts';
import { referenceProvenance } from './refs.ts';
import { placeSourceCatalogue, sourceCatalogueOf, type SourceCatalogue } from './source-catalogue.ts';
import { FT_PER_M, SQFT_PER_M2 } from '../core/geo/primitives.ts';
import type { AddressMatch, Coverage, DistrictChoice, DistrictSource, Lot, Measure, OverlayShare, Snapshot, ZoneShare, Zones } from '../core/snapshot-types.ts';
import type { PlaceRules } from '../core/rules-schema.ts';
import { resolveStatedDistrict, type StatedDistrict } from './stated-district.ts';
import { refuseStatedControlCharacters } from './stated-words.ts';
import { cleanLotId, noSuchLot, pickedMatch } from './picked-lot.ts';

/** A district with at least this share of the lot counts toward a split lot (SOURCES.md uses 5 %). */
export const SPLIT_LOT_MIN_SHARE = 0.05;

interface ParcelRow {
  parcel_ext_id: string;
  inside_lon: number;
  inside_lat: number;
  area_m2: number;
  facts: LotFactsJson;
  attrs: Record<string, unknown>;
  source: string;
  vintage: string;
  zones: { layer: string; code: string; name: string | null; share: number; attrs?: Record<string, unknown> }[];
}

interface LotFactsJson {
  frontByStreet?: Record<string, { frontageM: number; depthM: number; bulbM?: number }>;
  cornerLot?: boolean | null;
  streets?: string[];
  notCorner?: NotCornerFacts;
  /** A place without street centrelines: the sides no other lot shares (src/core/geo/lot-facts.ts). */
  unshared?: { sides: { lengthM: number; depthM: number }[] };
}

function measure(valueM: number | undefined, what: string): Measure {
  if (valueM === undefined || !Number.isFinite(valueM)) {
    return {
      value: null,
      unit: 'ft',
      basis: 'missing',
      status: 'missing',
      note: `No ${what} could be measured: no lot edge was found facing the addressed street's centreline.`,
    };
  }
  // basis parcel_geometry: measured from the parcel polygon against the addressed street's centreline (docs/snapshot.md).
  return { value: Math.round(valueM * FT_PER_M * 10) / 10, unit: 'ft', basis: 'parcel_geometry' };
}

/** The lot's id, inside point and area: the fields every lot answer opens with, in their order. */
function lotIdentity(parcel: ParcelRow): Pick<Lot, 'parcelExternalId' | 'latitude' | 'longitude' | 'areaM2' | 'areaSqft'> {
  return {
    parcelExternalId: parcel.parcel_ext_id,
    latitude: round6(parcel.inside_lat),
    longitude: round6(parcel.inside_lon),
    areaM2: Math.round(parcel.area_m2 * 10) / 10,
    areaSqft: Math.round(parcel.area_m2 * SQFT_PER_M2),
  };
}

function lotOf(parcel: ParcelRow, streetKey: string, place: PlaceRecord): Lot {
  const facts = parcel.facts ?? {};
  if (facts.unshared) return lotWithoutCentrelines(parcel, facts.unshared.sides, streetKey, place);
  const front = facts.frontByStreet?.[streetKey];
  const parcelLayer = place.layers.find((l) => l.layer === 'parcels');
  const frontageFt = measure(front?.frontageM, 'frontage');
  const depthFt = measure(front?.depthM, 'depth');
  // A cul-de-sac lot says which rule measured it; a lot on two streets that is not a corner, why (docs/lot-metrics.md).
  const bulb = bulbNotes(front, streetKey);
  if (bulb) {
    frontageFt.note = bulb.frontage;
    depthFt.note = bulb.depth;
  }
  const cornerNote = facts.cornerLot === false ? notCornerNote(facts.notCorner) : null;
  return {
    ...lotIdentity(parcel),
    frontageFt,
    depthFt,
    cornerLot: facts.cornerLot ?? null,
    ...(cornerNote ? { cornerLotNote: cornerNote } : {}),
    frontStreet: front ? streetKey : null,
    source: parcelLayer?.layer ?? 'parcels',
  };
}

/**
 * A lot in a place that holds no street centrelines (Somerville): its front is the one side of its
 * boundary that no other lot shares, when there is exactly one; otherwise frontage and depth are
 * missing with the reason, and whether it is a corner lot is not known (docs/lot-geometry.md).
 */
function lotWithoutCentrelines(parcel: ParcelRow, sides: readonly { lengthM: number; depthM: number }[], streetKey: string, place: PlaceRecord): Lot {
  const none = `no street centrelines are held for ${place.name}`;
  let frontageFt: Measure;
  let depthFt: Measure;
  let front = false;
  if (sides.length === 1) {
    front = true;
    frontageFt = measure(sides[0]!.lengthM, 'frontage');
    depthFt = measure(sides[0]!.depthM, 'depth');
    frontageFt.note = `Measured along the one side of the lot that no other lot shares, taken as its front lot line (${none}, so the street it faces is not checked).`;
    depthFt.note = 'Measured across the lot, perpendicular to that side.';
  } else {
    const why =
      sides.length === 0
        ? `every edge of the lot is shared with another lot (a rear lot, or one reached by a way that is not a parcel), and ${none}`
        : `the edges no other lot shares run along ${sides.length} sides (${sides.map((x) => `${Math.round(x.lengthM * FT_PER_M * 10) / 10} ft`).join(', ')}), and ${none}, so which one faces the addressed street cannot be told`;
    frontageFt = { value: null, unit: 'ft', basis: 'missing', status: 'missing', note: `No frontage could be measured: ${why}.` };
    depthFt = {
      value: null,
      unit: 'ft',
      basis: 'missing',
      status: 'missing',
      note: `No depth could be measured: it is taken across the front lot line, which could not be found (${sides.length === 0 ? 'no unshared side' : 'several unshared sides'}).`,
    };
  }
  const parcelLayer = place.layers.find((l) => l.layer === 'parcels');
  return {
    ...lotIdentity(parcel),
    frontageFt,
    depthFt,
    cornerLot: front ? false : null,
    cornerLotNote: unsharedCornerNote(sides.length, place.name),
    frontStreet: front ? streetKey : null,
    source: parcelLayer?.layer ?? 'parcels',
  };
}

/**
 * A district's or overlay's share of the lot. A piece under 5 % kept for its area (>= 1,000 sq ft)
 * is a minor share: listed and marked, never the primary district and never what makes a lot split
 * (docs/lot-geometry.md).
 */
function shareOf(z: ParcelRow['zones'][number], lotAreaM2: number): ZoneShare {
  const out: ZoneShare = { code: z.code, name: z.name, share: round3(z.share) };
  if (z.attrs?.['minor'] === true) {
    const areaM2 = typeof z.attrs['areaM2'] === 'number' ? z.attrs['areaM2'] : z.share * lotAreaM2;
    out.minorShare = { rule: 'area_at_least_1000_sqft', areaSqft: Math.round(areaM2 * SQFT_PER_M2) };
  }
  return out;
}

function zonesOf(parcel: ParcelRow): Zones {
  const base: ZoneShare[] = [];
  const overlays: OverlayShare[] = [];
  for (const z of parcel.zones) {
    if (z.layer === 'base') base.push(shareOf(z, parcel.area_m2));
    else if (z.layer === 'overlay') overlays.push({ ...shareOf(z, parcel.area_m2), governingSection: (z.attrs?.['article'] as string | undefined) ?? null });
  }
  return {
    primary: base.find((z) => !z.minorShare)?.code ?? null,
    districts: base,
    splitLot: base.filter((z) => !z.minorShare && z.share >= SPLIT_LOT_MIN_SHARE).length > 1,
    overlays,
  };
}

/**
 * One sentence naming the minor shares, so a reader of the warnings sees the pieces the 5 % rule used
 * to hide; their shares and areas are said once, in zones.
 */
function minorShareNotes(zones: Zones): string[] {
  const districts = zones.districts.filter((z) => z.minorShare).map((z) => z.code);
  const overlays = zones.overlays.filter((z) => z.minorShare).map((z) => z.code);
  if (!districts.length && !overlays.length) return [];
  const where = [
    districts.length ? `district${districts.length > 1 ? 's' : ''} ${districts.join(', ')}` : '',
    overlays.length ? `overlay${overlays.length > 1 ? 's' : ''} ${overlays.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  const one = districts.length + overlays.length === 1;
  return [
    `${one ? 'A minor share of the lot (under 5 % but at least 1,000 sq ft; share and area in zones) is in' : 'Each a minor share of the lot (under 5 % but at least 1,000 sq ft; shares and areas in zones):'} ${where}.`,
  ];
}

/**
 * The sources an answer names, each by id with a short label (the rest is in the place's catalogue, linked
 * once), and the attribution statements the licences of the place's data require.
 */
function sourcesOf(catalogue: SourceCatalogue, named: readonly string[]): Pick<Snapshot, 'sources' | 'sourceCatalogue' | 'attribution'> {
  const sources: [string, string][] = [];
  for (const id of named) {
    const s = catalogue.sources[id];
    if (s) sources.push([id, s.label]);
  }
  // Object.fromEntries, not computed keys: see the note on records in src/snapshot/refs.ts.
  return {
    sources: Object.fromEntries(sources),
    sourceCatalogue: catalogue.ref,
    ...(catalogue.attribution.length ? { attribution: catalogue.attribution } : {}),
  };
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const round3 = (x: number) => Math.round(x * 1e3) / 1e3;

async function notAnswered(ctx: AppContext, coverage: Coverage, extra: Partial<Snapshot> = {}, place?: PlaceRecord): Promise<Snapshot> {
  // A place was identified: its catalogue (and the attribution its licences require), though no source is named.
  const sources = place ? sourcesOf(await placeSourceCatalogue(ctx, place), []) : { sources: {} };
  return { answered: false, coverage, ...sources, generatedAt: ctx.clock.now().toISOString(), ...extra };
}

function matchOf(
  input: string,
  parsed: ParsedAddress,
  g: { matchType: AddressMatch['matchType']; confidence: number; matchedAddress: string; warnings: string[] },
): AddressMatch {
  return {
    input,
    parsed: {
      number: parsed.number ? `${parsed.number}${parsed.numberSuffix ? `-${parsed.numberSuffix}` : ''}` : null,
      street: parsed.street,
      unit: parsed.unit || null,
      city: parsed.city,
      region: parsed.region,
      postcode: parsed.postcode,
      country: parsed.country,
    },
    matchType: g.matchType,
    confidence: g.confidence,
    matchedAddress: g.matchedAddress,
    warnings: [...parsed.warnings, ...g.warnings],
  };
}

/** In a covered place, an address that cannot be tied to a lot is geocode_failed: never a centroid. */
function geocodeFailed(ctx: AppContext, place: PlaceRecord, message: string, extra: Partial<Snapshot> = {}): Promise<Snapshot> {
  const placeInfo = { name: place.name, region: place.region, country: place.country };
  return notAnswered(ctx, { status: 'geocode_failed', eligibilityKnown: true, geoDivisionId: place.geoDivisionId, place: placeInfo, message }, extra, place);
}

/**
 * The core function: one address -> one sourced snapshot. Throws SitelineError('bad_input') for unusable
 * input. `stated`: the district (and building type) the caller states, used only in a place without a
 * zoning map (src/snapshot/stated-district.ts); where a zoning layer gives the district it is not used.
 */
export async function getFeasibilitySnapshot(ctx: AppContext, address: string, stated?: StatedDistrict): Promise<Snapshot> {
  const parsed = parseAddress(address);
  refuseStatedControlCharacters(stated);
  const cov = await resolveCoverage(ctx, parsed);
  if (cov.kind === 'not_covered') return notAnswered(ctx, cov.coverage, cov.suggestions?.length ? { suggestions: cov.suggestions } : {}, cov.place);
  const place = cov.place;
  const placeInfo = { name: place.name, region: place.region, country: place.country };

  const located = await locateAddress(ctx, place, parsed);
  const src = located.src;
  // A lot the caller picked answers over the address's own match (src/snapshot/picked-lot.ts).
  const lotId = stated?.lotId ? cleanLotId(stated.lotId) : null;
  const g = lotId ? pickedMatch(lotId, located.match, address.trim().replace(/\s+/g, ' ')) : located.match;
  if (lotId && !(await src.lot(lotId))) throw noSuchLot(place, lotId);
  if (g.kind === 'failed' || !g.parcelExtId) {
    const reason = g.kind === 'failed' ? g.reason : 'the address matched, but no lot holds it';
    return geocodeFailed(
      ctx,
      place,
      `${place.name} is covered, but this address could not be matched to a lot with confidence: ${reason}. No approximate location is given in its place.`,
      g.kind === 'failed' && g.suggestions.length ? { suggestions: g.suggestions } : {},
    );
  }
  const parcel: ParcelRow | null = await src.lot(g.parcelExtId); // SQL or the place's hot index (src/geocoder/place-index.ts)
  if (!parcel) return geocodeFailed(ctx, place, `${place.name} is covered, but the lot this address points to (${g.parcelExtId}) is not in the parcel layer.`);
  const lot = lotOf(parcel, g.streetKey, place);
  const rules = await loadPlaceRules(ctx, place.slug);
  // A place without a zoning map takes the caller's district, and without one answers the lot and the choices.
  const statedOutcome = place.districtSource === 'stated' ? resolveStatedDistrict(place, rules, stated) : null;
  if (statedOutcome?.kind === 'needs') return lotOnly(ctx, place, rules, address, parsed, g, cov.note, parcel, lot, statedOutcome.source, statedOutcome.choice);
  const zones = statedOutcome ? statedOutcome.zones : zonesOf(parcel);
  const built = buildEnvelope({
    rules,
    primaryZone: zones.primary,
    zones: zones.districts.filter((z) => !z.minorShare).map((z) => ({ code: z.code, share: z.share })),
    overlays: zones.overlays.map((o) => ({ code: o.code, name: o.name })),
    lot: {
      areaSqft: lot.areaSqft,
      frontageFt: lot.frontageFt.value,
      depthFt: lot.depthFt.value,
      cornerLot: lot.cornerLot,
      country: place.country as 'US' | 'CA',
    },
    ...(statedOutcome ? { building: { buildingType: statedOutcome.buildingType, conditions: statedOutcome.envelopeConditions } } : {}),
  });
  const match = matchOf(address.trim().replace(/\s+/g, ' '), parsed, g);
  // Where the district came from, first: the caller stated it (no zoning map is held).
  if (statedOutcome) match.warnings.unshift(statedOutcome.warning);
  else if (stated?.district || stated?.buildingType || stated?.conditions?.length) match.warnings.unshift(statedIgnored(place, stated));
  if (cov.note) match.warnings.unshift(cov.note);
  const areaNote = areaWarning(parcel);
  if (areaNote) match.warnings.push(areaNote);
  match.warnings.push(...minorShareNotes(zones));
  if (built.notes.length) match.warnings.push(...built.notes);
  const refd = referenceProvenance({ envelope: built.envelope, permittedUses: built.permittedUses, warnings: match.warnings, named: rules.sources ?? {} });
  // Assigned member by member in the documented order (docs/snapshot.md), not spread from parts:
  // this object is built and serialised on every call.
  const out = {
    answered: true,
    coverage: {
      status: 'live',
      eligibilityKnown: true,
      geoDivisionId: place.geoDivisionId,
      place: placeInfo,
      // The lot and how it was matched are said once, in lot and address.matchType.
      message: `${place.name} is covered.`,
    },
    address: match,
    lot,
    zones,
    ...(statedOutcome?.choice ? { districtChoice: statedOutcome.choice } : {}),
    permittedUses: refd.permittedUses,
    envelope: refd.envelope,
  } as Snapshot; // sources and generatedAt follow, in their place in the order
  if (hasKeys(refd.citations)) out.citations = refd.citations;
  if (hasKeys(refd.notes)) out.notes = refd.notes;
  const named = sourcesOf(sourceCatalogueOf(place, rules), [lot.source, ...refd.namedSourceIds]);
  out.sources = named.sources;
  out.sourceCatalogue = named.sourceCatalogue;
  if (named.attribution) out.attribution = named.attribution;
  out.generatedAt = ctx.clock.now().toISOString();
  return out;
}

/** A district stated where the zoning map gives it: said, and not used. */
function statedIgnored(place: PlaceRecord, stated: StatedDistrict): string {
  const what = [
    stated.district ? `district ${stated.district}` : '',
    stated.buildingType ? `building type ${stated.buildingType}` : '',
    stated.conditions?.length ? `conditions (${stated.conditions.join('; ')})` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return `A ${what} was stated, but ${place.name}'s zoning map is held: the lot's district is read from it, and the stated one is not used.`;
}

/**
 * The answer in a place without a zoning map when no district was stated: the lot, how it was matched,
 * and the districts to choose from. No envelope: no value is given for a district nobody stated.
 */
function lotOnly(
  ctx: AppContext,
  place: PlaceRecord,
  rules: PlaceRules,
  address: string,
  parsed: ParsedAddress,
  g: Parameters<typeof matchOf>[2],
  covNote: string | undefined,
  parcel: ParcelRow,
  lot: Lot,
  source: DistrictSource,
  choice: DistrictChoice,
): Snapshot {
  const match = matchOf(address.trim().replace(/\s+/g, ' '), parsed, g);
  if (covNote) match.warnings.unshift(covNote);
  const areaNote = areaWarning(parcel);
  if (areaNote) match.warnings.push(areaNote);
  const out = {
    answered: true,
    coverage: {
      status: 'live',
      eligibilityKnown: true,
      geoDivisionId: place.geoDivisionId,
      place: { name: place.name, region: place.region, country: place.country },
      message: `${place.name} is covered. Its zoning map is not held: state the lot's district to get its rules.`,
    },
    address: match,
    lot,
    zones: { primary: null, districts: [], splitLot: false, overlays: [], districtSource: source },
    districtChoice: choice,
  } as unknown as Snapshot; // sources and generatedAt follow
  const named = sourcesOf(sourceCatalogueOf(place, rules), [lot.source]);
  out.sources = named.sources;
  out.sourceCatalogue = named.sourceCatalogue;
  if (named.attribution) out.attribution = named.attribution;
  out.generatedAt = ctx.clock.now().toISOString();
  return out;
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}
