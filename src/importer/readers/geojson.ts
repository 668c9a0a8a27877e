// GeoJSON FeatureCollections, plain or gzipped (Chicago ships .geojson.gz), in any CRS proj4 knows:
// the manifest's `crs` wins, then the file's `crs` member; without either the coordinates must be
// lon/lat (a projected file without a declared CRS is refused, naming its coordinate range).
import fs from 'node:fs';
import zlib from 'node:zlib';
import type { SourceFeature } from './features.ts';
import { coordinateRange, isLonLatCrs, looksLonLat, projectorFor, reprojectCoords } from './crs.ts';

function readGeoJsonText(file: string, gzip: boolean): string {
  const buf = fs.readFileSync(file);
  const raw = gzip || (buf[0] === 0x1f && buf[1] === 0x8b) ? zlib.gunzipSync(buf) : buf;
  return raw.toString('utf8');
}

/** Features of a GeoJSON FeatureCollection (or a single Feature) in file order. */
export function parseGeoJson(text: string, where: string, declaredCrs?: string): SourceFeature[] {
  const { features, crsMember } = decodeGeoJson(text, where);
  return toLonLat(features, declaredCrs ?? crsMember, where);
}

/** Features as the file holds them (coordinates not reprojected) and the CRS its `crs` member names. */
export function decodeGeoJson(text: string, where: string): { features: SourceFeature[]; crsMember: string | undefined } {
  let doc: { type?: string; features?: unknown[]; crs?: { properties?: { name?: string } } } & Record<string, unknown>;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new Error(jsonProblem(text, where, err as Error));
  }
  const crsMember = doc.crs?.properties?.name;
  const list = doc.type === 'FeatureCollection' ? doc.features : doc.type === 'Feature' ? [doc] : undefined;
  if (!Array.isArray(list)) throw new Error(`${where}: not a GeoJSON FeatureCollection`);
  const features: SourceFeature[] = list.map((f, index) => {
    const feat = (f ?? {}) as { properties?: Record<string, unknown> | null; geometry?: SourceFeature['geometry'] };
    return { index, properties: feat.properties ?? {}, geometry: feat.geometry ?? null };
  });
  return { features, crsMember };
}

/**
 * Why a JSON file does not parse, naming the real fault: a file cut short (a half-copied download ends
 * mid-record: its text stops before the closing brace) is "truncated", anything else "not valid JSON".
 */
export function jsonProblem(text: string, where: string, err: Error): string {
  const body = text.trimEnd();
  if (body === '') return `${where}: empty file (no features)`;
  if (/Unexpected end|Unterminated|end of (JSON|data)/i.test(err.message) || !/[}\]]$/.test(body)) {
    return `${where}: truncated: the file ends mid-record after ${Buffer.byteLength(text)} bytes (its JSON stops before the closing brace); the file was cut short`;
  }
  // V8 quotes a stretch of the text in its message: left out, the file may hold people's names.
  return `${where}: not valid JSON (${err.message.replace(/, ".*" is not valid JSON$/s, '').replace(/"[^"]*"/g, '"..."')})`;
}

/** Features reprojected to lon/lat from `crs` (none: must already be lon/lat). */
export function toLonLat(features: SourceFeature[], crs: string | undefined, where: string): SourceFeature[] {
  if (!crs || isLonLatCrs(crs)) {
    const r = coordinateRange(features.map((f) => f.geometry?.coordinates));
    if (r && !looksLonLat(r)) {
      throw new Error(
        `${where}: coordinates run from (${r.minX.toFixed(0)}, ${r.minY.toFixed(0)}) to (${r.maxX.toFixed(0)}, ${r.maxY.toFixed(0)}), not lon/lat degrees${crs ? ` although the CRS is ${crs}` : ''}: declare the source's "crs" in the manifest (EPSG:<code>, a proj4 string or the .prj WKT)`,
      );
    }
    return features;
  }
  const xy = projectorFor(crs, where);
  for (const f of features)
    if (f.geometry) f.geometry = { ...f.geometry, coordinates: reprojectCoords(f.geometry.coordinates, xy) } as SourceFeature['geometry'];
  return features;
}

export function readGeoJson(file: string, gzip = false, crs?: string): SourceFeature[] {
  return parseGeoJson(readGeoJsonText(file, gzip), file, crs);
}
