// The prepaid public REST API under /api/v1, one file per resource, each a thin adapter over the snapshot
// and billing rooms with its createRoute declarations beside its handler (bound in src/rest/api.ts):
//   sites-check.ts  GET|POST /api/v1/sites/check   the priced unit (billing/paid-call.ts sells the answer)
//   coverage.ts     GET /api/v1/coverage           free
//   usage.ts        GET /api/v1/usage              free
//   keys.ts         /api/v1/keys, /api/v1/keys/{id}  user tokens only
//   reference.ts    /api/v1/openapi.json, /docs/api
//   webhook.ts      POST /api/billing/stripe/webhook (Stripe's, not public)
//   staff-api.ts    /staff/api/* (the CLI's staff commands)
// CORS is off: no response under /api/v1 carries an Access-Control-Allow-* header, preflights included, so
// a browser page on another origin cannot spend an account's credit with a key it holds.
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { problemFormat } from './problem.ts';
import { API_PREFIX, restApp, restKit } from './kit.ts';
import { declareRestApi } from './api.ts';
import { openApiDocument } from './openapi.ts';
import { registerStripeWebhook } from './webhook.ts';
import { registerStaffApi } from './staff-api.ts';
import type { Json } from './openapi-parts.ts';

export function mountRoutes(app: HttpApp, ctx: AppContext): void {
  const kit = restKit(ctx);
  const api = restApp();
  // Built on first use: with port 0 the base URL (the document's server) is final only once the server listens.
  let doc: Json | undefined;
  declareRestApi(api, kit, () => (doc ??= openApiDocument(ctx, api)));
  // Everything else under /api/v1: a problem, not the service's generic 404.
  api.all(`${API_PREFIX}/*`, (c) =>
    kit.problem(
      c,
      'not_found',
      `No endpoint ${c.env.incoming.method} ${c.req.path}. The endpoints are listed at ${ctx.config.baseUrl}${API_PREFIX}/openapi.json.`,
    ),
  );
  registerStripeWebhook(api, kit);
  app.route('/', api);

  // What the server answers itself under /api/v1 (a NUL byte in the URL, a foreign Host, an error
  // thrown past a handler) is a problem too, never the service's generic JSON envelope.
  app.errors.under(API_PREFIX, problemFormat(ctx));

  // The staff API (JSON under /staff/api for the CLI).
  registerStaffApi(app, ctx);
}
