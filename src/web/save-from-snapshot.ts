// "Save to a project" on the snapshot page (issue 49): the lot the page shows goes into a new project
// (named, by default, after the address) or into one of the signed-in account's projects (as a build
// or a context lot). The same domain call the MCP tool makes (saveToProject create / attach_parcels);
// the outcome, remarks included, is shown on the project page the form leads to.
import type { AppContext } from '../context.ts';
import type { HttpApp, HttpContext } from '../http/http-app.ts';
import { SitelineError } from '../core/errors.ts';
import type { Snapshot } from '../core/snapshot-types.ts';
import { setFlash } from '../http/cookies.ts';
import { readForm, redirect } from '../http/forms.ts';
import { html, type Html } from '../http/html.ts';
import { htmlPage, page, PAGE_HEADERS } from '../http/page.ts';
import { listProjects } from '../projects/project-store.ts';
import { saveToProject, MAX_RADIUS_M } from '../projects/save-to-project.ts';
import { MAX_NAME_CHARS } from '../projects/project-fields.ts';
import { csrfOk, csrfToken, currentAccount } from './web-session.ts';
import { forPeople, refusal, wordedForPeople } from './project-editor.ts';

export const SAVE_FROM_SNAPSHOT_PATH = '/sites/save';

/** What the snapshot page was asked with, for a place without a zoning map (the district the person chose). */
export interface StatedChoice {
  district?: string | undefined;
  buildingType?: string | undefined;
  conditions?: string[] | undefined;
}

/** The section: closed until opened (the page stays short on a phone), one form for a new or an existing project. */
export async function saveToProjectSection(ctx: AppContext, c: HttpContext, accountId: string, s: Snapshot, stated: StatedChoice): Promise<Html> {
  const lot = s.lot;
  if (!lot) return html``;
  const projects = (await listProjects(ctx, accountId)).projects;
  const name = `${s.address?.matchedAddress ?? s.address?.input ?? 'New project'}`.slice(0, MAX_NAME_CHARS);
  return html`<details id="save-to-project" class="card"><summary><h2 style="display:inline">Save to a project</h2></summary>
<form method="post" action="${SAVE_FROM_SNAPSHOT_PATH}" id="save-to-project-form">
<input type="hidden" name="csrf" value="${csrfToken(ctx, c)}">
<input type="hidden" name="address" value="${s.address?.input ?? ''}">
<input type="hidden" name="lat" value="${String(lot.latitude)}"><input type="hidden" name="lng" value="${String(lot.longitude)}">
<input type="hidden" name="parcelExternalId" value="${lot.parcelExternalId}">
${stated.district ? html`<input type="hidden" name="district" value="${stated.district}">` : ''}${stated.buildingType ? html`<input type="hidden" name="buildingType" value="${stated.buildingType}">` : ''}${stated.conditions?.length ? html`<input type="hidden" name="conditions" value="${JSON.stringify(stated.conditions)}">` : ''}
<label for="save-project">Project</label>
<select id="save-project" name="projectId"><option value="">A new project</option>${projects.map((p) => html`<option value="${p.projectId}">${p.name}</option>`)}</select>
<label for="save-name">Name of the new project</label>
<input id="save-name" name="name" type="text" maxlength="${MAX_NAME_CHARS}" value="${name}">
<label for="save-role">Lot ${lot.parcelExternalId} in an existing project, as</label>
<select id="save-role" name="role"><option value="build">a build lot (land being developed)</option><option value="context">a context lot (kept for reference)</option></select>
<button type="submit" id="save-to-project-button">Save lot ${lot.parcelExternalId}</button>
</form>
<p class="muted">A new project takes this lot as its build lot. The project keeps the lot's facts as they are today.</p>
</details>`;
}

/** The stated conditions the page carried (a JSON list of "key=value"); anything else is none. */
function conditionsOf(raw: string | undefined): string[] {
  if (!raw) return [];
  try {
    const v: unknown = JSON.parse(raw);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').slice(0, 20) : [];
  } catch {
    return [];
  }
}

const num = (raw: string | undefined): number | undefined => (raw !== undefined && raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : undefined);

export function registerSaveFromSnapshot(app: HttpApp, ctx: AppContext): void {
  app.pages.post(SAVE_FROM_SNAPSHOT_PATH, async (c) => {
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/sites');
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form))
      return htmlPage(c, 403, page('Form expired', html`<p class="error">This form could not be verified. Reload the page and try again.</p>`), PAGE_HEADERS);
    const conditions = conditionsOf(form.conditions);
    const stated = { district: form.district || undefined, buildingType: form.buildingType || undefined, ...(conditions.length ? { conditions } : {}) };
    const lotId = (form.parcelExternalId ?? '').trim();
    const projectId = (form.projectId ?? '').trim();
    try {
      if (!projectId) {
        // A new project on the lot the page shows: its point inside the lot, with the address as written.
        const out = await saveToProject(ctx, account.accountId, {
          action: 'create',
          name: form.name ?? '',
          address: form.address,
          lat: num(form.lat),
          lng: num(form.lng),
          ...stated,
          preview: false,
        });
        if (out.kind !== 'written') throw new SitelineError('bad_input', 'Nothing was created.');
        const created = (out.result['project'] as { projectId: string }).projectId;
        const remarks = ((out.result['warnings'] as string[] | undefined) ?? []).map(wordedForPeople);
        setFlash(ctx.config, c, `/projects/${created}`, [`Project created with lot ${lotId} as its build lot.`, ...remarks].join(' '));
        return redirect(c, `/projects/${created}`);
      }
      const role = form.role === 'context' ? 'context' : 'build';
      // The person chose the project by name: the lot may lie anywhere in its place (the widest search).
      const out = await saveToProject(ctx, account.accountId, {
        action: 'attach_parcels',
        projectId,
        parcelExternalIds: [lotId],
        role,
        radiusM: MAX_RADIUS_M,
        ...stated,
        preview: false,
      });
      if (out.kind !== 'written') throw new SitelineError('bad_input', 'Nothing was attached.');
      const changed = ((out.result['receipt'] as { changes?: unknown[] } | undefined)?.changes ?? []).length > 0;
      const remarks = ((out.result['warnings'] as string[] | undefined) ?? []).map(wordedForPeople);
      setFlash(
        ctx.config,
        c,
        `/projects/${projectId}`,
        [changed ? `Lot ${lotId} saved to this project as a ${role} lot.` : `Lot ${lotId} was already in this project; nothing changed.`, ...remarks].join(' '),
      );
      return redirect(c, `/projects/${projectId}`);
    } catch (err) {
      if (!(err instanceof SitelineError) || err.code === 'internal') throw err;
      // The refusal in words, where the person can act on it: the project's page, or back on the address.
      const words = forPeople(err, { radiusM: MAX_RADIUS_M, parcelExternalId: lotId });
      if (projectId && err.code !== 'not_found') {
        setFlash(ctx.config, c, `/projects/${projectId}`, refusal(words));
        return redirect(c, `/projects/${projectId}`);
      }
      return htmlPage(
        c,
        400,
        page(
          'Not saved',
          html`<p class="error" role="alert" id="save-error">${words}</p><p><a href="/sites?${new URLSearchParams({ address: form.address ?? '' }).toString()}">Back to the address</a> · <a href="/projects">Your projects</a></p>`,
          { signedInAs: account.email },
        ),
        PAGE_HEADERS,
      );
    }
  });
}
