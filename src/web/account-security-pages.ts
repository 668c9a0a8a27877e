// Password change, password reset by e-mail, and e-mail address change: plain forms (CSRF on every
// POST), the links from the mails (GET shows a form or a button, only POST uses the link, so a mail
// scanner that prefetches links spends nothing), and a page that says so when a link was used,
// expired or is not ours (changing nothing). src/auth/account-recovery.ts holds the rules.
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { PASSWORD_MIN } from '../auth/accounts.ts';
import {
  EMAIL_CHANGE_PATH,
  EMAIL_UNDO_PATH,
  EMAIL_UNDO_PREFIX,
  RESET_PATH,
  changePassword,
  completeEmailChange,
  completePasswordReset,
  inspectEmailChange,
  inspectEmailUndo,
  inspectResetLink,
  requestEmailChange,
  requestPasswordReset,
  undoEmailChange,
  type LinkState,
} from '../auth/account-recovery.ts';
import { credentialsOf, describeCredentials, type Credentials } from '../auth/end-credentials.ts';
import { secretHash } from '../auth/secrets.ts';
import { EMAIL_CHANGE_UNDO_TTL_S, PASSWORD_RESET_TTL_S } from '../auth/lifetimes.ts';
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { readForm, redirect } from '../http/forms.ts';
import { clientIp } from '../http/client-ip.ts';
import { csrfOk, csrfToken, currentAccount } from './web-session.ts';
import { whenWords } from './time-words.ts';
import { csrfFailure, PAGE_HEADERS } from '../http/page.ts';
import { SESSION_COOKIE, readCookie } from '../http/cookies.ts';

const TOKEN_PARAM = /^[A-Za-z0-9_-]{1,200}$/;
const alert = (message: string) => html`<p class="error" role="alert">${message}</p>`;
const statusOf = (reason: string): number => (({ wrong_password: 401, throttled: 429, busy: 503, email_taken: 409 }) as Record<string, number>)[reason] ?? 400;

/** The page for a link that cannot be used: what happened, and the way to a new one. Nothing changed. */
function linkRefused(c: HttpContext, state: Exclude<LinkState, 'valid'>, what: 'reset' | 'change' | 'undo'): Response {
  const again =
    what === 'reset'
      ? html`<a href="${RESET_PATH}">Ask for a new reset link</a>.`
      : what === 'change'
        ? html`Ask for the change again on <a href="/account/email">your account</a>.`
        : html`If your account was moved without you, <a href="${RESET_PATH}">reset the password</a> from the address it uses now, or contact the people running siteline.`;
  const name = { reset: 'password reset link', change: 'e-mail change link', undo: 'link to undo an address change' }[what];
  const sentence = {
    used: html`This ${name} was already used; a link works once. Nothing was changed now.`,
    expired: html`This ${name} has expired. Nothing was changed.`,
    invalid: html`This ${name} is not valid (it may be cut short or altered). Nothing was changed.`,
    cancelled: html`This ${name} was cancelled: the account's password was reset or changed, or it was signed out everywhere, after the change was asked for. Nothing was changed.`,
  }[state];
  return htmlPage(
    c,
    state === 'invalid' ? 400 : 410,
    page('Link not usable', html`<p class="error" role="alert" id="link-refused">${sentence}</p><p>${again}</p>`),
    PAGE_HEADERS,
  );
}

/** What ends (or ended), as a list; `none` when nothing else can act for the account. */
function credentialList(c: Credentials, id: string, none: string, thisBrowser = false): Html {
  const lines = describeCredentials(c, { thisBrowser });
  return lines.length ? html`<ul id="${id}">${lines.map((l) => html`<li>${l}</li>`)}</ul>` : html`<p id="${id}">${none}</p>`;
}

function passwordFields(autocompleteCurrent: boolean): Html {
  return html`${autocompleteCurrent ? html`<label for="current_password">Current password</label><input id="current_password" name="current_password" type="password" required autocomplete="current-password">` : ''}
<label for="new_password">New password</label><input id="new_password" name="new_password" type="password" required autocomplete="new-password" minlength="${String(PASSWORD_MIN)}">
<p><small>At least ${String(PASSWORD_MIN)} characters; any characters, spaces included. Commonly used passwords are refused.</small></p>`;
}

const sessionHash = (c: HttpContext): string | undefined => {
  const sid = readCookie(c, SESSION_COOKIE);
  return sid ? secretHash(sid) : undefined;
};

// Long because: a registrar declares one family of routes on the router, each route a short handler of its own;
// splitting it would scatter one page's GET and POST across files.
export function registerAccountSecurityPages(app: HttpApp, ctx: AppContext): void {
  // ---- Password change (signed in) ----
  const passwordPage = async (c: HttpContext, status: number, account: { accountId: string; email: string }, notice?: Html) => {
    const csrf = csrfToken(ctx, c);
    const willEnd = await credentialsOf(ctx, account.accountId, sessionHash(c));
    const body = html`${notice ?? ''}<form method="post" action="/account/password"><input type="hidden" name="csrf" value="${csrf}">
${passwordFields(true)}
<button type="submit" id="change-password">Change password</button></form>
<p>This browser stays signed in. Everything else that can act for this account ends with the change:</p>
${credentialList(willEnd, 'will-end', 'Nothing else is signed in to this account now.', true)}
<p><a href="/account">Back to your account</a></p>`;
    return htmlPage(c, status, page('Change your password', body, { signedInAs: account.email }), PAGE_HEADERS);
  };
  app.pages.get('/account/password', async (c) => {
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/account/password');
    return await passwordPage(c, 200, account);
  });
  app.pages.post('/account/password', async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/account/password');
    const r = await changePassword(ctx, account, form.current_password ?? '', form.new_password ?? '', clientIp(c.env.incoming, ctx.config), sessionHash(c));
    if (!r.ok) {
      if ('retryAfterS' in r) c.header('retry-after', String(r.retryAfterS));
      return passwordPage(c, statusOf(r.reason), account, alert(r.message));
    }
    const body = html`<p class="ok" role="status" id="password-changed">Your password was changed; this browser stays signed in.</p>
${credentialList(r.ended, 'ended', 'Nothing else was signed in to this account.', true)}
<p><a href="/account">Back to your account</a></p>`;
    return htmlPage(c, 200, page('Password changed', body, { signedInAs: account.email }), PAGE_HEADERS);
  });

  // ---- Password reset by e-mail ----
  const resetRequestPage = (c: HttpContext, status: number, notice?: Html, email = '') => {
    const csrf = csrfToken(ctx, c);
    const body = html`${notice ?? ''}<form method="post" action="${RESET_PATH}"><input type="hidden" name="csrf" value="${csrf}">
<label for="email">E-mail</label><input id="email" name="email" type="email" required autocomplete="email" value="${email}">
<button type="submit" id="send-reset">Send me a reset link</button></form>
<p>We mail a link to choose a new password to the address, if it has an account. The link works once, for ${String(PASSWORD_RESET_TTL_S / 60)} minutes.</p>
<p><a href="/signin">Back to sign in</a></p>`;
    return htmlPage(c, status, page('Reset your password', body), PAGE_HEADERS);
  };
  app.pages.get(RESET_PATH, async (c) => resetRequestPage(c, 200));
  app.pages.post(RESET_PATH, async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const r = await requestPasswordReset(ctx, form.email ?? '', clientIp(c.env.incoming, ctx.config));
    if (!r.ok) {
      c.header('retry-after', String(r.retryAfterS));
      return resetRequestPage(c, 429, alert(r.message), form.email ?? '');
    }
    // The same answer whether or not the address has an account.
    const body = html`<p class="ok" role="status" id="reset-sent">If an account uses that address, we have sent it a link to choose a new password. The link works once, for ${String(PASSWORD_RESET_TTL_S / 60)} minutes. Check your mailbox (and its spam folder).</p><p><a href="/signin">Back to sign in</a></p>`;
    return htmlPage(c, 200, page('Check your mailbox', body), PAGE_HEADERS);
  });
  const resetFormPage = async (c: HttpContext, token: string, status: number, notice?: Html) => {
    const link = await inspectResetLink(ctx, token);
    if (link.state !== 'valid') return linkRefused(c, link.state, 'reset');
    const csrf = csrfToken(ctx, c);
    const body = html`${notice ?? ''}<p>A new password for <strong>${link.email!}</strong>.</p>
<form method="post" action="${RESET_PATH}/${token}"><input type="hidden" name="csrf" value="${csrf}">
${passwordFields(false)}
<button type="submit" id="set-password">Set my new password</button></form>
<p>Setting it ends everything that can act for this account, so whoever else had the password keeps nothing; then sign in with the new password:</p>
${credentialList(link.willEnd!, 'will-end', 'Nothing is signed in to this account now.')}`;
    return htmlPage(c, status, page('Choose a new password', body), PAGE_HEADERS);
  };
  // The same path carries the undo links of address changes (EMAIL_UNDO_PATH), told apart by their prefix.
  const isUndo = (token: string) => token.startsWith(`${EMAIL_UNDO_PREFIX}_`);
  app.pages.get(`${RESET_PATH}/:token`, async (c) => {
    const token = c.req.param('token') ?? '';
    if (!TOKEN_PARAM.test(token)) return linkRefused(c, 'invalid', 'reset');
    if (isUndo(token)) return undoPage(c, token, 200);
    return await resetFormPage(c, token, 200);
  });
  app.pages.post(`${RESET_PATH}/:token`, async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const token = c.req.param('token') ?? '';
    if (TOKEN_PARAM.test(token) && isUndo(token)) return postUndo(c, token, form);
    const r = await completePasswordReset(ctx, TOKEN_PARAM.test(token) ? token : '', form.new_password ?? '');
    if (!r.ok) {
      if (r.reason === 'weak_password' || r.reason === 'busy') return resetFormPage(c, token, r.reason === 'busy' ? 503 : 400, alert(r.message));
      return linkRefused(c, r.reason === 'valid' ? 'invalid' : r.reason, 'reset');
    }
    const body = html`<p class="ok" role="status" id="password-reset">The password of ${r.email} was changed, and every session was signed out.</p>
${credentialList(r.ended, 'ended', 'Nothing else was signed in to the account.')}
<p><a href="/signin">Sign in with your new password</a></p>`;
    return htmlPage(c, 200, page('Password changed', body), PAGE_HEADERS);
  });

  // ---- E-mail address change ----
  const emailPage = (c: HttpContext, status: number, email: string, notice?: Html, newEmail = '') => {
    const csrf = csrfToken(ctx, c);
    const body = html`${notice ?? ''}<p>Your address now: <strong>${email}</strong>.</p>
<form method="post" action="/account/email"><input type="hidden" name="csrf" value="${csrf}">
<label for="new_email">New e-mail address</label><input id="new_email" name="new_email" type="email" required autocomplete="email" value="${newEmail}">
<label for="current_password">Your password</label><input id="current_password" name="current_password" type="password" required autocomplete="current-password">
<button type="submit" id="change-email">Send a confirmation link to the new address</button></form>
<p>The new address confirms with the link we mail it; until then your address stays ${email}. We also tell ${email} about the request, and once the change is done we mail ${email} a link that moves the account back for ${String(EMAIL_CHANGE_UNDO_TTL_S / 86_400)} days. A password reset or change, or signing out everywhere, cancels a change not yet confirmed.</p>
<p><a href="/account">Back to your account</a></p>`;
    return htmlPage(c, status, page('Change your e-mail address', body, { signedInAs: email }), PAGE_HEADERS);
  };
  app.pages.get('/account/email', async (c) => {
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/account/email');
    return emailPage(c, 200, account.email);
  });
  app.pages.post('/account/email', async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/account/email');
    const r = await requestEmailChange(ctx, account, form.new_email ?? '', form.current_password ?? '', clientIp(c.env.incoming, ctx.config));
    if (!r.ok) {
      if ('retryAfterS' in r) c.header('retry-after', String(r.retryAfterS));
      return emailPage(c, statusOf(r.reason), account.email, alert(r.message), form.new_email ?? '');
    }
    const body = html`<p class="ok" role="status" id="email-change-sent">We sent a link to ${r.newEmail}. Open it to make it your address (until ${whenWords(r.expiresAt, ctx.clock.now())}); until then your address stays ${account.email}.</p><p><a href="/account">Back to your account</a></p>`;
    return htmlPage(c, 200, page('Confirm the new address', body, { signedInAs: account.email }), PAGE_HEADERS);
  });
  app.pages.get(`${EMAIL_CHANGE_PATH}/:token`, async (c) => {
    const token = c.req.param('token') ?? '';
    const s = TOKEN_PARAM.test(token) ? await inspectEmailChange(ctx, token) : { state: 'invalid' as const };
    if (s.state !== 'valid') return linkRefused(c, s.state, 'change');
    const csrf = csrfToken(ctx, c);
    const body = html`<p>Use <strong>${s.newEmail}</strong> as the address of your siteline account?</p>
<form method="post" action="${EMAIL_CHANGE_PATH}/${token}"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" id="confirm-email-change">Yes, use this address</button></form>`;
    return htmlPage(c, 200, page('Confirm your new e-mail address', body), PAGE_HEADERS);
  });
  app.pages.post(`${EMAIL_CHANGE_PATH}/:token`, async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const token = c.req.param('token') ?? '';
    const r = await completeEmailChange(ctx, TOKEN_PARAM.test(token) ? token : '');
    if (!r.ok) {
      if (r.reason === 'email_taken') return htmlPage(c, 409, page('Address taken', alert(r.message)), PAGE_HEADERS);
      return linkRefused(c, r.reason === 'valid' ? 'invalid' : r.reason, 'change');
    }
    const body = html`<p class="ok" role="status" id="email-changed">Your account now uses ${r.newEmail} (verified). Sign in with it from now on; ${r.oldEmail} was told, with a link that undoes the change for ${String(EMAIL_CHANGE_UNDO_TTL_S / 86_400)} days.</p><p><a href="/account">Your account</a></p>`;
    return htmlPage(c, 200, page('E-mail address changed', body), PAGE_HEADERS);
  });

  // ---- Undo of an address change (the link mailed to the old address) ----
  const undoPage = async (c: HttpContext, token: string, status: number, notice?: Html) => {
    const link = await inspectEmailUndo(ctx, token);
    if (link.state !== 'valid') return linkRefused(c, link.state, 'undo');
    const csrf = csrfToken(ctx, c);
    const body = html`${notice ?? ''}<p>Move the siteline account that now uses <strong>${link.currentEmail!}</strong> back to <strong id="undo-to">${link.oldEmail!}</strong>?</p>
<p>Whoever moved it knew the password, so you choose a new one here, and everything signed in to the account ends: every session, app, agent, CLI login and API key.</p>
<form method="post" action="${EMAIL_UNDO_PATH}/${token}"><input type="hidden" name="csrf" value="${csrf}">
${passwordFields(false)}
<button type="submit" id="undo-email-change">Move it back and set this password</button></form>`;
    return htmlPage(c, status, page('Undo the change of address', body), PAGE_HEADERS);
  };
  const postUndo = async (c: HttpContext, token: string, form: Record<string, string>) => {
    const r = await undoEmailChange(ctx, TOKEN_PARAM.test(token) ? token : '', form.new_password ?? '');
    if (!r.ok) {
      if (r.reason === 'weak_password' || r.reason === 'busy') return undoPage(c, token, r.reason === 'busy' ? 503 : 400, alert(r.message));
      if (r.reason === 'email_taken') return htmlPage(c, 409, page('Address taken', alert(r.message)), PAGE_HEADERS);
      return linkRefused(c, r.reason === 'valid' ? 'invalid' : r.reason, 'undo');
    }
    const body = html`<p class="ok" role="status" id="email-change-undone">The account uses ${r.email} again, with your new password; every session was signed out.</p>
${credentialList(r.ended, 'ended', 'Nothing else was signed in to the account.')}
<p><a href="/signin">Sign in</a></p>`;
    return htmlPage(c, 200, page('Change of address undone', body), PAGE_HEADERS);
  };
}
