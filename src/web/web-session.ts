// The web surface's session: the domain's web session (src/auth/web-sessions.ts) carried in an HttpOnly
// cookie, and CSRF protection for every form (src/http/csrf.ts).
import type { Context } from 'hono';
import type { AppContext } from '../context.ts';
import type { Account } from '../auth/accounts.ts';
import { signOutEverywhere } from '../auth/account-recovery.ts';
import { WEB_SESSION_TTL_S } from '../auth/lifetimes.ts';
import { accountForWebSession, closeWebSession, openWebSession } from '../auth/web-sessions.ts';
import { SESSION_COOKIE, csrfCookieName, readCookie, writeCookie } from '../http/cookies.ts';
import { csrfOk as formCsrfOk, csrfToken as formCsrfToken, newCsrfSecret } from '../http/csrf.ts';

export async function currentAccount(ctx: AppContext, c: Context): Promise<Account | undefined> {
  return accountForWebSession(ctx, readCookie(c, SESSION_COOKIE));
}

export async function startSession(ctx: AppContext, c: Context, account: Account): Promise<void> {
  const sid = await openWebSession(ctx, account);
  writeCookie(c, ctx.config, SESSION_COOKIE, sid, WEB_SESSION_TTL_S);
  // A new CSRF secret with the new session (no fixation across the sign-in boundary).
  writeCookie(c, ctx.config, csrfCookieName(ctx.config), newCsrfSecret(), WEB_SESSION_TTL_S);
  // Whoever signs in now is who the OAuth provider must see next, not an earlier account.
  for (const name of OAUTH_SESSION_COOKIES) writeCookie(c, ctx.config, name, '', 0);
}

export async function endSession(ctx: AppContext, c: Context): Promise<void> {
  await closeWebSession(ctx, readCookie(c, SESSION_COOKIE));
  writeCookie(c, ctx.config, SESSION_COOKIE, '', 0);
  // The OAuth provider keeps its own login session: end it too, so the next person on this browser
  // is asked to sign in rather than inheriting the previous account in an MCP client's sign-in.
  for (const name of OAUTH_SESSION_COOKIES) writeCookie(c, ctx.config, name, '', 0);
}

/**
 * Sign-out everywhere: every credential of the account ends (web sessions, everything the OAuth
 * provider keeps for it, every access token already issued, agents and CLI logins, API keys, pending
 * address changes: auth/end-credentials.ts), and this browser's cookies go. The address is told what ended.
 */
export async function endAllSessions(ctx: AppContext, c: Context, account: Account): Promise<void> {
  await signOutEverywhere(ctx, account);
  await endSession(ctx, c);
}

const OAUTH_SESSION_COOKIES = ['_session', '_session.sig'];

/** The CSRF token for a form: the cookie's value, created (and set) when missing. */
export function csrfToken(ctx: AppContext, c: Context): string {
  return formCsrfToken(ctx.config, c, WEB_SESSION_TTL_S);
}

/** True when the form's token matches the cookie and the Origin (if any) is this service. */
export function csrfOk(ctx: AppContext, c: Context, form: Record<string, string>): boolean {
  return formCsrfOk(ctx.config, c, form);
}
