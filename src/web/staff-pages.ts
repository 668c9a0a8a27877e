// /staff: what the people running siteline do on the running service, as web forms: grant credit,
// revoke a key for abuse, make accounts staff or not, set an account's monthly export allowance, review feedback (from /staff/feedback), and the
// record of every staff action at /staff/actions. Signed-in staff accounts only (verified accounts
// made staff by id: src/staff/staff-members.ts, src/web/staff-access.ts), forms CSRF-checked.
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { SitelineError } from '../core/errors.ts';
import {
  grantCredit,
  listStaffActions,
  REASON_MAX,
  reviewFeedback,
  revokeKeyForAbuse,
  setExportAllowance,
  type StaffActionKind,
  type StaffActor,
} from '../staff/staff-actions.ts';
import { MAX_EXPORTS_PER_MONTH, REPORT_EXPORTS_PER_MONTH } from '../reports/export-store.ts';
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { readForm } from '../http/forms.ts';
import { csrfFailure, PAGE_HEADERS } from './account-pages.ts';
import { csrfOk, csrfToken } from './web-session.ts';
import { staffOnPage } from './staff-access.ts';
import { addStaff, listStaff, removeStaff, type StaffListing } from '../staff/staff-members.ts';
import { valueLabel } from '../core/value-words.ts';

const ACTION_LABELS: Record<StaffActionKind, string> = {
  credit_grant: 'Credit grant',
  feedback_review: 'Feedback review',
  key_revoke: 'Key revoked',
  feedback_view: 'Feedback read',
  staff_add: 'Made staff',
  staff_remove: 'Staff rights removed',
  export_allowance: 'Export allowance set',
};

const day = (iso: string) => iso.slice(0, 16).replace('T', ' ');

function staffIndex(csrf: string, staff: StaffListing[], notice?: Html): Html {
  const members = staff.map(
    (m) => html`<li><strong>${m.email}</strong> (since ${day(m.addedAt)} UTC, by ${m.addedBy})
<form method="post" action="/staff/members/remove" class="inline"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="email" value="${m.email}"><button type="submit" aria-label="Remove the staff rights of ${m.email}">Remove staff rights</button></form></li>`,
  );
  return html`${notice ?? ''}
<p><a href="/staff/feedback">Feedback</a> · <a href="/staff/mail">Mail queue</a> · <a href="/staff/actions">Record of staff actions</a></p>
<h2>Staff</h2>
<ul id="staff-members">${members}</ul>
<form method="post" action="/staff/members" id="staff-add-form">
<input type="hidden" name="csrf" value="${csrf}">
<label for="staff-email">Make an account staff (its e-mail address must be verified)</label><input id="staff-email" name="email" type="email" required>
<label for="staff-reason">Why (kept with the action)</label><input id="staff-reason" name="reason" type="text" maxlength="${REASON_MAX}">
<button type="submit">Make staff</button>
</form>
<h2>Grant API credit</h2>
<form method="post" action="/staff/credit-grants" id="grant-form">
<input type="hidden" name="csrf" value="${csrf}">
<label for="email">Account e-mail</label><input id="email" name="email" type="email" required>
<label for="credits">Credits</label><input id="credits" name="credits" type="number" min="1" step="1" required>
<label for="grant-reason">Why (kept with the grant)</label><input id="grant-reason" name="reason" type="text" maxlength="${REASON_MAX}" required>
<button type="submit">Grant credit</button>
</form>
<h2>Monthly report export allowance</h2>
<form method="post" action="/staff/export-allowances" id="allowance-form">
<input type="hidden" name="csrf" value="${csrf}">
<label for="allowance-email">Account e-mail</label><input id="allowance-email" name="email" type="email" required>
<label for="allowance">Project report exports a month (default ${String(REPORT_EXPORTS_PER_MONTH)})</label><input id="allowance" name="allowance" type="number" min="0" max="${String(MAX_EXPORTS_PER_MONTH)}" step="1" required>
<label for="allowance-reason">Why (kept with the change)</label><input id="allowance-reason" name="reason" type="text" maxlength="${REASON_MAX}" required>
<button type="submit">Set the allowance</button>
</form>
<h2>Revoke an API key (abuse)</h2>
<form method="post" action="/staff/keys/revoke" id="revoke-form">
<input type="hidden" name="csrf" value="${csrf}">
<label for="key-id">Key id</label><input id="key-id" name="keyId" type="text" required>
<label for="revoke-reason">Why</label><input id="revoke-reason" name="reason" type="text" maxlength="${REASON_MAX}" required>
<button type="submit">Revoke the key</button>
</form>
<p><small>The same actions from a terminal, while the service runs (no restart): <code>siteline credits grant</code>, <code>siteline feedback review</code>, <code>siteline staff add|remove|revoke-key</code>, after <code>siteline login</code> as a staff account, or on the machine the service runs on as its operator (the credential the server writes into its data directory; the command line's guide says how).</small></p>`;
}

export function registerStaffPages(app: HttpApp, ctx: AppContext): void {
  const showIndex = async (c: HttpContext, status: number, actor: StaffActor, notice?: Html) =>
    htmlPage(c, status, page('Staff', staffIndex(csrfToken(ctx, c), await listStaff(ctx), notice), { signedInAs: actor.who }), PAGE_HEADERS);

  /** Runs a form's action: a refused one re-shows the page with the reason, and nothing changed. */
  const formAction = (path: string, back: string, act: (actor: StaffActor, form: Record<string, string>, params: Record<string, string>) => Promise<Html>) => {
    app.pages.post(path, async (c) => {
      const form = await readForm(c);
      if (!csrfOk(ctx, c, form)) return csrfFailure(c);
      const actor = await staffOnPage(ctx, c, back);
      if (actor instanceof Response) return actor;
      try {
        const done = await act(actor, form, c.req.param());
        return await showIndex(c, 200, actor, html`<p class="ok" role="status" id="staff-done">${done}</p>`);
      } catch (e) {
        if (!(e instanceof SitelineError) || e.code === 'internal') throw e;
        return await showIndex(
          c,
          e.code === 'not_found' ? 404 : e.code === 'conflict' ? 409 : 400,
          actor,
          html`<p class="error" role="alert" id="staff-refused">${e.message.replace(/ Nothing was changed\.$/, '')} Nothing was changed.</p>`,
        );
      }
    });
  };

  app.pages.get('/staff', async (c) => {
    const actor = await staffOnPage(ctx, c, '/staff');
    return actor instanceof Response ? actor : showIndex(c, 200, actor);
  });

  formAction('/staff/members', '/staff', async (actor, form) => {
    const r = await addStaff(ctx, actor, { email: form.email ?? '', reason: form.reason });
    return r.changed ? html`${r.email} is staff now.` : html`${r.email} was already staff; nothing changed.`;
  });

  formAction('/staff/members/remove', '/staff', async (actor, form) => {
    const r = await removeStaff(ctx, actor, { email: form.email ?? '', reason: form.reason });
    return r.changed ? html`${r.email} is no longer staff.` : html`${r.email} was not staff; nothing changed.`;
  });

  formAction('/staff/credit-grants', '/staff', async (actor, form) => {
    const credits = /^\d+$/.test(form.credits ?? '') ? Number(form.credits) : Number.NaN;
    const r = await grantCredit(ctx, actor, { email: form.email ?? '', credits, reason: form.reason });
    return html`Granted ${String(r.granted)} credits to ${r.email}; balance ${String(r.balance)}.`;
  });

  formAction('/staff/export-allowances', '/staff', async (actor, form) => {
    const allowance = /^\d+$/.test(form.allowance ?? '') ? Number(form.allowance) : Number.NaN;
    const r = await setExportAllowance(ctx, actor, { email: form.email ?? '', allowance, reason: form.reason });
    return html`${r.email} may export ${String(r.allowance)} project reports a month (was ${String(r.from)}).`;
  });

  formAction('/staff/keys/revoke', '/staff', async (actor, form) => {
    const r = await revokeKeyForAbuse(ctx, actor, { keyId: form.keyId ?? '', reason: form.reason });
    return html`Key ${r.keyId} of ${r.accountEmail} is revoked (since ${r.revokedAt.slice(0, 16).replace('T', ' ')} UTC).`;
  });

  formAction('/staff/feedback/:id/review', '/staff/feedback', async (actor, form, params) => {
    const r = await reviewFeedback(ctx, actor, { submissionId: params.id!, note: form.note });
    return html`Feedback ${r.submissionId} is marked reviewed. <a href="/staff/feedback">Back to feedback</a>`;
  });

  app.pages.get('/staff/actions', async (c) => {
    const actor = await staffOnPage(ctx, c, '/staff/actions');
    if (actor instanceof Response) return actor;
    const actions = await listStaffActions(ctx, 500);
    const rows = actions.map(
      (
        a,
      ) => html`<tr><td>${a.createdAt.slice(0, 19).replace('T', ' ')}</td><td>${a.actor}${a.actorAccountId ? html`<br><small>account <code>${a.actorAccountId}</code></small>` : ''}</td><td>${a.via}</td><td>${ACTION_LABELS[a.action]}</td><td><code>${a.subject}</code></td>
<td>${Object.entries(a.details)
        .map(([k, v]) => `${valueLabel(k)}: ${String(v)}`)
        .join(', ')}</td><td class="note">${a.reason}</td></tr>`,
    );
    const body = html`<p>${String(actions.length)} action${actions.length === 1 ? '' : 's'}, newest first: every credit grant, feedback review, key revocation, change of staff and of export allowance, on the web, through the CLI, by the machine's operator or on the database directly. Who: the acting account's address at the time and its id (the operator and the CLI on the database are no account). <a href="/staff">Staff actions</a></p>
<table id="staff-actions"><thead><tr><th>When (UTC)</th><th>Who</th><th>Via</th><th>What</th><th>On</th><th>Details</th><th>Why</th></tr></thead>
<tbody>${rows}</tbody></table>`;
    return htmlPage(c, 200, page('Staff actions', body, { signedInAs: actor.who, wide: true }), PAGE_HEADERS);
  });
}
