// Vector tiles (Mapbox Vector Tile 2.1, XYZ web-mercator) made on request from data siteline already
// holds: city boundaries, zoning districts (code + category), overlays (code), street centrelines
// and parcel outlines. Each tile reads only the rows whose bbox meets it (GiST index) and is cut with
// @maplibre/geojson-vt's single-tile path, then encoded with @maplibre/vt-pbf (the two libraries
// MapLibre GL itself uses). Encoded tiles are kept in a byte-bounded LRU per context (ctx.caches), keyed
// by the import times of the places the tile touches, so a re-import is never served stale.
// Public by construction: a feature carries only the properties named in TILE_LAYERS.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { geoJSONToTile, type GeoJSONVTTile } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import type { Feature, Geometry } from 'geojson';
import { LRUCache } from 'lru-cache';
import { onReadReplica, type AppContext } from '../context.ts';
import { cacheKind, type CacheDoors } from '../caches.ts';
import type { Queryable } from '../db/database.ts';
import { boxLiteral, type BBox } from '../core/geo/primitives.ts';
import { isMissingRulesFile, loadPlaceRules, RulesFileError } from '../rules/load-rules.ts';
import { tileBBox, type TileKey } from './tile-math.ts';
import { zoneCategory, type ZoneCategory } from './zone-category.ts';

/** Every layer a tile may hold: from which zoom, and the only properties its features carry. */
export const TILE_LAYERS = {
  boundary: { minZoom: 0, properties: [] },
  zoning: { minZoom: 11, properties: ['code', 'category'] },
  overlays: { minZoom: 12, properties: ['code'] },
  streets: { minZoom: 14, properties: [] },
  parcels: { minZoom: 14, properties: [] },
} as const satisfies Record<string, { minZoom: number; properties: readonly string[] }>;
export type TileLayerName = keyof typeof TILE_LAYERS;

const EXTENT = 4096;
/** Rows are read for the tile grown by this fraction on each side (the 64-unit buffer is 1/64). */
const READ_MARGIN = 1 / 32;

export interface EncodedTile {
  /** gzip-compressed MVT bytes; empty (length 0) when the tile holds nothing. */
  gzipped: Buffer;
  /** An entity tag for HTTP caching: changes when a place the tile touches is re-imported. */
  etag: string;
}

interface PlaceRow {
  place_id: string;
  slug: string;
  imported_at: Date | string | null;
}

const parseJson = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

/** District code -> category for one place, from the zone's own name, else the rules file's district name. */
async function categoriesFor(ctx: AppContext, slug: string): Promise<(code: string, name: string | null) => ZoneCategory> {
  let names: Record<string, string> = {};
  try {
    const rules = await loadPlaceRules(ctx, slug);
    names = Object.fromEntries(Object.entries(rules.districts).map(([code, d]) => [code, d.name ?? '']));
  } catch (err) {
    // A place without a rules file still gets categories from its zone names and codes. A rules file
    // that does not load is a fault: the tile is drawn the same way, and the failure is logged.
    if (!(err instanceof RulesFileError)) throw err;
    if (!isMissingRulesFile(err)) ctx.logger.warn({ place: slug, err: err.message }, 'tiles: the rules do not load; zone categories from zone names only');
  }
  return (code, name) => zoneCategory(code, name ?? names[code] ?? null);
}

async function readLayers(ctx: AppContext, db: Queryable, place: PlaceRow, key: TileKey, box: string): Promise<Record<TileLayerName, Feature[]>> {
  const out: Record<TileLayerName, Feature[]> = { boundary: [], zoning: [], overlays: [], streets: [], parcels: [] };
  const poly = (coordinates: unknown): Geometry => ({ type: 'MultiPolygon', coordinates: parseJson(coordinates) });
  const p = [place.place_id, box];
  for (const r of await db.query<{ geom: unknown }>('SELECT geom FROM place_boundaries WHERE place_id = $1 AND bbox && $2::box', p)) {
    out.boundary.push({ type: 'Feature', properties: {}, geometry: poly(r.geom) });
  }
  if (key.z >= TILE_LAYERS.zoning.minZoom) {
    const category = await categoriesFor(ctx, place.slug);
    const zones = await db.query<{ layer: string; code: string; name: string | null; geom: unknown }>(
      `SELECT layer, code, name, geom FROM zones WHERE place_id = $1 AND bbox && $2::box AND (layer = 'base' OR $3::boolean) ORDER BY zone_id`,
      [...p, key.z >= TILE_LAYERS.overlays.minZoom],
    );
    for (const z of zones) {
      if (z.layer === 'base') out.zoning.push({ type: 'Feature', properties: { code: z.code, category: category(z.code, z.name) }, geometry: poly(z.geom) });
      else out.overlays.push({ type: 'Feature', properties: { code: z.code }, geometry: poly(z.geom) });
    }
  }
  if (key.z >= TILE_LAYERS.streets.minZoom) {
    for (const r of await db.query<{ geom: unknown }>('SELECT geom FROM street_segments WHERE place_id = $1 AND bbox && $2::box', p)) {
      const g = parseJson<unknown[]>(r.geom);
      const nested = Array.isArray(g[0]) && Array.isArray((g[0] as unknown[])[0]);
      out.streets.push({
        type: 'Feature',
        properties: {},
        geometry: nested ? { type: 'MultiLineString', coordinates: g as never } : { type: 'LineString', coordinates: g as never },
      });
    }
  }
  if (key.z >= TILE_LAYERS.parcels.minZoom) {
    for (const r of await db.query<{ geom: unknown }>('SELECT geom FROM parcels WHERE place_id = $1 AND bbox && $2::box', p)) {
      out.parcels.push({ type: 'Feature', properties: {}, geometry: poly(r.geom) });
    }
  }
  return out;
}

/** The tile's MVT bytes (uncompressed), or an empty array when nothing lies in it. */
export async function buildTile(ctx: AppContext, key: TileKey, places?: PlaceRow[]): Promise<Uint8Array> {
  const bbox = tileBBox(key, READ_MARGIN);
  const box = boxLiteral(bbox);
  const touching = places ?? (await placesTouching(ctx.db, bbox));
  const features: Record<TileLayerName, Feature[]> = { boundary: [], zoning: [], overlays: [], streets: [], parcels: [] };
  for (const place of touching) {
    const layers = await readLayers(ctx, ctx.db, place, key, box);
    for (const name of Object.keys(features) as TileLayerName[]) features[name].push(...layers[name]);
  }
  const tiles: Record<string, GeoJSONVTTile> = {};
  for (const name of Object.keys(features) as TileLayerName[]) {
    if (!features[name].length) continue;
    const tile = geoJSONToTile({ type: 'FeatureCollection', features: features[name] }, key.z, key.x, key.y, {
      clip: true,
      extent: EXTENT,
      buffer: 64,
      maxZoom: key.z,
    });
    if (tile?.features.length) tiles[name] = tile;
  }
  if (!Object.keys(tiles).length) return new Uint8Array(0);
  return fromGeojsonVt(tiles, { version: 2, extent: EXTENT });
}

async function placesTouching(db: Queryable, bbox: BBox): Promise<PlaceRow[]> {
  return db.query<PlaceRow>('SELECT place_id, slug, imported_at FROM places WHERE bbox && $1::box AND imported_at IS NOT NULL ORDER BY place_id', [
    boxLiteral(bbox),
  ]);
}

const TILE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * One context's encoded tiles, least recently used out first once their bytes (and their keys') pass
 * TILE_CACHE_BYTES (lru-cache). Keyed by the import times of the places a tile touches, so a re-import
 * is never served stale; the zone categories come from the rules files, so a rules reload drops them all.
 */
class EncodedTiles implements CacheDoors {
  readonly lru = new LRUCache<string, EncodedTile>({ maxSize: TILE_CACHE_BYTES, sizeCalculation: (tile, key) => tile.gzipped.length + key.length });
  rulesReloaded(): void {
    this.lru.clear();
  }
}
const ENCODED_TILES = cacheKind('encoded tiles', () => new EncodedTiles(), { byVersion: true }); // keyed by the places' import times

/** The encoded tile, from the cache when the places it touches have not been re-imported since; read from a replica when there are some. */
export function cachedTile(ctx: AppContext, key: TileKey): Promise<EncodedTile> {
  return onReadReplica(ctx, (readCtx) => cachedTileOn(readCtx, key));
}

async function cachedTileOn(ctx: AppContext, key: TileKey): Promise<EncodedTile> {
  const places = await placesTouching(ctx.db, tileBBox(key, READ_MARGIN));
  const version = places.map((p) => `${p.place_id}@${new Date(p.imported_at!).getTime()}`).join(',');
  const cacheKey = `${key.z}/${key.x}/${key.y}|${version}`;
  const lru = ctx.caches.of(ENCODED_TILES).lru;
  const hit = lru.get(cacheKey);
  if (hit) return hit;
  const raw = await buildTile(ctx, key, places);
  const tile: EncodedTile = {
    gzipped: raw.length ? zlib.gzipSync(raw, { level: 6 }) : Buffer.alloc(0),
    etag: `"${crypto.createHash('sha256').update(cacheKey).digest('base64url').slice(0, 22)}"`,
  };
  lru.set(cacheKey, tile);
  return tile;
}
