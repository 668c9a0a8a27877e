// The one token check every surface uses. A JWT is checked for signature (published keys by kid),
// issuer, audience (the MCP resource, with or without a trailing slash), expiry and a scope claim;
// an opaque token must exist, be unrevoked and unexpired; a prepaid API key (`sl_live_...`) must be
// well formed, known and unrevoked. The answer says who calls with which scopes.
// Which token opens which surface (spec: Token rules):
//   /api/mcp  - user JWTs and pre-claim opaque tokens; an API key is refused (401): keys are for /api/v1.
//   /api/v1   - API keys and user JWTs with scope mcp (billing the same account); a pre-claim token is refused (401).
import { createLocalJWKSet, jwtVerify, errors as joseErrors } from 'jose';
import type { AppContext } from '../context.ts';
import { loadSigningKeys } from './signing-keys.ts';
import { issuer, mcpResource, PATHS, SCOPE_MCP, url } from './endpoints.ts';
import { secretHash } from './secrets.ts';
import { API_KEY_PREFIX, lookupApiKey, type ChargeOutcome, type ChargeRequest } from '../billing/api-keys.ts';
import type { RateDecision, RatePolicy } from '../ops/rate-limit.ts';
import { isRevoked } from './token-revocation.ts';
import { AGENT_REGISTRATION_CLAIM } from './user-jwt.ts';

export interface Caller {
  /** Account id for user tokens; `agent:<registration id>` for pre-claim opaque tokens. */
  subject: string;
  accountId: string | null;
  scopes: string[];
  tokenType: 'jwt' | 'opaque' | 'api_key';
  clientId?: string;
  /** The key's id, for API-key callers (charges name it). */
  keyId?: string;
}

/** The surface asking: the MCP endpoint (default) or the prepaid REST API. */
export type BearerSurface = 'mcp' | 'rest';

/** Scope an API key caller holds (keys open /api/v1 only). */
const SCOPE_API = 'api';

/** `rate`: the decision of a per-key rate limit counted with the key check; `charge`: its bill (see VerifyOptions). */
/** `wrongKind`: a credential of another kind than this surface takes (an API key on MCP): renewing it would not help. */
export type BearerCheck =
  | { kind: 'none' }
  | { kind: 'valid'; caller: Caller; rate?: RateDecision; charge?: ChargeOutcome }
  | { kind: 'invalid'; reason: string; wrongKind?: true };

export interface VerifyOptions {
  /** For API keys: count this request against the policy in the same statement as the key lookup. */
  keyRateLimit?: RatePolicy;
  /** For API keys, with keyRateLimit: settle a paid call's bill in the same statement (see ChargeRequest). */
  keyCharge?: ChargeRequest;
}

/** Prefix of opaque pre-claim access tokens. */
export const OPAQUE_ACCESS_PREFIX = 'slpt';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export async function verifyBearer(
  ctx: AppContext,
  authorization: string | undefined,
  surface: BearerSurface = 'mcp',
  opts: VerifyOptions = {},
): Promise<BearerCheck> {
  if (authorization === undefined) return { kind: 'none' };
  // A header that is present but empty or only whitespace is a malformed bearer, not an anonymous call.
  if (authorization.trim() === '')
    return { kind: 'invalid', reason: 'The Authorization header is empty; send "Bearer <token>" or no Authorization header at all.' };
  const m = BEARER.exec(authorization);
  if (!m) return { kind: 'invalid', reason: 'The Authorization header is not of the form "Bearer <token>".' };
  const token = m[1]!;
  if (token.startsWith(API_KEY_PREFIX)) {
    if (surface !== 'rest')
      return {
        kind: 'invalid',
        wrongKind: true,
        reason: 'API keys (sl_live_...) open the REST API under /api/v1 only; the MCP endpoint takes OAuth access tokens.',
      };
    const key = await lookupApiKey(ctx, token, opts.keyRateLimit, opts.keyCharge);
    if (key.kind === 'invalid') return key;
    const caller: Caller = { subject: key.accountId, accountId: key.accountId, scopes: [SCOPE_API], tokenType: 'api_key', keyId: key.keyId };
    const valid: BearerCheck = { kind: 'valid', caller };
    if (key.rate) valid.rate = key.rate;
    if (key.charge) valid.charge = key.charge;
    return valid;
  }
  if (token.split('.').length === 3) {
    const jwt = await verifyJwt(ctx, token);
    if (surface === 'rest' && jwt.kind === 'valid' && !jwt.caller.scopes.includes(SCOPE_MCP)) {
      return { kind: 'invalid', reason: 'This access token lacks scope mcp; the REST API takes an API key or a user token with scope mcp.' };
    }
    return jwt;
  }
  if (token.startsWith(`${OPAQUE_ACCESS_PREFIX}_`)) {
    if (surface === 'rest') {
      return {
        kind: 'invalid',
        reason:
          'A pre-claim token (scope mcp.public) opens the public MCP tools only. The REST API takes an API key (sl_live_...) or a claimed user token with scope mcp.',
      };
    }
    return verifyOpaque(ctx, token);
  }
  return { kind: 'invalid', reason: 'The bearer token is not a token this service issued.' };
}

// Published keys per database, reloaded every 30 s and at once when a token names an unknown kid.
const KEY_CACHE_MS = 30_000;
const keyCache = new WeakMap<object, { at: number; kids: Set<string>; keySet: ReturnType<typeof createLocalJWKSet> }>();

async function keySetFor(ctx: AppContext, kid: string | undefined): Promise<ReturnType<typeof createLocalJWKSet>> {
  const hit = keyCache.get(ctx.db);
  if (hit && Date.now() - hit.at < KEY_CACHE_MS && (kid === undefined || hit.kids.has(kid))) return hit.keySet;
  const { publicJwks } = await loadSigningKeys(ctx);
  const entry = { at: Date.now(), kids: new Set(publicJwks.map((k) => String(k.kid))), keySet: createLocalJWKSet({ keys: publicJwks }) };
  keyCache.set(ctx.db, entry);
  return entry.keySet;
}

function headerKid(token: string): string | undefined {
  try {
    const header = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { kid?: unknown };
    return typeof header.kid === 'string' ? header.kid : undefined;
  } catch {
    return undefined;
  }
}

// A signature check (ES256) costs more than the rest of a static MCP call, and an agent sends the same
// token with every call: a token that verified is remembered per database for VERIFIED_CACHE_MS of
// real time (so a key withdrawn from the key set stops opening it within that time), and each
// remembered use still checks exp and nbf against the service clock. Failures are never remembered.
const VERIFIED_CACHE_MS = 60_000;
const VERIFIED_CACHE_MAX = 10_000;
interface Verified {
  at: number;
  expMs: number;
  nbfMs: number;
  iatS: number;
  registrationId: string | undefined;
  caller: Caller;
}

const REVOKED = 'The access token has been revoked (signed out everywhere, or its app or agent was revoked on the account page). Sign in again.';
const verifiedCache = new WeakMap<object, Map<string, Verified>>();

async function verifyJwt(ctx: AppContext, token: string): Promise<BearerCheck> {
  const resource = mcpResource(ctx.config);
  const cacheKey = `${issuer(ctx.config)} ${resource} ${token}`;
  let remembered = verifiedCache.get(ctx.db);
  if (!remembered) verifiedCache.set(ctx.db, (remembered = new Map()));
  const hit = remembered.get(cacheKey);
  if (hit && Date.now() - hit.at < VERIFIED_CACHE_MS) {
    const now = ctx.clock.now().getTime();
    if (now >= hit.expMs) return { kind: 'invalid', reason: 'The access token has expired.' };
    // A remembered signature is not a remembered permission: the revocation check runs on every use.
    if (await isRevoked(ctx, { accountId: hit.caller.subject, iatS: hit.iatS, clientId: hit.caller.clientId, registrationId: hit.registrationId })) {
      return { kind: 'invalid', reason: REVOKED };
    }
    if (now >= hit.nbfMs) return { kind: 'valid', caller: { ...hit.caller, scopes: [...hit.caller.scopes] } };
  }
  try {
    const { payload } = await jwtVerify(token, await keySetFor(ctx, headerKid(token)), {
      issuer: issuer(ctx.config),
      audience: [resource, `${resource}/`],
      algorithms: ['ES256'],
      currentDate: ctx.clock.now(),
      requiredClaims: ['sub', 'exp'],
    });
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
    if (scopes.length === 0) return { kind: 'invalid', reason: 'The access token carries no scope.' };
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
    const caller: Caller = { subject: payload.sub!, accountId: payload.sub!, scopes, tokenType: 'jwt', ...(clientId ? { clientId } : {}) };
    const reg = payload[AGENT_REGISTRATION_CLAIM];
    const registrationId = typeof reg === 'string' ? reg : undefined;
    // A token without iat cannot show it was issued after a revocation: it falls under any.
    const iatS = typeof payload.iat === 'number' ? payload.iat : 0;
    if (await isRevoked(ctx, { accountId: caller.subject, iatS, clientId, registrationId })) return { kind: 'invalid', reason: REVOKED };
    remembered.delete(cacheKey);
    remembered.set(cacheKey, {
      at: Date.now(),
      expMs: payload.exp! * 1000,
      nbfMs: (payload.nbf ?? 0) * 1000,
      iatS,
      registrationId,
      caller: { ...caller, scopes: [...scopes] },
    });
    if (remembered.size > VERIFIED_CACHE_MAX) remembered.delete(remembered.keys().next().value!);
    return { kind: 'valid', caller };
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) return { kind: 'invalid', reason: 'The access token has expired.' };
    if (err instanceof joseErrors.JWTClaimValidationFailed) return { kind: 'invalid', reason: `The access token is not valid here (${err.claim}).` };
    // Only the token's own faults make it invalid: a failure of ours (the database gone while loading
    // the keys or the revocations) is a server error, never a reason for the client to drop a good token.
    if (!(err instanceof joseErrors.JOSEError)) throw err;
    return { kind: 'invalid', reason: 'The access token could not be verified.' };
  }
}

async function verifyOpaque(ctx: AppContext, token: string): Promise<BearerCheck> {
  const rows = await ctx.db.query<{ registration_id: string; scopes: string; expires_at: Date; revoked_at: Date | null }>(
    `SELECT registration_id, scopes, expires_at, revoked_at FROM agent_credentials WHERE token_hash = $1 AND kind = 'access'`,
    [secretHash(token)],
  );
  const row = rows[0];
  if (!row) return { kind: 'invalid', reason: 'The access token is unknown.' };
  if (row.revoked_at) return { kind: 'invalid', reason: 'The access token has been revoked.' };
  if (new Date(row.expires_at).getTime() <= ctx.clock.now().getTime()) return { kind: 'invalid', reason: 'The access token has expired.' };
  return {
    kind: 'valid',
    caller: { subject: `agent:${row.registration_id}`, accountId: null, scopes: row.scopes.split(' ').filter(Boolean), tokenType: 'opaque', clientId: 'agent' },
  };
}

/** The WWW-Authenticate value of a 401 (or a 403 with error="insufficient_scope"). */
export function wwwAuthenticate(ctx: AppContext, opts: { error?: string; scope?: string; description?: string; surface?: BearerSurface } = {}): string {
  const metadata = opts.surface === 'rest' ? PATHS.protectedResource : PATHS.protectedResourceMcp;
  const parts = [`${opts.surface === 'rest' ? 'realm="siteline-api", ' : ''}resource_metadata="${url(ctx.config, metadata)}"`];
  if (opts.error) parts.push(`error="${quoteSafe(opts.error)}"`);
  if (opts.description) parts.push(`error_description="${quoteSafe(opts.description)}"`);
  if (opts.scope) parts.push(`scope="${quoteSafe(opts.scope)}"`);
  return `Bearer ${parts.join(', ')}`;
}

function quoteSafe(s: string): string {
  return s.replace(/["\\\r\n]/g, ' ');
}
