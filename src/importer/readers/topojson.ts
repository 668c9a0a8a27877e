// TopoJSON: one named object decoded (arcs and quantization) to GeoJSON features with topojson-client.
import fs from 'node:fs';
import { feature } from 'topojson-client';
import type { Topology, GeometryObject } from 'topojson-specification';
import type { SourceFeature } from './features.ts';
import { jsonProblem, toLonLat } from './geojson.ts';

function parseTopoJson(text: string, objectName: string, where: string, crs?: string): SourceFeature[] {
  return toLonLat(decodeTopoJson(text, objectName, where), crs, where);
}

/** The object's names in a Topology. */
export function topoJsonObjects(text: string, where: string): string[] {
  let topo: Topology;
  try {
    topo = JSON.parse(text) as Topology;
  } catch (err) {
    throw new Error(jsonProblem(text, where, err as Error));
  }
  if (topo.type !== 'Topology' || !topo.objects) throw new Error(`${where}: not a TopoJSON Topology`);
  return Object.keys(topo.objects);
}

/** One object's features as the file holds them (coordinates not reprojected). */
export function decodeTopoJson(text: string, objectName: string, where: string): SourceFeature[] {
  let topo: Topology;
  try {
    topo = JSON.parse(text) as Topology;
  } catch (err) {
    throw new Error(jsonProblem(text, where, err as Error));
  }
  if (topo.type !== 'Topology' || !topo.objects) throw new Error(`${where}: not a TopoJSON Topology`);
  const obj = topo.objects[objectName] as GeometryObject | undefined;
  if (!obj) throw new Error(`${where}: no object "${objectName}" (has ${Object.keys(topo.objects).join(', ')})`);
  const decoded = feature(topo, obj) as unknown as
    | { type: 'FeatureCollection'; features: { properties: Record<string, unknown> | null; geometry: SourceFeature['geometry']; id?: unknown }[] }
    | { type: 'Feature'; properties: Record<string, unknown> | null; geometry: SourceFeature['geometry']; id?: unknown };
  const list = decoded.type === 'FeatureCollection' ? decoded.features : [decoded];
  return list.map((f, index) => ({
    index,
    properties: { ...(f.properties ?? {}), ...(f.id !== undefined ? { __id: f.id } : {}) },
    geometry: f.geometry ?? null,
  }));
}

export function readTopoJson(file: string, objectName: string, crs?: string): SourceFeature[] {
  return parseTopoJson(fs.readFileSync(file, 'utf8'), objectName, file, crs);
}
