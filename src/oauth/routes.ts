// The authorization server's endpoints: discovery documents, JWKS, agent registration and tokens, and
// oidc-provider under /oauth. Returns the OAuth server, which the consent page (a web page) drives.
import type { AppContext } from '../context.ts';
import type { Router } from '../http/router.ts';
import { sendJson } from '../http/respond.ts';
import { PATHS } from '../auth/endpoints.ts';
import { authorizationServerMetadata, jwks, protectedResourceMetadata } from '../auth/discovery.ts';
import { ensureSigningKey } from '../auth/signing-keys.ts';
import { registerAgentRoutes } from './agent-routes.ts';
import { oauthServer, type OAuthServer } from './oauth-provider.ts';

export async function registerOAuthRoutes(router: Router, ctx: AppContext): Promise<OAuthServer> {
  await ensureSigningKey(ctx);
  const cacheable = { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' };
  router.get(PATHS.protectedResource, (_req, res) => sendJson(res, 200, protectedResourceMetadata(ctx, false), cacheable));
  router.get(PATHS.protectedResourceMcp, (_req, res) => sendJson(res, 200, protectedResourceMetadata(ctx, true), cacheable));
  router.get(PATHS.authorizationServer, (_req, res) => sendJson(res, 200, authorizationServerMetadata(ctx), cacheable));
  router.get(PATHS.openidConfiguration, (_req, res) => sendJson(res, 200, authorizationServerMetadata(ctx), cacheable));
  router.get(PATHS.jwks, async (_req, res) => sendJson(res, 200, await jwks(ctx), cacheable));
  const oauth = oauthServer(ctx);
  // The token endpoint is shared: agent grants are ours, authorization_code and refresh_token go to oidc-provider.
  registerAgentRoutes(router, ctx, (req, res, body) => oauth.handle(req, res, body));
  router.mount(PATHS.oauthPrefix, (req, res) => oauth.handle(req, res));
  return oauth;
}
