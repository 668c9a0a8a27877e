// Agent registrations and their opaque credentials: registration, the jwt-bearer exchange of an
// identity assertion, and revocation. Secrets are returned once and stored as SHA-256 hashes.
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import { AgentAuthError, invalidGrant } from './oauth-errors.ts';
import { newSecret, secretHash } from './secrets.ts';
import { SCOPE_MCP, SCOPE_PUBLIC } from './endpoints.ts';
import { ANONYMOUS_ASSERTION_TTL_S, CLAIM_TTL_S, PRE_CLAIM_TOKEN_TTL_S } from './lifetimes.ts';
import { mintUserJwt } from './user-jwt.ts';
import { startCeremony, type ClaimBlock } from './claim-ceremony.ts';
import { addSeconds, AGENT_CLIENT_ID, issueCredential, type TokenResponse } from './agent-credentials.ts';

const CLAIM_TOKEN_PREFIX = 'clm';

/** What the CLI's registrations are called: "CLI on <host>" (src/cli/auth-commands.ts); the claim page and account page tell it from an agent by it. */
export const CLI_LABEL_PREFIX = 'CLI on ';

/** True for a registration the siteline CLI made (`siteline login`). */
export const isCliRegistration = (label: string | null | undefined): boolean => Boolean(label?.startsWith(CLI_LABEL_PREFIX));

/**
 * The name of a registration that gave none (issue 49, item 5): what registered it, from its User-Agent
 * ("Agent registered with curl 8.5.0"), so the account page does not show a bare id. Only the first
 * product token is kept, printable and short; none at all gives null (the page then uses the date).
 */
export function labelFromUserAgent(userAgent: string | undefined): string | null {
  const product = /^\s*([A-Za-z][A-Za-z0-9._+-]{0,40})(?:\/([0-9][A-Za-z0-9._-]{0,20}))?/.exec(userAgent ?? '');
  if (!product) return null;
  return `Agent registered with ${product[1]}${product[2] ? ` ${product[2]}` : ''}`;
}

/** label: an optional name shown on the account page (the CLI sends "CLI on <host>"). */
export type RegistrationRequest = { type: 'anonymous'; label?: string | undefined } | { type: 'service_auth'; loginHint: string; label?: string | undefined };

export interface RegistrationResponse {
  type: 'anonymous' | 'service_auth';
  claim_token: string;
  claim_expires_in: number;
  pre_claim_scopes: string[];
  post_claim_scopes: string[];
  identity_assertion?: string;
  identity_assertion_expires_in?: number;
  claim?: ClaimBlock;
}

export async function registerIdentity(ctx: AppContext, req: RegistrationRequest): Promise<RegistrationResponse> {
  const now = ctx.clock.now();
  const registrationId = crypto.randomUUID();
  const claimToken = newSecret(CLAIM_TOKEN_PREFIX);
  const base = { claim_token: claimToken, claim_expires_in: CLAIM_TTL_S, pre_claim_scopes: [SCOPE_PUBLIC], post_claim_scopes: [SCOPE_MCP] };
  await ctx.db.query(
    `INSERT INTO agent_registrations (registration_id, type, claim_token_hash, login_hint, created_at, claim_expires_at, label)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      registrationId,
      req.type,
      secretHash(claimToken),
      req.type === 'service_auth' ? req.loginHint : null,
      now.toISOString(),
      addSeconds(now, CLAIM_TTL_S),
      req.label ?? null,
    ],
  );
  ctx.logger.info({ registrationId, type: req.type }, 'agent registered');
  if (req.type === 'anonymous') {
    const assertion = await issueCredential(ctx.db, ctx, registrationId, 'assertion', [SCOPE_PUBLIC], ANONYMOUS_ASSERTION_TTL_S);
    return { type: 'anonymous', ...base, identity_assertion: assertion, identity_assertion_expires_in: ANONYMOUS_ASSERTION_TTL_S };
  }
  // service_auth: the ceremony starts at once for the named address; no user is created from it.
  const claim = await startCeremony(ctx, registrationId, req.loginHint);
  return { type: 'service_auth', ...base, claim };
}

/** The jwt-bearer grant: a claimed assertion gives a user JWT (mcp); an unclaimed anonymous one an opaque mcp.public token. */
export async function exchangeAssertion(ctx: AppContext, assertion: string, requestedScope: string | undefined): Promise<TokenResponse> {
  const rows = await ctx.db.query<{ registration_id: string; expires_at: Date; revoked_at: Date | null; account_id: string | null }>(
    `SELECT c.registration_id, c.expires_at, c.revoked_at, r.account_id
       FROM agent_credentials c JOIN agent_registrations r USING (registration_id)
      WHERE c.token_hash = $1 AND c.kind = 'assertion'`,
    [secretHash(assertion)],
  );
  const row = rows[0];
  const restart = 'Restart at registration (POST /api/auth/agent/identity).';
  if (!row) throw invalidGrant(`The identity assertion is unknown. ${restart}`);
  if (row.revoked_at) throw invalidGrant(`The identity assertion has been revoked. ${restart}`);
  if (new Date(row.expires_at).getTime() <= ctx.clock.now().getTime()) throw invalidGrant(`The identity assertion has expired. ${restart}`);
  const wanted = (requestedScope ?? '').split(' ').filter(Boolean);
  const userToken = async (accountId: string): Promise<TokenResponse> => {
    const unknown = wanted.filter((s) => s !== SCOPE_MCP && s !== SCOPE_PUBLIC);
    if (unknown.length) throw new AgentAuthError(400, 'invalid_scope', `Unknown scope: ${unknown.join(' ')}.`);
    const { token, expiresIn } = await mintUserJwt(ctx, { accountId, scopes: [SCOPE_MCP], clientId: AGENT_CLIENT_ID, registrationId: row.registration_id });
    return { access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: SCOPE_MCP };
  };
  if (row.account_id) {
    // The account page's "last used": each exchange is the agent coming back for access (about hourly).
    await ctx.db.query('UPDATE agent_registrations SET last_used_at = $2 WHERE registration_id = $1', [row.registration_id, ctx.clock.now().toISOString()]);
    return userToken(row.account_id);
  }
  if (wanted.some((s) => s !== SCOPE_PUBLIC)) {
    throw new AgentAuthError(
      400,
      'invalid_scope',
      `This identity is not claimed yet: it can only receive ${SCOPE_PUBLIC}. A human must claim it for ${SCOPE_MCP}.`,
    );
  }
  // The claim revokes every pre-claim token of the registration. Issuing one must not slip past it:
  // the registration row is share-locked (the claim holds it FOR UPDATE), so either this token is
  // committed before the claim revokes, or the claim has committed and a user token is due instead.
  const registrationId = row.registration_id;
  const issued = await ctx.db.transaction(async (tx): Promise<{ kind: 'claimed'; accountId: string } | { kind: 'issued'; token: string }> => {
    // The assertion again, share-locked: a revocation committed since the first read wins.
    const [cred] = await tx.query<{ revoked_at: Date | null }>(
      `SELECT revoked_at FROM agent_credentials WHERE token_hash = $1 AND kind = 'assertion' FOR SHARE`,
      [secretHash(assertion)],
    );
    if (!cred || cred.revoked_at) throw invalidGrant(`The identity assertion has been revoked. ${restart}`);
    const [reg] = await tx.query<{ account_id: string | null }>('SELECT account_id FROM agent_registrations WHERE registration_id = $1 FOR SHARE', [
      registrationId,
    ]);
    if (reg?.account_id) return { kind: 'claimed', accountId: reg.account_id };
    return { kind: 'issued', token: await issueCredential(tx, ctx, registrationId, 'access', [SCOPE_PUBLIC], PRE_CLAIM_TOKEN_TTL_S) };
  });
  if (issued.kind === 'claimed') return userToken(issued.accountId);
  return { access_token: issued.token, token_type: 'Bearer', expires_in: PRE_CLAIM_TOKEN_TTL_S, scope: SCOPE_PUBLIC };
}

export interface RevokeResult {
  revoked: boolean;
  token_type?: 'identity_assertion' | 'access_token' | 'jwt';
  message: string;
}

/** RFC 7009 style: unknown tokens are not an error. Post-claim JWTs cannot be revoked. */
export async function revokeAgentToken(ctx: AppContext, token: string): Promise<RevokeResult> {
  if (token.split('.').length === 3) {
    return {
      revoked: false,
      token_type: 'jwt',
      message:
        'Post-claim JWT access tokens are not revocable; they expire on their own within one hour. Revoke the identity assertion to stop new ones being minted.',
    };
  }
  const now = ctx.clock.now().toISOString();
  const rows = await ctx.db.query<{ kind: string; registration_id: string }>(
    `UPDATE agent_credentials SET revoked_at = COALESCE(revoked_at, $2) WHERE token_hash = $1 RETURNING kind, registration_id`,
    [secretHash(token), now],
  );
  const kind = rows[0]?.kind;
  if (!kind) return { revoked: false, message: 'The token is unknown to this service (or was never issued); nothing to revoke.' };
  let minted = 0;
  if (kind === 'assertion') {
    // The opaque tokens minted from this identity go with it. An exchange running now holds the
    // assertion share-locked until it commits, so its token is committed before this statement runs.
    const revoked = await ctx.db.query(
      `UPDATE agent_credentials SET revoked_at = $2 WHERE registration_id = $1 AND kind = 'access' AND revoked_at IS NULL RETURNING token_hash`,
      [rows[0]!.registration_id, now],
    );
    minted = revoked.length;
  }
  ctx.logger.info({ kind, alsoRevoked: minted }, 'agent credential revoked');
  return kind === 'assertion'
    ? {
        revoked: true,
        token_type: 'identity_assertion',
        message: `The identity assertion is revoked; the jwt-bearer exchange no longer accepts it, and the opaque access tokens minted from it are revoked too${minted ? ` (${minted})` : ''}.`,
      }
    : { revoked: true, token_type: 'access_token', message: 'The pre-claim access token is revoked.' };
}
