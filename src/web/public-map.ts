// The public map of listed projects (no sign-in): GET /map draws a pin per listed project over
// siteline's own tiles and writes the same listings out as a table; GET /api/public/listings serves
// them as JSON. Both show exactly the spec's fields — name, zone category, typology, lifecycle status
// — and the pin (the build lot's centroid); never an owner, address, external reference or id.
import { currentAccount } from './web-session.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { jsonReply } from '../http/reply.ts';
import { htmlPage } from '../http/page.ts';
import { publicListings, type PublicListing } from '../projects/map-listing.ts';
import { typologyWords } from '../projects/project-fields.ts';
import { mapStyle } from '../maps/style.ts';
import { CATEGORY_STYLE, ZONE_CATEGORIES } from '../maps/zone-category.ts';
import { MAP_HEAD } from './map-embed.ts';
import { html } from '../http/html.ts';
import { page, mapPageHeaders } from '../http/page.ts';
import { lifecycleWords } from './project-editor.ts';

export const PUBLIC_LISTINGS_PATH = '/api/public/listings';
/** The pin colour (also what the browser test looks for on the canvas). */
export const PIN_COLOUR = '#d93025';
/** Shown when nothing is listed: the continental US and southern Canada. */
const EMPTY_FRAME: [number, number, number, number] = [-125, 24, -66, 50];

function listingsGeoJson(list: PublicListing[]) {
  return {
    type: 'FeatureCollection' as const,
    features: list.map((l) => ({
      type: 'Feature' as const,
      geometry: { type: 'Point' as const, coordinates: [l.pin.lng, l.pin.lat] },
      properties: { name: l.name, zoneCategory: l.zoneCategory, typology: l.typology, lifecycleStatus: l.lifecycleStatus },
    })),
  };
}

export function registerPublicMap(app: HttpApp, ctx: AppContext): void {
  app.pages.get(PUBLIC_LISTINGS_PATH, async (c) => {
    const listings = await publicListings(ctx.db);
    return jsonReply(c, 200, { listings, count: listings.length }, { 'cache-control': 'no-store', 'access-control-allow-origin': '*' });
  });

  app.pages.get('/map', async (c) => {
    const account = await currentAccount(ctx, c);
    const list = await publicListings(ctx.db);
    const style = mapStyle({ basemapUrl: ctx.config.basemapUrl }) as { sources: Record<string, unknown>; layers: Record<string, unknown>[] };
    style.sources['listings'] = { type: 'geojson', data: listingsGeoJson(list) };
    style.layers.push({
      id: 'listings-pin',
      type: 'circle',
      source: 'listings',
      paint: { 'circle-radius': 7, 'circle-color': PIN_COLOUR, 'circle-stroke-color': '#ffffff', 'circle-stroke-width': 2 },
    });
    let bounds = EMPTY_FRAME;
    if (list.length) {
      const lngs = list.map((l) => l.pin.lng);
      const lats = list.map((l) => l.pin.lat);
      const pad = 0.002;
      bounds = [Math.min(...lngs) - pad, Math.min(...lats) - pad, Math.max(...lngs) + pad, Math.max(...lats) + pad];
    }
    const data = JSON.stringify({ style, bounds, units: 'imperial', maxZoom: 16 });
    const used = [...new Set(list.map((l) => l.zoneCategory))];
    const body = html`<p>Projects their owners chose to make public. Each pin is the centre of the project's build lot; the map shows only the project's name, zone category, typology and lifecycle status.</p>
<div class="map" id="map" role="region" aria-label="Map of ${String(list.length)} listed projects" data-map-view="${data}"></div>
<noscript><p class="muted">The map needs JavaScript; every listed project is also in the table below.</p></noscript>
<ul class="map-legend" aria-label="Map legend"><li><span class="swatch" style="background:${PIN_COLOUR}"></span>A listed project (build-lot centre)</li>
${ZONE_CATEGORIES.filter((c) => used.includes(c)).map((c) => html`<li><span class="swatch" style="background:${CATEGORY_STYLE[c].colour}"></span>${CATEGORY_STYLE[c].label}</li>`)}</ul>
${
  list.length
    ? html`<div class="table-scroll"><table><caption>Listed projects (${String(list.length)})</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Zone category</th><th scope="col">Typology</th><th scope="col">Lifecycle status</th><th scope="col">Pin (lat, lng)</th></tr></thead>
<tbody>${list.map((l) => html`<tr><td>${l.name}</td><td>${CATEGORY_STYLE[l.zoneCategory]?.label ?? l.zoneCategory}</td><td>${typologyWords(l.typology)}</td><td>${lifecycleWords(l.lifecycleStatus)}</td><td>${String(l.pin.lat)}, ${String(l.pin.lng)}</td></tr>`)}</tbody></table></div>`
    : html`<p>No project is listed yet.</p>`
}
<p class="muted">The same list as JSON: <a href="${PUBLIC_LISTINGS_PATH}">${PUBLIC_LISTINGS_PATH}</a>.</p>`;
    return htmlPage(
      c,
      200,
      page('Projects on the map', body, { wide: true, head: MAP_HEAD, signedInAs: account?.email ?? null, current: 'map' }),
      mapPageHeaders(ctx.config),
    );
  });
}
