// The notice every surface shows a signed-in person whose e-mail address is not verified yet, when it
// refuses an action for it (linking an agent, buying credit, an OAuth consent): what to do, and the
// resend button (the form posts to the web surface's RESEND_PATH).
import { html, type Html } from './html.ts';

export const RESEND_PATH = '/account/verify-email';

export function resendForm(csrf: string, next: string): Html {
  return html`<form method="post" action="${RESEND_PATH}"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="next" value="${next}"><button type="submit" id="resend-verification">Send me a new verification link</button></form>`;
}

/** What a refused action shows: what to do (the domain's words, UNVERIFIED_MESSAGE in src/auth/email-verification.ts), and the resend button. */
export function unverifiedNotice(message: string, account: { email: string }, csrf: string, next: string): Html {
  return html`<div class="error" role="alert" id="email-unverified"><p>${message}</p><p>The link goes to ${account.email}.</p>${resendForm(csrf, next)}</div>`;
}
