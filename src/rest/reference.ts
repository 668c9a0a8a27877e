// The description of /api/v1: GET /api/v1/openapi.json (the OpenAPI 3.1 document, src/rest/openapi.ts) and
// the reference page /docs/api rendered from it (src/rest/api-reference.ts).
import { accountForWebSession } from '../auth/web-sessions.ts';
import { SESSION_COOKIE, readCookies } from '../http/cookies.ts';
import { API_REFERENCE_PATH } from './problem.ts';
import { buildOpenApiDocument, OPENAPI_PATH } from './openapi.ts';
import { renderApiReference } from './api-reference.ts';
import { sendRaw, type RestKit } from './kit.ts';

export function registerReference(kit: RestKit): void {
  const { ctx, router } = kit;
  let openapi: string | undefined;
  const openapiJson = () => (openapi ??= JSON.stringify(buildOpenApiDocument(ctx)));
  kit.route(OPENAPI_PATH, {
    GET: async (_req, res) => sendRaw(res, 200, openapiJson(), 'application/json; charset=utf-8', { 'cache-control': 'public, max-age=300' }),
  });
  router.get(API_REFERENCE_PATH, async (req, res) => {
    // The header says who is signed in, so a signed-in copy is never cached for anyone else.
    const account = await accountForWebSession(ctx, readCookies(req)[SESSION_COOKIE]);
    const page = renderApiReference(buildOpenApiDocument(ctx), account?.email ?? null);
    sendRaw(res, 200, page, 'text/html; charset=utf-8', {
      'cache-control': account ? 'private, no-store' : 'public, max-age=300',
      vary: 'cookie',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    });
  });
}
