// Browser OAuth for MCP clients on panva's oidc-provider: authorization code + PKCE S256, Dynamic
// Client Registration and Client ID Metadata Documents, resource indicators (access tokens are JWTs
// for the MCP resource, signed with the service's keys, so verifyBearer accepts them), rotating
// refresh tokens, revocation, loopback redirects on any port. Sign-in and consent are our own pages.
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { errors } from 'oidc-provider';
import type { AppContext } from '../context.ts';
import { dbAdapterClass } from '../auth/oidc-adapter.ts';
import { loadSigningKeys, SIGNING_ALG } from '../auth/signing-keys.ts';
import { PATHS, SCOPE_MCP, SCOPE_PUBLIC, issuer, mcpResource } from '../auth/endpoints.ts';
import { OAUTH_ACCESS_TTL_S, OAUTH_CODE_TTL_S, OAUTH_REFRESH_TTL_S, HOUR_S, DAY_S } from '../auth/lifetimes.ts';
import { html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { clientIp, forwardedHeader } from '../http/client-ip.ts';
import { guardRegistration } from './dcr-policy.ts';
import { safeFetch } from '../auth/safe-fetch.ts';
import { clientScope, revokeTokens } from '../auth/token-revocation.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** The redirect URI with its port removed when it is an http loopback URI (RFC 8252 §7.3), else undefined. */
export function loopbackWithoutPort(uri: string): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' || !LOOPBACK_HOSTS.has(u.hostname)) return undefined;
  u.port = '';
  return u.href;
}

// Long because: oidc-provider takes its whole configuration (features, adapters, clients, hooks) as one object,
// kept in one piece in the order the library documents it.
async function createProvider(ctx: AppContext): Promise<Provider> {
  const resource = mcpResource(ctx.config);
  const { active } = await loadSigningKeys(ctx);
  const cookieKey = crypto.createHmac('sha256', String(active.privateJwk.d)).update('siteline-oauth-cookies').digest('base64url');
  const isMcp = (target: string) => target === resource || target === `${resource}/`;

  const provider = new Provider(issuer(ctx.config), {
    // A revoked grant (RFC 6749 §4.1.2: a code used twice; a rotated-out refresh token used again; a
    // refresh token revoked) takes its JWT access tokens with it: every token of that account through
    // that client issued until now is refused (docs/auth.md).
    adapter: dbAdapterClass(ctx.db, {
      onGrantRevoked: async (_grantId, holders) => {
        for (const h of holders)
          await revokeTokens(ctx, h.accountId, clientScope(h.clientId), 'OAuth grant revoked (a code or refresh token used again, or revoked)');
        ctx.logger.warn({ accounts: holders.length }, 'oauth grant revoked: its access tokens are refused from now on');
      },
    }),
    jwks: { keys: [active.privateJwk] },
    clients: [],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: SIGNING_ALG,
    },
    responseTypes: ['code'],
    // Clients register (DCR) with the resource's scopes too, so the provider must know them.
    scopes: ['openid', 'offline_access', SCOPE_MCP, SCOPE_PUBLIC],
    claims: { openid: ['sub'] },
    pkce: { required: () => true },
    enabledJWA: { idTokenSigningAlgValues: [SIGNING_ALG] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: {
        enabled: true,
        // A client revokes only its own tokens; for another client's token it learns nothing (RFC 7009: 200).
        allowedPolicy: async (_c: unknown, client: { clientId: string }, token: { clientId: string }) => token.clientId === client.clientId,
      },
      userinfo: { enabled: false },
      clientIdMetadataDocument: { enabled: true, ack: 'draft-02' },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, target: string) => {
          if (!isMcp(target)) throw new errors.InvalidTarget(`Unknown resource; this service protects ${resource}.`);
          return {
            scope: `${SCOPE_MCP} ${SCOPE_PUBLIC}`,
            audience: resource,
            accessTokenTTL: OAUTH_ACCESS_TTL_S,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: SIGNING_ALG } },
          };
        },
      },
    },
    routes: {
      authorization: PATHS.authorize,
      token: PATHS.token,
      registration: PATHS.register,
      revocation: PATHS.oauthRevoke,
      jwks: `${PATHS.oauthPrefix}/jwks`,
      end_session: `${PATHS.oauthPrefix}/session/end`,
      introspection: `${PATHS.oauthPrefix}/introspect`,
      userinfo: `${PATHS.oauthPrefix}/me`,
      pushed_authorization_request: `${PATHS.oauthPrefix}/par`,
      code_verification: `${PATHS.oauthPrefix}/device`,
      device_authorization: `${PATHS.oauthPrefix}/device/auth`,
      backchannel_authentication: `${PATHS.oauthPrefix}/backchannel`,
      challenge: `${PATHS.oauthPrefix}/challenge`,
    },
    interactions: { url: (_c: unknown, interaction: { uid: string }) => `${PATHS.interaction}/${interaction.uid}` },
    findAccount: async (_c: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    // MCP clients rarely ask for offline_access: a client allowed the refresh_token grant gets one.
    issueRefreshToken: async (_c: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: OAUTH_ACCESS_TTL_S,
      AuthorizationCode: OAUTH_CODE_TTL_S,
      RefreshToken: OAUTH_REFRESH_TTL_S,
      Interaction: HOUR_S,
      Session: 14 * DAY_S,
      Grant: OAUTH_REFRESH_TTL_S,
      IdToken: HOUR_S,
    },
    cookies: { keys: [cookieKey] },
    // Client metadata documents (and any URL the provider fetches): public addresses only, checked
    // before connecting and connected to as checked; 64 KiB and 2.5 s at most.
    fetch: safeFetch() as unknown as typeof fetch,
    renderError: async (kctx: { type: string; body: string }, out: { error?: string; error_description?: string }) => {
      kctx.type = 'html';
      kctx.body = page(
        'Sign-in could not continue',
        html`<p class="error">${out.error ?? 'error'}: ${out.error_description ?? 'The request could not be processed.'}</p><p>Return to your application and try again.</p>`,
      );
    },
  });
  // Koa reads X-Forwarded-Proto/-Host/-For only with proxy on; oauthServer.handle() rewrites them first
  // so a client can never choose them (see forwardedForProvider).
  if (ctx.config.baseUrl.startsWith('https://')) provider.proxy = true;

  // Loopback redirect URIs match on any port, for every client (CLI clients pick a free port).
  const original = provider.Client.prototype.redirectUriAllowed as (this: { redirectUris: string[] }, v: string) => boolean;
  provider.Client.prototype.redirectUriAllowed = function (this: { redirectUris: string[] }, value: string): boolean {
    if (original.call(this, value)) return true;
    const stripped = loopbackWithoutPort(value);
    return stripped !== undefined && this.redirectUris.some((u) => loopbackWithoutPort(u) === stripped);
  };

  provider.on('server_error', (_c: unknown, err: Error) => ctx.logger.error({ err }, 'oauth provider error'));
  provider.on('grant.error', (_c: unknown, err: Error & { error?: string }) => ctx.logger.info({ error: err.error ?? err.message }, 'oauth grant refused'));
  return provider;
}

/** Scope values this authorization server knows; any other in an authorization request is invalid_scope. */
export const KNOWN_SCOPES: readonly string[] = ['openid', 'offline_access', SCOPE_MCP, SCOPE_PUBLIC];

/**
 * The scope an authorization request without `scope` is given (RFC 6749 §3.3: a documented default):
 * `mcp`, what the MCP resource needs for every tool, shown in words on the consent page before the
 * person allows it. Clients that want less ask for `mcp.public`.
 */
export const DEFAULT_AUTHORIZATION_SCOPE = SCOPE_MCP;

/**
 * The scope rule for GET authorization requests, before oidc-provider sees them (it would ignore an
 * unknown scope, and with none it grants nothing and ends in access_denied after consent):
 * no or empty `scope` -> the default scope; an unknown value -> `invalid_scope` at the client's
 * redirect URI (only once the client and that URI check out; otherwise oidc-provider answers the
 * bad client or redirect itself, never redirecting to an unchecked URI). True when it answered.
 */
export async function applyScopeRule(ctx: AppContext, provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const u = new URL(req.url ?? '/', 'http://x');
  if (req.method !== 'GET' || u.pathname !== PATHS.authorize) return false;
  const scope = u.searchParams.get('scope');
  if (scope === null || scope.trim() === '') {
    u.searchParams.set('scope', DEFAULT_AUTHORIZATION_SCOPE);
    req.url = `${u.pathname}${u.search}`;
    return false;
  }
  const unknown = scope.split(/\s+/).filter((s) => s !== '' && !KNOWN_SCOPES.includes(s));
  if (unknown.length === 0) return false;
  const clientId = u.searchParams.get('client_id');
  if (!clientId) return false;
  let client: { redirectUris: string[]; redirectUriAllowed(v: string): boolean } | undefined;
  try {
    client = await provider.Client.find(clientId);
  } catch {
    return false; // invalid client metadata or storage down: oidc-provider looks the client up again and answers that itself
  }
  const redirectUri = u.searchParams.get('redirect_uri') ?? (client?.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!client || !redirectUri || !client.redirectUriAllowed(redirectUri)) return false;
  const to = new URL(redirectUri);
  to.searchParams.set('error', 'invalid_scope');
  to.searchParams.set(
    'error_description',
    `Unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; this service knows ${KNOWN_SCOPES.join(', ')} (no scope: ${DEFAULT_AUTHORIZATION_SCOPE}).`,
  );
  const state = u.searchParams.get('state');
  if (state !== null) to.searchParams.set('state', state);
  to.searchParams.set('iss', issuer(ctx.config));
  res.writeHead(303, { location: to.href, 'cache-control': 'no-store' });
  res.end();
  return true;
}

export interface OAuthServer {
  provider(): Promise<Provider>;
  /** Hands a request (already routed, body possibly pre-read) to oidc-provider. */
  handle(req: IncomingMessage, res: ServerResponse, preReadBody?: Record<string, unknown>): Promise<void>;
}

/**
 * The forwarding headers oidc-provider (Koa, proxy mode on https deployments) will read: a trusted
 * proxy's own values (SITELINE_TRUSTED_PROXIES), otherwise the configured public origin; the client
 * address is always the one clientIp() computed. Anything a direct client sent is replaced.
 */
export function forwardedForProvider(ctx: AppContext, req: IncomingMessage): void {
  const base = new URL(ctx.config.baseUrl);
  const proto = forwardedHeader(req, 'x-forwarded-proto', ctx.config) ?? base.protocol.slice(0, -1);
  const host = forwardedHeader(req, 'x-forwarded-host', ctx.config) ?? base.host;
  const ip = clientIp(req, ctx.config);
  delete req.headers['x-forwarded-proto'];
  delete req.headers['x-forwarded-host'];
  delete req.headers['x-forwarded-for'];
  if (!ctx.config.baseUrl.startsWith('https://')) return; // proxy mode off: Koa reads none of them
  req.headers['x-forwarded-proto'] = proto;
  req.headers['x-forwarded-host'] = host;
  req.headers['x-forwarded-for'] = ip;
}

/** Built on first use: the public base URL is only final once the server listens. */
export function oauthServer(ctx: AppContext): OAuthServer {
  let created: Promise<{ provider: Provider; callback: ReturnType<Provider['callback']> }> | undefined;
  const get = () =>
    (created ??= createProvider(ctx)
      .then((provider) => ({ provider, callback: provider.callback() }))
      .catch((err) => {
        created = undefined;
        throw err;
      }));
  return {
    provider: async () => (await get()).provider,
    async handle(req, res, preReadBody) {
      const { callback, provider } = await get();
      if (await applyScopeRule(ctx, provider, req, res)) return;
      // Dynamic Client Registration: our policy (redirect URI rules, caps, throttle) first.
      if (!preReadBody && req.method === 'POST' && new URL(req.url ?? '/', 'http://x').pathname === PATHS.register) {
        const checked = await guardRegistration(ctx, req, res);
        if (!checked) return;
        preReadBody = checked;
      }
      forwardedForProvider(ctx, req);
      if (preReadBody) (req as IncomingMessage & { body?: unknown }).body = preReadBody;
      await callback(req, res);
    },
  };
}
