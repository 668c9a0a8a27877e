// Web sessions (an opaque cookie, stored hashed) and CSRF protection for every form: a double-submit
// token (HttpOnly cookie + hidden field, compared in constant time) plus an Origin check when sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import { accountById, type Account } from '../auth/accounts.ts';
import { signOutEverywhere } from '../auth/account-recovery.ts';
import { newSecret, sameSecret, secretHash } from '../auth/secrets.ts';
import { WEB_SESSION_TTL_S } from '../auth/lifetimes.ts';
import { SESSION_COOKIE, addSetCookie, cookieHeader, csrfCookieName, readCookies } from './cookies.ts';

export async function currentAccount(ctx: AppContext, req: IncomingMessage): Promise<Account | undefined> {
  const sid = readCookies(req)[SESSION_COOKIE];
  if (!sid) return undefined;
  const rows = await ctx.db.query<{ account_id: string; expires_at: Date }>('SELECT account_id, expires_at FROM web_sessions WHERE session_hash = $1', [
    secretHash(sid),
  ]);
  const row = rows[0];
  if (!row || new Date(row.expires_at).getTime() <= ctx.clock.now().getTime()) return undefined;
  return accountById(ctx, row.account_id);
}

export async function startSession(ctx: AppContext, res: ServerResponse, account: Account): Promise<void> {
  const sid = newSecret('sls');
  const now = ctx.clock.now();
  await ctx.db.query('INSERT INTO web_sessions (session_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    secretHash(sid),
    account.accountId,
    now.toISOString(),
    new Date(now.getTime() + WEB_SESSION_TTL_S * 1000).toISOString(),
  ]);
  addSetCookie(res, cookieHeader(ctx.config, SESSION_COOKIE, sid, WEB_SESSION_TTL_S));
  // A new CSRF secret with the new session (no fixation across the sign-in boundary).
  addSetCookie(res, cookieHeader(ctx.config, csrfCookieName(ctx.config), crypto.randomBytes(24).toString('base64url'), WEB_SESSION_TTL_S));
  // Whoever signs in now is who the OAuth provider must see next, not an earlier account.
  for (const name of OAUTH_SESSION_COOKIES) addSetCookie(res, cookieHeader(ctx.config, name, '', 0));
}

export async function endSession(ctx: AppContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const sid = readCookies(req)[SESSION_COOKIE];
  if (sid) await ctx.db.query('DELETE FROM web_sessions WHERE session_hash = $1', [secretHash(sid)]);
  addSetCookie(res, cookieHeader(ctx.config, SESSION_COOKIE, '', 0));
  // The OAuth provider keeps its own login session: end it too, so the next person on this browser
  // is asked to sign in rather than inheriting the previous account in an MCP client's sign-in.
  for (const name of OAUTH_SESSION_COOKIES) addSetCookie(res, cookieHeader(ctx.config, name, '', 0));
}

/**
 * Sign-out everywhere: every credential of the account ends (web sessions, everything the OAuth
 * provider keeps for it, every access token already issued, agents and CLI logins, API keys, pending
 * address changes: auth/end-credentials.ts), and this browser's cookies go. The address is told what ended.
 */
export async function endAllSessions(ctx: AppContext, req: IncomingMessage, res: ServerResponse, account: Account): Promise<void> {
  await signOutEverywhere(ctx, account);
  await endSession(ctx, req, res);
}

const OAUTH_SESSION_COOKIES = ['_session', '_session.sig'];

/** The CSRF token for a form: the cookie's value, created (and set) when missing. */
export function csrfToken(ctx: AppContext, req: IncomingMessage, res: ServerResponse): string {
  const existing = readCookies(req)[csrfCookieName(ctx.config)];
  if (existing && /^[A-Za-z0-9_-]{20,64}$/.test(existing)) return existing;
  const token = crypto.randomBytes(24).toString('base64url');
  addSetCookie(res, cookieHeader(ctx.config, csrfCookieName(ctx.config), token, WEB_SESSION_TTL_S));
  return token;
}

/** True when the form's token matches the cookie and the Origin (if any) is this service. */
export function csrfOk(ctx: AppContext, req: IncomingMessage, form: Record<string, string>): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const allowed = new Set([new URL(ctx.config.baseUrl).origin]);
    // Same host as the request; on an https deployment only over https (an http Origin is refused).
    if (req.headers.host) {
      allowed.add(`https://${req.headers.host}`);
      if (!ctx.config.baseUrl.startsWith('https://')) allowed.add(`http://${req.headers.host}`);
    }
    if (!allowed.has(origin)) return false;
  }
  const cookie = readCookies(req)[csrfCookieName(ctx.config)];
  const field = form.csrf;
  return !!cookie && !!field && sameSecret(cookie, field);
}
