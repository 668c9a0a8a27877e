// Who can act for an account through browser sign-in, as its page lists them: every MCP client the
// account allowed (an OAuth grant): the client's registered name, where it redirects, when it was
// first allowed and when last used. Revoking is src/web/connected-apps.ts; agents and CLI logins are
// src/web/linked-agents.ts.
// "Last used" is the client's last token issue for the account (the code exchange or a refresh, about
// hourly while in use): each call is not recorded (that would be a write per MCP request).
import type { AppContext } from '../context.ts';

export interface AllowedClient {
  clientId: string;
  /** The client_name it registered with; null when it gave none. */
  name: string | null;
  /** Hosts of its redirect URIs (where the sign-in sends the browser back). */
  redirectHosts: string[];
  allowedAt: string | null;
  lastUsedAt: string | null;
}

type Json = Record<string, unknown>;
const parse = (p: unknown): Json => (typeof p === 'string' ? (JSON.parse(p) as Json) : ((p ?? {}) as Json));
const fromEpoch = (s: unknown): string | null =>
  typeof s === 'number' || (typeof s === 'string' && /^\d+$/.test(s)) ? new Date(Number(s) * 1000).toISOString() : null;

function hostOf(uri: string): string {
  try {
    return new URL(uri).host || uri;
  } catch {
    return uri;
  }
}

/** Every client with a grant from this account, most recently used first. */
export async function allowedClients(ctx: AppContext, accountId: string): Promise<AllowedClient[]> {
  const rows = await ctx.db.query<{ client_id: string; client: unknown; allowed_iat: string | number | null; last_iat: string | number | null }>(
    `SELECT g.client_id, c.payload AS client, g.allowed_iat,
            (SELECT max((o.payload->>'iat')::bigint) FROM oidc_models o
              WHERE o.model <> 'Grant' AND o.payload->>'accountId' = $1 AND o.payload->>'clientId' = g.client_id) AS last_iat
       FROM (SELECT payload->>'clientId' AS client_id, min((payload->>'iat')::bigint) AS allowed_iat FROM oidc_models
              WHERE model = 'Grant' AND payload->>'accountId' = $1 AND payload->>'clientId' IS NOT NULL GROUP BY 1) g
       LEFT JOIN oidc_models c ON c.model = 'Client' AND c.id = g.client_id`,
    [accountId],
  );
  const out = rows.map((r): AllowedClient => {
    const client = parse(r.client);
    const uris = Array.isArray(client.redirect_uris) ? (client.redirect_uris as unknown[]).map(String) : [];
    const allowedAt = fromEpoch(r.allowed_iat);
    const lastUsedAt = fromEpoch(r.last_iat);
    return {
      clientId: r.client_id,
      name: typeof client.client_name === 'string' && client.client_name.trim() ? client.client_name.trim() : null,
      redirectHosts: [...new Set(uris.map(hostOf))],
      allowedAt,
      lastUsedAt: lastUsedAt && (!allowedAt || lastUsedAt > allowedAt) ? lastUsedAt : allowedAt,
    };
  });
  return out.sort((a, b) => (b.lastUsedAt ?? '').localeCompare(a.lastUsedAt ?? '') || a.clientId.localeCompare(b.clientId));
}
