// "Connected apps" on the account page: the OAuth clients (MCP clients that signed in through the
// browser) this account granted access to (name, redirect host, when allowed, last used), and a way to revoke one. Revoking deletes what the OAuth
// provider keeps for that client and account (grants, refresh tokens, codes) and records a revocation
// for the client, so an access token it already holds is refused at once (auth/token-revocation.ts).
import type { HttpContext } from '../http/http-app.ts';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import type { Account } from '../auth/accounts.ts';
import { clientScope, forgetRevocations, revokeTokens } from '../auth/token-revocation.ts';
import { allowedClients, type AllowedClient } from '../auth/account-access.ts';
import { html, type Html } from '../http/html.ts';
import { page, PAGE_HEADERS } from '../http/page.ts';
import { readForm, redirect } from '../http/forms.ts';
import { csrfOk, csrfToken, currentAccount } from './web-session.ts';
import { setFlash } from '../http/cookies.ts';
import { whenWords } from './time-words.ts';

export type ConnectedApp = AllowedClient;

/** The clients this account allowed: name, redirect hosts, when allowed, last used (src/auth/account-access.ts). */
export const connectedApps = allowedClients;

/** Revokes one client's access to this account; false when the account never granted it anything. */
export async function revokeConnectedApp(ctx: AppContext, accountId: string, clientId: string): Promise<boolean> {
  const done = await ctx.db.transaction(async (tx) => {
    const removed = await tx.query(`DELETE FROM oidc_models WHERE payload->>'accountId' = $1 AND payload->>'clientId' = $2 RETURNING id`, [
      accountId,
      clientId,
    ]);
    if (!removed.length) return false;
    await revokeTokens(ctx, accountId, clientScope(clientId), 'app revoked on the account page', tx);
    ctx.logger.info({ clientId, removed: removed.length }, 'connected app revoked from the account page');
    return true;
  });
  forgetRevocations(ctx, accountId);
  return done;
}

export async function connectedAppsSection(ctx: AppContext, c: HttpContext, account: Account): Promise<Html> {
  const apps = await connectedApps(ctx, account.accountId);
  const csrf = csrfToken(ctx, c);
  const now = ctx.clock.now();
  const when = (iso: string | null) => whenWords(iso, now, 'unknown');
  const list = apps.length
    ? html`<ul class="apps">${apps.map(
        (
          a,
        ) => html`<li class="app"><strong class="app-name">${a.name ?? a.clientId}</strong>${a.name ? html` <span class="muted">(${a.clientId})</span>` : ''}${a.redirectHosts.length ? html`, returns to <code>${a.redirectHosts.join(', ')}</code>` : ''}, allowed ${when(a.allowedAt)}, last used ${when(a.lastUsedAt)}.
<form method="post" action="/account/apps/revoke"><input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="clientId" value="${a.clientId}"><button type="submit" aria-label="Revoke ${a.name ?? a.clientId}">Revoke</button></form></li>`,
      )}</ul>`
    : html`<p>No app has signed in to this account through the browser.</p>`;
  return html`<section id="connected-apps" aria-labelledby="connected-apps-h"><h2 id="connected-apps-h">Connected apps</h2>
${list}
<p class="muted">Revoking ends the app's access at once: its access and refresh tokens are refused; it must ask you to sign in again.</p></section>`;
}

export function registerConnectedAppRoutes(app: HttpApp, ctx: AppContext, onCsrfFailure: (c: HttpContext) => Response): void {
  app.pages.post('/account/apps/revoke', async (c) => {
    const form = await readForm(c);
    if (!csrfOk(ctx, c, form)) return onCsrfFailure(c);
    const account = await currentAccount(ctx, c);
    if (!account) return redirect(c, '/signin?next=/account');
    const name = form.clientId ? (await connectedApps(ctx, account.accountId)).find((a) => a.clientId === form.clientId)?.name : undefined;
    const done = form.clientId ? await revokeConnectedApp(ctx, account.accountId, form.clientId) : false;
    if (!done) {
      return htmlPage(
        c,
        404,
        page(
          'App not found',
          html`<p class="error" role="alert">No app with that id has access to your account.</p><p><a href="/account">Back to your account</a></p>`,
          { signedInAs: account.email },
        ),
        PAGE_HEADERS,
      );
    }
    setFlash(
      ctx.config,
      c,
      '/account',
      `The app "${name ?? form.clientId}" is revoked: its access and refresh tokens are refused; it must ask you to sign in again.`,
    );
    return redirect(c, '/account#connected-apps');
  });
}
