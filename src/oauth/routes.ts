// The authorization server's endpoints: discovery documents, JWKS, agent registration and tokens, and
// oidc-provider under /api/auth/oauth (a mounted node handler), and the consent page the provider's
// interactions lead to (src/oauth/consent-page.ts).
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { jsonReply } from '../http/reply.ts';
import { PATHS } from '../auth/endpoints.ts';
import { authorizationServerMetadata, jwks, protectedResourceMetadata } from '../auth/discovery.ts';
import { ensureSigningKey } from '../auth/signing-keys.ts';
import { registerAgentRoutes } from './agent-routes.ts';
import { oauthServer } from './oauth-provider.ts';
import { registerConsentPage } from './consent-page.ts';

export async function mountRoutes(app: HttpApp, ctx: AppContext): Promise<void> {
  await ensureSigningKey(ctx);
  const cacheable = { 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' };
  app.pages.get(PATHS.protectedResource, (c) => jsonReply(c, 200, protectedResourceMetadata(ctx, false), cacheable));
  app.pages.get(PATHS.protectedResourceMcp, (c) => jsonReply(c, 200, protectedResourceMetadata(ctx, true), cacheable));
  app.pages.get(PATHS.authorizationServer, (c) => jsonReply(c, 200, authorizationServerMetadata(ctx), cacheable));
  app.pages.get(PATHS.openidConfiguration, (c) => jsonReply(c, 200, authorizationServerMetadata(ctx), cacheable));
  app.pages.get(PATHS.jwks, async (c) => jsonReply(c, 200, await jwks(ctx), cacheable));
  const oauth = oauthServer(ctx);
  // The token endpoint is shared: agent grants are ours, authorization_code and refresh_token go to oidc-provider.
  registerAgentRoutes(app, ctx, (req, res, body) => oauth.handle(req, res, body));
  // The consent page is under the provider's prefix: registered before the mount, so it is matched first.
  registerConsentPage(app, ctx, oauth);
  app.nodeMount(PATHS.oauthPrefix, (req, res) => oauth.handle(req, res));
}
