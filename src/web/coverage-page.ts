// GET /coverage (public): every place in the catalogue with its coverage status, why it is not live,
// when it was imported and the vintage of each data layer. Old data says so.
import type { AppContext } from '../context.ts';
import type { Router } from '../http/router.ts';
import { sendError, sendHtml, sendJson } from '../http/respond.ts';
import { listPlaces, type PlaceRecord } from '../places/catalogue.ts';
import { STATUS_MEANINGS } from '../core/statuses.ts';
import { html, type Html } from './html.ts';
import { page, PAGE_HEADERS } from './page.ts';
import { currentAccount } from './web-session.ts';
import { statusBadge } from './status-badge.ts';
import { loadPlaceAudits, type PlaceAudit } from '../importer/audit-place.ts';
import { auditSection } from './audit-section.ts';

/** Data older than this many years is flagged as old wherever its vintage is shown. */
export const OLD_DATA_YEARS = 5;

const LAYER_LABELS: Record<string, string> = {
  boundary: 'City boundary',
  zoning: 'Zoning districts',
  zoning_overlay: 'Zoning overlays',
  zone_names: 'District names',
  parcels: 'Parcels (lots)',
  parcel_attributes: 'Parcel attributes',
  addresses: 'Address points',
  street_centrelines: 'Street centrelines',
};
export const layerLabel = (layer: string): string => LAYER_LABELS[layer] ?? layer.replace(/_/g, ' ');

/** "old data: 12 years" when the vintage's year is OLD_DATA_YEARS or more before now; else empty. A city boundary rarely moves: never flagged. */
export function oldDataNote(vintage: string, now: Date, layer?: string): Html {
  if (layer === 'boundary') return html``;
  const year = /(19|20)\d\d/.exec(vintage)?.[0];
  if (!year) return html``;
  const age = now.getUTCFullYear() - Number(year);
  return age >= OLD_DATA_YEARS ? html` <span class="badge badge-indicative">old data: ${age} years</span>` : html``;
}

const LAYER_ORDER = Object.keys(LAYER_LABELS);

function placeSection(p: PlaceRecord, now: Date, audit: PlaceAudit | undefined): Html {
  const layers = [...p.layers].sort((a, b) => LAYER_ORDER.indexOf(a.layer) - LAYER_ORDER.indexOf(b.layer));
  return html`<section class="card place" id="place-${p.slug}" aria-labelledby="h-${p.slug}">
<h2 id="h-${p.slug}">${p.name}, ${p.region} <small class="muted">(${p.country === 'US' ? 'United States' : 'Canada'})</small></h2>
<p>Status: ${statusBadge(p.status)} <span class="status-code muted">${p.status}</span></p>
<p>${p.statusReason ?? STATUS_MEANINGS[p.status].meaning}</p>
<p class="muted">${p.importedAt ? html`Data imported ${p.importedAt.slice(0, 10)}.` : 'Not imported on this server yet.'}</p>
<div class="table-scroll"><table><caption class="muted" style="text-align:left">Data layers and their vintages</caption>
<thead><tr><th scope="col">Layer</th><th scope="col">Vintage</th><th scope="col">Licence</th></tr></thead><tbody>
${layers.map((l) => html`<tr><td>${layerLabel(l.layer)}<br><small class="muted">${l.name}</small></td><td>${l.vintage}${oldDataNote(l.vintage, now, l.layer)}</td><td>${l.licence}</td></tr>`)}
</tbody></table></div>
${auditSection(p, audit)}
</section>`;
}

export function registerCoveragePage(router: Router, ctx: AppContext): void {
  router.get('/coverage', async (req, res) => {
    const account = await currentAccount(ctx, req);
    const places = await listPlaces(ctx);
    const audits = await loadPlaceAudits(ctx.db);
    const now = ctx.clock.now();
    const live = places.filter((p) => p.status === 'live').length;
    const body = html`<p>siteline answers addresses in <strong>${live}</strong> of the ${places.length} places it catalogues. A place that is not live may still have
zoning districts loaded (its district inventory is queryable by agents), but a street address there cannot be answered yet.
Anywhere else in the US and Canada is not covered: siteline says so rather than guessing.</p>
<div class="cards">${places.map((p) => placeSection(p, now, audits.get(p.geoDivisionId)))}</div>`;
    sendHtml(res, 200, page('Coverage', body, { signedInAs: account?.email ?? null, wide: true, current: 'coverage' }), PAGE_HEADERS);
  });
  // The stored accuracy audit of a place, as `siteline data audit --json` prints it (public, like the page).
  router.get('/coverage/:slug/audit.json', async (req, res, params) => {
    const place = (await listPlaces(ctx)).find((p) => p.slug === params['slug']);
    const audit = place ? (await loadPlaceAudits(ctx.db)).get(place.geoDivisionId) : undefined;
    if (!audit) return sendError(req, res, 404, 'not_found', place ? `No accuracy audit of ${place.slug} is stored yet: it is made after each import, or by \`siteline data audit ${place.slug}\`.` : 'No such place.');
    sendJson(res, 200, audit, { 'cache-control': 'no-cache' });
  });
}
