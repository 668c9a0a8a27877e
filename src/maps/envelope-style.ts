// The style of the 3D envelope view: siteline's own tiles and the lot outline on the ground (the same
// style every siteline map uses, never with a basemap: nothing is fetched from elsewhere), plus the
// buildable footprint as a GeoJSON source extruded to the maximum height (MapLibre wants metres).
import type { FeatureCollection, MultiPolygon } from 'geojson';
import { mapStyle } from './style.ts';

/** The ids a page script or a test reads back from the map. */
export const ENVELOPE_SOURCE_ID = 'envelope';
export const ENVELOPE_LAYER_ID = 'envelope-extrusion';
export const ENVELOPE_COLOUR = '#e0892b';

export function envelopeStyle(opts: { lots: FeatureCollection; footprint: MultiPolygon; heightM: number }): Record<string, unknown> {
  const style = mapStyle({ lots: opts.lots }) as { sources: Record<string, unknown>; layers: Record<string, unknown>[] };
  style.sources[ENVELOPE_SOURCE_ID] = {
    type: 'geojson',
    data: { type: 'FeatureCollection', features: [{ type: 'Feature', properties: { heightM: opts.heightM }, geometry: opts.footprint }] },
  };
  style.layers.push({
    id: ENVELOPE_LAYER_ID,
    type: 'fill-extrusion',
    source: ENVELOPE_SOURCE_ID,
    paint: { 'fill-extrusion-color': ENVELOPE_COLOUR, 'fill-extrusion-height': opts.heightM, 'fill-extrusion-base': 0, 'fill-extrusion-opacity': 0.75 },
  });
  return style;
}
