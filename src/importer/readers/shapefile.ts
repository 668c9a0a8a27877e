// ESRI Shapefile (.shp + .dbf + .prj): features reprojected to WGS 84 lon/lat with proj4 from the
// .prj's WKT (Saanich is EPSG:3157, UTM 10N metres). The DBF encoding comes from the manifest.
import fs from 'node:fs';
import proj4 from 'proj4';
import { open } from 'shapefile';
import type { SourceFeature } from './features.ts';

type Xy = (p: [number, number]) => [number, number];

/** A lon/lat projector from a .prj WKT; identity when the WKT is already geographic WGS 84 / NAD83. */
export function projectorFromPrj(wkt: string, where: string): Xy {
  const text = wkt.trim();
  if (/^GEOGCS\[/i.test(text)) return (p) => p;
  let conv: { forward(p: number[]): number[] };
  try {
    conv = proj4(text, 'EPSG:4326');
  } catch (err) {
    throw new Error(`${where}: cannot read the projection (${(err as Error).message})`);
  }
  return (p) => conv.forward(p) as [number, number];
}

function reprojectCoords(c: unknown, xy: Xy): unknown {
  if (!Array.isArray(c)) return c;
  if (typeof c[0] === 'number') return xy([c[0] as number, c[1] as number]);
  return c.map((k) => reprojectCoords(k, xy));
}

export async function readShapefile(shpFile: string, dbfFile: string, prjFile: string, encoding: string): Promise<SourceFeature[]> {
  const xy = projectorFromPrj(fs.readFileSync(prjFile, 'utf8'), prjFile);
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
