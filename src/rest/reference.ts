// The description of /api/v1: GET /api/v1/openapi.json (the OpenAPI 3.1 document generated from the route
// declarations, src/rest/openapi.ts) and the reference page /docs/api rendered from it (src/rest/api-reference.ts).
import { createRoute } from '@hono/zod-openapi';
import { accountForWebSession } from '../auth/web-sessions.ts';
import { SESSION_COOKIE, readCookie } from '../http/cookies.ts';
import { API_REFERENCE_PATH } from './problem.ts';
import { API_PREFIX, respond, type RestApi, type RestKit, bind } from './kit.ts';
import { renderApiReference } from './api-reference.ts';
import type { Json } from './openapi-parts.ts';

export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

export const openapiRoute = createRoute({
  method: 'get',
  path: OPENAPI_PATH,
  operationId: 'openapi',
  summary: 'This document',
  security: [],
  responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
});

/** `document` gives the OpenAPI document (built once the routes are declared: src/rest/routes.ts). */
export function registerReference(api: RestApi, kit: RestKit, document: () => Json): void {
  const { ctx } = kit;
  let openapi: string | undefined;
  bind(api, openapiRoute, () =>
    respond(200, (openapi ??= JSON.stringify(document())), { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' }),
  );
  // The page is for people, not part of the API: a plain route, not in the document.
  api.get(API_REFERENCE_PATH, async (c) => {
    // The header says who is signed in, so a signed-in copy is never cached for anyone else.
    const account = await accountForWebSession(ctx, readCookie(c, SESSION_COOKIE));
    const page = renderApiReference(document(), account?.email ?? null);
    return respond(200, page, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': account ? 'private, no-store' : 'public, max-age=300',
      vary: 'cookie',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    });
  });
}
