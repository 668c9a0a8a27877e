// Reads one manifest source into features (spatial formats) or rows (CSV), whatever its format.
import fs from 'node:fs';
import path from 'node:path';
import type { ManifestSource } from '../places/manifest.ts';
import type { SourceFeature } from './readers/features.ts';
import { readGeoJson } from './readers/geojson.ts';
import { readTopoJson } from './readers/topojson.ts';
import { readShapefile, readShapefileParts, shapefilePartsFromZip } from './readers/shapefile.ts';
import { countPhysicalLines, csvTruncation, readCsvRows, type CsvRow } from './readers/csv.ts';
import { projectorFor, type Xy } from './readers/crs.ts';
import { decodeText } from './readers/text-encoding.ts';
import { parseOzfsParcels, parseOzfsZoning, type OzfsParcel } from './readers/ozfs.ts';

export type SourceData =
  | { kind: 'features'; features: SourceFeature[] }
  | { kind: 'rows'; rows: CsvRow[]; physicalLines?: number /** Projects the row's x/y columns to lon/lat (the source's `crs`). */; project?: Xy }
  | { kind: 'ozfs-parcels'; parcels: OzfsParcel[]; featuresRead: number; strayFeatures: number };

export async function readSource(placeRoot: string, s: ManifestSource): Promise<SourceData> {
  const file = path.join(placeRoot, s.file);
  switch (s.format) {
    case 'geojson':
      return { kind: 'features', features: readGeoJson(file, s.gzip, s.crs) };
    case 'topojson':
      return { kind: 'features', features: readTopoJson(file, s.object, s.crs) };
    case 'shapefile':
      return {
        kind: 'features',
        features: await readShapefile(file, path.join(placeRoot, s.dbf.file), path.join(placeRoot, s.prj.file), s.encoding, s.columns),
      };
    case 'shapefile-zip':
      return { kind: 'features', features: await readShapefileParts(shapefilePartsFromZip(file, s.member), s.encoding, s.columns) };
    case 'csv': {
      const text = decodeText(fs.readFileSync(file), s.encoding);
      const rows = [...readCsvRows(text, { header: s.csv.header, columns: s.csv.columns, delimiter: s.csv.delimiter, file: s.file })];
      const cut = csvTruncation(text, rows, s.file);
      if (cut) throw new Error(cut);
      return { kind: 'rows', rows, physicalLines: countPhysicalLines(text), ...(s.crs ? { project: projectorFor(s.crs, s.file) } : {}) };
    }
    case 'ozfs-zoning':
      return { kind: 'features', features: parseOzfsZoning(fs.readFileSync(file, 'utf8'), file).features };
    case 'ozfs-parcel': {
      const r = parseOzfsParcels(fs.readFileSync(file, 'utf8'), file);
      return { kind: 'ozfs-parcels', parcels: r.parcels, featuresRead: r.featuresRead, strayFeatures: r.strayFeatures };
    }
  }
}

/** The column names a source's data has (feature properties or CSV header), for telling renamed columns. */
export function sourceColumns(data: SourceData): string[] {
  if (data.kind === 'rows') return Object.keys(data.rows.find((r) => !r.problem)?.values ?? {});
  if (data.kind === 'features') return [...new Set(data.features.slice(0, 200).flatMap((f) => Object.keys(f.properties)))].filter((k) => k !== '__id');
  return ['parcel_id'];
}
