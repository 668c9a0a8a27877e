// Recovery wins (issue 45): a password reset, a password change, "sign out everywhere" and the undo of
// an e-mail change end everything that can act for the account, so whoever held it before (someone
// who knew the password) keeps nothing: web sessions (a password change keeps the browser that made
// it), everything the OAuth provider holds for the account (login sessions, grants, refresh tokens,
// codes), every JWT access token already issued (a revocation record, token-revocation.ts), every
// agent and CLI login (identity assertions and opaque tokens revoked, the claim's redelivery window
// closed), every API key, every pending e-mail change and every outstanding reset link.
// `credentialsOf` lists the same things by name, for the pages that say what will end and the mail
// that says what ended. No HTTP here.
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { allowedClients } from './account-access.ts';
import { ALL_TOKENS, forgetRevocations, revokeTokens } from './token-revocation.ts';
import { CLAIM_REDELIVERY_S } from './lifetimes.ts';

/** claim_delivered_at is set to this instant when an agent is revoked: older than any redelivery window, so the claim poll refuses. */
export const REVOKED_MARK = '1970-01-01T00:00:00.000Z';

/** What can act for an account, by the names a person recognises. */
export interface Credentials {
  /** Browser sessions (a password change does not count the one that makes it). */
  webSessions: number;
  /** MCP clients allowed through browser sign-in. */
  apps: { clientId: string; name: string | null }[];
  /** Linked agents and CLI logins that can still get access. */
  agents: { registrationId: string; label: string | null }[];
  /** Unrevoked REST API keys. */
  apiKeys: { id: string; name: string; prefix: string }[];
  /** Addresses the account asked to move to, still waiting for their confirmation. */
  emailChanges: { newEmail: string }[];
}

/** Everything that can act for the account now (except the web session `keepSessionHash`). */
export async function credentialsOf(ctx: AppContext, accountId: string, keepSessionHash?: string): Promise<Credentials> {
  const now = ctx.clock.now();
  const iso = now.toISOString();
  const redelivery = new Date(now.getTime() - CLAIM_REDELIVERY_S * 1000).toISOString();
  const [sessions, apps, agents, apiKeys, emailChanges] = await Promise.all([
    ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM web_sessions WHERE account_id = $1 AND expires_at > $2 AND session_hash IS DISTINCT FROM $3', [
      accountId,
      iso,
      keepSessionHash ?? null,
    ]),
    allowedClients(ctx, accountId),
    ctx.db.query<{ registration_id: string; label: string | null }>(
      `SELECT r.registration_id, r.label FROM agent_registrations r
        WHERE r.account_id = $1 AND r.claim_delivered_at IS DISTINCT FROM $2
          AND (r.claim_delivered_at IS NULL OR r.claim_delivered_at > $3
               OR EXISTS (SELECT 1 FROM agent_credentials c WHERE c.registration_id = r.registration_id AND c.revoked_at IS NULL AND c.expires_at > $4))
        ORDER BY r.claimed_at, r.registration_id`,
      [accountId, REVOKED_MARK, redelivery, iso],
    ),
    ctx.db.query<{ key_id: string; name: string; display_prefix: string }>(
      'SELECT key_id, name, display_prefix FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at, key_id',
      [accountId],
    ),
    ctx.db.query<{ new_email: string }>(
      'SELECT new_email FROM email_changes WHERE account_id = $1 AND used_at IS NULL AND cancelled_at IS NULL AND expires_at > $2 ORDER BY created_at',
      [accountId, iso],
    ),
  ]);
  return {
    webSessions: sessions[0]?.n ?? 0,
    apps: apps.map((a) => ({ clientId: a.clientId, name: a.name })),
    agents: agents.map((a) => ({ registrationId: a.registration_id, label: a.label })),
    apiKeys: apiKeys.map((k) => ({ id: k.key_id, name: k.name, prefix: k.display_prefix })),
    emailChanges: [...new Set(emailChanges.map((c) => c.new_email))].map((newEmail) => ({ newEmail })),
  };
}

/**
 * Ends every credential of the account, in the caller's transaction `tx` (call `afterCommit` once it
 * has committed: this instance then forgets its cached revocations at once). Returns what ended, as
 * `credentialsOf` named it just before (`before`), with the counts the statements found.
 */
export async function endEveryCredential(
  ctx: AppContext,
  tx: Queryable,
  accountId: string,
  opts: { reason: string; keepSessionHash?: string | undefined },
): Promise<{ webSessions: number; oauthRecords: number; agents: number; apiKeys: number; emailChanges: number }> {
  const now = ctx.clock.now().toISOString();
  // Every JWT access token issued so far (OAuth apps, agents, CLI logins) is refused from now on.
  await revokeTokens(ctx, accountId, ALL_TOKENS, opts.reason, tx);
  const sessions = await tx.query('DELETE FROM web_sessions WHERE account_id = $1 AND session_hash IS DISTINCT FROM $2 RETURNING 1', [
    accountId,
    opts.keepSessionHash ?? null,
  ]);
  // Login sessions, grants, refresh tokens, codes: an OAuth client must ask the person again.
  const oauth = await tx.query(`DELETE FROM oidc_models WHERE payload->>'accountId' = $1 RETURNING 1`, [accountId]);
  // Agents and CLI logins: their assertions cannot be exchanged any more, and a claim confirmed but not
  // yet collected cannot be collected (its redelivery window is closed).
  const agents = await tx.query(
    `UPDATE agent_registrations SET claim_delivered_at = $2 WHERE account_id = $1 AND claim_delivered_at IS DISTINCT FROM $2 RETURNING 1`,
    [accountId, REVOKED_MARK],
  );
  await tx.query(
    `UPDATE agent_credentials SET revoked_at = $2 WHERE revoked_at IS NULL AND registration_id IN (SELECT registration_id FROM agent_registrations WHERE account_id = $1)`,
    [accountId, now],
  );
  const keys = await tx.query('UPDATE api_keys SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL RETURNING 1', [accountId, now]);
  const changes = await tx.query('UPDATE email_changes SET cancelled_at = $2 WHERE account_id = $1 AND used_at IS NULL AND cancelled_at IS NULL RETURNING 1', [
    accountId,
    now,
  ]);
  await tx.query('UPDATE password_resets SET used_at = $2 WHERE account_id = $1 AND used_at IS NULL', [accountId, now]);
  return { webSessions: sessions.length, oauthRecords: oauth.length, agents: agents.length, apiKeys: keys.length, emailChanges: changes.length };
}

/** After the transaction that ended the credentials commits: this instance stops trusting its cached revocations. */
export function afterCommit(ctx: AppContext, accountId: string): void {
  forgetRevocations(ctx, accountId);
}

/** What ended (or will end), as lines for a page or a mail; empty when nothing could act for the account. */
export function describeCredentials(c: Credentials, opts: { thisBrowser?: boolean } = {}): string[] {
  const lines: string[] = [];
  const s = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  if (c.webSessions)
    lines.push(
      `${s(c.webSessions, opts.thisBrowser ? 'other browser session' : 'browser session', opts.thisBrowser ? 'other browser sessions' : 'browser sessions')} (signed out)`,
    );
  if (c.apps.length) lines.push(`Connected apps (MCP clients; they must be allowed again): ${c.apps.map((a) => a.name ?? a.clientId).join(', ')}`);
  if (c.agents.length)
    lines.push(
      `Linked agents and CLI logins (they must be linked again): ${c.agents.map((a) => a.label ?? `Agent ${a.registrationId.slice(0, 6)}…`).join(', ')}`,
    );
  if (c.apiKeys.length)
    lines.push(`REST API keys (revoked; create new ones on the account page): ${c.apiKeys.map((k) => `"${k.name}" (${k.prefix}…)`).join(', ')}`);
  if (c.emailChanges.length)
    lines.push(
      `Pending change of the account's address to ${c.emailChanges.map((e) => e.newEmail).join(', ')} (cancelled: its confirmation link no longer works)`,
    );
  return lines;
}
