// /feedback: a signed-in user sends feedback with a plain form (the way in for 2025-era MCP clients
// and for cityInventory's "ask for this city" pointer). /staff/feedback: the reports, for staff
// accounts only (src/web/staff-access.ts).
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { CATEGORY_LABELS, FEEDBACK_CATEGORIES, MESSAGE_MAX, checkAnswer, type FeedbackCategory } from '../feedback/feedback-form.ts';
import { newSubmissionId, submitFeedback } from '../feedback/feedback-store.ts';
import { viewFeedback } from '../staff/staff-actions.ts';
import { staffOnPage } from './staff-access.ts';
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { readForm, redirect } from '../http/forms.ts';
import { csrfFailure, PAGE_HEADERS } from './account-pages.ts';
import { csrfOk, csrfToken, currentAccount } from './web-session.ts';

/** A 4000-character message can be several times that once form-encoded. */
const FEEDBACK_FORM_LIMIT = 64 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface FormValues {
  submissionId: string;
  category: string;
  message: string;
  affectedToolName: string;
  contactConsent: boolean;
  shareStreetAddresses: boolean;
}

function feedbackForm(csrf: string, v: FormValues): Html {
  const options = FEEDBACK_CATEGORIES.map((c) => html`<option value="${c}"${v.category === c ? html` selected` : ''}>${CATEGORY_LABELS[c]}</option>`);
  return html`<form method="post" action="/feedback">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="submissionId" value="${v.submissionId}">
<label for="category">What is it about?</label>
<select id="category" name="category" required><option value="">Choose…</option>${options}</select>
<label for="message">Your feedback</label>
<textarea id="message" name="message" rows="8" maxlength="${MESSAGE_MAX}" required style="width:100%;box-sizing:border-box;font:inherit">${v.message}</textarea>
<p><small>E-mail addresses, phone numbers, tokens, keys, card numbers and passwords are removed before it is stored.</small></p>
<label for="affectedToolName">Tool concerned (optional)</label>
<input id="affectedToolName" name="affectedToolName" type="text" maxlength="64" value="${v.affectedToolName}">
<label><input type="checkbox" name="contactConsent" value="1"${v.contactConsent ? html` checked` : ''}> siteline may e-mail me about this feedback</label>
<label><input type="checkbox" name="shareStreetAddresses" value="1"${v.shareStreetAddresses ? html` checked` : ''}> Keep street addresses in my message (otherwise they are removed)</label>
<button type="submit" id="send-feedback">Send feedback</button>
</form>`;
}

/** The feedback form: larger than the others (a message), and its words are checked by the feedback schema (checkAnswer). */
function readFeedbackForm(c: HttpContext): Promise<Record<string, string>> {
  return readForm(c, { maxBytes: FEEDBACK_FORM_LIMIT, keepNul: true });
}

export function registerFeedbackPages(app: HttpApp, ctx: AppContext): void {
  const show = (c: HttpContext, status: number, email: string, v: FormValues, notice?: Html) => {
    const csrf = csrfToken(ctx, c);
    return htmlPage(c, status, page('Send feedback', html`${notice ?? ''}${feedbackForm(csrf, v)}`, { signedInAs: email }), PAGE_HEADERS);
  };

  app.pages.get('/feedback', async (c) => {
    const url = new URL(c.req.url);
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, `/signin?next=${encodeURIComponent(url.pathname + url.search)}`);
    const city = url.searchParams.get('city')?.trim().slice(0, 120) ?? '';
    return show(c, 200, account.email, {
      submissionId: newSubmissionId(),
      category: city ? 'city_request' : (url.searchParams.get('category') ?? ''),
      message: city ? `Please cover ${city}.` : '',
      affectedToolName: url.searchParams.get('tool')?.slice(0, 64) ?? '',
      contactConsent: false,
      shareStreetAddresses: false,
    });
  });

  app.pages.post('/feedback', async (c) => {
    const form = await readFeedbackForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/feedback');
    const values: FormValues = {
      submissionId: UUID.test(form.submissionId ?? '') ? form.submissionId! : newSubmissionId(),
      category: form.category ?? '',
      message: form.message ?? '',
      affectedToolName: form.affectedToolName ?? '',
      contactConsent: form.contactConsent === '1',
      shareStreetAddresses: form.shareStreetAddresses === '1',
    };
    const checked = checkAnswer({ ...values, affectedToolName: values.affectedToolName || undefined });
    if (!checked.ok) {
      return show(c, 400, account.email, values, html`<div class="error" role="alert">${checked.problems.map((p) => html`<p>${p}</p>`)}</div>`);
    }
    const outcome = await submitFeedback(ctx, { submissionId: values.submissionId, accountId: account.accountId, answer: checked.answer, channel: 'web' });
    if (outcome.kind === 'id_taken') {
      // The form's reference is another account's report: refuse (409), store nothing, and hand the
      // text back under a fresh reference so sending it again stores it once.
      return show(
        c,
        409,
        account.email,
        { ...values, submissionId: newSubmissionId() },
        html`<p class="error" role="alert" id="feedback-id-taken">This form's reference belongs to another report, so nothing was saved. Your text is kept below under a new reference: send it again.</p>`,
      );
    }
    if (outcome.kind === 'write_failed') {
      return show(
        c,
        503,
        account.email,
        values,
        html`<p class="error" role="alert">Your feedback could not be saved just now. Nothing was lost from the form: send it again.</p>`,
      );
    }
    const f = outcome.feedback;
    const removed = Object.keys(f.redactions);
    const body = html`<p class="ok" role="status" id="feedback-received">Thank you: your feedback was received (reference <code>${f.submissionId}</code>).</p>
<p>This is what was stored${removed.length ? html` (removed: ${removed.join(', ')})` : ''}:</p>
<pre id="stored-message">${f.message}</pre>
<p><a href="/feedback">Send more feedback</a> · <a href="/account">Your account</a></p>`;
    return htmlPage(c, 200, page('Feedback received', body, { signedInAs: account.email }), PAGE_HEADERS);
  });

  app.pages.get('/staff/feedback', async (c) => {
    const actor = await staffOnPage(ctx, c, '/staff/feedback');
    if (actor instanceof Response) return actor;
    const url = new URL(c.req.url);
    const cat = url.searchParams.get('category');
    const category = (FEEDBACK_CATEGORIES as readonly string[]).includes(cat ?? '') ? (cat as FeedbackCategory) : undefined;
    const items = await viewFeedback(ctx, actor, { limit: 200, ...(category ? { category } : {}) });
    const csrf = csrfToken(ctx, c);
    // Reviewed: who and the note; otherwise a form to mark it reviewed (recorded on /staff/actions).
    const review = (f: (typeof items)[number]) =>
      f.review
        ? html`<span class="reviewed">${f.review.at.slice(0, 16).replace('T', ' ')} by ${f.review.by}: ${f.review.note}</span>`
        : html`<form method="post" action="/staff/feedback/${f.submissionId}/review"><input type="hidden" name="csrf" value="${csrf}"><input name="note" type="text" maxlength="500" required aria-label="What was done about it"><button type="submit">Mark reviewed</button></form>`;
    const rows = items.map(
      (f) => html`<tr><td>${f.createdAt.slice(0, 16).replace('T', ' ')}</td><td>${CATEGORY_LABELS[f.category]}</td><td class="note">${f.message}</td>
<td>${f.affectedToolName ?? ''}</td><td>${f.contactEmail ?? (f.contactConsent ? '(consented)' : 'no')}</td><td>${f.channel}</td><td><code>${f.submissionId}</code></td><td>${review(f)}</td></tr>`,
    );
    const body = html`<p>${items.length} report${items.length === 1 ? '' : 's'}, newest first${category ? html` (category ${CATEGORY_LABELS[category]})` : ''}. Messages are shown as stored, after scrubbing.</p>
<table id="feedback-table"><thead><tr><th>Received (UTC)</th><th>Category</th><th>Message</th><th>Tool</th><th>Contact</th><th>Via</th><th>Submission</th><th>Review</th></tr></thead>
<tbody>${rows}</tbody></table>`;
    return htmlPage(c, 200, page('Feedback', body, { signedInAs: actor.who, wide: true }), PAGE_HEADERS);
  });
}
