// The project pages: /projects (the signed-in account's projects) and /projects/:id (the editor —
// map of the surroundings, attach / detach lots, details — see project-editor.ts; the analysis status — the page reloads itself every 5 s while a run is queued or running, no
// JavaScript — the headline numbers, and the receipts history with an undo button for updates).
// Thin adapter over src/projects and src/analysis; every query is the signed-in account's own.
import { setFlash, takeFlash } from '../http/cookies.ts';
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { isStatus, isValueStatus } from '../core/statuses.ts';
import { forPeople as keysInWords, valueLabel, valueWords } from '../core/value-words.ts';
import { statusBadge } from './status-badge.ts';
import { SitelineError } from '../core/errors.ts';
import { listProjects, projectById, summarise } from '../projects/project-store.ts';
import { lotsOfProject } from '../projects/project-lots.ts';
import { receiptOf, receiptsOfProject } from '../projects/receipts.ts';
import { undoChange } from '../projects/undo-change.ts';
import { saveToProject } from '../projects/save-to-project.ts';
import { MAX_NAME_CHARS, typologyWords } from '../projects/project-fields.ts';
import { MAX_ADDRESS_CHARS } from '../geocoder/parse-address.ts';
import { produceProjectReport } from '../reports/project-report.ts';
import { REPORT_AUDIENCES, REPORT_DETAILS, type ReportAudience, type ReportDetail } from '../reports/report-input.ts';
import { runFeasibilityAnalysis } from '../analysis/run-feasibility-analysis.ts';
import { agentStatusOf } from '../analysis/agent-status.ts';
import { latestRun, latestSucceededRun } from '../analysis/run-queue.ts';
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { mapViewForLots, type MapView } from '../maps/map-view.ts';
import {
  EDITOR_HEAD,
  REFUSAL_MARK,
  detailsSection,
  forPeople,
  historyWhat,
  lifecycleWords,
  lotsSection,
  refusal,
  registerProjectEditor,
  undoButtonLabel,
  undoneText,
  wordedForPeople,
} from './project-editor.ts';
import { mapPageHeaders } from '../http/page.ts';
import { listingStateOf, setProjectMapListing } from '../projects/map-listing.ts';
import type { ProjectLot } from '../projects/project-lots.ts';
import { readForm, redirect } from '../http/forms.ts';
import { projectEnvelope3d } from './envelope-3d.ts';
import { csrfOk, csrfToken, currentAccount } from './web-session.ts';
import { readAnalysisResult } from '../analysis/analysis-result.ts';

const HEADERS = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};
/** Seconds between reloads of a project page while its analysis is queued or running. */
export const PROJECT_PAGE_REFRESH_S = 5;
const RECEIPTS_SHOWN = 50;

function notFound(c: HttpContext, email: string): Response {
  return htmlPage(
    c,
    404,
    page('Project not found', html`<p class="error">No project of yours has this address. <a href="/projects">Your projects</a></p>`, { signedInAs: email }),
    HEADERS,
  );
}

const fmt = (v: unknown) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

const num = (x: unknown, digits: number) => (typeof x === 'number' ? x.toFixed(digits) : '?');

/** One change of a receipt for a person: the field's name and values in words, never raw JSON where a shape is known. */
function changeText(field: string, before: unknown, after: unknown): string {
  const value = (v: unknown): string => {
    if (v === null || v === undefined) return '—';
    if (typeof v !== 'object') return String(v);
    const o = v as Record<string, unknown>;
    if ('lat' in o && 'lng' in o)
      return `${num(o['lat'], 5)}, ${num(o['lng'], 5)}${o['locatedBy'] === 'geocoded_address' ? ' (from the address)' : o['locatedBy'] === 'supplied_coordinates' ? ' (as supplied)' : ''}`;
    if (Array.isArray(o['attached']))
      return (o['attached'] as { parcelExternalId?: string; role?: string }[]).map((a) => `lot ${a.parcelExternalId} (${a.role})`).join(', ');
    if ('role' in o) return `${o['role']}${typeof o['areaSqft'] === 'number' ? `, ${Math.round(o['areaSqft']).toLocaleString('en-US')} sq ft` : ''}`;
    return fmt(v);
  };
  const lot = /^lots\.(.+?)(\.role)?$/.exec(field);
  if (lot && !lot[2] && (after === null || after === undefined)) return `lot ${lot[1]} detached (${value(before)})`;
  const name =
    field === 'lots'
      ? 'build lot'
      : lot
        ? lot[2]
          ? `role of lot ${lot[1]}`
          : `lot ${lot[1]}`
        : field.startsWith('references.')
          ? 'bylaw section'
          : ((
              { 'mapListing.listed': 'on the public map', 'mapListing.pin': 'map pin', lifecycleStatus: 'lifecycle', externalRef: 'external ref' } as Record<
                string,
                string
              >
            )[field] ?? field);
  if (field.startsWith('references.')) return `${name} ${after === null || after === undefined ? 'removed' : 'attached'}`;
  if (field === 'typology')
    return `typology: ${typologyWords(before === undefined ? null : (before as string | null))} → ${typologyWords((after ?? null) as string | null)}`;
  if (field === 'lifecycleStatus')
    return before === null || before === undefined
      ? `${name}: ${lifecycleWords(String(after))}`
      : `${name}: ${lifecycleWords(String(before))} → ${lifecycleWords(String(after))}`;
  return before === null || before === undefined ? `${name}: ${value(after)}` : `${name}: ${value(before)} → ${value(after)}`;
}

function sourced(v: { value: number | null; status: string; unit?: string; statedNoLimit?: string; inputs?: string[]; note?: string } | undefined): Html {
  if (!v) return html`—`;
  // Worded as on every surface (src/core/value-words.ts); a value the analysis could not work out says why (its note says it in those words).
  const w = isValueStatus(v.status) ? valueWords({ ...v, status: v.status }) : null;
  const shown = w ? w.says : v.value === null ? 'Unknown' : `${v.value.toLocaleString('en-US')}${v.unit ? ` ${v.unit}` : ''}`;
  const why = w?.why ? keysInWords(v.note?.startsWith('Not calculated:') ? v.note : w.why) : '';
  // The worded badge the snapshot page uses (the raw code stays in its title and data for agents).
  return html`${shown} ${isStatus(v.status) ? statusBadge(v.status) : html`<code class="status">${v.status}</code>`}${why ? html`<br><small class="muted why">${why}</small>` : ''}`;
}

/** The build and context lots on one map (lots of several places are merged). */
async function projectMapView(ctx: AppContext, lots: ProjectLot[]): Promise<MapView> {
  const byPlace = new Map<string, { lotId: string; role: string }[]>();
  for (const l of lots) byPlace.set(l.lot.geoDivisionId, [...(byPlace.get(l.lot.geoDivisionId) ?? []), { lotId: l.lot.parcelExternalId, role: l.role }]);
  const view: MapView = { bounds: null, lots: { type: 'FeatureCollection', features: [] } };
  for (const [placeId, refs] of byPlace) {
    const v = await mapViewForLots(ctx, placeId, refs);
    view.lots.features.push(...v.lots.features);
    if (v.bounds) {
      const b = view.bounds;
      view.bounds = b ? [Math.min(b[0], v.bounds[0]), Math.min(b[1], v.bounds[1]), Math.max(b[2], v.bounds[2]), Math.max(b[3], v.bounds[3])] : v.bounds;
    }
  }
  return view;
}

/** The public-map section: the state, and the list (with its confirmation) or unlist form. */
async function listingSection(ctx: AppContext, accountId: string, projectId: string, csrf: string): Promise<Html> {
  const state = await listingStateOf(ctx.db, projectId);
  if (state.listed) {
    return html`<h2>Public map</h2>
<p id="listing-state">Listed on the <a href="/map">public map</a> since ${state.listedAt?.replace('T', ' ').slice(0, 19) ?? ''} UTC, pin at ${String(state.pin?.lat)}, ${String(state.pin?.lng)}.</p>
<form method="post" action="/projects/${projectId}/listing"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="listed" value="false">
<p class="muted">Removing the pin does not un-share what was public while it was listed.</p><button type="submit">Remove from the public map</button></form>`;
  }
  // biome-ignore lint/suspicious/noExplicitAny: the preview JSON is read by field names
  let preview: Record<string, any> | null = null;
  let refusal: string | null = null;
  try {
    const out = await setProjectMapListing(ctx, accountId, { projectId, listed: true, preview: true });
    if (out.kind === 'result') preview = out.result;
  } catch (err) {
    if (!(err instanceof SitelineError) || err.code === 'internal') throw err;
    refusal = forPeople(err);
  }
  if (!preview) return html`<h2>Public map</h2><p id="listing-state">Not listed. ${refusal ?? ''}</p>`;
  const show = preview['wouldShow'] as { name: string; zoneCategory: string; typology: string; lifecycleStatus: string; pin: { lat: number; lng: number } };
  return html`<h2>Public map</h2>
<p id="listing-state">Not listed${state.firstListedAt ? ' (it was listed before)' : ''}.</p>
<p>Listing shows anyone, signed in or not, a pin at ${String(show.pin.lat)}, ${String(show.pin.lng)} (the build lot's centre) with: name “${show.name}”, zone category ${show.zoneCategory}, typology ${typologyWords(show.typology)}, lifecycle status ${lifecycleWords(show.lifecycleStatus)}.</p>
<ul class="note-box">${(preview['warnings'] as string[]).map((w) => html`<li>${wordedForPeople(w)}</li>`)}</ul>
<form method="post" action="/projects/${projectId}/listing"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="listed" value="true">
<label><input type="checkbox" name="confirm" value="yes" required> Yes, make this site public on the map</label>
<button type="submit">List on the public map</button></form>`;
}

/** The new-project form: a name and an address, as the create of saveToProject takes them (the address is geocoded). */
function createForm(csrf: string, values: { name?: string; address?: string } = {}, error?: string): Html {
  return html`<h2>New project</h2>
${error ? html`<p class="error" role="alert" id="create-error">${error}</p>` : ''}
<form method="post" action="/projects" id="create-project">
<input type="hidden" name="csrf" value="${csrf}">
<label for="project-name">Name</label>
<input id="project-name" name="name" type="text" required maxlength="${MAX_NAME_CHARS}" value="${values.name ?? ''}">
<label for="project-address">Address of the site</label>
<input id="project-address" name="address" type="text" required maxlength="${MAX_ADDRESS_CHARS}" autocomplete="street-address" placeholder="11 Acorn St, Cambridge, MA" value="${values.address ?? ''}">
<button type="submit">Create the project</button>
</form>
<p class="muted">The lot at the address becomes the project's build lot; agents you connect reach the same projects.</p>`;
}

// Long because: a registrar declares one family of routes on the router, each route a short handler of its own;
// splitting it would scatter one page's GET and POST across files.
export function registerProjectPages(app: HttpApp, ctx: AppContext): void {
  const listPage = async (
    c: HttpContext,
    account: { accountId: string; email: string },
    status = 200,
    form?: { values: { name?: string; address?: string }; error: string },
  ) => {
    const list = await listProjects(ctx, account.accountId);
    const csrf = csrfToken(ctx, c);
    const rows = list.projects.map(
      (p) =>
        html`<tr><td><a href="/projects/${p.projectId}">${p.name}</a></td><td>${p.address ?? ''}</td><td>${lifecycleWords(p.lifecycleStatus)}</td><td>${p.externalRef ?? ''}</td><td>${p.updatedAt.slice(0, 10)}</td></tr>`,
    );
    const body = html`${
      list.projects.length
        ? html`<table><thead><tr><th>Project</th><th>Address</th><th>Lifecycle</th><th>External ref</th><th>Updated</th></tr></thead><tbody>${rows}</tbody></table>
${list.hasMore ? html`<p>${list.total - list.projects.length} more not shown.</p>` : ''}`
        : html`<p>No projects yet. Create one below, or let an agent you connected create them.</p>`
    }
${createForm(csrf, form?.values, form?.error)}`;
    return htmlPage(c, status, page('Your projects', body, { signedInAs: account.email, wide: true, current: 'projects' }), HEADERS);
  };

  app.pages.get('/projects', async (c) => {
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/projects');
    return await listPage(c, account);
  });

  // The web path of saveToProject's create: the same domain call, its refusal shown on the form.
  app.pages.post('/projects', async (c) => {
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/projects');
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form))
      return htmlPage(c, 403, page('Form expired', html`<p class="error">This form could not be verified. Reload the page and try again.</p>`), HEADERS);
    const values = { name: form.name ?? '', address: form.address ?? '' };
    try {
      if (!values.address.trim()) throw new SitelineError('bad_input', 'Give the address of the site.');
      const out = await saveToProject(ctx, account.accountId, { action: 'create', name: values.name, address: values.address, preview: false });
      if (out.kind !== 'written') throw new SitelineError('bad_input', 'Nothing was created.');
      const created = out.result['project'] as { projectId: string };
      const warnings = (out.result['warnings'] as string[] | undefined) ?? [];
      setFlash(ctx.config, c, `/projects/${created.projectId}`, ['Project created.', ...warnings].join(' '));
      return redirect(c, `/projects/${created.projectId}`);
    } catch (err) {
      if (!(err instanceof SitelineError) || err.code === 'internal') throw err;
      return await listPage(c, account, 400, { values, error: wordedForPeople(err.message) });
    }
  });

  app.pages.get('/projects/:id', async (c) => {
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, `/signin?next=${encodeURIComponent(`/projects/${c.req.param('id')}`)}`);
    const project = await projectById(ctx.db, account.accountId, c.req.param('id') ?? '');
    if (!project) return notFound(c, account.email);
    const p = summarise(project);
    const csrf = csrfToken(ctx, c);
    const lots = await lotsOfProject(ctx.db, project.project_id);
    const latest = await latestRun(ctx.db, project.project_id);
    const status = await agentStatusOf(ctx, project.project_id, latest, lots);
    const done = latest?.status === 'succeeded' ? latest : await latestSucceededRun(ctx.db, project.project_id);
    const analysis = done?.result ? readAnalysisResult(done.result) : null;
    const receipts = (await receiptsOfProject(ctx.db, account.accountId, project.project_id, RECEIPTS_SHOWN)).map(receiptOf);
    const undone = new Set(receipts.map((r) => r.undoes).filter(Boolean));
    // A form's outcome is shown once: a reload (or the page's own refresh while a run works) drops it.
    const message = takeFlash(ctx.config, c, `/projects/${project.project_id}`);
    const working = status.status === 'queued' || status.status === 'running';
    const derived = analysis?.derived as Record<string, { value: number | null; status: string; unit?: string; inputs?: string[]; note?: string }> | undefined;
    const receiptRows = receipts.map((r) => {
      // Every recorded change has its button, named by what pressing it does (an undo's row redoes).
      const label = undone.has(r.receiptId) ? null : undoButtonLabel(r);
      // Putting a site back on the public map publishes it: the same confirmation as listing it.
      const relist = r.operation === 'project.map_listing' && r.action === 'unlist';
      return html`<tr><td class="when">${r.at.slice(0, 10)}<br>${r.at.slice(11, 16)}</td><td>${historyWhat(r)}</td><td class="note">${r.changes.map((c) => changeText(c.field, c.before, c.after)).join('; ') || 'no change'}</td>
<td>${label ? html`<form method="post" action="/projects/${p.projectId}/undo" class="undo"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="receiptId" value="${r.receiptId}">${relist ? html`<label><input type="checkbox" name="confirm" value="yes" required> Yes, make this site public again</label>` : ''}<button type="submit" class="undo-button">${label}</button></form>` : ''}</td></tr>`;
    });
    const view = await projectMapView(ctx, lots);
    const listing = await listingSection(ctx, account.accountId, project.project_id, csrf);
    // A refusal is flashed with REFUSAL_MARK: shown as an error, not as a success.
    const refused = message?.startsWith(REFUSAL_MARK) ?? false;
    const shownMessage = refused ? message!.slice(REFUSAL_MARK.length) : message;
    const hasMap = view.bounds !== null || (project.lat !== null && project.lng !== null);
    const body = html`${shownMessage ? html`<p id="page-message" class="${refused ? 'error' : 'ok'}" role="${refused ? 'alert' : 'status'}">${shownMessage}</p>` : ''}
<p>${p.address ?? ''} · <span id="project-lifecycle">${lifecycleWords(p.lifecycleStatus)}</span>${p.typology ? html` · <span id="project-typology">${typologyWords(p.typology)}</span>` : ''}${p.externalRef ? html` · <span id="project-ref">${p.externalRef}</span>` : ''}</p>
${await lotsSection(ctx, project, lots, view, csrf)}
${detailsSection(p, csrf)}
${listing}
<h2>Analysis</h2>
<p id="analysis-status">Status: <code class="status">${status.status}</code>${status.inputsChanged ? ' — the lots or rules changed since this run; run it again' : ''}${status.error ? html` — ${wordedForPeople(status.error)}` : ''}${working ? ` (this page reloads every ${PROJECT_PAGE_REFRESH_S} s)` : ''}</p>
${
  derived
    ? html`<table><tbody>
<tr><th>Combined build-lot area</th><td>${analysis!.combinedLotArea?.value?.toLocaleString('en-US') ?? '—'} sqft</td></tr>
<tr><th>Districts</th><td>${(analysis!.governingDistricts ?? []).map((d: { code: string; areaShare: number }) => `${d.code} ${Math.round(d.areaShare * 100)}%`).join(', ')}</td></tr>
<tr><th>${valueLabel('maxFloorAreaSqft')}</th><td>${sourced(derived['maxFloorAreaSqft'])}</td></tr>
<tr><th>${valueLabel('maxDwellingUnits')}</th><td>${sourced(derived['maxDwellingUnits'])}</td></tr>
<tr><th>${valueLabel('buildableFootprintSqft')}</th><td>${sourced(derived['buildableFootprintSqft'])}</td></tr>
<tr><th>${valueLabel('maxStoreys')}</th><td>${sourced(derived['maxStoreys'])}</td></tr>
<tr><th>${valueLabel('maxHeightFt')}</th><td>${sourced(derived['maxHeightFt'])}</td></tr>
<tr><th>${valueLabel('gfaEnvelopeSqft')}</th><td>${sourced(derived['gfaEnvelopeSqft'])}</td></tr>
</tbody></table>`
    : ''
}
${projectEnvelope3d(lots, analysis)}
<form method="post" action="/projects/${p.projectId}/analyze"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Run the analysis</button></form>
<h2>Report</h2>
<form method="post" action="/projects/${p.projectId}/report" id="export-report">
<input type="hidden" name="csrf" value="${csrf}">
<label for="report-audience">For</label>
<select id="report-audience" name="audience">${REPORT_AUDIENCES.map((a) => html`<option value="${a}">${a}</option>`)}</select>
<label for="report-detail">Detail</label>
<select id="report-detail" name="detail">${REPORT_DETAILS.map((d) => html`<option value="${d}"${d === 'detailed' ? ' selected' : ''}>${d}</option>`)}</select>
<button type="submit">Export the PDF report</button>
</form>
<p class="muted">The report is built from the latest finished analysis; each export counts against this month's report exports (your account page shows how many are left).</p>
<h2>History</h2>
${receipts.length ? html`<table id="history"><thead><tr><th>When (UTC)</th><th>What</th><th>Changes</th><th></th></tr></thead><tbody>${receiptRows}</tbody></table>` : html`<p>No changes yet.</p>`}
<p><a href="/projects">All projects</a></p>`;
    const out = page(p.name, body, { signedInAs: account.email, wide: true, ...(hasMap ? { head: EDITOR_HEAD } : {}) });
    // A meta refresh keeps the status current without page JavaScript (the map's own script aside).
    return htmlPage(
      c,
      200,
      working ? out.replace('<head>', `<head>\n<meta http-equiv="refresh" content="${PROJECT_PAGE_REFRESH_S}">`) : out,
      hasMap ? mapPageHeaders(ctx.config) : HEADERS,
    );
  });

  /**
   * A form on a project page: signed in, CSRF-checked, the caller's own project. `fn` answers with the
   * message the page shows, or with where to go instead; a refusal comes back as the page's message.
   */
  const action = (path: string, fn: (accountId: string, projectId: string, form: Record<string, string>) => Promise<string | { location: string }>) =>
    app.pages.post(path, async (c) => {
      const account = await currentAccount(ctx, c);
      if (!account) return redirect(c, '/signin?next=/projects');
      const form = await readForm(c);
      if (!csrfOk(ctx, c, form))
        return htmlPage(c, 403, page('Form expired', html`<p class="error">This form could not be verified. Reload the page and try again.</p>`), HEADERS);
      const project = await projectById(ctx.db, account.accountId, c.req.param('id') ?? '');
      if (!project) return notFound(c, account.email);
      let outcome: string | { location: string };
      try {
        outcome = await fn(account.accountId, project.project_id, form);
      } catch (err) {
        if (!(err instanceof SitelineError) || err.code === 'internal') throw err;
        outcome = refusal(forPeople(err));
      }
      if (typeof outcome === 'string') {
        setFlash(ctx.config, c, `/projects/${project.project_id}`, outcome);
        return redirect(c, `/projects/${project.project_id}`);
      }
      return redirect(c, outcome.location);
    });

  // Undo (or redo) any recorded change by its receipt: the domain's undoChange, for every kind of change.
  action('/projects/:id/undo', async (accountId, projectId, form) => {
    const out = await undoChange(ctx, accountId, { projectId, receiptId: form.receiptId ?? '', confirmedByHuman: form.confirm === 'yes' });
    return undoneText(out);
  });
  // The web path of setProjectMapListing: the signed-in human ticking the box is the confirmation.
  action('/projects/:id/listing', async (accountId, projectId, form) => {
    const listed = form.listed === 'true';
    if (listed && form.confirm !== 'yes') return refusal('Tick the confirmation box to list this site; nothing was published.');
    const out = await setProjectMapListing(ctx, accountId, { projectId, listed, preview: false, confirmedByHuman: listed });
    if (out.kind !== 'result') return 'Nothing was published.';
    if (!out.result['written']) return String(out.result['note'] ?? 'Nothing changed.');
    return listed ? 'Listed on the public map.' : 'Removed from the public map. What was public while it was listed was not un-shared.';
  });
  // The web path of produceProjectReport: the person pressing Export is the confirmation; the PDF
  // opens from its signed link. A refusal (no finished analysis, the month's exports used) is the page's message.
  action('/projects/:id/report', async (accountId, projectId, form) => {
    const audience = (REPORT_AUDIENCES as readonly string[]).includes(form.audience ?? '') ? (form.audience as ReportAudience) : 'investor';
    const detail = (REPORT_DETAILS as readonly string[]).includes(form.detail ?? '') ? (form.detail as ReportDetail) : 'detailed';
    const out = await produceProjectReport(ctx, accountId, { projectId, audience, detail, preview: false, confirm: true });
    if (out.kind !== 'exported') return 'No report was exported.';
    const link = new URL(out.url); // the signed link, on this same site
    return { location: link.pathname + link.search };
  });
  action('/projects/:id/analyze', async (accountId, projectId) => {
    await runFeasibilityAnalysis(ctx, accountId, { projectId });
    return 'Analysis queued.';
  });
  // Attach, detach and the details form (project-editor.ts), through the same helper.
  registerProjectEditor(action, ctx);
}
