// ESRI Shapefile (.shp + .dbf + .prj): features reprojected to WGS 84 lon/lat with proj4 from the
// .prj's WKT (Saanich is EPSG:3157, UTM 10N metres). The DBF encoding comes from the manifest.
import fs from 'node:fs';
import { open } from 'shapefile';
import type { SourceFeature } from './features.ts';
import { projectorFor, reprojectCoords } from './crs.ts';

export async function readShapefile(shpFile: string, dbfFile: string, prjFile: string, encoding: string): Promise<SourceFeature[]> {
  const xy = projectorFor(fs.readFileSync(prjFile, 'utf8').trim(), prjFile);
  const src = await open(fs.readFileSync(shpFile), fs.readFileSync(dbfFile), { encoding });
  const out: SourceFeature[] = [];
  for (let index = 0; ; index++) {
    const r = await src.read();
    if (r.done) break;
    const g = r.value.geometry;
    out.push({
      index,
      properties: r.value.properties ?? {},
      geometry: g ? { type: g.type, coordinates: reprojectCoords(g.coordinates, xy) } : null,
    });
  }
  return out;
}
