// Coordinate reference systems of source files: whatever proj4 knows, named in the manifest (`crs`),
// in a GeoJSON `crs` member or in a `.prj` WKT. Every reader hands on WGS 84 lon/lat.
//
// A CRS may be written as `EPSG:<code>` (or an OGC URN naming one), a proj4 string (`+proj=...`) or
// WKT. proj4 knows only a few EPSG codes by number (4326, 4269, 3857); UTM zones on WGS 84 (326xx,
// 327xx) and NAD83 (269xx) are built from their zone number; every other code is looked up by number in
// the EPSG registry the epsg-index package ships (one small JSON file per code, read on demand), so a
// State Plane code such as EPSG:2264 needs no proj4 string. A code the registry does not hold is
// refused with the code named.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import proj4 from 'proj4';

export type Xy = (p: [number, number]) => [number, number];

const LONLAT = new Set(['CRS84', 'EPSG:4326', 'EPSG:4269', 'EPSG:4617', 'EPSG:4152']);

/** `urn:ogc:def:crs:EPSG::2249`, `EPSG:2249`, `epsg:2249` -> `EPSG:2249`; CRS84 URNs -> `CRS84`; else the text. */
export function normaliseCrsName(name: string): string {
  const t = name.trim();
  if (/^urn:ogc:def:crs:OGC:[\d.]*:CRS84$/i.test(t) || /^(OGC:)?CRS84$/i.test(t)) return 'CRS84';
  const m = t.match(/^(?:urn:ogc:def:crs:EPSG:[\d.]*:|EPSG:{1,2})(\d{4,6})$/i) ?? t.match(/^https?:\/\/www\.opengis\.net\/def\/crs\/EPSG\/0\/(\d{4,6})$/i);
  return m ? `EPSG:${m[1]}` : t;
}

/** True when the name means geographic lon/lat on WGS 84 or NAD83 (no reprojection needed at siteline's scale). */
export function isLonLatCrs(name: string): boolean {
  const n = normaliseCrsName(name);
  return LONLAT.has(n) || /^GEOGCS\[/i.test(n) || /^\+proj=(longlat|lonlat|latlong)\b/.test(n);
}

/** A proj4 definition for an EPSG code proj4 cannot resolve by number (UTM zones), or null. */
function utmDefinition(code: number): string | null {
  if (code >= 32601 && code <= 32660) return `+proj=utm +zone=${code - 32600} +datum=WGS84 +units=m +no_defs`;
  if (code >= 32701 && code <= 32760) return `+proj=utm +zone=${code - 32700} +south +datum=WGS84 +units=m +no_defs`;
  if (code >= 26901 && code <= 26923) return `+proj=utm +zone=${code - 26900} +datum=NAD83 +units=m +no_defs`;
  return null;
}

let registryDir: string | null | undefined;

/** The proj4 definition of an EPSG code from the epsg-index registry, or null when it holds none. */
function registryDefinition(code: number): { proj4: string; name: string } | null {
  if (registryDir === undefined) {
    try {
      registryDir = path.join(path.dirname(createRequire(import.meta.url).resolve('epsg-index/package.json')), 's');
    } catch {
      registryDir = null;
    }
  }
  if (!registryDir || !Number.isInteger(code)) return null;
  const file = path.join(registryDir, `${code}.json`);
  if (!fs.existsSync(file)) return null;
  const entry = JSON.parse(fs.readFileSync(file, 'utf8')) as { proj4?: string; name?: string };
  return entry.proj4 ? { proj4: entry.proj4, name: entry.name ?? `EPSG:${code}` } : null;
}

/** The proj4 definition siteline uses for a CRS name, or an error message saying what to declare instead. */
export function crsDefinition(name: string): { def: string } | { problem: string } {
  const n = normaliseCrsName(name);
  if (n === 'CRS84') return { def: 'EPSG:4326' };
  const epsg = n.match(/^EPSG:(\d+)$/);
  if (epsg) {
    if (proj4.defs(n)) return { def: n };
    const utm = utmDefinition(Number(epsg[1]));
    if (utm) return { def: utm };
    const reg = registryDefinition(Number(epsg[1]));
    if (reg) return { def: reg.proj4 };
    return {
      problem: `${n} is not a code in the EPSG registry siteline ships (epsg-index): check the code, or declare the source's "crs" in the manifest as its proj4 string or WKT (a .prj file holds the WKT)`,
    };
  }
  if (/^\+proj=/.test(n) || /^(PROJCS|GEOGCS|PROJCRS|GEOGCRS)\[/i.test(n)) return { def: n };
  return { problem: `"${name}" is not a CRS siteline can read: write EPSG:<code>, a proj4 string (+proj=...) or WKT` };
}

/** A lon/lat projector for a CRS name; identity for lon/lat. Throws with the reason when it cannot be built. */
export function projectorFor(name: string, where: string): Xy {
  if (isLonLatCrs(name)) return (p) => p;
  const d = crsDefinition(name);
  if ('problem' in d) throw new Error(`${where}: ${d.problem}`);
  let conv: { forward(p: number[]): number[] };
  try {
    conv = proj4(d.def, 'EPSG:4326');
  } catch (err) {
    throw new Error(`${where}: cannot read the projection ${name.slice(0, 80)} (${(err as Error).message})`);
  }
  return (p) => conv.forward(p) as [number, number];
}

/** Coordinates (any nesting) through a projector. */
export function reprojectCoords(c: unknown, xy: Xy): unknown {
  if (!Array.isArray(c)) return c;
  if (typeof c[0] === 'number') return xy([c[0] as number, c[1] as number]);
  return c.map((k) => reprojectCoords(k, xy));
}

/** The coordinate extent of nested coordinate arrays (for telling lon/lat from projected metres or feet). */
export function coordinateRange(values: unknown[], max = 5000): { minX: number; minY: number; maxX: number; maxY: number; n: number } | null {
  let minX = Infinity,
    minY = Infinity,
    maxX = -Infinity,
    maxY = -Infinity,
    n = 0;
  const walk = (c: unknown): void => {
    if (n >= max || !Array.isArray(c)) return;
    if (typeof c[0] === 'number' && typeof c[1] === 'number') {
      const [x, y] = c as [number, number];
      if (Number.isFinite(x) && Number.isFinite(y)) {
        n++;
        if (x < minX) minX = x;
        if (x > maxX) maxX = x;
        if (y < minY) minY = y;
        if (y > maxY) maxY = y;
      }
      return;
    }
    for (const k of c) walk(k);
  };
  for (const v of values) walk(v);
  return n ? { minX, minY, maxX, maxY, n } : null;
}

/** True when every coordinate could be lon/lat degrees. */
export function looksLonLat(r: { minX: number; minY: number; maxX: number; maxY: number }): boolean {
  return r.minX >= -180 && r.maxX <= 180 && r.minY >= -90 && r.maxY <= 90;
}
