// Registers every auth and web-account route on the shared router (one line in src/http/app.ts).
import type { AppContext } from '../context.ts';
import type { Router } from '../http/router.ts';
import { sendJson } from '../http/respond.ts';
import { PATHS } from './endpoints.ts';
import { authorizationServerMetadata, jwks, protectedResourceMetadata } from './discovery.ts';
import { ensureSigningKey } from './signing-keys.ts';
import { registerAgentRoutes } from './agent-routes.ts';
import { registerWebRoutes } from '../web/routes.ts';
import { registerConsentPage } from '../web/consent-page.ts';
import { registerSitePages } from '../web/site-page.ts';
import { oauthServer } from './oauth-provider.ts';

export async function registerAuthRoutes(router: Router, ctx: AppContext): Promise<void> {
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
  registerWebRoutes(router, ctx);
  registerSitePages(router, ctx);
  registerConsentPage(router, ctx, oauth);
  router.mount(PATHS.oauthPrefix, (req, res) => oauth.handle(req, res));
}
