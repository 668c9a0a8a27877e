// ESRI Shapefile (.shp + .dbf + .prj): features reprojected to WGS 84 lon/lat with proj4 from the
// .prj's WKT (Saanich is EPSG:3157, UTM 10N metres; Somerville EPSG:26986, metres). The DBF encoding
// comes from the manifest. With a column allow-list the .dbf is read by our own reader (dbf.ts), which
// never decodes another column; the geometry alone comes from the `shapefile` package.
import fs from 'node:fs';
import { open } from 'shapefile';
import { unzipSync } from 'fflate';
import type { SourceFeature } from './features.ts';
import { projectorFor, reprojectCoords } from './crs.ts';
import { readDbf } from './dbf.ts';

/** A shapefile's parts as bytes (from files, or from a zip). */
export interface ShapefileParts {
  shp: Uint8Array;
  dbf: Uint8Array;
  prj: string;
  /** Where it was read from, for messages. */
  label: string;
}

export async function readShapefile(
  shpFile: string,
  dbfFile: string,
  prjFile: string,
  encoding: string,
  columns?: readonly string[],
): Promise<SourceFeature[]> {
  return readShapefileParts(
    { shp: fs.readFileSync(shpFile), dbf: fs.readFileSync(dbfFile), prj: fs.readFileSync(prjFile, 'utf8'), label: prjFile },
    encoding,
    columns,
  );
}

/**
 * A shapefile inside a zip (MassGIS ships them so): only its .shp, .dbf and .prj are inflated. `member`
 * names it without `.shp`; without it the zip must hold exactly one.
 */
export function shapefilePartsFromZip(zipFile: string, member?: string): ShapefileParts {
  const wanted = (name: string) => /\.(shp|dbf|prj)$/i.test(name) && !name.startsWith('__MACOSX/');
  const files = unzipSync(fs.readFileSync(zipFile), { filter: (f) => wanted(f.name) });
  const shps = Object.keys(files).filter((n) => /\.shp$/i.test(n));
  const base = member ?? (shps.length === 1 ? shps[0]!.replace(/\.shp$/i, '') : null);
  if (base === null) throw new Error(`${zipFile} holds ${shps.length} shapefiles (${shps.join(', ') || 'none'}): name one with the manifest's member`);
  const part = (ext: string) => {
    const name = Object.keys(files).find((n) => n.toLowerCase() === `${base}.${ext}`.toLowerCase());
    if (!name) throw new Error(`${zipFile} has no ${base}.${ext}`);
    return files[name]!;
  };
  return { shp: part('shp'), dbf: part('dbf'), prj: new TextDecoder().decode(part('prj')), label: `${zipFile}:${base}` };
}

/**
 * A shapefile cut short: the .shp header states the file's length (bytes 24-27, big-endian 16-bit
 * words) and the .dbf header its record count and size, so a half-copied file is told from a small one.
 */
export function shapefileTruncation(shp: Uint8Array, dbf: Uint8Array, label: string): string | null {
  if (shp.length < 100) return `${label}: truncated: the .shp is ${shp.length} bytes, shorter than its 100-byte header`;
  const stated = new DataView(shp.buffer, shp.byteOffset, shp.byteLength).getInt32(24, false) * 2;
  if (shp.length < stated) return `${label}: truncated: the .shp header says ${stated} bytes, the file holds ${shp.length} (it ends mid-record)`;
  if (dbf.length >= 32) {
    const v = new DataView(dbf.buffer, dbf.byteOffset, dbf.byteLength);
    const records = v.getUint32(4, true);
    const need = v.getUint16(8, true) + records * v.getUint16(10, true);
    if (dbf.length < need)
      return `${label}: truncated: the .dbf header says ${records} records (${need} bytes), the file holds ${dbf.length} (it ends mid-record)`;
  } else return `${label}: truncated: the .dbf is ${dbf.length} bytes, shorter than its header`;
  return null;
}

export async function readShapefileParts(parts: ShapefileParts, encoding: string, columns?: readonly string[]): Promise<SourceFeature[]> {
  const cut = shapefileTruncation(parts.shp, parts.dbf, parts.label.replace(/\.prj$/i, '.shp'));
  if (cut) throw new Error(cut);
  const xy = projectorFor(parts.prj.trim(), parts.label);
  // With an allow-list the package reads the geometry only; the listed columns come from readDbf.
  const table = columns ? readDbf(parts.dbf, columns, encoding) : null;
  const src = await open(parts.shp, table ? undefined : parts.dbf, { encoding });
  const out: SourceFeature[] = [];
  for (let index = 0; ; index++) {
    const r = await src.read();
    if (r.done) break;
    const g = r.value.geometry;
    out.push({
      index,
      properties: table ? (table.records[index] ?? {}) : (r.value.properties ?? {}),
      geometry: g ? { type: g.type, coordinates: reprojectCoords(g.coordinates, xy) } : null,
    });
  }
  if (table && table.recordCount !== out.length) throw new Error(`${parts.label}: the .dbf holds ${table.recordCount} records, the .shp ${out.length} shapes`);
  return out;
}
