// The MapLibre style every siteline map uses: siteline's own vector tiles over a plain background,
// with an optional raster basemap underneath (SITELINE_BASEMAP_URL). No glyphs or sprites: maps carry
// no text labels (the page says in words what the map shows), so nothing is fetched from elsewhere.
import type { FeatureCollection } from 'geojson';
import { CATEGORY_STYLE, ZONE_CATEGORIES } from './zone-category.ts';
import { MAX_TILE_ZOOM } from './tile-math.ts';

/** Tile URL template, relative: the map script makes it absolute against the page's own origin. */
export const TILE_PATH_TEMPLATE = '/tiles/{z}/{x}/{y}.pbf';

/** Outline and fill of highlighted lots, by role (the snapshot's lot is `lot`; a project's lots `build` / `context`). */
export const LOT_ROLE_STYLE: Record<string, { label: string; line: string; fill: string }> = {
  lot: { label: 'The lot', line: '#0b3d91', fill: '#1a73e8' },
  build: { label: 'Build lot', line: '#0b3d91', fill: '#1a73e8' },
  context: { label: 'Context lot', line: '#00695c', fill: '#26a69a' },
};

/** The style, with the highlighted lots (a GeoJSON FeatureCollection whose features carry `role`) on top. */
export function mapStyle(opts: { basemapUrl?: string | undefined; lots?: FeatureCollection }): Record<string, unknown> {
  const categoryColour = ['match', ['get', 'category'], ...ZONE_CATEGORIES.flatMap((c) => [c, CATEGORY_STYLE[c].colour]), CATEGORY_STYLE.other.colour];
  const sources: Record<string, unknown> = {
    siteline: {
      type: 'vector',
      tiles: [TILE_PATH_TEMPLATE],
      minzoom: 0,
      maxzoom: MAX_TILE_ZOOM,
      attribution: 'City open data (sources on the page)',
    },
  };
  const layers: Record<string, unknown>[] = [{ id: 'background', type: 'background', paint: { 'background-color': '#f5f4f0' } }];
  if (opts.basemapUrl) {
    sources.basemap = { type: 'raster', tiles: [opts.basemapUrl], tileSize: 256 };
    layers.push({ id: 'basemap', type: 'raster', source: 'basemap' });
  }
  const fillOpacity = opts.basemapUrl ? 0.3 : 0.45;
  layers.push(
    { id: 'zoning-fill', type: 'fill', source: 'siteline', 'source-layer': 'zoning', paint: { 'fill-color': categoryColour, 'fill-opacity': fillOpacity } },
    { id: 'zoning-line', type: 'line', source: 'siteline', 'source-layer': 'zoning', paint: { 'line-color': '#6b6b6b', 'line-width': 1 } },
    { id: 'parcels-line', type: 'line', source: 'siteline', 'source-layer': 'parcels', minzoom: 14, paint: { 'line-color': '#8a8a8a', 'line-width': 0.6 } },
    { id: 'streets-line', type: 'line', source: 'siteline', 'source-layer': 'streets', minzoom: 14, paint: { 'line-color': '#ffffff', 'line-width': 3 } },
    {
      id: 'overlays-line',
      type: 'line',
      source: 'siteline',
      'source-layer': 'overlays',
      paint: { 'line-color': '#6a1b9a', 'line-width': 2, 'line-dasharray': [2, 1] },
    },
    {
      id: 'boundary-line',
      type: 'line',
      source: 'siteline',
      'source-layer': 'boundary',
      paint: { 'line-color': '#222222', 'line-width': 2, 'line-dasharray': [4, 2] },
    },
  );
  if (opts.lots) {
    sources.lots = { type: 'geojson', data: opts.lots };
    const byRole = (key: 'line' | 'fill') => [
      'match',
      ['get', 'role'],
      ...Object.entries(LOT_ROLE_STYLE).flatMap(([r, st]) => [r, st[key]]),
      LOT_ROLE_STYLE.lot![key],
    ];
    layers.push(
      { id: 'lots-fill', type: 'fill', source: 'lots', paint: { 'fill-color': byRole('fill'), 'fill-opacity': 0.35 } },
      { id: 'lots-line', type: 'line', source: 'lots', paint: { 'line-color': byRole('line'), 'line-width': 3 } },
    );
  }
  return { version: 8, name: 'siteline', sources, layers };
}
