// The snapshot page, GET /sites?address=…&ref=…: the link getFeasibilitySnapshot puts in its _meta.
// Signed-in people only (resolving an address may cost money, as on every other surface). `ref` is
// attribution only: accepted, never rendered.
import { MATCH_HOW, matchDoubt } from '../snapshot/match-doubt.ts';
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { SitelineError } from '../core/errors.ts';
import { cachedSnapshot } from '../snapshot/answer-cache.ts';
import { withSourcesInline } from '../snapshot/source-catalogue.ts';
import { STATUS_MEANINGS, type Status } from '../core/statuses.ts';
import type { Citation, Lot, Measure, Snapshot, SnapshotUse, SnapshotValue, SourceRef, ZoneShare, Zones } from '../core/snapshot-types.ts';
import { conditionOf, notesOf, primaryDistrict, snapshotInputOf, sourceOf } from '../snapshot/refs.ts';
import { getPlace } from '../places/catalogue.ts';
import { loadPlaceRules } from '../rules/load-rules.ts';
import { loadManifest } from '../places/manifest.ts';
import { lotsNear, mapViewForLots } from '../maps/map-view.ts';
import { CATEGORY_STYLE, zoneCategory } from '../maps/zone-category.ts';
import { html, type Html } from '../http/html.ts';
import { page, PAGE_HEADERS, mapPageHeaders } from '../http/page.ts';
import { redirect, safeNext } from '../http/forms.ts';
import { currentAccount } from './web-session.ts';
import { SITES_PATH, addressForm, registerHomePage } from './home-page.ts';
import { MAP_HEAD, MAPLIBRE_VERSION, mapFigure, mapLegend } from './map-embed.ts';
import { statusBadge } from './status-badge.ts';
import { forPeople, formatNumber, valueLabel, valueWords, type WordedValue } from '../core/value-words.ts';
import { layerLabel, oldDataNote } from './coverage-page.ts';
import { ruleSources, type RuleSource } from '../rules/rule-sources.ts';
import { snapshotEnvelope3d } from './envelope-3d.ts';
import { conditionsSentence, type StatedDistrict } from '../snapshot/stated-district.ts';
import { registerSaveFromSnapshot, saveToProjectSection } from './save-from-snapshot.ts';
import { LOT_ID_MAX_LENGTH } from '../snapshot/picked-lot.ts';

const num = formatNumber;
const pct = (share: number): string => `${num(share * 100)} %`;

/**
 * The text of a sourced value, worded as on every surface (src/core/value-words.ts): an unknown status
 * or any other null is "Unknown", never 0 and never "no limit"; no_limit_in_bylaw reads "No limit in
 * the bylaw"; a no-limit only a source states (statedNoLimit) reads "No limit, per S1".
 */
export function valueText(v: WordedValue): string {
  return valueWords(v).says;
}

/** Only http(s) URLs become links; anything else is shown as text. */
function link(url: string | undefined | null, text: string): Html {
  return url && /^https?:\/\//i.test(url) ? html`<a href="${url}" rel="noopener noreferrer">${text}</a>` : html`${text}`;
}

/** Everything the page numbers and defines once: citations as footnotes, and the S-ids of the notes. */
class PageRefs {
  readonly citations: Citation[] = [];
  private readonly keys = new Map<string, number>();
  readonly mentioned = new Set<string>();
  constructor(
    readonly ruleSources: Map<string, RuleSource>,
    private readonly snapshot: Pick<Snapshot, 'citations' | 'notes'> & Partial<Pick<Snapshot, 'envelope' | 'lot'>>,
  ) {}

  /** The footnote marker of a citation, by its id in the snapshot (one number per distinct citation). */
  cite(id: string | undefined): Html {
    const c = id ? this.snapshot.citations?.[id] : undefined;
    if (!c) return html``;
    const key = `${c.document}|${c.section}|${c.quote}`;
    let n = this.keys.get(key);
    if (!n) {
      this.citations.push(c);
      n = this.citations.length;
      this.keys.set(key, n);
    }
    return html`<sup><a href="#cite-${n}" aria-label="citation ${n}: ${c.section}">[${n}]</a></sup>`;
  }

  /** The condition of a value (its own or a shared one), as a paragraph. */
  condition(v: { condition?: string; conditionNote?: string }): Html {
    const c = conditionOf(this.snapshot, v);
    return c ? html`<p><strong>Condition:</strong> ${this.note(c)}</p>` : html``;
  }

  /** Every note of a value (its own and the shared ones), each as a muted paragraph. */
  notes(v: { note?: string; notes?: string[] }): Html {
    return html`${notesOf(this.snapshot, v).map((n) => html`<p class="muted">${this.note(n)}</p>`)}`;
  }

  /** A value's words (src/core/value-words.ts); a derived value that could not be worked out names why from its inputs on this page. */
  words(v: WordedValue) {
    return valueWords(v, (key) => snapshotInputOf(this.snapshot, key));
  }

  /** A note as text with its URLs as links and its source ids (S1…) linked to their definitions; keys read as words. */
  note(raw: string): Html {
    const text = forPeople(raw);
    const parts: Html[] = [];
    let last = 0;
    const re = /(https?:\/\/[^\s)]+[^\s).,;])|\b(S\d{1,3})\b/g;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      parts.push(html`${text.slice(last, m.index)}`);
      if (m[1]) parts.push(link(m[1], shortUrl(m[1])));
      else {
        this.mentioned.add(m[2]!);
        parts.push(html`<a href="#src-${m[2]}" class="src-ref">${m[2]}</a>`);
      }
      last = m.index + m[0].length;
    }
    parts.push(html`${text.slice(last)}`);
    return html`${parts}`;
  }
}

/** A URL as link text a person can read: its host, and an ellipsis when there is more. */
function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host.replace(/^www\./, '')}${u.pathname.length > 1 || u.search ? '/…' : ''}`;
  } catch {
    return url;
  }
}

function valueBlock(refs: PageRefs, key: string, label: string, v: SnapshotValue): Html {
  const w = refs.words(v);
  return html`<div class="std" id="env-${key}"><h3>${label}</h3>
<p><span class="value">${w.says}</span> ${statusBadge(v.status)}${refs.cite(v.citation)}</p>
${w.why ? html`<p class="why">${refs.note(w.why)}</p>` : ''}<p class="analysis">${w.analysis}</p>
${refs.condition(v)}${refs.notes(v)}${
  v.inputs?.length ? html`<p class="muted">Worked out from: ${v.inputs.map((i) => forPeople(i)).join(', ')}.</p>` : ''
}</div>`;
}

function measureText(m: Measure): Html {
  if (m.value === null) return html`unknown ${statusBadge(m.status ?? 'missing')}`;
  return html`${valueText({ value: m.value, status: 'cited', unit: m.unit })}`;
}

const cornerText = (c: boolean | null): string => (c === null ? 'unknown' : c ? 'yes' : 'no');
const districtName = (d: ZoneShare): Html => html`<strong>${d.code}</strong>${d.name && d.name !== d.code ? html` (${d.name})` : ''}`;

/** The snapshot page's own query for this answer: the address and what the person stated or picked. */
function sitesHref(address: string, stated: StatedDistrict, lotId?: string): string {
  const q = new URLSearchParams({ address });
  if (stated.district) q.set('district', stated.district);
  if (stated.buildingType) q.set('buildingType', stated.buildingType);
  for (const c of stated.conditions ?? []) q.append('condition', c);
  if (lotId) q.set('lot', lotId);
  return `${SITES_PATH}?${q.toString()}`;
}

/**
 * Picking the lot when the match is weak (issue 49, item 6): the lot id typed in (or a click on a lot
 * of the map, assets/site-map.js fills it), asked again of the same getFeasibilitySnapshot with `lot`.
 */
function lotPickForm(s: Snapshot, stated: StatedDistrict): Html {
  const a = s.address!;
  return html`<p>Check the lot on the map and the notes below before relying on any value. <strong>Not the lot you meant?</strong> Pick it: type its lot id (as the city's assessor writes it), or click it on the map (the lots around are outlined in grey), and this page answers for that lot instead: its measurements, districts and envelope. The address stays as you wrote it.</p>
<form method="get" action="${SITES_PATH}" id="lot-pick-form">
<input type="hidden" name="address" value="${a.input}">
${stated.district ? html`<input type="hidden" name="district" value="${stated.district}">` : ''}${stated.buildingType ? html`<input type="hidden" name="buildingType" value="${stated.buildingType}">` : ''}${(stated.conditions ?? []).map((c) => html`<input type="hidden" name="condition" value="${c}">`)}
<label for="lot-pick">Lot id</label>
<input id="lot-pick" name="lot" type="text" required maxlength="${String(LOT_ID_MAX_LENGTH)}" placeholder="${s.lot?.parcelExternalId ?? ''}" autocomplete="off">
<button type="submit">Answer for this lot</button>
</form>`;
}

/** After a pick: which lot, what the address alone gave, and the way back to the address's own match. */
function lotPickedNote(s: Snapshot, stated: StatedDistrict): Html {
  const a = s.address!;
  const said = a.warnings.find((w) => w.startsWith('You picked lot ')) ?? `You picked lot ${s.lot?.parcelExternalId ?? ''}.`;
  return html`<section id="lot-picked" class="note-box" role="status" aria-labelledby="lot-picked-h"><h2 id="lot-picked-h">The lot you picked: ${s.lot?.parcelExternalId ?? ''}</h2>
<p>${said}</p>
<p><a href="${sitesHref(a.input, stated)}" id="lot-unpick">Back to the lot the address matched</a></p></section>`;
}

function ledeSection(s: Snapshot, stated: StatedDistrict): Html {
  const a = s.address!;
  const doubt = matchDoubt(a);
  const how = MATCH_HOW[a.matchType];
  return html`${doubt ? html`<section id="match-doubt" class="note-box" role="alert" aria-labelledby="match-doubt-h"><h2 id="match-doubt-h">${doubt.headline}</h2><p>${doubt.reason}</p>${lotPickForm(s, stated)}</section>` : ''}${a.matchType === 'lot_id' ? lotPickedNote(s, stated) : ''}<section id="address" aria-label="Address match">
<p>Matched <strong id="matched-address">${a.matchedAddress}</strong>${s.coverage.place ? html`, ${s.coverage.place.name}, ${s.coverage.place.region}` : ''}:
${how}, match confidence <strong id="match-confidence">${num(a.confidence)}</strong>.
<span class="muted">You asked for: ${a.input}.</span></p>
<p>Coverage: ${statusBadge(s.coverage.status)} <span id="coverage-message">${s.coverage.message}</span></p>
</section>`;
}

/** The summary card: what a consultant reads first. */
function summaryCard(s: Snapshot, refs: PageRefs, now: Date): Html {
  const lot = s.lot!;
  const z = s.zones;
  const primary = primaryDistrict(z);
  const env = s.envelope ?? {};
  const districts = z?.splitLot
    ? html`<ul class="plain" id="district-shares">${z.districts.map((d) => html`<li>${districtName(d)}: ${pct(d.share)}</li>`)}</ul>`
    : '';
  return html`<section class="card" id="summary" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>
<dl class="facts">
<dt>Primary district</dt><dd>${primary ? html`<strong id="primary-zone">${primary.code}</strong>${primary.name ? html` <span class="muted">${primary.name}</span>` : ''}` : z?.districtSource ? 'not stated' : 'none found'}${z?.districtSource && primary ? html` <span class="muted" id="summary-district-source">(${z.districtSource.buildingType ? `${z.districtSource.buildingType}; ` : ''}${z.districtSource.statement})</span>` : ''}</dd>
${z?.splitLot ? html`<dt>Split lot</dt><dd>${districts}</dd>` : ''}
<dt>Overlays</dt><dd>${z?.overlays.length ? z.overlays.map((o, i) => html`${i ? ', ' : ''}${o.code} (${pct(o.share)})`) : 'none'}</dd>
<dt>Lot</dt><dd><span id="lot-id">${lot.parcelExternalId}</span></dd>
<dt>Lot area</dt><dd>${num(lot.areaSqft)} sq ft <span class="muted">(${num(lot.areaM2)} m²)</span></dd>
<dt>Frontage</dt><dd>${measureText(lot.frontageFt)}</dd>
<dt>Corner lot</dt><dd>${cornerText(lot.cornerLot)}</dd>
${HEADLINE.filter((k) => env[k]).map((k) => {
  const w = refs.words(env[k]!);
  return html`<dt>${valueLabel(k)}</dt><dd id="summary-${k}">${w.says} ${statusBadge(env[k]!.status)}${refs.cite(env[k]!.citation)}${w.why ? html`<br><small class="muted">${refs.note(w.why)}</small>` : ''}</dd>`;
})}
</dl>
<p class="muted">Lot data: ${lotSourceText(s, lot, now)}.</p>
</section>`;
}

const HEADLINE = ['maxHeightFt', 'maxHeightStoreys', 'maxFar', 'maxLotCoveragePct', 'maxDwellingUnits', 'maxFloorAreaSqft'];

async function mapCard(ctx: AppContext, s: Snapshot): Promise<Html> {
  const lot = s.lot!;
  const placeId = s.coverage.geoDivisionId;
  if (!placeId) return html``;
  const view = await mapViewForLots(ctx, placeId, [{ lotId: lot.parcelExternalId, role: 'lot' }]);
  const districts = s.zones?.districts ?? [];
  const categories = [...new Set(districts.map((d) => zoneCategory(d.code, d.name)))];
  // A weak match: the lots around are drawn too, and a click on one picks it (the doubt box's form; assets/site-map.js).
  const pickable = s.address && matchDoubt(s.address) ? await lotsNear(ctx, placeId, { lat: lot.latitude, lon: lot.longitude }, lot.parcelExternalId) : null;
  const label = `Map of lot ${lot.parcelExternalId}${s.zones?.primary ? ` in district ${s.zones.primary}` : ''}, outlined in blue, with the zoning districts around it coloured by category${pickable ? '; the lots around it are outlined in grey, and a click on one answers for that lot' : ''}.`;
  return html`<section class="card" id="map-card" aria-labelledby="map-h"><h2 id="map-h">Map</h2>
${mapFigure(ctx, view, { label, fallback: [lot.longitude, lot.latitude, lot.longitude, lot.latitude], units: s.coverage.place?.country === 'CA' ? 'metric' : 'imperial', ...(pickable ? { pickable } : {}) })}
${mapLegend(view, categories)}
<details><summary>All zone colours</summary>${mapLegend({ bounds: null, lots: { type: 'FeatureCollection', features: [] } })}</details>
</section>`;
}

/**
 * A place without a zoning map (Somerville): where the district came from, and a choice of district and
 * building type that asks the page again with them (docs/web.md). Nothing for a place with a zoning map.
 */
function districtSection(s: Snapshot): Html {
  const source = s.zones?.districtSource;
  if (!source) return html``;
  const choice = s.districtChoice;
  const primary = s.zones?.primary ?? null;
  const address = s.address?.input ?? '';
  const options = choice?.districts ?? [];
  const all = choice?.needs === 'district' ? options : options.length ? options : [];
  const types = [...new Set(all.flatMap((d) => d.buildingTypes ?? []))];
  const stated = source.conditions ?? [];
  // Each condition a table states values under (driveway access, ...): one select, its values from every table offered.
  const conditions = new Map<string, { name: string; values: string[]; where: string[] }>();
  for (const d of all)
    for (const c of d.conditions ?? []) {
      const e = conditions.get(c.key) ?? { name: c.name, values: [], where: [] };
      for (const v of c.values) if (!e.values.includes(v)) e.values.push(v);
      e.where.push(`${d.code}${c.buildingTypes?.length ? ` ${c.buildingTypes.join(', ')}` : ''}`);
      conditions.set(c.key, e);
    }
  const form = choice
    ? html`<form method="get" action="${SITES_PATH}" id="district-form">
<input type="hidden" name="address" value="${address}">
<label for="district">District</label>
<select id="district" name="district" required>${choice.needs === 'district' ? html`<option value="">Choose the district…</option>` : ''}${all.map((d) => html`<option value="${d.code}"${d.code === primary ? ' selected' : ''}>${d.code}: ${d.name}</option>`)}</select>
${
  types.length
    ? html`<label for="buildingType">Building type <span class="muted">(where the district zones by building type)</span></label>
<select id="buildingType" name="buildingType"><option value="">Not stated</option>${all.filter((d) => d.buildingTypes?.length).map((d) => html`<optgroup label="${d.code}">${d.buildingTypes!.map((t) => html`<option value="${t}"${t === source.buildingType ? ' selected' : ''}>${t}</option>`)}</optgroup>`)}</select>`
    : ''
}
${[...conditions].map(
  ([
    key,
    c,
  ]) => html`<label for="condition-${key}">${c.name} <span class="muted">(where the building type's table states values by it: ${c.where.join('; ')})</span></label>
<select id="condition-${key}" name="condition"><option value="">Not stated</option>${c.values.map((v) => html`<option value="${key}=${v}"${stated.some((x) => x.key === key && x.value === v) ? ' selected' : ''}>${v}</option>`)}</select>`,
)}
<button type="submit">Use this district</button>
</form>`
    : html`<p><a href="${SITES_PATH}?${new URLSearchParams({ address }).toString()}" id="change-district">Choose another district</a></p>`;
  return html`<section id="district-choice" class="note-box" aria-labelledby="district-h"><h2 id="district-h">${primary ? 'District' : 'Which district is this lot in?'}</h2>
<p id="district-source">${primary ? html`District <strong>${primary}</strong>${source.buildingType ? html`, building type <strong>${source.buildingType}</strong>` : ''}: ` : ''}${source.statement}.${stated.length ? html` <span id="conditions-source">${conditionsSentence(stated)}</span>` : ''}</p>
${choice ? html`<p id="district-message">${forPeople(choice.message)}</p>` : ''}
${form}
</section>`;
}

function warningsSection(s: Snapshot, refs: PageRefs): Html {
  const w = s.address?.warnings ?? [];
  if (!w.length) return html``;
  return html`<section id="things-to-know" class="note-box" aria-labelledby="warnings-h"><h2 id="warnings-h">Things to know</h2><ul id="warnings">${w.map((x) => html`<li>${refs.note(x)}</li>`)}</ul></section>`;
}

function envelopeSection(envelope: Record<string, SnapshotValue>, refs: PageRefs): Html {
  return html`<details class="fold" id="envelope"><summary><h2 id="envelope-h">Building envelope</h2></summary>
<p class="muted">Every value shows its status (see <a href="#status-legend">what the statuses mean</a>). "Unknown" is not zero and not "no limit"; "No limit in the bylaw" says the bylaw sets none; "No limit, per S1" is what a source says, not confirmed in the bylaw, and the analysis does not compute on it; "Not calculated" is a value worked out from others when one of them has no number, and says which.</p>
${Object.entries(envelope).map(([key, v]) => valueBlock(refs, key, valueLabel(key), v))}
</details>`;
}

/** The page's envelope section for a snapshot, as HTML (the same blocks the site page draws). */
export function envelopeSectionHtml(s: Pick<Snapshot, 'envelope' | 'citations' | 'notes'> & Partial<Pick<Snapshot, 'lot'>>): string {
  return envelopeSection(s.envelope ?? {}, new PageRefs(new Map(), s)).toString();
}

function usesSection(uses: SnapshotUse[], refs: PageRefs): Html {
  const permission = (p: SnapshotUse['permission']) => (p === 'unknown' ? 'unknown' : p.replace(/_/g, ' '));
  return html`<details class="fold" id="uses"><summary><h2 id="uses-h">Permitted uses</h2></summary>
${
  uses.length
    ? uses.map(
        (
          u,
        ) => html`<div class="std"><h3>${u.use}</h3><p><span class="value">${permission(u.permission)}</span> ${statusBadge(u.status)}${refs.cite(u.citation)}</p>
${refs.condition(u)}${refs.notes(u)}</div>`,
      )
    : html`<p>No uses listed.</p>`
}</details>`;
}

/** The lot's source layer, named by id in the snapshot's sources (in full in the place's catalogue, inline on this page). */
function lotSourceText(s: Snapshot, lot: Lot, now: Date): Html {
  const src = sourceOf(s, lot.source);
  return src
    ? html`${src.name}, ${src.vintage}${src.licence ? ` (${src.licence})` : ''}${oldDataNote(src.vintage, now)}`
    : html`${s.sources[lot.source] ?? lot.source}`;
}

function lotSection(s: Snapshot, lot: Lot, now: Date): Html {
  return html`<details class="fold" id="lot"><summary><h2 id="lot-h">Lot</h2></summary>
<dl class="facts">
<dt>Lot id</dt><dd>${lot.parcelExternalId}</dd>
<dt>Area</dt><dd>${num(lot.areaSqft)} sq ft (${num(lot.areaM2)} m²)</dd>
<dt>Frontage</dt><dd>${measureText(lot.frontageFt)} <span class="muted">${lot.frontageFt.note ? forPeople(lot.frontageFt.note) : lot.frontageFt.basis === 'parcel_geometry' ? 'Measured from the parcel polygon against the addressed street centreline.' : ''}</span></dd>
<dt>Depth</dt><dd>${measureText(lot.depthFt)}${lot.depthFt.note ? html` <span class="muted">${forPeople(lot.depthFt.note)}</span>` : ''}</dd>
<dt>Corner lot</dt><dd>${cornerText(lot.cornerLot)}${lot.cornerLotNote ? html` <span class="muted" id="corner-lot-note">${forPeople(lot.cornerLotNote)}</span>` : ''}</dd>
<dt>Front street</dt><dd>${lot.frontStreet ?? 'unknown'}</dd>
<dt>Point inside the lot</dt><dd>${lot.latitude}, ${lot.longitude}</dd>
<dt>Source</dt><dd>${lotSourceText(s, lot, now)}</dd>
</dl></details>`;
}

function zoningSection(z: Zones, refs: PageRefs): Html {
  return html`<details class="fold" id="zoning"><summary><h2 id="zoning-h">Zoning</h2></summary>
${z.splitLot ? html`<p id="split-lot"><strong>Split lot:</strong> the lot lies in several districts; the envelope above uses the primary (largest) one, and each district's rules apply to its part.</p>` : ''}
<ul>${z.districts.map((d) => html`<li>${districtName(d)}: ${pct(d.share)} of the lot <span class="muted">(${CATEGORY_STYLE[zoneCategory(d.code, d.name)].label})</span></li>`)}</ul>
${
  z.overlays.length
    ? html`<h3>Overlays</h3><ul id="overlays">${z.overlays.map((o) => html`<li>${districtName(o)}: ${pct(o.share)} of the lot${o.governingSection ? html`, governed by ${refs.note(o.governingSection)}` : ''}</li>`)}</ul>`
    : html`<p>Overlays: none.</p>`
}
</details>`;
}

/** Every status on the page with its label and meaning; the badge look is explained once. */
function statusLegend(statuses: Status[]): Html {
  const seen = [...new Set(statuses)];
  return html`<details class="fold" id="status-legend"><summary><h2 id="legend-h">What the statuses mean</h2></summary>
<p class="muted">Green: read from the bylaw (or worked out from such values). Amber: indicative, check before relying on it. Grey: unknown, never zero and never "no limit". Blue: the bylaw sets no limit.</p>
<dl class="facts">${seen.map((st) => html`<dt>${statusBadge(st)}</dt><dd>${forPeople(STATUS_MEANINGS[st].meaning)}</dd>`)}</dl>
</details>`;
}

function citationsSection(refs: PageRefs): Html {
  if (!refs.citations.length) return html``;
  return html`<details class="fold" id="citations"><summary><h2 id="citations-h">Citations</h2></summary><ol class="footnotes">
${refs.citations.map((c, i) => html`<li id="cite-${i + 1}"><q class="quote">${c.quote}</q> ${c.documentTitle}, § ${c.section} (${link(c.sourceUrl, `edition ${c.date}`)}); <a href="${c.href}">check it in the text siteline holds</a></li>`)}
</ol></details>`;
}

function sourcesSection(all: Record<string, SourceRef>, refs: PageRefs, now: Date): Html {
  // Data layers and the bylaw; the documents the notes name (S1, ...) are listed below, as the notes mention them.
  const sources = Object.entries(all)
    .filter(([id]) => !/^S\d{1,3}$/.test(id))
    .map(([layer, s]) => ({ layer, ...s }));
  const mentioned = [...refs.mentioned].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  if (!sources.length && !mentioned.length) return html``;
  return html`<details class="fold" id="sources"><summary><h2 id="sources-h">Sources</h2></summary>
${sources.length ? html`<h3>Data</h3><ul class="sources">${sources.map((s) => html`<li><strong>${s.name}</strong> (${layerLabel(s.layer)}): ${link(s.url, s.url ? 'source' : '')}${s.url ? ', ' : ''}vintage ${s.vintage}${oldDataNote(s.vintage, now, s.layer)}${s.licence ? `, licence ${s.licence}` : ''}${s.attribution ? html`. <span class="muted">${s.attribution}</span>` : ''}</li>`)}</ul>` : ''}
${
  mentioned.length
    ? html`<h3>Sources named in the notes</h3><dl class="facts" id="rule-sources">${mentioned.map((id) => {
        const d = refs.ruleSources.get(id);
        return html`<dt id="src-${id}">${id}</dt><dd>${d ? html`${link(d.url, d.title)}${d.date ? html` <span class="muted">(${d.date})</span>` : ''}` : html`<span class="muted">not defined in this place's research notes</span>`}</dd>`;
      })}</dl>`
    : ''
}
</details>`;
}

/**
 * The sections below the summary are folded (issue 49, item 6): <details> a tap on the heading opens,
 * so a phone shows the lede, map, summary and warnings first (13,365 px at 390 px wide before, all
 * open). A link to something inside a closed one opens it (assets/page-folds.js).
 */
const FOLD_HEAD = html`<style>
details.fold{border-top:1px solid #ddd;margin:.25rem 0}
details.fold>summary{padding:.35rem 0}
details.fold>summary h2{display:inline;font-size:1.3rem;margin:0}
details.fold[open]>summary{margin-bottom:.5rem}
</style>
<script type="module" src="/assets/page-folds.js?v=${MAPLIBRE_VERSION}"></script>`;

async function answeredBody(ctx: AppContext, s: Snapshot, save: Html, stated: StatedDistrict = {}): Promise<Html> {
  const now = ctx.clock.now();
  const refs = new PageRefs(await ruleSourcesOf(ctx, s), s);
  const envelope = s.envelope ?? {};
  const uses = s.permittedUses ?? [];
  const statuses: Status[] = [s.coverage.status, ...Object.values(envelope).map((v) => v.status), ...uses.map((u) => u.status)];
  // Rendered in page order, so footnotes and source ids number from the top.
  const lede = ledeSection(s, stated);
  const district = districtSection(s);
  const above = s.lot ? html`<div class="cards above-fold">${await mapCard(ctx, s)}${summaryCard(s, refs, now)}</div>` : '';
  const warnings = warningsSection(s, refs);
  const env = envelopeSection(envelope, refs);
  const env3d = await snapshotEnvelope3d(ctx, s);
  const usesHtml = usesSection(uses, refs);
  const zoning = s.zones ? zoningSection(s.zones, refs) : '';
  const lot = s.lot ? lotSection(s, s.lot, now) : '';
  return html`${lede}
${district}
${above}
${save}
${warnings}
${s.envelope ? env : ''}
${s.envelope ? env3d : ''}
${s.permittedUses ? usesHtml : ''}
${zoning}
${lot}
${statusLegend(statuses)}
${citationsSection(refs)}
${sourcesSection(s.sourceCatalogue?.sources ?? {}, refs, now)}
<p class="muted">Generated ${s.generatedAt}.</p>
<h2>Check another address</h2>
${addressForm()}`;
}

/** What "S1" is: the snapshot's own definition, else the place's research notes in its source folder. */
async function ruleSourcesOf(ctx: AppContext, s: Snapshot): Promise<Map<string, RuleSource>> {
  const out = new Map(await researchNoteSources(ctx, s));
  for (const [id, d] of Object.entries(s.sourceCatalogue?.sources ?? {}))
    if (/^S\d{1,3}$/.test(id)) out.set(id, { id, title: d.name, url: d.url ?? null, date: d.vintage });
  return out;
}

async function researchNoteSources(ctx: AppContext, s: Snapshot): Promise<Map<string, RuleSource>> {
  const id = s.coverage.geoDivisionId;
  if (!id) return new Map();
  const place = await getPlace(ctx, id);
  if (!place) return new Map();
  let sourceFolder: string;
  try {
    sourceFolder = loadManifest(place.slug, ctx.config.placesDir).sourceFolder;
  } catch (err) {
    // A catalogued place whose manifest is not on this server has no research notes here. A manifest
    // that is there but does not load is a fault: logged, and the page fails rather than hiding it.
    if (err instanceof SitelineError && err.code === 'not_found') return new Map();
    ctx.logger.error({ place: place.slug, err: err instanceof Error ? err.message : String(err) }, 'site page: the place manifest does not load');
    throw err;
  }
  return ruleSources(ctx, sourceFolder);
}

function suggestionHref(s: Snapshot, suggestion: string): string {
  const place = s.coverage.place;
  const full = place && !suggestion.toLowerCase().includes(place.name.toLowerCase()) ? `${suggestion}, ${place.name}, ${place.region}` : suggestion;
  return `${SITES_PATH}?${new URLSearchParams({ address: full }).toString()}`;
}

/**
 * The heading of an unanswered address says what went wrong: in a covered city, the street (or the
 * address) was not found there, which is not the same as the city not being covered.
 */
export function notCoveredTitle(s: Snapshot): string {
  const c = s.coverage;
  const where = c.place ? `${c.place.name}, ${c.place.region}` : null;
  if (c.status === 'geocode_failed' && where) return /\bno street "/.test(c.message) ? `Street not found in ${where}` : `Address not found in ${where}`;
  if (c.status === 'geo_division_uncatalogued') return s.suggestions?.length ? 'City not recognised' : 'Place not recognised';
  return 'Address not covered';
}

/** The rules page of the place an unanswered address lies in, when the place has rules to read there. */
async function rulesPageOf(ctx: AppContext, s: Snapshot): Promise<{ href: string; name: string } | null> {
  const id = s.coverage.geoDivisionId;
  const place = id ? await getPlace(ctx, id) : null;
  if (!place) return null;
  const rules = await loadPlaceRules(ctx, place.slug).catch(() => null);
  return rules && Object.keys(rules.districts).length ? { href: `/coverage/${place.slug}`, name: `${place.name}, ${place.region}` } : null;
}

function notCoveredBody(s: Snapshot, address: string, rulesPage: { href: string; name: string } | null): Html {
  const c = s.coverage;
  return html`<section id="coverage">
<p>Status: <strong id="coverage-status">${statusBadge(c.status)}</strong>${c.eligibilityKnown ? '' : ' (eligibility could not be determined)'}</p>
<p id="coverage-message">${c.message}</p>
<p class="muted">${STATUS_MEANINGS[c.status].meaning} See <a href="/coverage">which places are covered</a>.</p>
${rulesPage ? html`<p id="rules-link" class="note-box">siteline holds the zoning rules of ${rulesPage.name}, district by district, each value with the bylaw's words: <a href="${rulesPage.href}">read the rules of ${rulesPage.name}</a>.</p>` : ''}
${
  s.suggestions?.length
    ? html`<h2>Did you mean</h2><ul id="suggestions">${s.suggestions.map((x) => html`<li><a href="${suggestionHref(s, x)}">${x}</a></li>`)}</ul>`
    : ''
}
</section>
<h2>Try another address</h2>
${addressForm(address)}`;
}

/** This request's own path and query, as a same-site return target for sign-in. */
function hereOf(c: HttpContext): string {
  const u = new URL(c.req.url);
  return safeNext(`${u.pathname}${u.search}`, SITES_PATH);
}

async function showSite(ctx: AppContext, c: HttpContext): Promise<Response> {
  const account = await currentAccount(ctx, c);
  if (!account) return redirect(c, `/signin?next=${encodeURIComponent(hereOf(c))}`);
  const signedInAs = account.email;
  const query = new URL(c.req.url).searchParams;
  const address = query.get('address');
  const opts = { signedInAs, current: 'sites' as const };
  if (address === null) return htmlPage(c, 200, page('Check an address', addressForm(), opts), PAGE_HEADERS);
  // A place without a zoning map: the district (and building type) the person chose on this page.
  const conditions = query.getAll('condition').filter((c) => c.trim() !== '');
  // A picked lot (issue 49, item 6): `lot`, the lot id typed in or clicked on the map.
  const stated = {
    district: query.get('district') || undefined,
    buildingType: query.get('buildingType') || undefined,
    ...(conditions.length ? { conditions } : {}),
    lotId: query.get('lot')?.trim() || undefined,
  };

  let snapshot: Snapshot;
  try {
    snapshot = (await cachedSnapshot(ctx, address, stated)).snapshot;
  } catch (err) {
    if (err instanceof SitelineError && err.code === 'bad_input') {
      return htmlPage(c, 400, page('Check an address', addressForm(address.slice(0, 300), err.message), opts), PAGE_HEADERS);
    }
    throw err;
  }
  if (!snapshot.answered) {
    return htmlPage(
      c,
      200,
      page(notCoveredTitle(snapshot), notCoveredBody(snapshot, address, await rulesPageOf(ctx, snapshot)), { ...opts, wide: true }),
      PAGE_HEADERS,
    );
  }
  // The page shows every source in full: the snapshot's labels with the place's catalogue inline.
  snapshot = await withSourcesInline(ctx, snapshot);
  const place = snapshot.coverage.place;
  const title = `${snapshot.address?.matchedAddress ?? address}${place ? `, ${place.name}, ${place.region}` : ''}`;
  const save = await saveToProjectSection(ctx, c, account.accountId, snapshot, stated);
  return htmlPage(
    c,
    200,
    page(title, await answeredBody(ctx, snapshot, save, stated), { ...opts, wide: true, head: html`${MAP_HEAD}${FOLD_HEAD}` }),
    mapPageHeaders(ctx.config),
  );
}

/** The home page and the snapshot page (one registration line in src/auth/routes.ts). */
export function registerSitePages(app: HttpApp, ctx: AppContext): void {
  registerHomePage(app, ctx);
  app.pages.get(SITES_PATH, (c) => showSite(ctx, c));
  registerSaveFromSnapshot(app, ctx);
}
