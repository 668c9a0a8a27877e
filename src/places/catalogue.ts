// The catalogue of places (geo divisions): one row per manifest in `places`, with its effective
// coverage status, layers (with licence, attribution and loaded feature counts) and last import.
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import type { CoverageStatus } from '../core/statuses.ts';
import { boxLiteral, offsetM, pointInMultiPolygon, pointSegmentDistanceM, type BBox, type MultiPolygonCoords } from '../core/geo/primitives.ts';
import type { Manifest, ManifestSource } from './manifest.ts';
import type { ImportReport } from './import-report.ts';
import { foldName, lookupRegion } from './regions.ts';
import { cacheKind, type CacheDoors } from '../caches.ts';

export interface PlaceLayer {
  /** What the layer is: boundary | zoning | zoning_overlay | zone_names | parcels | parcel_attributes | addresses | street_centrelines. */
  layer: string;
  /** Source id in the manifest. */
  sourceId: string;
  name: string;
  vintage: string;
  licence: string;
  attribution: string;
  /** Rows loaded by the last import; null when the place has not been imported. */
  features: number | null;
}

export interface PlaceRecord {
  geoDivisionId: string;
  slug: string;
  name: string;
  region: string;
  country: 'US' | 'CA';
  status: CoverageStatus;
  /** Why the place is not live (planned_not_live, live_unavailable); null when live. */
  statusReason: string | null;
  aliases: string[];
  /** Postal city names this place's addresses are written with (manifest postalCities). */
  postalCities: string[];
  bbox: BBox | null;
  layers: PlaceLayer[];
  /** The rules file, relative to the repository root (places/<slug>/rules.json). */
  rulesFile: string;
  importedAt: string | null;
  /** Where a lot's district comes from: the zoning layer, or the caller (no zoning map held: manifest districtSource). */
  districtSource: 'zoning_layer' | 'stated';
  /** With districtSource stated: the words every answer says the district's source with. */
  districtSourceNote: string | null;
}

export function layerKind(s: ManifestSource): string {
  const l = s.load;
  switch (l.target) {
    case 'zones':
      return l.zoneLayer === 'base' ? 'zoning' : 'zoning_overlay';
    case 'street_segments':
      return 'street_centrelines';
    default:
      return l.target;
  }
}

/** How the reason of a place kept planned_not_live by its join rates begins (import-place.ts joinGate). */
export const JOINS_TOO_POOR = "The place's data is imported but joins too poorly to answer addresses";

/** The coverage status a manifest's place has, given whether its data is imported. */
export function effectiveStatus(m: Manifest, imported: boolean, report?: Pick<ImportReport, 'gate'> | null): CoverageStatus {
  if (m.status === 'planned_not_live') return 'planned_not_live';
  // Imported, but its joins are below the manifest's thresholds: not answered (import-place.ts joinGate).
  if (imported && report?.gate && !report.gate.passed) return 'planned_not_live';
  return imported ? 'live' : 'live_unavailable';
}

interface PlaceRow {
  place_id: string;
  slug: string;
  name: string;
  region: string;
  country: string;
  status: string;
  aliases: string[];
  bbox: string | null;
  manifest: Manifest;
  imported_at: Date | string | null;
  import_report: ImportReport | null;
}

const SELECT = `SELECT place_id, slug, name, region, country, status, aliases, bbox::text AS bbox, manifest, imported_at, import_report FROM places`;

function parseBox(text: string | null): BBox | null {
  if (!text) return null;
  const n = text.match(/-?\d+(?:\.\d+)?(?:e-?\d+)?/gi)?.map(Number);
  if (n?.length !== 4) return null;
  const [x1, y1, x2, y2] = n as [number, number, number, number];
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

function toRecord(r: PlaceRow): PlaceRecord {
  const m = r.manifest;
  const loaded = new Map((r.import_report?.sources ?? []).map((s) => [s.id, s.rowsLoaded]));
  const importedAt = r.imported_at ? new Date(r.imported_at).toISOString() : null;
  const status = effectiveStatus(m, importedAt !== null, r.import_report);
  const gate = r.import_report?.gate;
  return {
    geoDivisionId: r.place_id,
    slug: r.slug,
    name: r.name,
    region: r.region,
    country: r.country as 'US' | 'CA',
    status,
    statusReason:
      status === 'live'
        ? null
        : status === 'live_unavailable'
          ? `The place is covered but its data has not been imported into this database yet: run \`siteline data import ${r.slug} --from DIR\`, or set SITELINE_SOURCE_DIR=DIR and restart.`
          : m.status === 'live' && gate && !gate.passed
            ? `${JOINS_TOO_POOR}: ${gate.problems.join('; ')}.`
            : (m.statusReason ?? 'The place is catalogued but not live: addresses cannot be answered.'),
    aliases: r.aliases ?? [],
    postalCities: m.postalCities ?? [],
    bbox: parseBox(r.bbox) ?? m.bbox,
    layers: m.sources.map((s) => ({
      layer: layerKind(s),
      sourceId: s.id,
      name: s.name,
      vintage: s.vintage,
      licence: s.licence,
      attribution: s.attribution,
      features: importedAt ? (loaded.get(s.id) ?? 0) : null,
    })),
    rulesFile: `places/${m.slug}/${m.rulesFile}`,
    importedAt,
    districtSource: m.districtSource ?? 'zoning_layer',
    districtSourceNote: m.districtSourceNote ?? null,
  };
}

// The name lookups run on every snapshot and their rows come from the 5 s name cache, so each
// cached row's record is made once (the row object is replaced when the cache refreshes).
const records = new WeakMap<PlaceRow, PlaceRecord>();
function cachedRecord(r: PlaceRow): PlaceRecord {
  let rec = records.get(r);
  if (!rec) records.set(r, (rec = toRecord(r)));
  return rec;
}

/**
 * Inserts or refreshes a place's catalogue row from its manifest; keeps its import state. On
 * PostgreSQL under one advisory lock: ON CONFLICT arbitrates on place_id only, so two instances
 * inserting the same new row at once had the slug's unique index refuse the second (SQLSTATE 23505,
 * a failed start). Under the lock the second waits, then sees the row and updates it.
 */
export async function upsertPlaceFromManifest(ctx: Pick<AppContext, 'db' | 'caches'>, m: Manifest): Promise<void> {
  forgetCatalogueCache(ctx);
  await ctx.db.transaction(async (tx) => {
    if (ctx.db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [CATALOGUE_LOCK]);
    await upsertRow(tx, m);
  });
}

const CATALOGUE_LOCK = 'siteline-place-catalogue';

async function upsertRow(q: Queryable, m: Manifest): Promise<void> {
  await q.query(
    `INSERT INTO places (place_id, slug, name, region, country, status, aliases, bbox, manifest, name_keys)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::box, $9::jsonb, $11::text[])
     ON CONFLICT (place_id) DO UPDATE SET slug = EXCLUDED.slug, name = EXCLUDED.name, region = EXCLUDED.region,
       country = EXCLUDED.country, aliases = EXCLUDED.aliases, manifest = EXCLUDED.manifest, name_keys = EXCLUDED.name_keys,
       status = CASE WHEN places.imported_at IS NULL THEN EXCLUDED.status
                     WHEN $10 = 'planned_not_live' OR places.import_report->'gate'->>'passed' = 'false' THEN 'planned_not_live' ELSE 'live' END,
       bbox = COALESCE(places.bbox, EXCLUDED.bbox)`,
    [
      m.geoDivisionId,
      m.slug,
      m.name,
      m.region,
      m.country,
      effectiveStatus(m, false),
      JSON.stringify(m.aliases),
      `(${m.bbox[2]},${m.bbox[3]}),(${m.bbox[0]},${m.bbox[1]})`,
      JSON.stringify(m),
      m.status,
      [...placeNameKeys(m.name, m.aliases), ...postalCityKeys(m.postalCities ?? [])],
    ],
  );
}

/** The folded keys a place is found by: its name and every alias. */
export function placeNameKeys(name: string, aliases: readonly string[]): string[] {
  return [...new Set([name, ...aliases].map(placeNameKey).filter(Boolean))];
}

/** Name keys marking a postal city (kept apart from the place's own names: "Victoria" is not Saanich's name). */
export function postalCityKeys(names: readonly string[]): string[] {
  return [
    ...new Set(
      names
        .map(placeNameKey)
        .filter(Boolean)
        .map((k) => `POSTAL:${k}`),
    ),
  ];
}

/** Upserts every manifest under places/ (the catalogue is the manifests). */
export async function syncCatalogue(ctx: Pick<AppContext, 'db' | 'caches'>, manifests: Manifest[]): Promise<number> {
  for (const m of manifests) await upsertPlaceFromManifest(ctx, m);
  return manifests.length;
}

export async function listPlaces(ctx: Pick<AppContext, 'db'>): Promise<PlaceRecord[]> {
  const rows = await ctx.db.query<PlaceRow>(`${SELECT} ORDER BY country, region, name`);
  return rows.map(toRecord);
}

export async function getPlace(ctx: Pick<AppContext, 'db'>, geoDivisionId: string): Promise<PlaceRecord | null> {
  const rows = await ctx.db.query<PlaceRow>(`${SELECT} WHERE place_id = $1`, [geoDivisionId]);
  return rows[0] ? toRecord(rows[0]) : null;
}

export async function getPlaceBySlug(ctx: Pick<AppContext, 'db'>, slug: string): Promise<PlaceRecord | null> {
  const rows = await ctx.db.query<PlaceRow>(`${SELECT} WHERE slug = $1`, [slug]);
  return rows[0] ? toRecord(rows[0]) : null;
}

/** Name key for matching: folded, without "City of" and a trailing ", MA"-style region. */
export function placeNameKey(name: string): string {
  return foldName(name).replace(/^(CITY|TOWN|VILLAGE|DISTRICT|TOWNSHIP|MUNICIPALITY) OF /, '');
}

/**
 * Name lookups are on every snapshot's path and the catalogue changes only when a place is imported:
 * they are cached per context for a few seconds. Writes through this module and the context's
 * placeChanged door (an import) drop the cache at once; another instance sharing a PostgreSQL database
 * sees an import within the TTL.
 */
export const CATALOGUE_CACHE_TTL_MS = 5_000;

class NameLookups implements CacheDoors {
  byKey = new Map<string, { at: number; rows: PlaceRow[] }>();
  /** Bumped at every drop, so caches built on top of the catalogue and the imported data can tell. */
  generation = 0;
  forget(): void {
    this.generation++;
    this.byKey = new Map();
  }
  placeChanged(): void {
    this.forget();
  }
}
const NAME_LOOKUPS = cacheKind('catalogue name lookups', () => new NameLookups());

/** Drops the context's cached catalogue lookups (after a catalogue write; an import opens the placeChanged door). */
export function forgetCatalogueCache(ctx: Pick<AppContext, 'caches'>): void {
  ctx.caches.of(NAME_LOOKUPS).forget();
}

/** The context's catalogue generation: caches built on top of the catalogue and the imported data compare it. */
export function catalogueGeneration(ctx: Pick<AppContext, 'caches'>): number {
  return ctx.caches.of(NAME_LOOKUPS).generation;
}

async function placeRowsByNameKey(ctx: Pick<AppContext, 'db' | 'caches'>, key: string): Promise<PlaceRow[]> {
  const byKey = ctx.caches.of(NAME_LOOKUPS).byKey;
  const hit = byKey.get(key);
  const now = Date.now();
  if (hit && now - hit.at < CATALOGUE_CACHE_TTL_MS) return hit.rows;
  const rows = await ctx.db.query<PlaceRow>(`${SELECT} WHERE name_keys @> ARRAY[$1]::text[] ORDER BY country, region, name`, [key]);
  byKey.set(key, { at: now, rows });
  return rows;
}

/** Places whose name or an alias matches (case, accents and "City of" ignored), narrowed by region (code or name). */
export async function findPlacesByName(ctx: Pick<AppContext, 'db' | 'caches'>, name: string, region?: string | null): Promise<PlaceRecord[]> {
  const key = placeNameKey(name);
  if (key === '') return [];
  let regionCode: { code: string; country: string } | null = null;
  if (region) {
    const r = lookupRegion(region);
    if (!r) return [];
    regionCode = r;
  }
  const rows = await placeRowsByNameKey(ctx, key);
  return rows
    .map(cachedRecord)
    .filter(
      (p) =>
        !regionCode || (p.region === regionCode.code && p.country === regionCode.country) || (region && lookupRegion(region, p.country)?.code === p.region),
    );
}

/** Places whose addresses are written with this postal city name (manifest postalCities), narrowed by region. */
export async function findPlacesByPostalCity(ctx: Pick<AppContext, 'db' | 'caches'>, name: string, region?: string | null): Promise<PlaceRecord[]> {
  const key = placeNameKey(name);
  if (key === '') return [];
  const r = region ? lookupRegion(region) : null;
  if (region && !r) return [];
  const rows = await placeRowsByNameKey(ctx, `POSTAL:${key}`);
  return rows
    .map(cachedRecord)
    .filter((p) => !region || (r && p.region === r.code && p.country === r.country) || lookupRegion(region, p.country)?.code === p.region);
}

/** How far from a lot a point still belongs to the lots' place: across a street between them. */
const LOT_REACH_M = 25;

/**
 * A place whose districts the caller states (manifest districtSource "stated": Somerville) holds no zones,
 * so its loaded lots are its geometry: a point inside one, or within LOT_REACH_M of one (a street between
 * lots), is the place's; its declared bbox, a rectangle, would claim its neighbours' points (Medford's
 * north of Somerville's lots).
 */
async function lotsNearPoint(ctx: Pick<AppContext, 'db'>, placeId: string, lon: number, lat: number): Promise<'near' | 'far' | 'none_loaded'> {
  const lo = offsetM([lon, lat], -LOT_REACH_M, -LOT_REACH_M);
  const hi = offsetM([lon, lat], LOT_REACH_M, LOT_REACH_M);
  const rows = await ctx.db.query<{ geom: MultiPolygonCoords | string }>('SELECT geom FROM parcels WHERE place_id = $1 AND bbox && $2::box', [
    placeId,
    boxLiteral([lo[0], lo[1], hi[0], hi[1]]),
  ]);
  for (const r of rows) {
    const geom = (typeof r.geom === 'string' ? JSON.parse(r.geom) : r.geom) as MultiPolygonCoords;
    if (pointInMultiPolygon([lon, lat], geom)) return 'near';
    for (const poly of geom)
      for (const ring of poly)
        for (let i = 1; i < ring.length; i++) if (pointSegmentDistanceM([lon, lat], ring[i - 1]!, ring[i]!).distanceM <= LOT_REACH_M) return 'near';
  }
  if (rows.length > 0) return 'far';
  const anyLot = await ctx.db.query('SELECT 1 FROM parcels WHERE place_id = $1 LIMIT 1', [placeId]);
  return anyLot.length === 0 ? 'none_loaded' : 'far';
}

/** The place whose area holds the point: bbox first, then the boundary (or, without one, its base zoning, or for a place whose districts are stated, its lots). */
export async function findPlaceByPoint(ctx: Pick<AppContext, 'db'>, lon: number, lat: number): Promise<PlaceRecord | null> {
  if (!Number.isFinite(lon) || !Number.isFinite(lat)) return null;
  const rows = await ctx.db.query<PlaceRow>(`${SELECT} WHERE bbox @> point($1, $2) ORDER BY place_id`, [lon, lat]);
  for (const r of rows) {
    const boundary = await ctx.db.query<{ geom: MultiPolygonCoords }>('SELECT geom FROM place_boundaries WHERE place_id = $1 AND bbox @> point($2, $3)', [
      r.place_id,
      lon,
      lat,
    ]);
    if (boundary.length > 0) {
      if (boundary.some((b) => pointInMultiPolygon([lon, lat], b.geom))) return toRecord(r);
      continue;
    }
    const hasBoundary = await ctx.db.query('SELECT 1 FROM place_boundaries WHERE place_id = $1', [r.place_id]);
    if (hasBoundary.length > 0) continue;
    if (r.manifest.districtSource === 'stated') {
      const lots = await lotsNearPoint(ctx, r.place_id, lon, lat);
      if (lots === 'near') return toRecord(r);
      if (lots === 'none_loaded') return toRecord(r); // nothing loaded yet: the declared bbox is all we know
      continue;
    }
    const zones = await ctx.db.query<{ geom: MultiPolygonCoords }>(`SELECT geom FROM zones WHERE place_id = $1 AND layer = 'base' AND bbox @> point($2, $3)`, [
      r.place_id,
      lon,
      lat,
    ]);
    if (zones.some((z) => pointInMultiPolygon([lon, lat], z.geom))) return toRecord(r);
    // A rules-only place (no layers at all: Somerville's ordinance text) has no geometry: its declared
    // bbox, a rectangle, would claim its neighbours' points, so it is never found by a point.
    if ((r.manifest.sources ?? []).length === 0) continue;
    const anyZone = await ctx.db.query('SELECT 1 FROM zones WHERE place_id = $1 LIMIT 1', [r.place_id]);
    if (anyZone.length === 0) return toRecord(r); // nothing loaded yet: the declared bbox is all we know
  }
  return null;
}
