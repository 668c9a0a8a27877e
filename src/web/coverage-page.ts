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
import { forPeople, valueLabel } from '../core/value-words.ts';
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
<p>Status: ${statusBadge(p.status)}</p>
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
    return jsonReply(
      c,
      200,
      { slug: place.slug, geoDivisionId: place.geoDivisionId, vintages: await listVintages(ctx, place.geoDivisionId) },
      { 'cache-control': 'no-cache' },
    );
  });
  // The stored accuracy audit of a place, as `siteline data audit --json` prints it (public, like the page).
  app.pages.get('/coverage/:slug/audit.json', async (c) => {
    const place = (await listPlaces(ctx)).find((p) => p.slug === c.req.param('slug'));
    const audit = place ? (await loadPlaceAudits(ctx.db)).get(place.geoDivisionId) : undefined;
    if (!audit)
      return errorReply(
        c,
        404,
        'not_found',
        place
          ? `No accuracy audit of ${place.slug} is stored yet: it is made after each import, or by \`siteline data audit ${place.slug}\`.`
          : 'No such place.',
      );
    return jsonReply(c, 200, audit, { 'cache-control': 'no-cache' });
  });
}

// ---------------------------------------------------------------------------------------------
// GET /coverage/<place> (public): one place's coverage and its rules, district by district, every
// value with its status and, when cited, the bylaw's words with a link to check them in the text the
// service holds. A place with many districts lists them; ?district=CODE shows one in full.

function valueText(v: RuleValueView): string {
  if (!isValueStatus(v.status)) return valueWords({ value: null, status: 'not_extracted' }).says;
  return valueWords({
    value: v.value,
    status: v.status,
    unit: v.unit,
    ...(v.tiers ? { tiers: v.tiers } : {}),
    ...(v.statedNoLimit ? { statedNoLimit: v.statedNoLimit } : {}),
  }).says;
}

/** The bylaw's words and where they are; the edition is stated once, in the page's list of documents. */
function citationLine(c: Citation | undefined): Html {
  if (!c) return html``;
  return html`<blockquote class="quote"><q>${c.quote}</q><br><small>${c.documentTitle}, § ${c.section} · <a href="${c.href}">check it in the text siteline holds</a></small></blockquote>`;
}

/** A value's condition without what its section already says ("Building type: Cottage (§3.1.7)"). */
function conditionWords(condition: string): string {
  const rest = condition.replace(/^Building type: [^;]*(; )?/, '');
  return forPeople(rest.charAt(0).toUpperCase() + rest.slice(1));
}

// A table of standards: the human label, the value with its status under it, and the bylaw's words
// with the link to check them. Words never break inside (`.rules-table`); at phone widths each row
// stacks its cells (page.ts) instead of squeezing four columns into 360 px.
function valuesTable(values: RuleValueView[]): Html {
  if (!values.length) return html`<p class="muted">No value stated.</p>`;
  return html`<div class="table-scroll"><table class="rules-table"><thead><tr><th scope="col">Standard</th><th scope="col">Value and status</th><th scope="col">The bylaw's words</th></tr></thead><tbody>
${values.map(
  (v) =>
    html`<tr data-standard="${v.standard}"><th scope="row">${valueLabel(v.standard)}</th><td><span class="value">${valueText(v)}</span> ${statusBadge(v.status as ValueStatus)}${v.condition && conditionWords(v.condition) ? html`<br><small class="muted">${conditionWords(v.condition)}</small>` : ''}</td><td>${v.citation ? citationLine(v.citation) : html`<small class="muted">${forPeople(v.note ?? 'No quote: the value is not cited.')}</small>`}</td></tr>`,
)}
</tbody></table></div>`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** A district as a section the reader opens: its own standards, then each building type and the uses, each opened on its own. */
function districtSection(d: DistrictRulesView, open: boolean): Html {
  const counts = [
    plural(d.citedValues, 'cited value', 'cited values'),
    d.buildingTypes.length ? plural(d.buildingTypes.length, 'building type', 'building types') : '',
    d.uses.length ? plural(d.uses.length, 'use', 'uses') : '',
  ]
    .filter(Boolean)
    .join(' · ');
  return html`<details class="district" id="district-${d.code}"${open ? ' open' : ''}>
<summary><h3 id="hd-${d.code}">${d.code} · ${d.name}</h3> <span class="muted">${counts}</span></summary>
${d.note ? html`<p>${forPeople(d.note)}</p>` : ''}
${d.standards.length ? valuesTable(d.standards) : ''}
${d.buildingTypes.map(
  (t) => html`<details class="building-type" id="district-${d.code}-${slugOf(t.name)}">
<summary><h4>${t.name}</h4> <span class="muted">§ ${t.section}${t.allowed ? `, allowed ${t.allowed}` : ''} · ${plural(t.standards.length, 'standard', 'standards')}</span></summary>
${valuesTable(t.standards)}
${t.notExtracted.length ? html`<p class="muted">Not extracted: ${t.notExtracted.map((n) => `${valueLabel(n.standard)} (${forPeople(n.reason)})`).join('; ')}</p>` : ''}
</details>`,
)}
${d.uses.length ? html`<details class="building-type" id="district-${d.code}-uses"><summary><h4>Uses</h4> <span class="muted">${plural(d.uses.length, 'use', 'uses')}</span></summary><ul>${d.uses.map((u) => html`<li>${u.use}: ${u.permission.replace(/_/g, ' ')} ${statusBadge(u.status as ValueStatus)}${u.condition ? html` <small class="muted">${forPeople(u.condition)}</small>` : ''}${citationLine(u.citation)}</li>`)}</ul></details>` : ''}
</details>`;
}

/** The change log per import (place_vintages): what each republished file changed, newest first. */
function changesSection(slug: string, vintages: VintageRecord[]): Html {
  if (!vintages.length) return html``;
  return html`<h2 id="changes">Changes by import</h2>
<p class="muted">Each import is kept as a dated vintage. <a href="/coverage/${slug}/changes.json">The change log as JSON</a>.</p>
<ol class="changes">${vintages.map(
    (v) => html`<li><strong>${v.importedAt.slice(0, 10)}</strong>: ${v.layers.map((l, i) => html`${i ? '; ' : ''}${l.name}, vintage ${l.vintage}`)}
${v.changes ? html`<ul>${formatChangeLog(v.changes).map((line) => html`<li>${line.trim()}</li>`)}</ul>` : html`<br><small class="muted">The first import recorded (or one made by data import): no change log.</small>`}</li>`,
  )}</ol>`;
}

export function registerCoveragePlacePage(app: HttpApp, ctx: AppContext): void {
  app.pages.get('/coverage/:slug', async (c) => {
    const account = await currentAccount(ctx, c);
    const signedInAs = account?.email ?? null;
    const place = (await listPlaces(ctx)).find((p) => p.slug === c.req.param('slug'));
    if (!place)
      return htmlPage(c, 404, page('Not found', html`<p>No such place. <a href="/coverage">What siteline covers</a></p>`, { signedInAs }), PAGE_HEADERS);
    const want = new URL(c.req.url).searchParams.get('district');
    let inv;
    try {
      inv = await cityInventory(ctx, { kind: 'id', geoDivisionId: place.geoDivisionId, ...(want ? { district: want } : {}) });
    } catch (err) {
      if (err instanceof SitelineError && err.code === 'bad_input')
        return htmlPage(c, 404, page('Not found', html`<p>${err.message}</p>`, { signedInAs }), PAGE_HEADERS);
      throw err;
    }
    if (inv.kind !== 'inventory') return htmlPage(c, 404, page('Not found', html`<p>No such place.</p>`, { signedInAs }), PAGE_HEADERS);
    const rules = await loadPlaceRules(ctx, place.slug).catch((err: Error) => {
      ctx.logger.warn({ place: place.slug, err: err.message }, 'coverage page: rules do not load');
      return null;
    });
    const codes = rules ? Object.keys(rules.districts) : [];
    // Every district, closed; ?district=CODE shows that one alone, open (a link from an answer or an agent).
    const shown: DistrictRulesView[] = inv.rules.district
      ? [inv.rules.district]
      : rules
        ? codes.map((code) => districtView(rules, code, rules.districts[code]!))
        : [];
    const docs = inv.rules.documents;
    const body = html`<p>Status: ${statusBadge(place.status)}</p>
<p>${placeStatusWords(place.status, place.statusReason).why}</p>
<h2>Rules</h2>
<p>${inv.rules.bylaw ? html`${inv.rules.bylaw.name} (${inv.rules.bylaw.date}).` : 'No rules file.'} <strong>${inv.rules.citedValues}</strong> values are cited, each from words found by machine in a document siteline holds.</p>
${docs.length ? html`<ul>${docs.map((d) => html`<li><a href="${d.href}">${d.title}</a>, edition ${d.edition}, retrieved ${d.retrieved} (${d.licence})</li>`)}</ul>` : html`<p class="muted">This place holds no document to cite from: its values are indicative or not extracted.</p>`}
${
  shown.length
    ? html`<h2 id="districts">${inv.rules.district ? 'District' : plural(shown.length, 'district', 'districts')}</h2>
<p class="muted">Open a district to read its standards, each with its status and the bylaw's words; each building type opens on its own.</p>`
    : ''
}
${inv.rules.district ? html`<p><a href="/coverage/${place.slug}">All districts</a></p>` : ''}
<div class="districts">${shown.map((d) => districtSection(d, Boolean(inv.rules.district)))}</div>
${changesSection(place.slug, await listVintages(ctx, place.geoDivisionId))}`;
    return htmlPage(c, 200, page(`${place.name}, ${place.region}`, body, { signedInAs, wide: true, current: 'coverage' }), PAGE_HEADERS);
  });
}
