// Revocation that revokes: a JWT access token (about an hour) cannot be recalled by itself, so a
// revocation is a record "every token of this account [of this client | of this agent] issued at or
// before T is refused", checked at every verification. Each instance remembers an account's records
// for REVOCATION_STALENESS_MS at most, and forgets them at once when it writes one itself, so a
// revocation ends access at once on the instance that made it and within that bound on every other.
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';

/** The bound on how long another instance may still accept a revoked token. */
export const REVOCATION_STALENESS_MS = 2_000;
const CACHE_MAX = 50_000;

/** Every token of the account (sign out everywhere). */
export const ALL_TOKENS = '*';
export const clientScope = (clientId: string) => `client:${clientId}`;
export const agentScope = (registrationId: string) => `agent:${registrationId}`;

interface Remembered {
  at: number;
  /** scope -> revoked_before, in whole seconds since the epoch (JWT iat is in seconds). */
  before: Map<string, number>;
}
const cache = new WeakMap<object, Map<string, Remembered>>();

function cacheFor(ctx: AppContext): Map<string, Remembered> {
  let m = cache.get(ctx.db);
  if (!m) cache.set(ctx.db, (m = new Map()));
  return m;
}

/**
 * Records a revocation (in the caller's transaction when given one). Later revocations move the
 * instant forward, never back. Tokens issued in the same second as the revocation are refused too:
 * a JWT's iat has whole seconds.
 */
export async function revokeTokens(ctx: AppContext, accountId: string, scope: string, reason: string, db: Queryable = ctx.db): Promise<void> {
  const now = ctx.clock.now().toISOString();
  await db.query(
    `INSERT INTO token_revocations (account_id, scope, revoked_before, reason, updated_at) VALUES ($1, $2, $3, $4, $3)
     ON CONFLICT (account_id, scope) DO UPDATE
       SET revoked_before = GREATEST(token_revocations.revoked_before, EXCLUDED.revoked_before), reason = EXCLUDED.reason, updated_at = EXCLUDED.updated_at`,
    [accountId, scope, now, reason],
  );
  forgetRevocations(ctx, accountId);
}

/** Drops this instance's memory of an account's revocations (call again after the revoking transaction commits). */
export function forgetRevocations(ctx: AppContext, accountId: string): void {
  cacheFor(ctx).delete(accountId);
}

async function revocationsOf(ctx: AppContext, accountId: string): Promise<Map<string, number>> {
  const remembered = cacheFor(ctx);
  const hit = remembered.get(accountId);
  if (hit && Date.now() - hit.at < REVOCATION_STALENESS_MS) return hit.before;
  const rows = await ctx.db.query<{ scope: string; before_s: number | string }>(
    `SELECT scope, floor(extract(epoch FROM revoked_before))::bigint AS before_s FROM token_revocations WHERE account_id = $1`,
    [accountId],
  );
  const before = new Map(rows.map((r) => [r.scope, Number(r.before_s)]));
  remembered.delete(accountId);
  remembered.set(accountId, { at: Date.now(), before });
  if (remembered.size > CACHE_MAX) remembered.delete(remembered.keys().next().value!);
  return before;
}

/** True when a JWT with these claims falls under a revocation of its account, client or agent. */
export async function isRevoked(
  ctx: AppContext,
  claims: { accountId: string; iatS: number; clientId?: string | undefined; registrationId?: string | undefined },
): Promise<boolean> {
  const before = await revocationsOf(ctx, claims.accountId);
  if (before.size === 0) return false;
  const hits = (scope: string) => {
    const t = before.get(scope);
    return t !== undefined && claims.iatS <= t;
  };
  return hits(ALL_TOKENS) || (!!claims.clientId && hits(clientScope(claims.clientId))) || (!!claims.registrationId && hits(agentScope(claims.registrationId)));
}
