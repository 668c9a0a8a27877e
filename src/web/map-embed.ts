// A map on a page: the element the map script draws into (with its style and frame as JSON), a text
// legend, and the <head> lines that load MapLibre and the map script from this origin. Any page can
// embed one: the snapshot page for one lot, a project page for its build and context lots.
import type { AppContext } from '../context.ts';
import type { BBox } from '../core/geo/primitives.ts';
import type { FeatureCollection } from 'geojson';
import type { MapView } from '../maps/map-view.ts';
import { mapStyle, LOT_ROLE_STYLE } from '../maps/style.ts';
import { CATEGORY_STYLE, ZONE_CATEGORIES, type ZoneCategory } from '../maps/zone-category.ts';
import { html, type Html } from '../http/html.ts';

export const MAPLIBRE_VERSION = '6.17.0';

/** <head> lines for a page with a map (send it with mapPageHeaders). */
export const MAP_HEAD: Html = html`<link rel="stylesheet" href="/assets/maplibre-gl/maplibre-gl.css?v=${MAPLIBRE_VERSION}">
<script type="module" src="/assets/site-map.js?v=${MAPLIBRE_VERSION}"></script>`;

export interface MapFigureOptions {
  /** What the map shows, in words (the map's accessible name). */
  label: string;
  /** Shown when there is nothing to frame. */
  fallback?: BBox;
  /** Only these categories in the legend (default: all). */
  categories?: ZoneCategory[];
  units?: 'imperial' | 'metric';
  id?: string;
  /** Lots drawn thin under the highlighted ones, each clickable to pick it (the snapshot page's weak match; assets/site-map.js). */
  pickable?: FeatureCollection;
}

/** Outline and fill of the lots a person may pick instead (drawn under the highlighted lot). */
export const PICKABLE_LOT_STYLE = { line: '#5f6368', fill: '#9aa0a6' };

/** The style with the pickable lots as their own source and layers, under the highlighted lots. */
function withPickable(style: Record<string, unknown>, pickable: FeatureCollection): Record<string, unknown> {
  const sources = style.sources as Record<string, unknown>;
  const layers = style.layers as Record<string, unknown>[];
  sources['pickable'] = { type: 'geojson', data: pickable };
  const at = layers.findIndex((l) => l.id === 'lots-fill');
  layers.splice(
    at < 0 ? layers.length : at,
    0,
    { id: 'pickable-fill', type: 'fill', source: 'pickable', paint: { 'fill-color': PICKABLE_LOT_STYLE.fill, 'fill-opacity': 0.15 } },
    { id: 'pickable-line', type: 'line', source: 'pickable', paint: { 'line-color': PICKABLE_LOT_STYLE.line, 'line-width': 1 } },
  );
  return style;
}

export function mapLegend(view: MapView, categories: readonly ZoneCategory[] = ZONE_CATEGORIES): Html {
  const roles = [...new Set(view.lots.features.map((f) => String(f.properties?.role ?? 'lot')))];
  return html`<ul class="map-legend" aria-label="Map legend">
${roles.map((r) => {
  const st = LOT_ROLE_STYLE[r] ?? LOT_ROLE_STYLE.lot!;
  return html`<li><span class="swatch" style="background:${st.fill};border-color:${st.line};border-width:3px"></span>${st.label}</li>`;
})}
${categories.map((c) => html`<li><span class="swatch" style="background:${CATEGORY_STYLE[c].colour}"></span>${CATEGORY_STYLE[c].label}</li>`)}
<li><span class="swatch swatch-line" style="background:#6a1b9a"></span>Overlay district (dashed)</li>
<li><span class="swatch swatch-line" style="background:#222"></span>City boundary (dashed)</li>
</ul>`;
}

/** The map element; it needs MAP_HEAD in the page's head and mapPageHeaders on the response. */
export function mapFigure(ctx: AppContext, view: MapView, opts: MapFigureOptions): Html {
  const bounds = view.bounds ?? opts.fallback ?? null;
  if (!bounds) return html``;
  // A single point (or a tiny lot) still gets a frame a person can read.
  const pad = 0.0004;
  const frame: BBox = [bounds[0] - pad, bounds[1] - pad, bounds[2] + pad, bounds[3] + pad];
  const style = mapStyle({ basemapUrl: ctx.config.basemapUrl, lots: view.lots });
  const data = JSON.stringify({ style: opts.pickable ? withPickable(style, opts.pickable) : style, bounds: frame, units: opts.units ?? 'imperial' });
  return html`<div class="map" id="${opts.id ?? 'map'}" role="region" aria-label="${opts.label}" data-map-view="${data}"${opts.pickable ? html` data-lot-pick="lot-pick-form"` : ''}></div>
<noscript><p class="muted">The map needs JavaScript; everything it shows is also written on this page.</p></noscript>`;
}
