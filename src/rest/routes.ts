// The prepaid public REST API under /api/v1, one file per resource, each a thin adapter over the snapshot
// and billing rooms with its OpenAPI path item beside its handler:
//   sites-check.ts  GET|POST /api/v1/sites/check   the priced unit (billing/paid-call.ts sells the answer)
//   coverage.ts     GET /api/v1/coverage           free
//   usage.ts        GET /api/v1/usage              free
//   keys.ts         /api/v1/keys, /api/v1/keys/:id  user tokens only
//   reference.ts    /api/v1/openapi.json, /docs/api
//   webhook.ts      POST /api/billing/stripe/webhook (Stripe's, not public)
// CORS is off: no response under /api/v1 carries an Access-Control-Allow-* header, preflights included, so
// a browser page on another origin cannot spend an account's credit with a key it holds.
import type { AppContext } from '../context.ts';
import { NodeRoutes } from '../http/node-routes.ts';
import type { HttpApp } from '../http/http-app.ts';
import { registerStaffApi } from './staff-api.ts';
import { problemFormat, sendProblem } from './problem.ts';
import { API_PREFIX, restKit } from './kit.ts';
import { registerSitesCheck } from './sites-check.ts';
import { registerCoverage } from './coverage.ts';
import { registerUsage } from './usage.ts';
import { registerKeys } from './keys.ts';
import { registerReference } from './reference.ts';
import { registerStripeWebhook } from './webhook.ts';

export function mountRoutes(app: HttpApp, ctx: AppContext): void {
  const router = new NodeRoutes(app);
  const kit = restKit(router, ctx);
  registerSitesCheck(kit);
  registerCoverage(kit);
  registerUsage(kit);
  registerKeys(kit);
  registerReference(kit);

  // What the server answers itself under /api/v1 (a NUL byte in the URL, a foreign Host, an error
  // thrown past a handler) is a problem too, never the service's generic JSON envelope.
  router.app.errors.under(API_PREFIX, problemFormat(ctx));

  // Everything else under /api/v1: a problem, not the service's generic 404.
  router.mount(API_PREFIX, (req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    sendProblem(ctx, req, res, 'not_found', `No endpoint ${req.method} ${path}. The endpoints are listed at ${ctx.config.baseUrl}${API_PREFIX}/openapi.json.`);
  });

  registerStripeWebhook(kit);
  // The staff API (JSON under /staff/api for the CLI).
  registerStaffApi(router, ctx);
}
