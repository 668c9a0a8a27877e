// Which place an address is in, from its parsed city / region / country / postcode:
// 1. the catalogue (name or alias, in the region when given; or a postcode the place's own data holds),
// 2. the gazetteer (a real city we hold no data for -> the caller answers unseeded_place),
// 3. otherwise unknown (geo_division_uncatalogued), with the reason.
import type { AppContext } from '../context.ts';
import { findPlacesByName, getPlace, placeNameKey, type PlaceRecord } from './catalogue.ts';
import { findGazetteerCities } from './gazetteer.ts';
import { lookupRegion } from './regions.ts';
import { provincesForPostalCode, statesForZip } from '../geocoder/regions.ts';

export interface PlaceQuery {
  city: string | null;
  region: string | null;
  country: 'US' | 'CA' | null;
  postcode: string | null;
}

export type PlaceResolution =
  | { kind: 'place'; place: PlaceRecord }
  | { kind: 'gazetteer'; name: string; region: string; country: 'US' | 'CA' }
  | { kind: 'unknown'; reason: string };

/** Country a postcode's shape implies: 12345 / 12345-6789 -> US, A1A 1A1 -> CA. */
export function postcodeCountry(postcode: string): 'US' | 'CA' | null {
  const p = postcode.trim().toUpperCase();
  if (/^\d{5}(-?\d{4})?$/.test(p)) return 'US';
  if (/^[A-Z]\d[A-Z] ?\d[A-Z]\d$/.test(p)) return 'CA';
  return null;
}

function normalisePostcode(postcode: string): string {
  const p = postcode.trim().toUpperCase();
  if (/^\d{5}-?\d{4}$/.test(p)) return p.slice(0, 5);
  if (/^[A-Z]\d[A-Z]\d[A-Z]\d$/.test(p)) return `${p.slice(0, 3)} ${p.slice(3)}`;
  return p;
}

async function placesByPostcode(ctx: Pick<AppContext, 'db'>, postcode: string): Promise<PlaceRecord[]> {
  const rows = await ctx.db.query<{ place_id: string }>('SELECT DISTINCT place_id FROM place_postcodes WHERE postcode = $1 ORDER BY place_id', [normalisePostcode(postcode)]);
  const out: PlaceRecord[] = [];
  for (const r of rows) {
    const p = await getPlace(ctx, r.place_id);
    if (p) out.push(p);
  }
  return out;
}

export async function resolvePlace(ctx: Pick<AppContext, 'db'>, q: PlaceQuery): Promise<PlaceResolution> {
  const city = q.city?.trim() || null;
  const regionText = q.region?.trim() || null;
  const postcode = q.postcode?.trim() || null;
  let country = q.country ?? (postcode ? postcodeCountry(postcode) : null);
  const region = regionText ? lookupRegion(regionText, country) : null;
  if (regionText && !region) return { kind: 'unknown', reason: `"${regionText}" is not a US state or Canadian province or territory` };
  if (region) {
    if (country && region.country !== country) return { kind: 'unknown', reason: `${region.name} is not in ${country === 'US' ? 'the United States' : 'Canada'}` };
    country = region.country;
  }
  // The postcode must belong to the region (USPS ZIP3 prefixes, Canada Post first letters); without a
  // region it names one when it can.
  let regionFromPostcode = region;
  if (postcode && country) {
    const pc = normalisePostcode(postcode);
    const shapeCountry = postcodeCountry(pc);
    if (shapeCountry && shapeCountry !== country) return { kind: 'unknown', reason: `postcode ${pc} is not a ${country === 'US' ? 'US ZIP code' : 'Canadian postal code'}` };
    const allowed = shapeCountry === 'US' ? statesForZip(pc) : shapeCountry === 'CA' ? [...provincesForPostalCode(pc)] : [];
    if (shapeCountry && allowed.length === 0) return { kind: 'unknown', reason: `postcode ${pc} is not in use in any ${country === 'US' ? 'state' : 'province or territory'}` };
    if (shapeCountry && region && !allowed.includes(region.code)) return { kind: 'unknown', reason: `postcode ${pc} is not in ${region.name}` };
    if (shapeCountry && !region && allowed.length === 1) regionFromPostcode = lookupRegion(allowed[0]!, country);
  }
  const scopeRegion = regionFromPostcode;
  const inScope = (p: PlaceRecord) => (!scopeRegion || (p.region === scopeRegion.code && p.country === scopeRegion.country)) && (!country || p.country === country);

  // 1. The catalogue, by name.
  if (city) {
    const byName = (await findPlacesByName(ctx, city, scopeRegion?.code ?? null)).filter(inScope);
    // With no state, province or postcode, a name several known places share is ambiguous: a lot in
    // the wrong Cambridge is worse than asking (the gazetteer knows the places we hold no data for).
    if (!scopeRegion && byName.length > 0) {
      const others = findGazetteerCities(city, null, country).filter((g) => !byName.some((p) => p.region === g.region && p.country === g.country));
      const names = [...new Set([...byName.map((p) => `${p.name}, ${p.region}`), ...others.map((g) => `${g.name}, ${g.region}`)])];
      if (names.length > 1) {
        return { kind: 'unknown', reason: `several places are named "${city}" (${names.slice(0, 6).join('; ')}${names.length > 6 ? '; ...' : ''}): add the state or province` };
      }
    }
    if (byName.length === 1) return { kind: 'place', place: byName[0]! };
    if (byName.length > 1 && postcode) {
      const byCode = (await placesByPostcode(ctx, postcode)).filter((p) => byName.some((b) => b.geoDivisionId === p.geoDivisionId));
      if (byCode.length === 1) return { kind: 'place', place: byCode[0]! };
    }
    if (byName.length > 1) return { kind: 'place', place: byName[0]! };
  }
  // ... or by a postcode the place's own data holds, when the city does not say otherwise.
  if (postcode) {
    const byCode = (await placesByPostcode(ctx, postcode)).filter(inScope);
    const cityKnownElsewhere = city !== null && findGazetteerCities(city, scopeRegion?.code ?? null, country).some((g) => !byCode.some((p) => placeNameKey(p.name) === placeNameKey(g.name)));
    if (byCode.length === 1 && (!city || !cityKnownElsewhere)) return { kind: 'place', place: byCode[0]! };
  }

  // 2. The gazetteer: a real city without data.
  if (city) {
    const g = findGazetteerCities(city, scopeRegion?.code ?? null, country);
    if (g.length > 0) {
      const best = g[0]!;
      return { kind: 'gazetteer', name: best.name, region: best.region, country: best.country };
    }
    return {
      kind: 'unknown',
      reason: scopeRegion ? `no city "${city}" is known in ${scopeRegion.name}` : `no city "${city}" is known in the United States or Canada`,
    };
  }
  if (scopeRegion) return { kind: 'unknown', reason: `the address names ${scopeRegion.name} but no city` };
  return { kind: 'unknown', reason: 'the address names no city, state or province' };
}

export { lookupGazetteer } from './gazetteer.ts';
