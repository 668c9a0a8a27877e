// The snapshot page, GET /sites?address=…&ref=…: the link getFeasibilitySnapshot puts in its _meta.
// Signed-in people only (resolving an address may cost money, as on every other surface). `ref` is
// attribution only: accepted, never rendered.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import type { Router } from '../http/router.ts';
import { sendHtml } from '../http/respond.ts';
import { SitelineError } from '../core/errors.ts';
import { cachedSnapshot } from '../core/snapshot-cache.ts';
import { STATUS_MEANINGS, type Status } from '../core/statuses.ts';
import type { Citation, Lot, Measure, PermittedUse, Snapshot, SourceRef, Sourced, Zones } from '../core/snapshot-types.ts';
import { html, page, type Html } from './html.ts';
import { redirect, safeNext } from './forms.ts';
import { currentAccount } from './web-session.ts';
import { PAGE_HEADERS } from './account-pages.ts';
import { SITES_PATH, addressForm, registerHomePage } from './home-page.ts';

/** Readable names for the envelope members (docs/envelope.md); an unlisted member shows its key. */
const ENVELOPE_LABELS: Record<string, string> = {
  maxHeightFt: 'Maximum height',
  maxHeightStoreys: 'Maximum storeys',
  maxFar: 'Maximum floor area ratio (FAR)',
  minLotAreaSqft: 'Minimum lot area',
  minLotAreaPerUnitSqft: 'Minimum lot area per dwelling unit',
  minLotWidthFt: 'Minimum lot width',
  minLotDepthFt: 'Minimum lot depth',
  minFrontYardFt: 'Minimum front yard',
  minSideYardFt: 'Minimum side yard',
  minStreetSideYardFt: 'Minimum street-side yard (corner lot)',
  minRearYardFt: 'Minimum rear yard',
  maxLotCoveragePct: 'Maximum lot coverage',
  minOpenSpacePct: 'Minimum open space',
  maxDensityUnitsPerAcre: 'Maximum density',
  maxUnitsPerLot: 'Maximum units per lot',
  maxFloorAreaSqft: 'Maximum floor area (derived)',
  maxDwellingUnits: 'Maximum dwelling units (derived)',
  maxDwellingUnitsByDensity: 'Maximum dwelling units by density (derived)',
  maxFootprintSqft: 'Maximum footprint (derived)',
  buildableWidthFt: 'Buildable width (derived)',
  buildableDepthFt: 'Buildable depth (derived)',
};

const UNIT_SUFFIX: Record<string, (n: string) => string> = {
  ft: (n) => `${n} ft`,
  storeys: (n) => `${n} storeys`,
  ratio: (n) => n,
  percent: (n) => `${n} %`,
  sqft: (n) => `${n} sq ft`,
  'sqft/unit': (n) => `${n} sq ft per unit`,
  'units/acre': (n) => `${n} units per acre`,
  units: (n) => `${n} units`,
};

const num = (n: number): string => n.toLocaleString('en-US', { maximumFractionDigits: 2 });
const pct = (share: number): string => `${num(share * 100)} %`;

/**
 * The text of a sourced value. An unknown status (STATUS_MEANINGS[s].unknown) or any other null is
 * "unknown", never 0 and never "no limit"; only no_limit_in_bylaw reads "no limit (bylaw)".
 */
export function valueText(v: Pick<Sourced, 'value' | 'status' | 'unit'>): string {
  if (v.status === 'no_limit_in_bylaw') return 'no limit (bylaw)';
  if (v.value === null || STATUS_MEANINGS[v.status].unknown) return 'unknown';
  const n = typeof v.value === 'number' ? num(v.value) : String(v.value);
  return v.unit ? (UNIT_SUFFIX[v.unit]?.(n) ?? `${n} ${v.unit}`) : n;
}

function statusBadge(status: Status): Html {
  return html`<code class="status" title="${STATUS_MEANINGS[status].meaning}">${status}</code>`;
}

/** Only http(s) URLs become links; anything else is shown as text. */
function link(url: string | undefined, text: string): Html {
  return url && /^https?:\/\//i.test(url) ? html`<a href="${url}" rel="noopener noreferrer">${text}</a>` : html`${text}`;
}

function citationCell(c: Citation | undefined): Html {
  if (!c) return html`—`;
  return html`${link(c.sourceUrl, c.section)}<br><small>${c.date}</small>${c.excerpt ? html`<br><small><q>${c.excerpt}</q></small>` : ''}`;
}

function noteCell(x: { condition?: string; note?: string; inputs?: string[] }): Html {
  return html`${x.condition ? html`<p><strong>Condition:</strong> ${x.condition}</p>` : ''}${x.note ? html`<p>${x.note}</p>` : ''}${
    x.inputs?.length ? html`<p><small>Inputs: ${x.inputs.join(', ')}</small></p>` : ''
  }`;
}

function measureText(m: Measure): Html {
  if (m.value === null) return html`unknown ${statusBadge(m.status ?? 'missing')}${m.note ? html` <small>${m.note}</small>` : ''}`;
  return html`${valueText({ value: m.value, status: 'cited', unit: m.unit })}`;
}

function addressSection(s: Snapshot): Html {
  const a = s.address!;
  const how = a.matchType === 'address_table' ? 'the city address table' : a.matchType === 'assessor_table' ? "the assessor's table of lot addresses" : 'street-range interpolation';
  return html`<section id="address">
<p>Matched <strong id="matched-address">${a.matchedAddress}</strong>${s.coverage.place ? html`, ${s.coverage.place.name}, ${s.coverage.place.region}` : ''}
by ${how} (<code>${a.matchType}</code>), confidence <strong id="match-confidence">${num(a.confidence)}</strong>. You asked for: ${a.input}.</p>
${a.warnings.length ? html`<h3>Warnings</h3><ul id="warnings">${a.warnings.map((w) => html`<li>${w}</li>`)}</ul>` : ''}
</section>`;
}

function lotSection(lot: Lot): Html {
  const corner = lot.cornerLot === null ? 'unknown' : lot.cornerLot ? 'yes' : 'no';
  return html`<section id="lot"><h2>Lot</h2>
<table><tbody>
<tr><th scope="row">Lot id</th><td id="lot-id">${lot.parcelExternalId}</td></tr>
<tr><th scope="row">Area</th><td>${num(lot.areaSqft)} sq ft (${num(lot.areaM2)} m²)</td></tr>
<tr><th scope="row">Frontage</th><td>${measureText(lot.frontageFt)}</td></tr>
<tr><th scope="row">Depth</th><td>${measureText(lot.depthFt)}</td></tr>
<tr><th scope="row">Corner lot</th><td>${corner}</td></tr>
<tr><th scope="row">Front street</th><td>${lot.frontStreet ?? 'unknown'}</td></tr>
<tr><th scope="row">Point inside the lot</th><td>${lot.latitude}, ${lot.longitude}</td></tr>
<tr><th scope="row">Source</th><td>${lot.source.name}, ${lot.source.vintage} (${lot.source.licence})</td></tr>
</tbody></table></section>`;
}

function zoningSection(z: Zones): Html {
  const primary = z.primary;
  return html`<section id="zoning"><h2>Zoning</h2>
<p>Primary district: ${primary ? html`<strong id="primary-zone">${primary.code}</strong>${primary.name ? html` (${primary.name})` : ''}, ${pct(primary.share)} of the lot` : html`<strong>none found</strong>`}.</p>
${
  z.splitLot
    ? html`<p id="split-lot"><strong>Split lot:</strong> the lot lies in several districts; the envelope uses the primary one.</p>
<ul>${z.districts.map((d) => html`<li><strong>${d.code}</strong>${d.name ? html` (${d.name})` : ''}: ${pct(d.share)}</li>`)}</ul>`
    : ''
}
${
  z.overlays.length
    ? html`<p>Overlays:</p><ul id="overlays">${z.overlays.map((o) => html`<li><strong>${o.code}</strong>${o.name && o.name !== o.code ? html` (${o.name})` : ''}: ${pct(o.share)} of the lot${o.governingSection ? html`, governed by ${o.governingSection}` : ''}</li>`)}</ul>`
    : html`<p>Overlays: none.</p>`
}
</section>`;
}

function envelopeSection(envelope: Record<string, Sourced>): Html {
  const rows = Object.entries(envelope).map(
    ([key, v]) => html`<tr id="env-${key}"><th scope="row">${ENVELOPE_LABELS[key] ?? key}<br><small><code>${key}</code></small></th>
<td class="value">${valueText(v)}</td><td>${statusBadge(v.status)}</td><td>${citationCell(v.citation)}</td><td class="note">${noteCell(v)}</td></tr>`,
  );
  return html`<section id="envelope"><h2>Building envelope</h2>
<p>Every value shows its status. "unknown" means the value is not known to siteline (it is not zero and not "no limit"); "no limit (bylaw)" means the bylaw sets none.</p>
<table><thead><tr><th>Standard</th><th>Value</th><th>Status</th><th>Citation</th><th>Condition and note</th></tr></thead>
<tbody>${rows}</tbody></table></section>`;
}

function usesSection(uses: PermittedUse[]): Html {
  const permission = (p: PermittedUse['permission']) => (p === 'unknown' ? 'unknown' : p.replace(/_/g, ' '));
  return html`<section id="uses"><h2>Permitted uses</h2>
${
  uses.length
    ? html`<table><thead><tr><th>Use</th><th>Permission</th><th>Status</th><th>Citation</th><th>Condition and note</th></tr></thead><tbody>
${uses.map((u) => html`<tr><td>${u.use}</td><td>${permission(u.permission)}</td><td>${statusBadge(u.status)}</td><td>${citationCell(u.citation)}</td><td class="note">${noteCell(u)}</td></tr>`)}
</tbody></table>`
    : html`<p>No uses listed.</p>`
}</section>`;
}

function sourcesSection(sources: SourceRef[]): Html {
  if (!sources.length) return html``;
  return html`<section id="sources"><h2>Sources</h2>
<table><thead><tr><th>Layer</th><th>Source</th><th>Vintage</th><th>Licence</th><th>Attribution</th></tr></thead><tbody>
${sources.map((s) => html`<tr><td><code>${s.layer}</code></td><td>${link(s.url, s.name)}</td><td>${s.vintage}</td><td>${s.licence}</td><td class="note">${s.attribution ?? ''}</td></tr>`)}
</tbody></table></section>`;
}

/** The meanings of the statuses that appear on the page, so nobody has to guess what a status says. */
function statusLegend(statuses: Status[]): Html {
  const seen = [...new Set(statuses)];
  if (!seen.length) return html``;
  return html`<section id="status-legend"><h2>What the statuses mean</h2><dl>
${seen.map((s) => html`<dt><code>${s}</code></dt><dd>${STATUS_MEANINGS[s].meaning}</dd>`)}
</dl></section>`;
}

function answeredBody(s: Snapshot): Html {
  const envelope = s.envelope ?? {};
  const uses = s.permittedUses ?? [];
  const statuses: Status[] = [...Object.values(envelope).map((v) => v.status), ...uses.map((u) => u.status)];
  return html`${addressSection(s)}
<p>Coverage: ${statusBadge(s.coverage.status)} · <span id="coverage-message">${s.coverage.message}</span></p>
${s.lot ? lotSection(s.lot) : ''}
${s.zones ? zoningSection(s.zones) : ''}
${envelopeSection(envelope)}
${usesSection(uses)}
${statusLegend(statuses)}
${sourcesSection(s.sources)}
<p><small>Generated ${s.generatedAt}.</small></p>
<h2>Check another address</h2>
${addressForm()}`;
}

function notCoveredBody(s: Snapshot, address: string): Html {
  const c = s.coverage;
  return html`<section id="coverage">
<p>Status: <strong id="coverage-status">${statusBadge(c.status)}</strong>${c.eligibilityKnown ? '' : ' (eligibility could not be determined)'}</p>
<p id="coverage-message">${c.message}</p>
<p><small>${STATUS_MEANINGS[c.status].meaning}</small></p>
${
  s.suggestions?.length
    ? html`<h2>Did you mean</h2><ul id="suggestions">${s.suggestions.map((x) => html`<li>${x}</li>`)}</ul>`
    : ''
}
</section>
${sourcesSection(s.sources)}
<h2>Try another address</h2>
${addressForm(address)}`;
}

/** This request's own path and query, as a same-site return target for sign-in. */
function hereOf(req: IncomingMessage): string {
  const u = new URL(req.url ?? SITES_PATH, 'http://x');
  return safeNext(`${u.pathname}${u.search}`, SITES_PATH);
}

async function showSite(ctx: AppContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const account = await currentAccount(ctx, req);
  if (!account) return redirect(res, `/signin?next=${encodeURIComponent(hereOf(req))}`);
  const signedInAs = account.email;
  const address = new URL(req.url ?? SITES_PATH, 'http://x').searchParams.get('address');
  if (address === null) return sendHtml(res, 200, page('Check an address', addressForm(), { signedInAs }), PAGE_HEADERS);

  let snapshot: Snapshot;
  try {
    snapshot = (await cachedSnapshot(ctx, address)).snapshot;
  } catch (err) {
    if (err instanceof SitelineError && err.code === 'bad_input') {
      return sendHtml(res, 400, page('Check an address', addressForm(address.slice(0, 300), err.message), { signedInAs }), PAGE_HEADERS);
    }
    throw err;
  }
  if (!snapshot.answered) {
    return sendHtml(res, 200, page('Address not covered', notCoveredBody(snapshot, address), { signedInAs, wide: true }), PAGE_HEADERS);
  }
  const place = snapshot.coverage.place;
  const title = `${snapshot.address?.matchedAddress ?? address}${place ? `, ${place.name}, ${place.region}` : ''}`;
  sendHtml(res, 200, page(title, answeredBody(snapshot), { signedInAs, wide: true }), PAGE_HEADERS);
}

/** The home page and the snapshot page (one registration line in src/auth/routes.ts). */
export function registerSitePages(router: Router, ctx: AppContext): void {
  registerHomePage(router, ctx);
  router.get(SITES_PATH, (req, res) => showSite(ctx, req, res));
}
