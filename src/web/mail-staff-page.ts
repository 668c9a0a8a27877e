// /staff/mail: the mail queue as the people running siteline see it: how many messages wait, are being
// sent, were sent or failed, and every message that failed for good (or is retrying after an error),
// with the mail server's answer. A failed message can be queued again once the cause is fixed.
// Protected like /staff/feedback: signed in as a staff account (src/web/staff-access.ts).
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { mailQueueCounts, requeueFailed, troubledMail } from '../mail/mail-queue.ts';
import { smtpServerName } from '../mail/mailer.ts';
import { html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { readForm, redirect } from '../http/forms.ts';
import { csrfFailure, PAGE_HEADERS } from '../http/page.ts';
import { csrfOk, csrfToken } from './web-session.ts';
import { staffOnPage } from './staff-access.ts';

export function registerMailStaffPage(app: HttpApp, ctx: AppContext): void {
  app.pages.get('/staff/mail', async (c) => {
    const actor = await staffOnPage(ctx, c, '/staff/mail');
    if (actor instanceof Response) return actor;
    const csrf = csrfToken(ctx, c);
    const counts = await mailQueueCounts(ctx);
    const items = await troubledMail(ctx);
    const transport =
      ctx.mailer.transport === 'smtp'
        ? html`Mail is sent through <code>${smtpServerName(ctx.config.mail.smtpUrl!)}</code> from <code>${ctx.config.mail.from}</code>.`
        : html`No SMTP server is configured: mail goes to the development outbox and never leaves this machine.`;
    const rows = items.map(
      (
        m,
      ) => html`<tr id="mail-${String(m.id)}"><td>${String(m.id)}</td><td>${m.createdAt.slice(0, 16).replace('T', ' ')}</td><td>${m.to}</td><td>${m.subject}</td>
<td class="status-${m.status}">${m.status === 'failed' ? 'failed' : `retrying (next ${m.nextAttemptAt.slice(11, 19)} UTC)`}</td><td>${String(m.attempts)}</td><td class="note">${m.lastError ?? ''}</td>
<td>${m.status === 'failed' ? html`<form method="post" action="/staff/mail/${String(m.id)}/retry"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Send again</button></form>` : ''}</td></tr>`,
    );
    const body = html`<p>${transport}</p>
<p id="mail-counts">Queued: <strong>${String(counts.queued)}</strong> · being sent: <strong>${String(counts.sending)}</strong> · sent: <strong>${String(counts.sent)}</strong> · failed: <strong>${String(counts.failed)}</strong></p>
<p>A message is retried with growing delays while the mail server cannot be reached or answers with a temporary error (4xx); a permanent refusal (5xx) or ${String(ctx.config.mail.maxAttempts)} attempts record it as failed.</p>
${
  items.length === 0
    ? html`<p id="no-mail-problems">No message failed or is waiting after an error.</p>`
    : html`<table id="mail-table"><thead><tr><th>#</th><th>Queued (UTC)</th><th>To</th><th>Subject</th><th>State</th><th>Attempts</th><th>Mail server's answer</th><th></th></tr></thead>
<tbody>${rows}</tbody></table>`
}`;
    return htmlPage(c, 200, page('Mail queue', body, { signedInAs: actor.who, wide: true }), PAGE_HEADERS);
  });

  app.pages.post('/staff/mail/:id/retry', async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const actor = await staffOnPage(ctx, c, '/staff/mail');
    if (actor instanceof Response) return actor;
    const id = Number(c.req.param('id'));
    if (Number.isSafeInteger(id) && (await requeueFailed(ctx, id))) {
      ctx.logger.info({ mailId: id, by: actor.accountId }, 'failed mail queued again by staff');
      // The mail worker drains again on its own schedule; a failed pass now is logged, not dropped.
      void ctx.mailer
        .drain()
        .catch((err) =>
          ctx.logger.warn(
            { mailId: id, err: err instanceof Error ? err.message : String(err) },
            'mail drain after a staff requeue failed; the mail worker tries again',
          ),
        );
    }
    return redirect(c, '/staff/mail');
  });
}
