// /staff: what the people running siteline do on the running service, as web forms: grant credit,
// revoke a key for abuse, review feedback (from /staff/feedback), and the record of every staff
// action at /staff/actions. Signed-in accounts in SITELINE_STAFF_EMAILS only, forms CSRF-checked.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import type { Router } from '../http/router.ts';
import { sendHtml } from '../http/respond.ts';
import { SitelineError } from '../core/errors.ts';
import { grantCredit, listStaffActions, REASON_MAX, reviewFeedback, revokeKeyForAbuse, type StaffActor } from '../staff/staff-actions.ts';
import { html, type Html } from './html.ts';
import { page } from './page.ts';
import { readForm, redirect } from './forms.ts';
import { csrfFailure, PAGE_HEADERS } from './account-pages.ts';
import { csrfOk, csrfToken, currentAccount } from './web-session.ts';
import { isStaff } from '../staff/staff-actions.ts';

const ACTION_LABELS = { credit_grant: 'Credit grant', feedback_review: 'Feedback review', key_revoke: 'Key revoked', feedback_view: 'Feedback read' } as const;

/** The staff member signed in, or undefined after redirecting to sign-in or answering 403. */
async function staffOnPage(ctx: AppContext, req: IncomingMessage, res: ServerResponse, back: string): Promise<StaffActor | undefined> {
  const account = await currentAccount(ctx, req);
  if (!account) return void redirect(res, `/signin?next=${encodeURIComponent(back)}`);
  if (!isStaff(ctx, account.email)) {
    sendHtml(res, 403, page('Staff only', html`<p class="error">This page is for the people running siteline.</p>`, { signedInAs: account.email }), PAGE_HEADERS);
    return undefined;
  }
  return { who: account.email, via: 'web' };
}

function staffIndex(csrf: string, notice?: Html): Html {
  return html`${notice ?? ''}
<p><a href="/staff/feedback">Feedback</a> · <a href="/staff/actions">Record of staff actions</a></p>
<h2>Grant API credit</h2>
<form method="post" action="/staff/credit-grants" id="grant-form">
<input type="hidden" name="csrf" value="${csrf}">
<label for="email">Account e-mail</label><input id="email" name="email" type="email" required>
<label for="credits">Credits</label><input id="credits" name="credits" type="number" min="1" step="1" required>
<label for="grant-reason">Why (kept with the grant)</label><input id="grant-reason" name="reason" type="text" maxlength="${REASON_MAX}" required>
<button type="submit">Grant credit</button>
</form>
<h2>Revoke an API key (abuse)</h2>
<form method="post" action="/staff/keys/revoke" id="revoke-form">
<input type="hidden" name="csrf" value="${csrf}">
<label for="key-id">Key id</label><input id="key-id" name="keyId" type="text" required>
<label for="revoke-reason">Why</label><input id="revoke-reason" name="reason" type="text" maxlength="${REASON_MAX}" required>
<button type="submit">Revoke the key</button>
</form>
<p><small>The same actions from a terminal, while the service runs: <code>siteline credits grant</code>, <code>siteline feedback review</code>, <code>siteline staff revoke-key</code> (after <code>siteline login</code> as a staff account).</small></p>`;
}

export function registerStaffPages(router: Router, ctx: AppContext): void {
  const showIndex = (req: IncomingMessage, res: ServerResponse, status: number, actor: StaffActor, notice?: Html) =>
    sendHtml(res, status, page('Staff', staffIndex(csrfToken(ctx, req, res), notice), { signedInAs: actor.who }), PAGE_HEADERS);

  /** Runs a form's action: a refused one re-shows the page with the reason, and nothing changed. */
  const formAction = (path: string, back: string, act: (actor: StaffActor, form: Record<string, string>, params: Record<string, string>) => Promise<Html>) => {
    router.post(path, async (req, res, params) => {
      const form = await readForm(req);
      if (!csrfOk(ctx, req, form)) return csrfFailure(res);
      const actor = await staffOnPage(ctx, req, res, back);
      if (!actor) return;
      try {
        const done = await act(actor, form, params);
        showIndex(req, res, 200, actor, html`<p class="ok" role="status" id="staff-done">${done}</p>`);
      } catch (e) {
        if (!(e instanceof SitelineError) || e.code === 'internal') throw e;
        showIndex(req, res, e.code === 'not_found' ? 404 : 400, actor, html`<p class="error" role="alert" id="staff-refused">${e.message} Nothing was changed.</p>`);
      }
    });
  };

  router.get('/staff', async (req, res) => {
    const actor = await staffOnPage(ctx, req, res, '/staff');
    if (actor) showIndex(req, res, 200, actor);
  });

  formAction('/staff/credit-grants', '/staff', async (actor, form) => {
    const credits = /^\d+$/.test(form.credits ?? '') ? Number(form.credits) : Number.NaN;
    const r = await grantCredit(ctx, actor, { email: form.email ?? '', credits, reason: form.reason });
    return html`Granted ${String(r.granted)} credits to ${r.email}; balance ${String(r.balance)}.`;
  });

  formAction('/staff/keys/revoke', '/staff', async (actor, form) => {
    const r = await revokeKeyForAbuse(ctx, actor, { keyId: form.keyId ?? '', reason: form.reason });
    return html`Key ${r.keyId} of ${r.accountEmail} is revoked (since ${r.revokedAt.slice(0, 16).replace('T', ' ')} UTC).`;
  });

  formAction('/staff/feedback/:id/review', '/staff/feedback', async (actor, form, params) => {
    const r = await reviewFeedback(ctx, actor, { submissionId: params.id!, note: form.note });
    return html`Feedback ${r.submissionId} is marked reviewed. <a href="/staff/feedback">Back to feedback</a>`;
  });

  router.get('/staff/actions', async (req, res) => {
    const actor = await staffOnPage(ctx, req, res, '/staff/actions');
    if (!actor) return;
    const actions = await listStaffActions(ctx, 500);
    const rows = actions.map(
      (a) => html`<tr><td>${a.createdAt.slice(0, 19).replace('T', ' ')}</td><td>${a.actor}</td><td>${a.via}</td><td>${ACTION_LABELS[a.action]}</td><td><code>${a.subject}</code></td>
<td>${Object.entries(a.details).map(([k, v]) => `${k}: ${String(v)}`).join(', ')}</td><td class="note">${a.reason}</td></tr>`,
    );
    const body = html`<p>${String(actions.length)} action${actions.length === 1 ? '' : 's'}, newest first: every credit grant, feedback review and key revocation by staff, on the web, through the CLI or on the database directly. <a href="/staff">Staff actions</a></p>
<table id="staff-actions"><thead><tr><th>When (UTC)</th><th>Who</th><th>Via</th><th>What</th><th>On</th><th>Details</th><th>Why</th></tr></thead>
<tbody>${rows}</tbody></table>`;
    sendHtml(res, 200, page('Staff actions', body, { signedInAs: actor.who, wide: true }), PAGE_HEADERS);
  });
}
