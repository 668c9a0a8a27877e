// Who can act for an account, as its page lists them: every MCP client allowed through browser
// sign-in (an OAuth grant: the client's name, where it redirects, when allowed, when last used) with a
// way to withdraw it. Agents and CLI logins are in src/web/linked-agents.ts.
// "Last used" for an OAuth client is its last token issue (the first code exchange or a refresh, about
// hourly while in use): access tokens are JWTs checked without a database read, so use itself is not
// recorded.
import type { AppContext } from '../context.ts';

export interface AllowedClient {
  grantId: string;
  clientId: string;
  /** The client_name it registered with, or its client_id when it gave none. */
  name: string;
  /** Hosts of its redirect URIs (where the sign-in sends the browser back). */
  redirectHosts: string[];
  allowedAt: string | null;
  lastUsedAt: string | null;
}

type Json = Record<string, unknown>;
const parse = (p: unknown): Json => (typeof p === 'string' ? (JSON.parse(p) as Json) : ((p ?? {}) as Json));
const fromEpoch = (s: unknown): string | null => (typeof s === 'number' || (typeof s === 'string' && /^\d+$/.test(s)) ? new Date(Number(s) * 1000).toISOString() : null);

export async function allowedClients(ctx: AppContext, accountId: string): Promise<AllowedClient[]> {
  const rows = await ctx.db.query<{ id: string; grant: unknown; client: unknown; last_iat: string | number | null }>(
    `SELECT g.id, g.payload AS grant, c.payload AS client,
            (SELECT max((o.payload->>'iat')::bigint) FROM oidc_models o WHERE o.grant_id = g.id AND o.model <> 'Grant') AS last_iat
       FROM oidc_models g
       LEFT JOIN oidc_models c ON c.model = 'Client' AND c.id = g.payload->>'clientId'
      WHERE g.model = 'Grant' AND g.payload->>'accountId' = $1 AND (g.expires_at IS NULL OR g.expires_at > $2)`,
    [accountId, ctx.clock.now().toISOString()],
  );
  const out = rows.map((r) => {
    const grant = parse(r.grant);
    const client = parse(r.client);
    const clientId = String(grant.clientId ?? '');
    const uris = Array.isArray(client.redirect_uris) ? (client.redirect_uris as unknown[]).map(String) : [];
    const hosts = [...new Set(uris.map((u) => { try { return new URL(u).host || u; } catch { return u; } }))];
    const allowedAt = fromEpoch(grant.iat);
    return {
      grantId: r.id,
      clientId,
      name: typeof client.client_name === 'string' && client.client_name.trim() ? client.client_name.trim() : clientId,
      redirectHosts: hosts,
      allowedAt,
      lastUsedAt: fromEpoch(r.last_iat) ?? allowedAt,
    };
  });
  return out.sort((a, b) => (b.lastUsedAt ?? '').localeCompare(a.lastUsedAt ?? ''));
}

/**
 * Withdraws one grant of this account: the grant and everything issued under it (refresh tokens,
 * codes) are deleted, so no refresh works and the client must ask again. false: not this account's.
 */
export async function revokeClientGrant(ctx: AppContext, accountId: string, grantId: string): Promise<boolean> {
  return ctx.db.transaction(async (tx) => {
    const owned = await tx.query(`SELECT 1 FROM oidc_models WHERE model = 'Grant' AND id = $1 AND payload->>'accountId' = $2 FOR UPDATE`, [grantId, accountId]);
    if (!owned.length) return false;
    await tx.query(`DELETE FROM oidc_models WHERE grant_id = $1 OR (model = 'Grant' AND id = $1)`, [grantId]);
    ctx.logger.info({ accountId }, 'MCP client access withdrawn from the account page');
    return true;
  });
}
