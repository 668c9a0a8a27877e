// The project page as an editor: a map of the project's surroundings (our own tiles; the build and
// context lots, and the neighbouring lots saveToProject's radius search would find) where a click
// selects a lot to attach as build or context lot; the same attach by lot id or address (with the
// radius) without JavaScript; detach per lot; the details form (name, lifecycle status, external
// reference). Every write is the domain call the MCP tools make (saveToProject attach_parcels,
// updateProject) or the domain's detachLot; every refusal is worded here for a person — the domain's
// own text speaks to agents (tool and parameter names), which no page shows.
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import type { BBox } from '../core/geo/primitives.ts';
import type { MapView } from '../maps/map-view.ts';
import { mapStyle, LOT_ROLE_STYLE } from '../maps/style.ts';
import { saveToProject, DEFAULT_RADIUS_M, MAX_RADIUS_M } from '../projects/save-to-project.ts';
import { updateProject } from '../projects/update-project.ts';
import { detachLot } from '../projects/detach-lot.ts';
import { lotsAround, lotAtAddress } from '../projects/lots-around.ts';
import { LIFECYCLE_STATUSES, MAX_NAME_CHARS, PROJECT_TYPOLOGIES, TYPOLOGY_WORDS, typologyWords, type LifecycleStatus } from '../projects/project-fields.ts';
import { separateBuildLots, separateLotRemark } from '../projects/lot-adjacency.ts';
import { undoKindOf } from '../projects/undo-change.ts';
import { lotSummary, type ProjectLot } from '../projects/project-lots.ts';
import type { ProjectRow, ProjectSummary } from '../projects/project-store.ts';
import type { FieldChange, Receipt } from '../projects/receipts.ts';
import { nextStepOf, type NextStep } from '../core/next-step.ts';
import { MAPLIBRE_VERSION, MAP_HEAD } from './map-embed.ts';
import { html, type Html } from '../http/html.ts';

/** <head> of a project page with its editor map: MapLibre, the map script, then the editor's click handling. */
export const EDITOR_HEAD: Html = html`${MAP_HEAD}
<script type="module" src="/assets/project-editor.js?v=${MAPLIBRE_VERSION}"></script>`;

/** The lifecycle values in words (the stored value stays the spec's; a select sends it). */
export const LIFECYCLE_WORDS: Record<LifecycleStatus, string> = {
  prospect: 'Prospect',
  due_diligence: 'Due diligence',
  entitlement: 'Entitlement',
  design: 'Design',
  permitting: 'Permitting',
  construction: 'Construction',
  completed: 'Completed',
  on_hold: 'On hold',
  abandoned: 'Abandoned',
};
export const lifecycleWords = (s: string): string => LIFECYCLE_WORDS[s as LifecycleStatus] ?? s;

/** Colours of the neighbouring and the selected lot (the project's own lots keep LOT_ROLE_STYLE). */
export const NEIGHBOUR_STYLE = { line: '#5f6368', fill: '#9aa0a6' };
export const SELECTED_STYLE = { line: '#e8710a', fill: '#fbbc04' };

// --- Refusals and outcomes in words --------------------------------------------------------------

/** The MCP tool names and what a person does on this site instead. */
const TOOL_WORDS: [RegExp, string][] = [
  [/\bsaveToProject\b/g, 'the lot forms on the project page'],
  [/\bupdateProject\b/g, 'the project details form'],
  [/\brunFeasibilityAnalysis\b/g, '“Run the analysis”'],
  [/\bgetProjectContext\b/g, 'the project page'],
  [/\bproduceProjectReport\b/g, '“Export the PDF report”'],
  [/\bsetProjectMapListing\b/g, 'the public map form'],
  [/\bgetFeasibilitySnapshot\b/g, 'the site page'],
  [/\bpreviewSiteCoverage\b|\bcityInventory\b|\bexplainFeasibilityStatus\b|\bgetServiceMcpGuide\b|\bsubmitServiceFeedback\b/g, 'the site pages'],
];

/**
 * A domain sentence made for agents, reworded for a page: the known steps that name a tool become the
 * page's buttons, and any other tool or parameter name left becomes words. The net under the specific
 * wordings below (forPeople), so no page ever shows a tool name.
 */
export function wordedForPeople(text: string): string {
  // The refusals of projects, analysis and reports carry their next step as data (webStep words it);
  // what is left here are warnings that name a parameter (save-to-project's "attach one with action attach_parcels").
  let t = text.replace(/\bwith action attach_parcels\b/g, 'with “Attach as build lot”').replace(/\baction attach_parcels\b/g, '“Attach as build lot”');
  for (const [re, words] of TOOL_WORDS) t = t.replace(re, words);
  return t
    .replace(/\bparcelExternalIds?\b/g, 'lot id')
    .replace(/\bradiusM\b/g, 'search radius')
    .replace(/\bexternalRef\b/g, 'external reference')
    .replace(/\blifecycleStatus\b/g, 'lifecycle status')
    .replace(/\bundoOperationId\b/g, 'change to undo')
    .replace(/\bagentStatus\b/g, 'analysis status');
}

const FIELD_WORDS: Record<string, string> = {
  name: 'the name',
  lifecycleStatus: 'the lifecycle status',
  externalRef: 'the external reference',
  typology: 'the typology',
};

/** What the page says when the domain refuses: specific words for each known refusal, the worded domain text otherwise. */
export function forPeople(err: SitelineError, asked: { radiusM?: number; parcelExternalId?: string } = {}): string {
  const d = (err.details ?? {}) as Record<string, unknown>;
  const field = d['field'];
  const lot = String(d['parcelExternalId'] ?? asked.parcelExternalId ?? '');
  if (field === 'parcelExternalIds') {
    if (typeof d['distanceM'] === 'number') {
      const need = Math.ceil(d['distanceM']) + 10;
      return (
        `Lot ${lot} is about ${d['distanceM'].toLocaleString('en-US')} m from the project's location, beyond the search radius of ${asked.radiusM ?? DEFAULT_RADIUS_M} m. ` +
        (need <= MAX_RADIUS_M
          ? `Set the search radius to at least ${need} m and attach it again.`
          : `That is further than the largest search radius (${MAX_RADIUS_M.toLocaleString('en-US')} m), so it cannot be attached to this project.`) +
        ' Nothing was attached.'
      );
    }
    if (d['currentRole'] === 'build')
      return `Lot ${lot} is this project's build lot, so it cannot also be a context lot. A neighbour whose address leads to this lot is the same lot: click the neighbouring lot on the map, or give its own lot id. Nothing was attached.`;
    if (lot)
      return `No lot ${lot} is known${/ is not a known lot in /.test(err.message) ? " in this project's city" : ''}. Check the lot id, or click the lot on the map. Nothing was attached.`;
    return 'Choose a lot: click it on the map, or give its lot id or its address.';
  }
  if (field === 'radiusM') return `The search radius must be a whole number of metres from 1 to ${MAX_RADIUS_M.toLocaleString('en-US')}. Nothing was attached.`;
  if (field === 'parcelExternalId') {
    if (d['reason'] === 'last_build_lot')
      return `Lot ${lot} is the project's only build lot: the analysis, the map pin and the report stand on it. Attach another build lot first, then detach this one. Nothing was detached.`;
    if (d['reason'] === 'listed_on_map')
      return `The project is on the public map, and its pin stands on the build lots. Remove it from the public map (below) before detaching build lot ${lot}. Nothing was detached.`;
    if (d['reason'] === 'not_attached')
      return `Lot ${lot} is not attached to this project (any more); nothing was detached. The page now shows the lots as they are.`;
    return 'Choose the lot to detach from the table of lots.';
  }
  if (field === 'name')
    return /empty/.test(err.message)
      ? 'Give the project a name; nothing was changed.'
      : `The name is longer than ${MAX_NAME_CHARS} characters; shorten it. Nothing was changed.`;
  if (field === 'typology') return `Choose the typology from the list (${PROJECT_TYPOLOGIES.map((t) => TYPOLOGY_WORDS[t]).join(', ')}). Nothing was changed.`;
  if (field === 'confirm') return 'Tick the box to confirm putting the site back on the public map; nothing was published.';
  if (field === 'lifecycleStatus')
    return `Choose the lifecycle status from the list (${LIFECYCLE_STATUSES.map(lifecycleWords).join(', ')}). Nothing was changed.`;
  if (field === 'externalRef') {
    if (typeof d['otherProjectName'] === 'string')
      return `The external reference is already used by your project “${d['otherProjectName']}”; each of your projects needs its own. Clear it on that project first, or use another. Nothing was changed.`;
    return 'The external reference must look like system:id — a system name of 1 to 40 letters, digits, “.”, “_” or “-” starting with a letter, a colon, then the id in that system (1 to 200 characters, no spaces), e.g. procore:12345. Nothing was changed.';
  }
  if (field === 'undoOperationId') {
    if (/already undone/.test(err.message)) return 'That change was already undone; nothing was changed.';
    const since = Array.isArray(d['changedSince']) ? (d['changedSince'] as string[]) : [];
    if (since.length)
      return `That change cannot be undone: ${since.map((f) => FIELD_WORDS[f] ?? f).join(' and ')} ${since.length > 1 ? 'were' : 'was'} changed again since, and undoing it would overwrite the later change. Undo the later change first, or set the field in Project details. Nothing was changed.`;
    return 'That change cannot be undone from this page; nothing was changed.';
  }
  const next = nextStepOf(d);
  if (next) return `${wordedForPeople(err.message)} ${webStep(next)}`.trim();
  if (err.code === 'conflict') return 'The project changed while this form was filled in; the page now shows it as it is. Try again.';
  if (err.code === 'not_found') return 'This project is no longer there; nothing was changed.';
  return wordedForPeople(err.message);
}

/** A refusal's next step as this page's buttons (the MCP adapter words the same step as tool calls). */
export function webStep(next: NextStep): string {
  switch (next.action) {
    case 'attach_build_lot':
      return `Attach a build lot under Lots (“Attach as build lot”) first${next.then === 'list_on_map' ? ', then list it again' : next.then === 'run_analysis' ? ', then run the analysis again' : ''}.`;
    case 'look_up_lot':
    case 'choose_lot':
      return 'Click the lot on the map, or give its lot id or its address.';
    case 'widen_radius':
      return `Set the search radius to at least ${next.radiusM} m.`;
    case 'clear_external_ref':
      return 'Clear it on that project first, or use another.';
    case 'pick_update_receipt':
    case 'not_reversible':
      return 'Only the changes with an Undo button in the history can be undone.';
    case 'unlist':
      return 'Remove the project from the public map first.';
    case 'reload':
      return 'The page now shows the project as it is.';
    case 'look_up_citation':
      return "Bylaw sections are attached by an agent from a snapshot's citations.";
    case 'run_analysis':
      return `Run the analysis, wait until its status is current${next.then === 'produce_report' ? ', then export the report again' : ''}.`;
  }
}

const roleWords = (role: unknown) => (role === 'context' ? 'context lot' : 'build lot');

/** One history entry's "What", in words: the action done, never the tool that asked for it. */
export function historyWhat(r: Pick<Receipt, 'operation' | 'action' | 'changes' | 'undoes'>): string {
  const fields = r.changes.map((c) => c.field);
  const lotChanges = r.changes.filter((c) => c.field.startsWith('lots.'));
  switch (`${r.operation} ${r.action}`) {
    case 'project.save create':
      return 'Created the project';
    case 'project.save attach_reference':
      return 'Attached a bylaw section';
    case 'project.save attach_parcels': {
      const added = lotChanges.filter((c) => c.before === null && !c.field.endsWith('.role'));
      if (added.length === 1) return `Attached a ${roleWords((added[0]!.after as { role?: string } | null)?.role)}`;
      if (added.length > 1) return `Attached ${added.length} lots`;
      return lotChanges.length ? 'Changed the role of a lot' : 'Attached lots (no change)';
    }
    case 'project.detach detach':
      return `Detached a ${roleWords((lotChanges[0]?.before as { role?: string } | null)?.role)}`;
    case 'project.update update':
    case 'project.update undo': {
      const words = updateWords(r.changes);
      return r.action === 'undo' ? `Undid a change (${words.toLowerCase()})` : words;
    }
    case 'project.map_listing list':
      return r.undoes ? 'Put back on the public map (an undo)' : 'Listed on the public map';
    case 'project.map_listing unlist':
      return r.undoes ? 'Removed from the public map (an undo)' : 'Removed from the public map';
    case 'project.undo undo':
      return `Undid a change (${r.changes.map((c) => changeWords(c)).join(', ')})`;
    case 'analysis.run enqueue':
      return 'Queued the analysis';
    default:
      return fields.length ? 'Changed the project' : 'Recorded a change';
  }
}

function updateWords(changes: FieldChange[]): string {
  const parts = changes.map((c) =>
    c.field === 'name'
      ? 'Renamed the project'
      : c.field === 'lifecycleStatus'
        ? 'Changed the lifecycle status'
        : c.field === 'externalRef'
          ? c.after === null
            ? 'Cleared the external reference'
            : 'Set the external reference'
          : c.field === 'typology'
            ? c.after === null
              ? 'Cleared the typology'
              : 'Set the typology'
            : 'Changed the project',
  );
  return parts.length ? parts.map((p, i) => (i ? p.charAt(0).toLowerCase() + p.slice(1) : p)).join(', ') : 'Changed nothing';
}

/** One change of a receipt as a short verb phrase ("renamed to “B”", "attached lot 97-121"). */
function changeWords(c: FieldChange): string {
  const lot = /^lots\.(.+?)(\.role)?$/.exec(c.field);
  if (c.field === 'name') return `renamed to “${String(c.after)}”`;
  if (c.field === 'lifecycleStatus') return `lifecycle status set to ${lifecycleWords(String(c.after))}`;
  if (c.field === 'externalRef') return c.after === null ? 'external reference cleared' : `external reference set to ${String(c.after)}`;
  if (c.field === 'typology') return c.after === null ? 'typology cleared' : `typology set to ${typologyWords(String(c.after))}`;
  if (lot?.[2]) return `lot ${lot[1]} made a ${roleWords(c.after)}`;
  if (lot) return c.after === null ? `detached lot ${lot[1]}` : `attached lot ${lot[1]} as a ${roleWords((c.after as { role?: string }).role)}`;
  if (c.field.startsWith('references.')) return c.after === null ? 'removed a bylaw section' : 'attached a bylaw section';
  if (c.field === 'mapListing.listed') return c.after ? 'listed on the public map' : 'removed from the public map';
  return 'changed the project';
}

/** The same change the other way round (what an undo of it does). */
const reversed = (c: FieldChange): FieldChange => ({ field: c.field, before: c.after, after: c.before });

/**
 * The label of a history row's button: what pressing it does, named by the change it reverses. A row
 * that is itself an undo is redone by its button ("Redo: renamed to “B”"): the button used to read
 * "Undo" there and redo the change (issue 49). Null when the change cannot be undone.
 */
export function undoButtonLabel(r: Pick<Receipt, 'operation' | 'action' | 'changes' | 'undoes'>): string | null {
  if (!undoKindOf(r)) return null;
  const shown = r.changes.filter((c) => c.field !== 'mapListing.pin');
  if (r.undoes) return `Redo: ${shown.map((c) => changeWords(reversed(c))).join(', ')}`;
  return `Undo: ${shown.map((c) => changeWords(c)).join(', ')}`;
}

/** The outcome of a details save or an undo, in words (what the fields are now). */
function changedText(changes: FieldChange[]): string {
  return changes
    .map((c) =>
      c.field === 'name'
        ? `The name is now “${String(c.after)}”.`
        : c.field === 'lifecycleStatus'
          ? `The lifecycle status is now ${lifecycleWords(String(c.after))}.`
          : c.field === 'externalRef'
            ? c.after === null
              ? 'The external reference was cleared.'
              : `The external reference is now ${String(c.after)}.`
            : c.field === 'typology'
              ? c.after === null
                ? 'The typology was cleared.'
                : `The typology is now ${typologyWords(String(c.after))}.`
              : /^lots\.|^references\.|^mapListing\.listed$/.test(c.field)
                ? `${changeWords(c).charAt(0).toUpperCase()}${changeWords(c).slice(1)}.`
                : '',
    )
    .filter(Boolean)
    .join(' ');
}

// --- The sections of the page ----------------------------------------------------------------------

function padded(b: BBox, deg: number): BBox {
  return [b[0] - deg, b[1] - deg, b[2] + deg, b[3] + deg];
}

/** The editor's map: our tiles, the neighbouring lots (clickable), the project's lots on top, the selection. */
async function editorMap(ctx: AppContext, project: ProjectRow, lots: ProjectLot[], view: MapView): Promise<Html> {
  const frame = view.bounds
    ? padded(view.bounds, 0.0006)
    : project.lat !== null && project.lng !== null
      ? padded([project.lng, project.lat, project.lng, project.lat], 0.0009)
      : null;
  if (!frame) return html`<p class="muted">The project has no location, so there is no map of its surroundings; attach a lot by its id below.</p>`;
  const neighbours = await lotsAround(
    ctx,
    project,
    DEFAULT_RADIUS_M,
    lots.map((l) => l.lot.parcelExternalId),
  );
  const style = mapStyle({ basemapUrl: ctx.config.basemapUrl, lots: view.lots }) as { sources: Record<string, unknown>; layers: Record<string, unknown>[] };
  style.sources['neighbours'] = { type: 'geojson', data: neighbours };
  const at = style.layers.findIndex((l) => l['id'] === 'lots-fill');
  const neighbourLayers = [
    { id: 'neighbours-fill', type: 'fill', source: 'neighbours', paint: { 'fill-color': NEIGHBOUR_STYLE.fill, 'fill-opacity': 0.12 } },
    { id: 'neighbours-line', type: 'line', source: 'neighbours', paint: { 'line-color': NEIGHBOUR_STYLE.line, 'line-width': 1 } },
  ];
  style.layers.splice(at < 0 ? style.layers.length : at, 0, ...neighbourLayers);
  style.layers.push(
    {
      id: 'selected-fill',
      type: 'fill',
      source: 'neighbours',
      filter: ['==', ['get', 'lot'], ''],
      paint: { 'fill-color': SELECTED_STYLE.fill, 'fill-opacity': 0.5 },
    },
    {
      id: 'selected-line',
      type: 'line',
      source: 'neighbours',
      filter: ['==', ['get', 'lot'], ''],
      paint: { 'line-color': SELECTED_STYLE.line, 'line-width': 3 },
    },
  );
  const data = JSON.stringify({ style, bounds: frame, units: 'imperial' });
  const roles = [...new Set(lots.map((l) => l.role))];
  return html`<div class="map" id="project-map" role="region" aria-label="Map of ${project.name} and the lots around it: click a lot to select it" data-map-view="${data}" data-project-editor="${project.project_id}"></div>
<noscript><p class="muted">The map needs JavaScript; attach a lot by its id or address below.</p></noscript>
<ul class="map-legend" aria-label="Map legend">
${roles.map((r) => {
  const st = LOT_ROLE_STYLE[r]!;
  return html`<li><span class="swatch" style="background:${st.fill};border-color:${st.line};border-width:3px"></span>${st.label}</li>`;
})}
<li><span class="swatch" style="background:${NEIGHBOUR_STYLE.fill};border-color:${NEIGHBOUR_STYLE.line}"></span>Neighbouring lot (${neighbours.features.length} within ${DEFAULT_RADIUS_M} m; click one to select it)</li>
<li><span class="swatch" style="background:${SELECTED_STYLE.fill};border-color:${SELECTED_STYLE.line};border-width:3px"></span>Selected lot</li>
</ul>`;
}

/** The Lots section: the map, the attach form (the map's click fills it), the table with a detach button per lot. */
export async function lotsSection(ctx: AppContext, project: ProjectRow, lots: ProjectLot[], view: MapView, csrf: string): Promise<Html> {
  const id = project.project_id;
  // A build lot apart from the others keeps its remark on the page for as long as it is apart.
  const apart = new Map(
    separateBuildLots(
      lots
        .filter((l) => l.role === 'build')
        .sort((a, b) => a.attachedAt.localeCompare(b.attachedAt))
        .map((l) => ({ parcelExternalId: l.lot.parcelExternalId, polygon: l.lot.polygon })),
    ).map((a) => [a.parcelExternalId, separateLotRemark(a)]),
  );
  const rows = lots.map(lotSummary).map(
    (
      l,
    ) => html`<tr data-lot="${l.parcelExternalId}"><td>${l.parcelExternalId}</td><td>${roleWords(l.role)}${apart.has(l.parcelExternalId) ? html`<br><span class="warn lot-remark" role="note">${wordedForPeople(apart.get(l.parcelExternalId)!)}</span>` : ''}</td><td>${l.areaSqft.toLocaleString('en-US')} sqft${l.warnings ? html`<br><span class="warn" role="note">${l.warnings.join(' ')}</span>` : ''}</td><td>${l.districts.map((d) => `${d.code} ${Math.round(d.share * 100)}%`).join(', ')}</td>
<td><form method="post" action="/projects/${id}/lots/detach"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="parcelExternalId" value="${l.parcelExternalId}"><button type="submit" class="nowrap" style="margin-top:0" aria-label="Detach lot ${l.parcelExternalId}">Detach</button></form></td></tr>`,
  );
  return html`<h2>Lots</h2>
${await editorMap(ctx, project, lots, view)}
<form method="post" action="/projects/${id}/lots" id="attach-lot">
<input type="hidden" name="csrf" value="${csrf}">
<p id="map-selection" aria-live="polite">Click a lot on the map to select it, or give its lot id or its address.</p>
<label for="attach-parcel">Lot id</label>
<input id="attach-parcel" name="parcelExternalId" type="text" maxlength="200" autocomplete="off" placeholder="97-127">
<label for="attach-address">or the lot's address</label>
<input id="attach-address" name="address" type="text" maxlength="300" placeholder="13 Acorn St, Cambridge, MA">
<label for="attach-radius">Search radius (metres around the project's location)</label>
<input id="attach-radius" name="radiusM" type="number" min="1" max="${MAX_RADIUS_M}" step="1" value="${DEFAULT_RADIUS_M}">
<button type="submit" name="role" value="build" id="attach-build">Attach as build lot</button>
<button type="submit" name="role" value="context" id="attach-context">Attach as context lot</button>
</form>
<p class="muted">A build lot is land being developed (the analysis, the map pin and the report stand on the build lots); a context lot is surrounding land kept for reference. A lot keeps the facts it had when it was attached.</p>
${lots.length ? html`<table id="project-lots"><thead><tr><th>Lot</th><th>Role</th><th>Area</th><th>Districts</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : html`<p>No lots attached.</p>`}`;
}

/** The details form: rename, lifecycle status, typology, external reference (empty clears it). */
export function detailsSection(p: ProjectSummary, csrf: string): Html {
  return html`<h2>Project details</h2>
<form method="post" action="/projects/${p.projectId}/details" id="project-details">
<input type="hidden" name="csrf" value="${csrf}">
<label for="details-name">Name</label>
<input id="details-name" name="name" type="text" required maxlength="${MAX_NAME_CHARS}" value="${p.name}">
<label for="details-status">Lifecycle status</label>
<select id="details-status" name="lifecycleStatus">${LIFECYCLE_STATUSES.map((s) => html`<option value="${s}"${s === p.lifecycleStatus ? ' selected' : ''}>${LIFECYCLE_WORDS[s]}</option>`)}</select>
<label for="details-typology">Typology (what is planned; shown on the public map when listed)</label>
<select id="details-typology" name="typology"><option value=""${p.typology ? '' : ' selected'}>Not stated</option>${PROJECT_TYPOLOGIES.map((t) => html`<option value="${t}"${t === p.typology ? ' selected' : ''}>${TYPOLOGY_WORDS[t]}</option>`)}</select>
<label for="details-ref">External reference (system:id, e.g. procore:12345; empty clears it)</label>
<input id="details-ref" name="externalRef" type="text" autocomplete="off" value="${p.externalRef ?? ''}">
<button type="submit">Save the details</button>
</form>
<p class="muted">Each saved change is in the history below, with a button to undo it.</p>`;
}

// --- The forms' handlers ------------------------------------------------------------------------------

/** A form handler of the project page (see `action` in project-pages.ts): the page's message, or a refusal. */
export type EditorAction = (
  path: string,
  fn: (accountId: string, projectId: string, form: Record<string, string>) => Promise<string | { location: string }>,
) => void;

/** A form value as a whole number of metres, or the text as given (the domain refuses it in words). */
function radiusOf(raw: string | undefined): number {
  const t = (raw ?? '').trim();
  if (t === '') return DEFAULT_RADIUS_M;
  return /^\d+$/.test(t) ? Number(t) : NaN;
}

export function registerProjectEditor(action: EditorAction, ctx: AppContext): void {
  // Attach: saveToProject attach_parcels, the lot named by id (the map's click fills it) or found at an address.
  action('/projects/:id/lots', async (accountId, projectId, form) => {
    const role = form.role === 'context' ? 'context' : 'build';
    const radiusM = radiusOf(form.radiusM);
    let lotId = (form.parcelExternalId ?? '').trim();
    const address = (form.address ?? '').trim();
    if (!lotId && address) {
      const found = await lotAtAddress(ctx, address);
      if (found.kind === 'not_found')
        return refusal(
          `No lot was found at “${address}”: ${found.reason}${found.suggestions.length ? ` Did you mean: ${found.suggestions.slice(0, 3).join('; ')}?` : ''} Nothing was attached.`,
        );
      lotId = found.parcelExternalId;
    }
    if (!lotId) return refusal('Choose a lot: click it on the map, or give its lot id or its address. Nothing was attached.');
    try {
      const out = await saveToProject(ctx, accountId, { action: 'attach_parcels', projectId, parcelExternalIds: [lotId], role, radiusM, preview: false });
      if (out.kind !== 'written') return 'Nothing was attached.';
      const changes = ((out.result['receipt'] as Receipt | undefined)?.changes ?? []) as FieldChange[];
      if (!changes.length) return `Lot ${lotId} was already attached as a ${roleWords(role)}; nothing changed.`;
      const change = changes[0]!;
      // The remarks the domain made (a build lot apart from the others, a stated district missing), in words.
      const remarks = ((out.result['warnings'] as string[] | undefined) ?? []).map(wordedForPeople).join(' ');
      const done = change.field.endsWith('.role')
        ? `Lot ${lotId} is now a ${roleWords(role)} (it was a ${roleWords(change.before)}).`
        : `Lot ${lotId} attached as a ${roleWords(role)}.`;
      return remarks ? `${done} ${remarks}` : done;
    } catch (err) {
      if (err instanceof SitelineError && err.code !== 'internal') return refusal(forPeople(err, { radiusM, parcelExternalId: lotId }));
      throw err;
    }
  });

  action('/projects/:id/lots/detach', async (accountId, projectId, form) => {
    const lotId = (form.parcelExternalId ?? '').trim();
    try {
      const out = await detachLot(ctx, accountId, { projectId, parcelExternalId: lotId });
      const gone = out['detached'] as { role: string };
      return `Lot ${lotId} detached (it was a ${roleWords(gone.role)}).`;
    } catch (err) {
      if (err instanceof SitelineError && err.code !== 'internal') return refusal(forPeople(err, { parcelExternalId: lotId }));
      throw err;
    }
  });

  // Details: updateProject with the three fields; an empty external reference clears it.
  action('/projects/:id/details', async (accountId, projectId, form) => {
    const ref = (form.externalRef ?? '').trim();
    try {
      const out = await updateProject(ctx, accountId, {
        projectId,
        ...(form.name !== undefined ? { name: form.name } : {}),
        ...(form.lifecycleStatus !== undefined ? { lifecycleStatus: form.lifecycleStatus } : {}),
        externalRef: ref === '' ? null : ref,
        ...(form.typology !== undefined ? { typology: form.typology === '' ? null : form.typology } : {}),
        preview: false,
      });
      if (out.kind !== 'result' || !out.result['written']) return 'Nothing changed: every field already had the value given.';
      return `Saved. ${changedText(((out.result['receipt'] as Receipt).changes ?? []) as FieldChange[])}`;
    } catch (err) {
      if (err instanceof SitelineError && err.code !== 'internal') return refusal(forPeople(err));
      throw err;
    }
  });
}

/** An undo's outcome in words (the undo route lives in project-pages.ts). */
export function undoneText(result: Record<string, unknown>): string {
  if (!result['written']) return 'Nothing was undone: the fields already had their earlier values.';
  return `Undone. ${changedText(((result['receipt'] as Receipt).changes ?? []) as FieldChange[])}`;
}

/** A refusal flashed to the page: marked so the page shows it as an error, not as a success. */
export const REFUSAL_MARK = '!';
export function refusal(text: string): string {
  return REFUSAL_MARK + text;
}
