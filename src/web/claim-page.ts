// The claim page at verification_uri: the human signs in (or up) as the e-mail the agent named, types
// the 6-digit code the agent shows, and confirms. The code is posted to the service only.
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { completeClaim, denyClaim, findCeremony, type ClaimOutcome } from '../auth/claim-ceremony.ts';
import { PATHS } from '../auth/endpoints.ts';
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { readForm, redirect } from '../http/forms.ts';
import { csrfOk, csrfToken, currentAccount } from './web-session.ts';
import { csrfFailure, PAGE_HEADERS } from '../http/page.ts';
import type { Account } from '../auth/accounts.ts';
import { isEmailVerified } from '../auth/email-verification.ts';
import { unverifiedNotice } from './email-verification-page.ts';
import { isCliRegistration } from '../auth/agent-identity.ts';
import { untilWords } from './time-words.ts';

/**
 * Who asks, in the page's words (issue 49, item 5): `siteline login` registers as "CLI on <host>", and
 * signing in the CLI is not linking an agent; anything else is an agent, named by its label when it gave one.
 */
function asker(label: string | null): { title: string; who: Html; button: string } {
  if (isCliRegistration(label))
    return { title: 'Sign in the siteline CLI', who: html`The siteline command-line tool (<strong>${label}</strong>)`, button: 'Sign in the CLI' };
  return { title: 'Link an agent', who: label ? html`An agent (<strong>${label}</strong>)` : html`An agent`, button: 'Link this agent' };
}

function stateMessage(outcome: ClaimOutcome): { status: number; body: Html } | undefined {
  switch (outcome.state) {
    case 'not_found':
      return { status: 404, body: html`<p class="error">This claim link is not valid. Ask your agent for a fresh link.</p>` };
    case 'claimed':
      return { status: 409, body: html`<p class="ok">This agent has already been linked to an account. Nothing more to do here.</p>` };
    case 'claim_expired':
      return { status: 410, body: html`<p class="error">This registration expired. Ask your agent to register again.</p>` };
    case 'ceremony_expired':
      return {
        status: 410,
        body: html`<p class="error">This code has expired. Ask your agent to restart the claim; it will show you a new link and code.</p>`,
      };
    case 'denied':
      return { status: 410, body: html`<p class="ok">You refused this request. If that was a mistake, ask your agent to restart the claim.</p>` };
    case 'locked':
      return {
        status: 423,
        body: html`<p class="error">Too many wrong codes: this claim is locked. Ask your agent to restart the claim; it will show you a new link and code.</p>`,
      };
    default:
      return undefined;
  }
}

export function registerClaimPage(app: HttpApp, ctx: AppContext): void {
  const show = async (c: HttpContext, id: string, account: Account, status = 200, error?: string) => {
    const view = await findCeremony(ctx, id);
    const terminal = stateMessage(view);
    if (terminal) return htmlPage(c, terminal.status, page('Link an agent', terminal.body, { signedInAs: account.email }), PAGE_HEADERS);
    // stateMessage answers every state but pending.
    if (view.state !== 'pending') throw new Error(`claim ${id}: no page for state ${view.state}`);
    const csrf = csrfToken(ctx, c);
    const who = asker(view.label);
    const expires = untilWords(view.expiresAt, ctx.clock.now());
    if (view.email.toLowerCase() !== account.email.toLowerCase()) {
      const body = html`<p class="error" role="alert">You are signed in as ${account.email}, but ${isCliRegistration(view.label) ? 'the CLI was started for' : 'the agent asked to be linked to'} a different e-mail address.
Sign out, then sign in (or sign up) with the address you gave ${isCliRegistration(view.label) ? 'the CLI' : 'your agent'}.</p>
<form method="post" action="/signout"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Sign out</button></form>`;
      return htmlPage(c, 403, page(who.title, body, { signedInAs: account.email }), PAGE_HEADERS);
    }
    const denyForm = html`<form method="post" action="${PATHS.claimPage}/${id}">
<input type="hidden" name="csrf" value="${csrf}">
<input type="hidden" name="decision" value="deny">
<p>Did not ask for this? <button type="submit" id="deny">This was not me: refuse</button></p>
</form>`;
    if (!(await isEmailVerified(ctx, account.accountId))) {
      // Refused until the address is verified; the code is not asked for, so no attempt is spent.
      const body = html`<p>${who.who} asked to act for your account <strong>${account.email}</strong>.</p>
${unverifiedNotice(account, csrf, `${PATHS.claimPage}/${id}`)}
<p>It keeps waiting while you do this (the code it shows expires <span id="claim-expiry">${expires}</span>; it can restart afterwards).</p>
${denyForm}`;
      return htmlPage(c, 403, page(who.title, body, { signedInAs: account.email }), PAGE_HEADERS);
    }
    const body = html`<p>${who.who} asked to act for your account <strong>${account.email}</strong>. ${isCliRegistration(view.label) ? 'Once signed in it can call the service as you, from that machine.' : 'Once linked it can call the tools that need sign-in, as you.'}</p>
<p>Type the 6-digit code ${isCliRegistration(view.label) ? 'the CLI shows' : 'your agent shows'} you. Never tell the code to anyone else; it is only typed here.</p>
${error ? html`<p class="error" role="alert" id="claim-error">${error}</p>` : ''}
<form method="post" action="${PATHS.claimPage}/${id}">
<input type="hidden" name="csrf" value="${csrf}">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" class="code" type="text" inputmode="numeric" pattern="[0-9 ]{6,7}" maxlength="7" autocomplete="one-time-code" required>
<button type="submit" id="confirm">${who.button}</button>
</form>
${denyForm}
<p>You have ${view.attemptsLeft} attempt(s); the code expires <span id="claim-expiry">${expires}</span>.</p>`;
    return htmlPage(c, status, page(who.title, body, { signedInAs: account.email }), PAGE_HEADERS);
  };

  app.pages.get(PATHS.claimPage, async (c) => {
    return htmlPage(
      c,
      200,
      page('Link an agent', html`<p>Open the link your agent shows you; it ends in a claim id. Then type the 6-digit code it shows.</p>`),
      PAGE_HEADERS,
    );
  });

  app.pages.get(`${PATHS.claimPage}/:id`, async (c) => {
    const account = await currentAccount(ctx, c);
    if (!account) {
      const view = await findCeremony(ctx, c.req.param('id')!);
      const terminal = stateMessage(view);
      if (terminal) return htmlPage(c, terminal.status, page('Link an agent', terminal.body), PAGE_HEADERS);
      return redirect(c, `/signin?next=${encodeURIComponent(`${PATHS.claimPage}/${c.req.param('id')}`)}`);
    }
    return await show(c, c.req.param('id')!, account);
  });

  app.pages.post(`${PATHS.claimPage}/:id`, async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return csrfFailure(c);
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, `/signin?next=${encodeURIComponent(`${PATHS.claimPage}/${c.req.param('id')}`)}`);
    if (form.decision === 'deny') {
      const refused = await denyClaim(ctx, c.req.param('id')!, account);
      if (refused.state === 'refused') {
        const body = html`<p class="ok" id="claim-refused">Refused. The agent will not be linked to ${account.email}.</p>`;
        return htmlPage(c, 200, page('Request refused', body, { signedInAs: account.email }), PAGE_HEADERS);
      }
      return show(c, c.req.param('id')!, account);
    }
    const code = (form.user_code ?? '').replace(/\s+/g, '');
    if (!/^\d{6}$/.test(code)) return show(c, c.req.param('id')!, account, 400, 'The code is six digits.');
    const before = await findCeremony(ctx, c.req.param('id')!);
    const cli = before.state === 'pending' && isCliRegistration(before.label);
    const outcome = await completeClaim(ctx, c.req.param('id')!, account, code);
    if (outcome.state === 'done') {
      const body = cli
        ? html`<p class="ok" id="claim-done">Done: the CLI is now signed in as ${account.email}. You can close this page and return to your terminal.</p>`
        : html`<p class="ok" id="claim-done">Done: the agent is now linked to ${account.email}. You can close this page and return to your agent.</p>`;
      return htmlPage(c, 200, page(cli ? 'CLI signed in' : 'Agent linked', body, { signedInAs: account.email }), PAGE_HEADERS);
    }
    if (outcome.state === 'wrong_code') return show(c, c.req.param('id')!, account, 400, `That code is not right. ${outcome.attemptsLeft} attempt(s) left.`);
    return await show(c, c.req.param('id')!, account);
  });
}
