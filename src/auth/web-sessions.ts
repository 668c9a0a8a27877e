// Web sessions as the domain holds them: an opaque id (sent as a cookie by the surfaces), stored hashed
// with its account and expiry. The web pages, the OAuth consent page, the connect page and the REST
// reference page all ask the same question: whose session is this.
import type { AppContext } from '../context.ts';
import { accountById, type Account } from './accounts.ts';
import { newSecret, secretHash } from './secrets.ts';
import { WEB_SESSION_TTL_S } from './lifetimes.ts';

/** The account of a live session, or undefined (no id, unknown, or expired). */
export async function accountForWebSession(ctx: AppContext, sessionId: string | undefined): Promise<Account | undefined> {
  if (!sessionId) return undefined;
  const rows = await ctx.db.query<{ account_id: string; expires_at: Date }>('SELECT account_id, expires_at FROM web_sessions WHERE session_hash = $1', [
    secretHash(sessionId),
  ]);
  const row = rows[0];
  if (!row || new Date(row.expires_at).getTime() <= ctx.clock.now().getTime()) return undefined;
  return accountById(ctx, row.account_id);
}

/** A new session for the account; returns its id (the cookie's value, never stored). */
export async function openWebSession(ctx: AppContext, account: Account): Promise<string> {
  const sid = newSecret('sls');
  const now = ctx.clock.now();
  await ctx.db.query('INSERT INTO web_sessions (session_hash, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    secretHash(sid),
    account.accountId,
    now.toISOString(),
    new Date(now.getTime() + WEB_SESSION_TTL_S * 1000).toISOString(),
  ]);
  return sid;
}

export async function closeWebSession(ctx: AppContext, sessionId: string | undefined): Promise<void> {
  if (sessionId) await ctx.db.query('DELETE FROM web_sessions WHERE session_hash = $1', [secretHash(sessionId)]);
}
