// The OpenAPI 3.1 description of /api/v1, assembled from each route file's path item (sites-check.ts,
// coverage.ts, usage.ts, keys.ts) and the zod schemas the routes validate with (src/rest/openapi-parts.ts).
// The reference page /docs/api is rendered from this document (src/rest/api-reference.ts). Nothing here is
// written twice by hand.
import type { AppContext } from '../context.ts';
import { SNAPSHOT_PRICE } from '../billing/credit-ledger.ts';
import { PACK_CREDITS, PACK_PRICE_CENTS } from '../billing/payments.ts';
import { PROBLEMS, problemType, type ProblemCode } from './problem.ts';
import { API_PREFIX } from './kit.ts';
import { componentSchemas, problem, type Json } from './openapi-parts.ts';
import { sitesCheckPaths } from './sites-check.ts';
import { coveragePaths } from './coverage.ts';
import { usagePaths } from './usage.ts';
import { keysPaths } from './keys.ts';

export const OPENAPI_PATH = `${API_PREFIX}/openapi.json`;

export function buildOpenApiDocument(ctx: AppContext): Json {
  const { components, query } = componentSchemas();
  return withServerRefusals({
    openapi: '3.1.0',
    info: {
      title: 'siteline public REST API',
      version: '1.0.0',
      license: { name: 'Proprietary: use of the API is under the service terms; each data source keeps its own licence, named in the answer\'s sources' },
      summary: 'Prepaid site intelligence: a street address in Canada or the US -> lot, zoning and a sourced building envelope.',
      description:
        `Authenticate with "Authorization: Bearer <API key>" (keys start with sl_live_, created on the account page or with POST /api/v1/keys) ` +
        `or with a user access token (scope mcp). An answered snapshot costs ${SNAPSHOT_PRICE} credit; everything else is free. ` +
        `Credit is bought in packs of ${PACK_CREDITS} for US$${(PACK_PRICE_CENTS / 100).toFixed(2)} through Stripe Checkout, or granted by the operator. ` +
        'Errors are RFC 9457 problem details. CORS is off: call the API from a server, never from a browser page.',
    },
    servers: [{ url: ctx.config.baseUrl }],
    security: [{ bearer: [] }],
    paths: {
      ...sitesCheckPaths(ctx, query),
      ...coveragePaths(ctx, query),
      ...usagePaths(ctx, query),
      ...keysPaths(ctx, query),
      [OPENAPI_PATH]: {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          security: [],
          responses: { '200': { description: 'OpenAPI 3.1', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key (sl_live_...) or a user access token with scope mcp. Pre-claim tokens (mcp.public) are refused.' },
      },
      schemas: components,
    },
    'x-problem-types': Object.fromEntries(
      (Object.keys(PROBLEMS) as ProblemCode[]).map((code) => [code, { type: problemType(ctx, code), status: PROBLEMS[code].status, title: PROBLEMS[code].title }]),
    ),
  });
}

/**
 * What the server answers for any operation before its handler runs, declared on every operation
 * (the OpenAPI fuzzer, test/security/rest-openapi-fuzz.test.ts, holds the document to it): a NUL
 * byte anywhere in the URL is 400; a body too large, or not sent as JSON, is 413 / 415.
 */
function withServerRefusals(doc: Json): Json {
  for (const item of Object.values<Json>(doc.paths)) {
    for (const op of Object.values<Json>(item)) {
      op.responses['400'] ??= problem('bad_request', 'The URL holds a NUL byte (%00), which no path or parameter accepts.');
      if (op.requestBody) {
        op.responses['413'] ??= problem('payload_too_large');
        op.responses['415'] ??= problem('unsupported_media_type', 'The body is not sent as application/json.');
      }
    }
  }
  return doc;
}
