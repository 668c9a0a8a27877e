// The /api/v1 routes, declared once each (createRoute in the route's file) and bound to their handlers on
// an OpenAPIHono: the app that serves them (src/rest/routes.ts) and the OpenAPI document
// (src/rest/openapi.ts) come from this one list. Any other method on a declared path is a 405 problem with
// no CORS header (OPTIONS preflights included).
import type { Json } from './openapi-parts.ts';
import type { RestApi, RestKit } from './kit.ts';
import { checkSiteGet, registerSitesCheck } from './sites-check.ts';
import { coverageRoute, registerCoverage } from './coverage.ts';
import { registerUsage, usageRoute } from './usage.ts';
import { createKeyRoute, registerKeys, revokeKeyRoute } from './keys.ts';
import { openapiRoute, registerReference } from './reference.ts';

export function declareRestApi(api: RestApi, kit: RestKit, document: () => Json): void {
  registerSitesCheck(api, kit);
  onlyMethods(api, kit, checkSiteGet.path, ['GET', 'POST']);
  registerCoverage(api, kit);
  onlyMethods(api, kit, coverageRoute.path, ['GET']);
  registerUsage(api, kit);
  onlyMethods(api, kit, usageRoute.path, ['GET']);
  registerKeys(api, kit);
  onlyMethods(api, kit, createKeyRoute.path, ['GET', 'POST']);
  onlyMethods(api, kit, revokeKeyRoute.path, ['DELETE']);
  registerReference(api, kit, document);
  onlyMethods(api, kit, openapiRoute.path, ['GET']);
}

/** Every other method on a declared path: 405, naming the allowed ones. */
function onlyMethods(api: RestApi, kit: RestKit, documented: string, allowed: string[]): void {
  const path = documented.replaceAll(/\/{(.+?)}/g, '/:$1');
  api.all(path, (c) =>
    kit.problem(c, 'method_not_allowed', `${c.env.incoming.method} is not allowed on ${path}. Allowed: ${allowed.join(', ')}.`, { allow: allowed.join(', ') }),
  );
}
