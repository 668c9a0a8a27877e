// Which place an address is in, from its parsed city / region / country / postcode:
// 1. the catalogue (name or alias, in the region when given; or a postcode the place's own data holds),
// 2. the gazetteer (a real city we hold no data for -> the caller answers unseeded_place),
// 3. otherwise unknown (geo_division_uncatalogued), with the reason.
import type { AppContext } from '../context.ts';
import { cacheKind, type CacheDoors } from '../caches.ts';
import {
  CATALOGUE_CACHE_TTL_MS,
  catalogueGeneration,
  findPlacesByName,
  findPlacesByPostalCity,
  getPlace,
  placeNameKey,
  type PlaceRecord,
} from './catalogue.ts';
import { findGazetteerCities, similarGazetteerCities } from './gazetteer.ts';
import { lookupRegion, provincesForPostalCode, statesForZip } from './regions.ts';

export interface PlaceQuery {
  city: string | null;
  region: string | null;
  country: 'US' | 'CA' | null;
  postcode: string | null;
}

/** A place an address may be in: a catalogued place, or a real city we hold no data for. */
export type PlaceCandidate = { kind: 'place'; place: PlaceRecord } | { kind: 'gazetteer'; name: string; region: string; country: 'US' | 'CA' };

export type PlaceResolution =
  | PlaceCandidate
  /** Several places fit the city as written (no state, a shared name, a postal city): never guessed. */
  | { kind: 'ambiguous'; reason: string; candidates: PlaceCandidate[] }
  | { kind: 'unknown'; reason: string /** Known cities a misspelt city name may have meant ("Cambridge, MA"), closest first. */; didYouMean?: string[] };

export function candidateLabel(c: PlaceCandidate): string {
  return c.kind === 'place' ? `${c.place.name}, ${c.place.region}` : `${c.name}, ${c.region}`;
}

/**
 * Every place a city name can mean in scope: catalogued places of that name, catalogued places whose
 * addresses are written with it as their postal city (Saanich for "Victoria, BC"), and real cities of
 * that name we hold no data for (the gazetteer), one per region. The one rule for ambiguity, used by
 * the snapshot and by cityInventory: more than one candidate -> the candidates, never a pick.
 */
export async function placeCandidates(
  ctx: Pick<AppContext, 'db' | 'caches' | 'config'>,
  city: string,
  regionCode: string | null,
  country: 'US' | 'CA' | null,
): Promise<readonly PlaceCandidate[]> {
  // On every snapshot's path, and a pure function of the catalogue (cached for CATALOGUE_CACHE_TTL_MS,
  // dropped on import) and the gazetteer: kept for as long as the catalogue's own cache, per context.
  const generation = catalogueGeneration(ctx);
  const memo = ctx.caches.of(CANDIDATES);
  if (memo.generation !== generation) {
    memo.generation = generation;
    memo.entries.clear();
  }
  const key = `${city}\u0000${regionCode ?? ''}\u0000${country ?? ''}`;
  const now = Date.now();
  const hit = memo.entries.get(key);
  if (hit && now - hit.at < CATALOGUE_CACHE_TTL_MS && now >= hit.at) return hit.value;
  const value = Object.freeze(await computePlaceCandidates(ctx, city, regionCode, country));
  if (memo.entries.size >= CANDIDATE_MEMO_MAX) memo.entries.clear();
  memo.entries.set(key, { at: now, value });
  return value;
}

const CANDIDATE_MEMO_MAX = 1_000;

/** The candidates of one context, tagged with the catalogue generation they were computed at; the gazetteer's catalogue part is reread after a rules reload. */
class Candidates implements CacheDoors {
  generation = -1;
  readonly entries = new Map<string, { at: number; value: readonly PlaceCandidate[] }>();
  rulesReloaded(): void {
    this.entries.clear();
  }
}
const CANDIDATES = cacheKind('place candidates', () => new Candidates());

async function computePlaceCandidates(
  ctx: Pick<AppContext, 'db' | 'caches' | 'config'>,
  city: string,
  regionCode: string | null,
  country: 'US' | 'CA' | null,
): Promise<PlaceCandidate[]> {
  const inScope = (p: { region: string; country: string }) => (!regionCode || p.region === regionCode) && (!country || p.country === country);
  const byName = (await findPlacesByName(ctx, city, regionCode)).filter(inScope);
  const byPostal = (await findPlacesByPostalCity(ctx, city, regionCode)).filter(inScope);
  const out: PlaceCandidate[] = [];
  const seen = new Set<string>();
  for (const p of [...byName, ...byPostal]) {
    if (seen.has(p.geoDivisionId)) continue;
    seen.add(p.geoDivisionId);
    out.push({ kind: 'place', place: p });
  }
  // A real city of that name in a region where no catalogued place has that name. (A postal-city
  // place does not stand for the city of that name: "Victoria, BC" is Victoria or Saanich.)
  const named = new Set(byName.map((p) => `${p.country}-${p.region}`));
  for (const g of findGazetteerCities(ctx, city, regionCode, country)) {
    const k = `${g.country}-${g.region}`;
    if (named.has(k) || seen.has(`gaz:${k}`)) continue;
    if (g.source === 'catalogue' && !byName.some((p) => p.region === g.region && p.country === g.country)) {
      // the gazetteer's copy of a catalogued place found by another name: already listed or not this city
      if (byPostal.some((p) => p.region === g.region && p.country === g.country && placeNameKey(p.name) === placeNameKey(g.name))) continue;
    }
    seen.add(`gaz:${k}`);
    out.push({ kind: 'gazetteer', name: g.name, region: g.region, country: g.country });
  }
  return out;
}

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

async function placesByPostcode(ctx: Pick<AppContext, 'db' | 'caches' | 'config'>, postcode: string): Promise<PlaceRecord[]> {
  const rows = await ctx.db.query<{ place_id: string }>('SELECT DISTINCT place_id FROM place_postcodes WHERE postcode = $1 ORDER BY place_id', [
    normalisePostcode(postcode),
  ]);
  const out: PlaceRecord[] = [];
  for (const r of rows) {
    const p = await getPlace(ctx, r.place_id);
    if (p) out.push(p);
  }
  return out;
}

export async function resolvePlace(ctx: Pick<AppContext, 'db' | 'caches' | 'config'>, q: PlaceQuery): Promise<PlaceResolution> {
  const city = q.city?.trim() || null;
  const regionText = q.region?.trim() || null;
  const postcode = q.postcode?.trim() || null;
  let country = q.country ?? (postcode ? postcodeCountry(postcode) : null);
  const region = regionText ? lookupRegion(regionText, country) : null;
  if (regionText && !region) return { kind: 'unknown', reason: `"${regionText}" is not a US state or Canadian province or territory` };
  if (region) {
    if (country && region.country !== country)
      return { kind: 'unknown', reason: `${region.name} is not in ${country === 'US' ? 'the United States' : 'Canada'}` };
    country = region.country;
  }
  // The postcode must belong to the region (USPS ZIP3 prefixes, Canada Post first letters); without a
  // region it names one when it can.
  let regionFromPostcode = region;
  if (postcode && country) {
    const pc = normalisePostcode(postcode);
    const shapeCountry = postcodeCountry(pc);
    if (shapeCountry && shapeCountry !== country)
      return { kind: 'unknown', reason: `postcode ${pc} is not a ${country === 'US' ? 'US ZIP code' : 'Canadian postal code'}` };
    const allowed = shapeCountry === 'US' ? statesForZip(pc) : shapeCountry === 'CA' ? [...provincesForPostalCode(pc)] : [];
    if (shapeCountry && allowed.length === 0)
      return { kind: 'unknown', reason: `postcode ${pc} is not in use in any ${country === 'US' ? 'state' : 'province or territory'}` };
    if (shapeCountry && region && !allowed.includes(region.code)) return { kind: 'unknown', reason: `postcode ${pc} is not in ${region.name}` };
    if (shapeCountry && !region && allowed.length === 1) regionFromPostcode = lookupRegion(allowed[0]!, country);
  }
  const scopeRegion = regionFromPostcode;

  // 1. By name: the catalogue, postal cities and the gazetteer together (placeCandidates).
  let cands: readonly PlaceCandidate[] = [];
  if (city) {
    cands = await placeCandidates(ctx, city, scopeRegion?.code ?? null, scopeRegion?.country ?? country);
    if (cands.length > 1 && postcode) {
      // a postcode the candidate's own data holds settles it
      const byCode = await placesByPostcode(ctx, postcode);
      const hit = cands.filter((c) => c.kind === 'place' && byCode.some((p) => p.geoDivisionId === c.place.geoDivisionId));
      if (hit.length === 1) cands = hit;
    }
    if (cands.length === 1) return cands[0]!;
    if (cands.length > 1) {
      const names = cands.map(candidateLabel);
      const postal = cands.filter((c) => c.kind === 'place' && placeNameKey(c.place.name) !== placeNameKey(city));
      return {
        kind: 'ambiguous',
        candidates: [...cands],
        reason: postal.length
          ? `"${city}" is the postal city of several municipalities (${names.join('; ')}), and the address data does not settle which one`
          : `several places are named "${city}" (${names.slice(0, 6).join('; ')}${names.length > 6 ? '; ...' : ''}): add the state or province`,
      };
    }
  }
  // ... or by a postcode the place's own data holds, when the city does not say otherwise.
  if (postcode && cands.length === 0) {
    const byCode = (await placesByPostcode(ctx, postcode)).filter(
      (p) => (!scopeRegion || (p.region === scopeRegion.code && p.country === scopeRegion.country)) && (!country || p.country === country),
    );
    if (byCode.length === 1) return { kind: 'place', place: byCode[0]! };
  }
  if (city) {
    const similar = similarGazetteerCities(ctx, city, scopeRegion?.code ?? null, scopeRegion?.country ?? country ?? null).map((c) => `${c.name}, ${c.region}`);
    return {
      kind: 'unknown',
      reason: scopeRegion ? `no city "${city}" is known in ${scopeRegion.name}` : `no city "${city}" is known in the United States or Canada`,
      ...(similar.length ? { didYouMean: similar } : {}),
    };
  }
  if (scopeRegion) return { kind: 'unknown', reason: `the address names ${scopeRegion.name} but no city` };
  return { kind: 'unknown', reason: 'the address names no city, state or province' };
}
