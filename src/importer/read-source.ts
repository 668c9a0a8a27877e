// Reads one manifest source into features (spatial formats) or rows (CSV), whatever its format.
import fs from 'node:fs';
import path from 'node:path';
import type { ManifestSource } from './manifest.ts';
import type { SourceFeature } from './readers/features.ts';
import { readGeoJson } from './readers/geojson.ts';
import { readTopoJson } from './readers/topojson.ts';
import { readShapefile } from './readers/shapefile.ts';
import { countPhysicalLines, readCsvRows, type CsvRow } from './readers/csv.ts';
import { parseOzfsParcels, parseOzfsZoning, type OzfsParcel } from './readers/ozfs.ts';

export type SourceData =
  | { kind: 'features'; features: SourceFeature[] }
  | { kind: 'rows'; rows: CsvRow[]; physicalLines?: number }
  | { kind: 'ozfs-parcels'; parcels: OzfsParcel[]; featuresRead: number; strayFeatures: number };

export async function readSource(placeRoot: string, s: ManifestSource): Promise<SourceData> {
  const file = path.join(placeRoot, s.file);
  switch (s.format) {
    case 'geojson':
      return { kind: 'features', features: readGeoJson(file, s.gzip) };
    case 'topojson':
      return { kind: 'features', features: readTopoJson(file, s.object) };
    case 'shapefile':
      return { kind: 'features', features: await readShapefile(file, path.join(placeRoot, s.dbf.file), path.join(placeRoot, s.prj.file), s.encoding) };
    case 'csv': {
      const text = new TextDecoder(s.encoding).decode(fs.readFileSync(file));
      const rows = [...readCsvRows(text, { header: s.csv.header, columns: s.csv.columns, delimiter: s.csv.delimiter, file: s.file })];
      return { kind: 'rows', rows, physicalLines: countPhysicalLines(text) };
    }
    case 'ozfs-zoning':
      return { kind: 'features', features: parseOzfsZoning(fs.readFileSync(file, 'utf8'), file).features };
    case 'ozfs-parcel': {
      const r = parseOzfsParcels(fs.readFileSync(file, 'utf8'), file);
      return { kind: 'ozfs-parcels', parcels: r.parcels, featuresRead: r.featuresRead, strayFeatures: r.strayFeatures };
    }
  }
}
