// E-mail verification pages: the link from the mail (GET shows a confirm button, POST uses the link,
// so a mail scanner that prefetches links does not spend it), the resend button, and the notice the
// refused actions (linking an agent, buying credit) show.
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import type { Account } from '../auth/accounts.ts';
import {
  VERIFY_EMAIL_PATH,
  emailVerifiedAt,
  inspectVerificationLink,
  sendVerificationMail,
  useVerificationLink,
  UNVERIFIED_MESSAGE,
  type LinkState,
} from '../auth/email-verification.ts';
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { RESEND_PATH, resendForm, unverifiedNotice as notice } from '../http/account-notice.ts';
import { readForm, redirect, safeNext } from '../http/forms.ts';
import { csrfOk, currentAccount } from './web-session.ts';
import { dateWords, whenWords } from './time-words.ts';
import { csrfFailure, PAGE_HEADERS } from '../http/page.ts';

/** What a refused action shows: what to do, and the resend button. */
export function unverifiedNotice(account: Account, csrf: string, next: string): Html {
  return notice(UNVERIFIED_MESSAGE, account, csrf, next);
}

/** The account page's line about the address: verified (when), or not yet with the resend button. */
export async function emailStateSection(ctx: AppContext, account: Account, csrf: string): Promise<Html> {
  const at = await emailVerifiedAt(ctx, account.accountId);
  if (at) return html`<p id="email-state" class="ok">E-mail address verified on ${dateWords(at)}.</p>`;
  return html`<div id="email-state"><p><strong>E-mail address not verified yet.</strong> Open the link we sent to ${account.email} to link agents and buy credit; everything else works already.</p>${resendForm(csrf, '/account')}</div>`;
}

function linkProblem(state: LinkState['state']): { status: number; body: Html } {
  const fix = html`Sign in and ask for a new link on <a href="/account">your account page</a>.`;
  switch (state) {
    case 'expired':
      return { status: 410, body: html`<p class="error" role="alert" id="link-refused">This verification link has expired. ${fix}</p>` };
    case 'used':
      return {
        status: 410,
        body: html`<p class="error" role="alert" id="link-refused">This verification link was already used; a link works once. If your address is not shown as verified on <a href="/account">your account page</a>, ask for a new link there.</p>`,
      };
    default:
      return {
        status: 400,
        body: html`<p class="error" role="alert" id="link-refused">This verification link is not valid (it may have been altered or cut short). ${fix}</p>`,
      };
  }
}

export function registerEmailVerificationPages(app: HttpApp, ctx: AppContext): void {
  app.pages.get(`${VERIFY_EMAIL_PATH}/:token`, async (c) => {
    const token = c.req.param('token')!;
    const state = await inspectVerificationLink(ctx, token);
    if (state.state !== 'valid') {
      const p = linkProblem(state.state);
      return htmlPage(c, p.status, page('Verify your e-mail', p.body), PAGE_HEADERS);
    }
    // No CSRF token: the link itself is the credential, and the visitor may not be signed in here.
    const body = html`<p>Confirm that <strong>${state.email}</strong> is your address.</p>
<form method="post" action="${VERIFY_EMAIL_PATH}/${token}"><button type="submit" id="confirm-email">Confirm my e-mail address</button></form>`;
    return htmlPage(c, 200, page('Verify your e-mail', body), PAGE_HEADERS);
  });

  app.pages.post(`${VERIFY_EMAIL_PATH}/:token`, async (c) => {
    await readForm(c);
    const state = await useVerificationLink(ctx, c.req.param('token')!);
    if (state.state !== 'valid') {
      const p = linkProblem(state.state);
      return htmlPage(c, p.status, page('Verify your e-mail', p.body), PAGE_HEADERS);
    }
    const body = html`<p class="ok" id="email-verified">Thank you: ${state.email} is verified. You can now link agents and buy credit.</p>
<p><a href="/account">Your account</a></p>`;
    return htmlPage(c, 200, page('E-mail verified', body), PAGE_HEADERS);
  });

  app.pages.post(RESEND_PATH, async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, `/signin?next=${encodeURIComponent('/account')}`);
    const next = safeNext(form.next);
    const outcome = await sendVerificationMail(ctx, account);
    const back = html`<p><a href="${next}">Back</a></p>`;
    if (outcome.sent) {
      const body = html`<p class="ok" role="status" id="verification-sent">We sent a new verification link to ${account.email}. It works once, until ${whenWords(outcome.expiresAt, ctx.clock.now())}.</p>${back}`;
      return htmlPage(c, 200, page('Verify your e-mail', body, { signedInAs: account.email }), PAGE_HEADERS);
    }
    if (outcome.reason === 'throttled') c.header('retry-after', String(outcome.retryAfterS));
    const body = html`<p class="${outcome.reason === 'throttled' ? 'error' : 'ok'}" role="status" id="verification-not-sent">${outcome.message}</p>${back}`;
    return htmlPage(c, outcome.reason === 'throttled' ? 429 : 200, page('Verify your e-mail', body, { signedInAs: account.email }), PAGE_HEADERS);
  });
}
