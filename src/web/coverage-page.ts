// GET /coverage (public): every place in the catalogue with its coverage status, why it is not live,
// when it was imported and the vintage of each data layer. Old data says so.
import { formatChangeLog, listVintages, type VintageRecord } from '../importer/update-place.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { jsonReply, errorReply } from '../http/reply.ts';
import { htmlPage } from '../http/page.ts';
import { listPlaces, type PlaceRecord } from '../places/catalogue.ts';
import { isValueStatus } from '../core/statuses.ts';
import { valueWords } from '../core/value-words.ts';
import { html, type Html } from '../http/html.ts';
import { page, PAGE_HEADERS } from '../http/page.ts';
import { currentAccount } from './web-session.ts';
import { statusBadge } from './status-badge.ts';
import { placeStatusWords } from '../core/status-words.ts';
import { loadPlaceAudits } from '../importer/audit-place.ts';
import type { PlaceAudit } from '../importer/audit-report.ts';
import { auditSection } from './audit-section.ts';
import { cityInventory } from '../snapshot/city-inventory.ts';
import { SitelineError } from '../core/errors.ts';
import type { Citation } from '../core/snapshot-types.ts';
import type { ValueStatus } from '../core/statuses.ts';
import { loadPlaceRules } from '../rules/load-rules.ts';
import { districtView, type DistrictRulesView, type RuleValueView } from '../rules/district-view.ts';

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
<h2 id="h-${p.slug}"><a href="/coverage/${p.slug}">${p.name}, ${p.region}</a> <small class="muted">(${p.country === 'US' ? 'United States' : 'Canada'})</small></h2>
<p>Status: ${statusBadge(p.status)} <span class="status-code muted">${p.status}</span></p>
<p>${placeStatusWords(p.status, p.statusReason).why}</p>
<p class="muted">${p.importedAt ? html`Data imported ${p.importedAt.slice(0, 10)}.` : 'Not imported on this server yet.'}</p>
<div class="table-scroll"><table><caption class="muted" style="text-align:left">Data layers and their vintages</caption>
<thead><tr><th scope="col">Layer</th><th scope="col">Vintage</th><th scope="col">Licence</th></tr></thead><tbody>
${layers.map((l) => html`<tr><td>${layerLabel(l.layer)}<br><small class="muted">${l.name}</small></td><td>${l.vintage}${oldDataNote(l.vintage, now, l.layer)}</td><td>${l.licence}</td></tr>`)}
</tbody></table></div>
${auditSection(p, audit)}
</section>`;
}

export function registerCoveragePage(app: HttpApp, ctx: AppContext): void {
  app.pages.get('/coverage', async (c) => {
    const account = await currentAccount(ctx, c);
    const places = await listPlaces(ctx);
    const audits = await loadPlaceAudits(ctx.db);
    const now = ctx.clock.now();
    const live = places.filter((p) => p.status === 'live').length;
    const body = html`<p>siteline answers addresses in <strong>${live}</strong> of the ${places.length} places it catalogues. A place that is not live may still have
zoning districts loaded (its district inventory is queryable by agents), but a street address there cannot be answered yet.
Anywhere else in the US and Canada is not covered: siteline says so rather than guessing.</p>
<div class="cards">${places.map((p) => placeSection(p, now, audits.get(p.geoDivisionId)))}</div>`;
    return htmlPage(c, 200, page('Coverage', body, { signedInAs: account?.email ?? null, wide: true, current: 'coverage' }), PAGE_HEADERS);
  });
  // Every import of a place kept as a dated vintage, newest first, each with its change log (data update).
  app.pages.get('/coverage/:slug/changes.json', async (c) => {
    const place = (await listPlaces(ctx)).find((p) => p.slug === c.req.param('slug'));
    if (!place) return errorReply(c, 404, 'not_found', 'No such place.');
    const { listVintages } = await import('../importer/update-place.ts');
    return jsonReply(c, 200, { slug: place.slug, geoDivisionId: place.geoDivisionId, vintages: await listVintages(ctx, place.geoDivisionId) }, { 'cache-control': 'no-cache' });
  });
  // The stored accuracy audit of a place, as `siteline data audit --json` prints it (public, like the page).
  app.pages.get('/coverage/:slug/audit.json', async (c) => {
    const place = (await listPlaces(ctx)).find((p) => p.slug === c.req.param('slug'));
    const audit = place ? (await loadPlaceAudits(ctx.db)).get(place.geoDivisionId) : undefined;
    if (!audit) return errorReply(c, 404, 'not_found', place ? `No accuracy audit of ${place.slug} is stored yet: it is made after each import, or by \`siteline data audit ${place.slug}\`.` : 'No such place.');
    return jsonReply(c, 200, audit, { 'cache-control': 'no-cache' });
  });
}

// ---------------------------------------------------------------------------------------------
// GET /coverage/<place> (public): one place's coverage and its rules, district by district, every
// value with its status and, when cited, the bylaw's words with a link to check them in the text the
// service holds. A place with many districts lists them; ?district=CODE shows one in full.

const FEW_DISTRICTS = 10;

function valueText(v: RuleValueView): string {
  if (v.value !== null) return `${v.value}${v.unit === 'ft' ? ' ft' : v.unit === 'percent' ? '%' : v.unit === 'sqft' ? ' sq ft' : v.unit === 'ratio' || v.unit === 'score' || !v.unit ? '' : ` ${v.unit}`}`;
  if (v.tiers) return v.tiers.map((t) => `${t.when.join(' and ') || 'always'}: ${t.values.join(' or ')}${v.unit === 'ft' ? ' ft' : v.unit === 'percent' ? '%' : ''}`).join('; ');
  if (isValueStatus(v.status)) return valueWords({ value: null, status: v.status, ...(v.statedNoLimit ? { statedNoLimit: v.statedNoLimit } : {}) }).says;
  return 'Unknown';
}

function citationLine(c: Citation | undefined): Html {
  if (!c) return html``;
  return html`<blockquote class="quote"><q>${c.quote}</q><br><small>${c.documentTitle}, § ${c.section} (edition ${c.date}) · <a href="${c.href}">check it in the text siteline holds</a></small></blockquote>`;
}

function valuesTable(values: RuleValueView[]): Html {
  if (!values.length) return html`<p class="muted">No value stated.</p>`;
  return html`<div class="table-scroll"><table><thead><tr><th scope="col">Standard</th><th scope="col">Value</th><th scope="col">Status</th><th scope="col">Source</th></tr></thead><tbody>
${values.map((v) => html`<tr><td>${v.standard}</td><td>${valueText(v)}${v.condition ? html`<br><small class="muted">${v.condition}</small>` : ''}</td><td>${statusBadge(v.status as ValueStatus)}</td><td>${v.citation ? citationLine(v.citation) : html`<small class="muted">${v.note ?? ''}</small>`}</td></tr>`)}
</tbody></table></div>`;
}

function districtSection(d: DistrictRulesView): Html {
  return html`<section class="card" id="district-${d.code}" aria-labelledby="hd-${d.code}">
<h2 id="hd-${d.code}">${d.code} · ${d.name}</h2>
${d.note ? html`<p>${d.note}</p>` : ''}
<p class="muted">${d.citedValues} cited values, each verified against the held text.</p>
${d.standards.length ? valuesTable(d.standards) : ''}
${d.buildingTypes.map((t) => html`<h3>${t.name} <small class="muted">§ ${t.section}${t.allowed ? `, allowed ${t.allowed}` : ''}</small></h3>
${valuesTable(t.standards)}
${t.notExtracted.length ? html`<p class="muted">Not extracted: ${t.notExtracted.map((n) => `${n.standard} (${n.reason})`).join('; ')}</p>` : ''}`)}
${d.uses.length ? html`<h3>Uses</h3><ul>${d.uses.map((u) => html`<li>${u.use}: ${u.permission.replace(/_/g, ' ')} ${statusBadge(u.status as ValueStatus)}${citationLine(u.citation)}</li>`)}</ul>` : ''}
</section>`;
}

/** The change log per import (place_vintages): what each republished file changed, newest first. */
function changesSection(slug: string, vintages: VintageRecord[]): Html {
  if (!vintages.length) return html``;
  return html`<h2 id="changes">Changes by import</h2>
<p class="muted">Each import is kept as a dated vintage. <a href="/coverage/${slug}/changes.json">The change log as JSON</a>.</p>
<ol class="changes">${vintages.map(
    (v) => html`<li><strong>${v.importedAt.slice(0, 10)}</strong>: ${v.layers.map((l, i) => html`${i ? '; ' : ''}${l.name} (${l.file}) vintage ${l.vintage}`)}
${v.changes ? html`<ul>${formatChangeLog(v.changes).map((line) => html`<li>${line.trim()}</li>`)}</ul>` : html`<br><small class="muted">The first import recorded (or one made by data import): no change log.</small>`}</li>`,
  )}</ol>`;
}

export function registerCoveragePlacePage(app: HttpApp, ctx: AppContext): void {
  app.pages.get('/coverage/:slug', async (c) => {
    const account = await currentAccount(ctx, c);
    const signedInAs = account?.email ?? null;
    const place = (await listPlaces(ctx)).find((p) => p.slug === c.req.param('slug'));
    if (!place) return htmlPage(c, 404, page('Not found', html`<p>No such place. <a href="/coverage">What siteline covers</a></p>`, { signedInAs }), PAGE_HEADERS);
    const want = new URL(c.req.url).searchParams.get('district');
    let inv;
    try {
      inv = await cityInventory(ctx, { kind: 'id', geoDivisionId: place.geoDivisionId, ...(want ? { district: want } : {}) });
    } catch (err) {
      if (err instanceof SitelineError && err.code === 'bad_input') return htmlPage(c, 404, page('Not found', html`<p>${err.message}</p>`, { signedInAs }), PAGE_HEADERS);
      throw err;
    }
    if (inv.kind !== 'inventory') return htmlPage(c, 404, page('Not found', html`<p>No such place.</p>`, { signedInAs }), PAGE_HEADERS);
    const rules = await loadPlaceRules(ctx, place.slug).catch((err: Error) => {
      ctx.logger.warn({ place: place.slug, err: err.message }, 'coverage page: rules do not load');
      return null;
    });
    const codes = rules ? Object.keys(rules.districts) : [];
    const shown: DistrictRulesView[] = inv.rules.district
      ? [inv.rules.district]
      : rules && codes.length <= FEW_DISTRICTS
        ? codes.map((c) => districtView(rules, c, rules.districts[c]!))
        : [];
    const docs = inv.rules.documents;
    const body = html`<p>Status: ${statusBadge(place.status)} <span class="status-code muted">${place.status}</span></p>
<p>${placeStatusWords(place.status, place.statusReason).why}</p>
<h2>Rules</h2>
<p>${inv.rules.bylaw ? html`${inv.rules.bylaw.name} (${inv.rules.bylaw.date}).` : 'No rules file.'} <strong>${inv.rules.citedValues}</strong> values are cited, each from words found by machine in a document siteline holds.</p>
${docs.length ? html`<ul>${docs.map((d) => html`<li><a href="${d.href}">${d.title}</a>, edition ${d.edition}, retrieved ${d.retrieved} (${d.licence})</li>`)}</ul>` : html`<p class="muted">This place holds no document to cite from: its values are indicative or not extracted.</p>`}
${rules && !shown.length ? html`<p>Districts: ${codes.map((c, i) => html`${i ? ', ' : ''}<a href="?district=${encodeURIComponent(c)}">${c}</a>`)}</p>` : ''}
${inv.rules.district ? html`<p><a href="/coverage/${place.slug}">All districts</a></p>` : ''}
<div class="cards">${shown.map(districtSection)}</div>
${changesSection(place.slug, await listVintages(ctx, place.geoDivisionId))}`;
    return htmlPage(c, 200, page(`${place.name}, ${place.region}`, body, { signedInAs, wide: true, current: 'coverage' }), PAGE_HEADERS);
  });
}
