// The opaque credentials of agent registrations (identity assertions and pre-claim access tokens) and the
// token answer both the registration (src/auth/agent-identity.ts) and the claim (src/auth/claim-ceremony.ts)
// give. Secrets are returned once and stored as SHA-256 hashes.
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { newSecret, secretHash } from './secrets.ts';
import { OPAQUE_ACCESS_PREFIX } from './verify-bearer.ts';

const ASSERTION_PREFIX = 'slia';
/** client_id carried by tokens minted for agents. */
export const AGENT_CLIENT_ID = 'siteline-agent';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  identity_assertion?: string;
  identity_assertion_expires_in?: number;
}

export const addSeconds = (d: Date, s: number) => new Date(d.getTime() + s * 1000).toISOString();

/** Stores a new opaque credential (an identity assertion or a pre-claim access token) and returns it once. */
export async function issueCredential(
  db: Queryable,
  ctx: AppContext,
  registrationId: string,
  kind: 'assertion' | 'access',
  scopes: string[],
  ttlS: number,
): Promise<string> {
  const secret = newSecret(kind === 'assertion' ? ASSERTION_PREFIX : OPAQUE_ACCESS_PREFIX);
  const now = ctx.clock.now();
  await db.query(`INSERT INTO agent_credentials (token_hash, kind, registration_id, scopes, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
    secretHash(secret),
    kind,
    registrationId,
    scopes.join(' '),
    now.toISOString(),
    addSeconds(now, ttlS),
  ]);
  return secret;
}
