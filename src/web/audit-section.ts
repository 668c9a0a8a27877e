// The accuracy audit of one place on /coverage (src/importer/audit-place.ts): how often the lot
// siteline answers is the one the source itself gives, per match type and per confidence band, and
// what the addresses it cannot check got. The full report is /coverage/<slug>/audit.json.
import type { PlaceRecord } from '../places/catalogue.ts';
import type { PlaceAudit, Rate } from '../importer/audit-report.ts';
import { html, type Html } from '../http/html.ts';
import { MIN_CALIBRATION_SAMPLE } from '../geocoder/calibration.ts';
import { ASSESSOR_FAR_BAND, NOT_FRONTING_CONFIDENCE } from '../geocoder/lot-fronts-street.ts';

const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(2)} %`);
const num = (x: number) => x.toLocaleString('en-US');
const conf = (x: number | null) => (x === null ? '–' : x.toFixed(2));
const MATCH_LABELS: Record<string, string> = {
  address_table: 'Address table',
  assessor_table: "Assessor's table of lot addresses",
  street_interpolation: 'Interpolated along the street',
  failed: 'Not answered',
};
const rateText = (r: Rate) => (r.rate === null ? 'n/a (nothing to check)' : `${num(r.agree)} of ${num(r.checked)} (${pct(r.rate)})`);

export function auditSection(p: PlaceRecord, a: PlaceAudit | undefined): Html {
  const head = html`<h3 id="audit-${p.slug}">Accuracy audit</h3>`;
  if (!a)
    return p.importedAt
      ? html`${head}<p class="muted">No accuracy audit is stored yet: it runs after each import (or <code>siteline data audit ${p.slug}</code>). Until then the confidences of ${p.name}'s answers are uncalibrated: the methods' own scores, not measured shares.</p>`
      : html``;
  const when = html`<p class="muted">Audited ${a.generatedAt.slice(0, 16).replace('T', ' ')} UTC, of the data imported ${(a.importedAt ?? '').slice(0, 10)}${
    p.importedAt && a.importedAt && p.importedAt.slice(0, 19) !== a.importedAt.slice(0, 19) ? ' (an earlier import: a new audit follows the current one)' : ''
  }. <a href="/coverage/${p.slug}/audit.json">The full report (JSON)</a>.</p>`;
  if (a.scope.distinctAddresses === 0) {
    return html`<div class="audit">${head}<p>${p.name} has no address table of its own, so there is nothing to audit address by address.</p>${when}</div>`;
  }
  const h = a.headline;
  const w = a.weakBand;
  return html`<div class="audit">${head}
<p>Every one of the ${num(a.scope.distinctAddresses)} addresses in ${p.name}'s address table${a.scope.sampled ? html` (a sample of ${num(a.scope.audited)})` : ''} was looked up the way an answer is made.
<strong>${num(h.right)} of ${num(h.checked)} answers that could be checked are on the right lot (${pct(h.shareRight)})</strong>;
${num(h.wrong)} are on another lot. Checked against the source's own address-to-lot join: ${rateText(a.agreement.sourceJoin)};
address point inside the answered lot: ${rateText(a.agreement.pointInLot)}.</p>
<p>Weak band: ${w.note} Of them, ${num(w.answered)} get a lot (${w.byMatchType
    .filter((m) => m.matchType !== 'failed')
    .map((m) => `${MATCH_LABELS[m.matchType] ?? m.matchType}: ${num(m.addresses)}, mean confidence ${conf(m.meanConfidence)}`)
    .join('; ')}) and ${num(w.failed)} are not answered.</p>
<div class="table-scroll"><table><caption class="muted" style="text-align:left">By how the address was matched</caption>
<thead><tr><th scope="col">Match</th><th scope="col">Addresses</th><th scope="col">Checked</th><th scope="col">Right lot</th><th scope="col">Mean confidence</th></tr></thead><tbody>
${a.byMatchType.map((m) => html`<tr><td>${MATCH_LABELS[m.matchType] ?? m.matchType}</td><td>${num(m.addresses)}</td><td>${num(m.checked)}</td><td>${m.checked ? html`${num(m.right)} (${pct(m.shareRight)})` : 'cannot be checked'}</td><td>${conf(m.meanConfidence)}</td></tr>`)}
</tbody></table></div>
<div class="table-scroll"><table><caption class="muted" style="text-align:left">Calibration: share on the right lot per confidence band</caption>
<thead><tr><th scope="col">Confidence</th><th scope="col">Answered</th><th scope="col">Checked</th><th scope="col">Share right</th><th scope="col">Mean confidence</th><th scope="col">Cannot be checked</th></tr></thead><tbody>
${a.calibration.filter((c) => c.answered > 0).map((c) => html`<tr><td>${c.band}</td><td>${num(c.answered)}</td><td>${num(c.checked)}</td><td>${pct(c.shareRight)}</td><td>${conf(c.meanConfidence)}</td><td>${num(c.unverifiable)}</td></tr>`)}
</tbody></table></div>
${heldOutTable(p, a)}
${
  a.worstDisagreements.length
    ? html`<p>Worst disagreements (most confident first):</p><ul class="audit-worst">${a.worstDisagreements
        .slice(0, 5)
        .map(
          (d) =>
            html`<li>${d.address}: lot ${d.answeredLot} (${MATCH_LABELS[d.matchType ?? 'failed'] ?? d.matchType}, confidence ${conf(d.confidence)}); the source gives ${d.sourceLots.join(', ') || (d.pointLot ? `the point in ${d.pointLot}` : 'a point in no lot')}${d.distanceM != null ? `, ${d.distanceM} m away` : ''}</li>`,
        )}</ul>`
    : html`<p>No checked answer disagrees with the source.</p>`
}
${when}</div>`;
}

/** The calibration the answers use: each stand-in method's share right per band, with the address's own rows held out. */
function heldOutTable(p: PlaceRecord, a: PlaceAudit): Html {
  const rows = a.heldOut?.rows ?? [];
  if (!rows.length)
    return html`<p class="muted" id="calibration-${p.slug}">No held-out calibration in this audit: the confidences of answers from the assessor's table or an interpolation are the methods' own scores.</p>`;
  return html`<div class="table-scroll" id="calibration-${p.slug}"><table><caption class="muted" style="text-align:left">Confidence as answered: ${num(a.heldOut.heldOut)} addresses held out of the address table and answered by the other methods; an answer in a band with ${MIN_CALIBRATION_SAMPLE} or more reports its share right as its confidence</caption>
<thead><tr><th scope="col">Method</th><th scope="col">Its own score</th><th scope="col">Answered</th><th scope="col">Right lot</th><th scope="col">Confidence reported</th></tr></thead><tbody>
${rows.map((r) => {
  // An assessor's listing on a lot that does not front the named street is a band of its own (src/geocoder/calibration.ts).
  const far = r.band === ASSESSOR_FAR_BAND;
  // Answers on another suffix's address-table row, and interpolations of addresses neither table lists, are rows of their own.
  const population =
    r.population === 'address_sibling' ? ", another suffix's row of the number" : r.population === 'unlisted' ? ', an address neither table lists' : '';
  return html`<tr><td>${MATCH_LABELS[r.matchType] ?? r.matchType}${population}</td><td>${far ? 'any, on a lot that does not front the named street' : r.band}</td><td>${num(r.answered)}</td><td>${num(r.right)} (${pct(r.shareRight)})</td><td>${r.answered >= MIN_CALIBRATION_SAMPLE && r.shareRight !== null ? conf(Math.round(r.shareRight * 100) / 100) : far ? `at most ${NOT_FRONTING_CONFIDENCE} (too few)` : 'its own score (too few)'}</td></tr>`;
})}
</tbody></table></div>`;
}
