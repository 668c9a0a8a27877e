// GeoJSON FeatureCollections, plain or gzipped (Chicago ships .geojson.gz). Coordinates must be
// WGS 84 lon/lat: no crs member, or the CRS84 / EPSG:4326 names; anything else is refused.
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { SourceFeature } from './features.ts';

const LONLAT_CRS = new Set(['urn:ogc:def:crs:OGC:1.3:CRS84', 'urn:ogc:def:crs:OGC::CRS84', 'EPSG:4326', 'urn:ogc:def:crs:EPSG::4326']);

export function readGeoJsonText(file: string, gzip: boolean): string {
  const buf = fs.readFileSync(file);
  const raw = gzip || (buf[0] === 0x1f && buf[1] === 0x8b) ? zlib.gunzipSync(buf) : buf;
  return raw.toString('utf8');
}

/** Features of a GeoJSON FeatureCollection (or a single Feature) in file order. */
export function parseGeoJson(text: string, where: string): SourceFeature[] {
  let doc: { type?: string; features?: unknown[]; crs?: { properties?: { name?: string } } } & Record<string, unknown>;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new Error(`${where}: not valid JSON (${(err as Error).message})`);
  }
  const crsName = doc.crs?.properties?.name;
  if (crsName && !LONLAT_CRS.has(crsName)) throw new Error(`${where}: coordinates are in ${crsName}; only WGS 84 lon/lat GeoJSON is read`);
  const list = doc.type === 'FeatureCollection' ? doc.features : doc.type === 'Feature' ? [doc] : undefined;
  if (!Array.isArray(list)) throw new Error(`${where}: not a GeoJSON FeatureCollection`);
  return list.map((f, index) => {
    const feat = (f ?? {}) as { properties?: Record<string, unknown> | null; geometry?: SourceFeature['geometry'] };
    return { index, properties: feat.properties ?? {}, geometry: feat.geometry ?? null };
  });
}

export function readGeoJson(file: string, gzip = false): SourceFeature[] {
  return parseGeoJson(readGeoJsonText(file, gzip), file);
}
