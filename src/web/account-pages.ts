// Sign up, sign in, sign out and the account page: plain HTML forms, no JavaScript.
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { createAccount, signIn, PASSWORD_MIN } from '../auth/accounts.ts';
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { readForm, redirect, safeNext } from '../http/forms.ts';
import { clientIp } from '../http/client-ip.ts';
import { csrfOk, csrfToken, currentAccount, endAllSessions, endSession, startSession } from './web-session.ts';
import { exportUsage } from '../reports/export-store.ts';

import { PAGE_HEADERS, csrfFailure } from '../http/page.ts';
import { accountPageMessage, linkedAgentsSection } from './linked-agents.ts';
import { connectedAppsSection } from './connected-apps.ts';
import { emailStateSection } from './email-verification-page.ts';
import { dateWords } from './time-words.ts';
const NO_STORE = PAGE_HEADERS;
export { PAGE_HEADERS, csrfFailure };

function nextOf(c: HttpContext): string {
  return safeNext(new URL(c.req.url).searchParams.get('next'));
}

function credentialsForm(action: string, csrf: string, next: string, submit: string, email = '', autocompletePw = 'current-password'): Html {
  return html`<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="next" value="${next}">
<label for="email">E-mail</label><input id="email" name="email" type="email" required autocomplete="email" value="${email}">
<label for="password">Password</label><input id="password" name="password" type="password" required autocomplete="${autocompletePw}">
<button type="submit">${submit}</button>
</form>`;
}

export function registerAccountPages(app: HttpApp, ctx: AppContext): void {
  const signInPage = (c: HttpContext, status: number, next: string, error?: string, email = '') => {
    const csrf = csrfToken(ctx, c);
    const body = html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}
${credentialsForm('/signin', csrf, next, 'Sign in', email)}
<p>No account yet? <a href="/signup?next=${encodeURIComponent(next)}">Sign up</a> · <a href="/reset-password" id="forgot-password">Forgot your password?</a></p>`;
    return htmlPage(c, status, page('Sign in', body), NO_STORE);
  };
  const signUpPage = (c: HttpContext, status: number, next: string, error?: string, email = '') => {
    const csrf = csrfToken(ctx, c);
    const body = html`${error ? html`<p class="error" role="alert">${error}</p>` : ''}
${credentialsForm('/signup', csrf, next, 'Create account', email, 'new-password')}
<p>Passwords need at least ${PASSWORD_MIN} characters; any characters, spaces included. Commonly used passwords are refused.</p>
<p>Already have an account? <a href="/signin?next=${encodeURIComponent(next)}">Sign in</a></p>`;
    return htmlPage(c, status, page('Sign up', body), NO_STORE);
  };

  app.pages.get('/signin', async (c) => signInPage(c, 200, nextOf(c)));
  app.pages.post('/signin', async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.next);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const result = await signIn(ctx, form.email ?? '', form.password ?? '', clientIp(c.env.incoming, ctx.config));
    if (!result.ok) {
      if (result.reason === 'throttled' || result.reason === 'busy') c.header('retry-after', String(result.retryAfterS));
      return signInPage(c, result.reason === 'throttled' ? 429 : result.reason === 'busy' ? 503 : 401, next, result.message, form.email ?? '');
    }
    await startSession(ctx, c, result.account);
    return redirect(c, next);
  });

  app.pages.get('/signup', async (c) => signUpPage(c, 200, nextOf(c)));
  app.pages.post('/signup', async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.next);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const result = await createAccount(ctx, form.email ?? '', form.password ?? '', clientIp(c.env.incoming, ctx.config));
    if (!result.ok) {
      if (result.reason === 'throttled' || result.reason === 'busy') c.header('retry-after', String(result.retryAfterS));
      const status = { email_taken: 409, throttled: 429, busy: 503, bad_email: 400, weak_password: 400 }[result.reason];
      return signUpPage(c, status, next, result.message, form.email ?? '');
    }
    await startSession(ctx, c, result.account);
    return redirect(c, next);
  });

  app.pages.post('/signout', async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    await endSession(ctx, c);
    return redirect(c, '/signin');
  });

  app.pages.post('/signout/everywhere', async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/account');
    await endAllSessions(ctx, c, account);
    return redirect(c, '/signin');
  });

  app.pages.get('/account', async (c) => {
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/account');
    const csrf = csrfToken(ctx, c);
    const usage = await exportUsage(ctx, account.accountId);
    const body = html`${accountPageMessage(ctx, c)}<p>You are signed in as <strong id="signed-in-email">${account.email}</strong>.</p>
${await emailStateSection(ctx, account, csrf)}
<p><a href="/account/password" id="change-password-link">Change your password</a> · <a href="/account/email" id="change-email-link">Change your e-mail address</a></p>
<p><a href="/account/api-keys">API keys and credit</a> for the REST API.</p>
<p id="report-exports">Project report exports this month (${usage.period}): ${String(usage.used)} of ${String(usage.allowance)} used, ${String(usage.remaining)} left; renews ${dateWords(usage.resetsAt)}.</p>
<form method="post" action="/signout"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Sign out</button></form>
<form method="post" action="/signout/everywhere"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" id="signout-everywhere">Sign out everywhere</button>
<p>Ends everything that can act for this account: every session on every device (this one too), what MCP clients were granted through browser sign-in, every agent and CLI login (they must be linked again), every REST API key (create new ones after), and any pending change of your address. Access tokens already issued are refused at once. A password change or reset does the same (a change keeps this browser signed in).</p></form>
${await connectedAppsSection(ctx, c, account)}
${await linkedAgentsSection(ctx, c, account)}`;
    return htmlPage(c, 200, page('Your account', body, { signedInAs: account.email, current: 'account' }), NO_STORE);
  });
}
