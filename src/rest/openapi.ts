// The OpenAPI 3.1 description of /api/v1, generated from the zod schemas the routes validate with
// (zod 4's own z.toJSONSchema, JSON Schema 2020-12: the dialect OpenAPI 3.1 uses), and a plain HTML
// reference page generated from that document. Nothing here is written twice by hand.
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { html, page, type Html } from '../web/html.ts';
import { SNAPSHOT_PRICE } from '../billing/credit-ledger.ts';
import { IDEMPOTENCY_KEY_MAX } from '../billing/idempotency.ts';
import { PACK_CREDITS, PACK_PRICE_CENTS } from '../billing/payments.ts';
import { MAX_ACTIVE_KEYS } from '../billing/api-keys.ts';
import { PROBLEMS, problemType, type ProblemCode } from './problem.ts';
import { registry } from './schemas.ts';

type Json = Record<string, any>;

const REQUEST_SCHEMAS = new Set(['SiteCheckRequest', 'ApiKeyCreateRequest', 'CheckoutRequest']);
const QUERY_SCHEMAS = new Set(['SiteCheckQuery', 'CoverageQuery']);

function componentSchemas(): { components: Record<string, Json>; query: Record<string, Json> } {
  const opts = { uri: (id: string) => `#/components/schemas/${id}`, target: 'draft-2020-12' as const, unrepresentable: 'any' as const };
  const input = z.toJSONSchema(registry, { ...opts, io: 'input' }).schemas as Record<string, Json>;
  const output = z.toJSONSchema(registry, { ...opts, io: 'output' }).schemas as Record<string, Json>;
  const clean = (s: Json): Json => {
    const { $schema: _s, $id: _i, ...rest } = s;
    return rest;
  };
  const components: Record<string, Json> = {};
  const query: Record<string, Json> = {};
  for (const id of Object.keys(output)) {
    if (QUERY_SCHEMAS.has(id)) query[id] = clean(input[id]!);
    else components[id] = clean(REQUEST_SCHEMAS.has(id) ? input[id]! : output[id]!);
  }
  return { components, query };
}

function queryParameters(schema: Json, required: boolean): Json[] {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const req = new Set<string>((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => {
    const { description, ...rest } = s;
    return { name, in: 'query', required: required && req.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const problem = (code: ProblemCode, description?: string) => ({
  description: description ?? PROBLEMS[code].title,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
const json = (id: string, description: string, headers?: Json) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ref(id) } },
});

const rateHeaders = {
  'RateLimit-Policy': { description: 'The per-key limit, IETF draft form: "<limit>;w=<window seconds>".', schema: { type: 'string' } },
  'RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
};
const creditHeaders = {
  'Siteline-Credits-Charged': { description: 'Credits this request spent (0 for free answers, replays and errors).', schema: { type: 'integer' } },
  'Siteline-Credits-Remaining': { description: "The account's balance after this request.", schema: { type: 'integer' } },
};
const common401_429 = {
  '401': problem('unauthorized', 'No, a malformed, unknown or revoked key, or a pre-claim token. WWW-Authenticate says how to authenticate.'),
  '429': problem('rate_limited', 'The per-key rate limit is used up; Retry-After says when to retry. Nothing was charged.'),
};

export function buildOpenApiDocument(ctx: AppContext): Json {
  const { components, query } = componentSchemas();
  const checkResponses = {
    '200': json(
      'Snapshot',
      `The snapshot, exactly as the MCP tool getFeasibilitySnapshot returns it. An answered snapshot costs ${SNAPSHOT_PRICE} credit; answered:false is free.`,
      { ...creditHeaders, ...rateHeaders, 'Idempotent-Replayed': { description: 'true when this is the stored response of an earlier request with the same Idempotency-Key.', schema: { type: 'string' } } },
    ),
    '400': problem('bad_request', 'The address is missing, empty, too long or not one street address. Free.'),
    ...common401_429,
    '402': problem('out_of_credit', 'The balance is below the price; nothing was spent. The body says how to buy more.'),
  };
  const idempotencyHeader = {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: `Up to ${IDEMPOTENCY_KEY_MAX} visible ASCII characters. A retry with the same key within 24 hours returns the stored response and is not charged again; the same key with another address answers 422.`,
    schema: { type: 'string', maxLength: IDEMPOTENCY_KEY_MAX },
  };
  const idempotencyResponses = {
    '409': problem('conflict', 'A request with the same Idempotency-Key is still running; retry in a moment.'),
    '422': problem('idempotency_key_reused', 'The Idempotency-Key was used with another request.'),
  };
  return withServerRefusals({
    openapi: '3.1.0',
    info: {
      title: 'siteline public REST API',
      version: '1.0.0',
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
      '/api/v1/sites/check': {
        get: {
          operationId: 'checkSiteGet',
          summary: 'Feasibility snapshot for one address (paid)',
          parameters: [...queryParameters(query.SiteCheckQuery!, true), idempotencyHeader],
          responses: { ...checkResponses, ...idempotencyResponses },
        },
        post: {
          operationId: 'checkSite',
          summary: 'Feasibility snapshot for one address (paid), with an optional Idempotency-Key',
          parameters: [idempotencyHeader],
          requestBody: { required: true, content: { 'application/json': { schema: ref('SiteCheckRequest') } } },
          responses: {
            ...checkResponses,
            ...idempotencyResponses,
            '413': problem('payload_too_large'),
            '415': problem('unsupported_media_type', 'The body is not sent as application/json.'),
          },
        },
      },
      '/api/v1/coverage': {
        get: {
          operationId: 'coverage',
          summary: 'Is an address, a city or a point covered? (free)',
          description: 'Exactly one of: address; city (with an optional region); lat and lng. The coverage block and the place status, no lot data. A point is spelled lat and lng only: latitude, longitude or lon is a 400 naming the right parameter.',
          parameters: queryParameters(query.CoverageQuery!, false),
          responses: { '200': json('CoverageAnswer', 'The coverage verdict.', rateHeaders), '400': problem('bad_request'), ...common401_429 },
        },
      },
      '/api/v1/usage': {
        get: {
          operationId: 'usage',
          summary: 'Balance, recent ledger entries, charges per day and the report export meter (free)',
          responses: { '200': json('Usage', 'Usage of the calling account.', rateHeaders), ...common401_429 },
        },
      },
      '/api/v1/keys': {
        get: {
          operationId: 'listKeys',
          summary: 'List the account\'s API keys (user token only)',
          responses: { '200': json('ApiKeyList', 'Every key, revoked ones included; never the keys themselves.'), ...common401_429, '403': problem('forbidden', 'Keys cannot manage keys.') },
        },
        post: {
          operationId: 'createKey',
          summary: `Create an API key (user token only; at most ${MAX_ACTIVE_KEYS} active keys)`,
          requestBody: { required: true, content: { 'application/json': { schema: ref('ApiKeyCreateRequest') } } },
          responses: {
            '201': json('ApiKeyCreated', 'The new key; `key` is shown this once.'),
            '400': problem('bad_request'),
            ...common401_429,
            '403': problem('forbidden', 'Keys cannot create keys.'),
            '409': problem('conflict', `The account already holds ${MAX_ACTIVE_KEYS} active keys.`),
          },
        },
      },
      '/api/v1/keys/{id}': {
        delete: {
          operationId: 'revokeKey',
          summary: 'Revoke an API key at once, on every instance (user token only)',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '204': { description: 'Revoked (revoking twice is fine).' }, ...common401_429, '403': problem('forbidden'), '404': problem('not_found', 'The account holds no key with this id.') },
        },
      },
      '/api/v1/openapi.json': {
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

// ---- the reference page ------------------------------------------------------------------------------

function schemaText(s: Json | undefined): string {
  return JSON.stringify(s ?? {}, null, 2);
}

/** The reference page; `signedInAs` puts the signed-in header on it, as on every page. */
export function renderApiReference(doc: Json, signedInAs: string | null = null): string {
  const ops: Html[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? []) as Json[];
      const body = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
      const responses = Object.entries((op.responses ?? {}) as Record<string, Json>);
      ops.push(html`<section id="${op.operationId}">
<h2><code>${method.toUpperCase()} ${path}</code></h2>
<p>${op.summary}</p>${op.description ? html`<p>${op.description}</p>` : ''}
${params.length ? html`<table><tr><th>Parameter</th><th>In</th><th>Required</th><th>Schema</th><th>Notes</th></tr>${params.map((p) => html`<tr><td><code>${p.name}</code></td><td>${p.in}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${JSON.stringify(p.schema)}</code></td><td class="note">${p.description ?? ''}</td></tr>`)}</table>` : ''}
${body ? html`<p>Request body (application/json): <code>${body.$ref ? String(body.$ref).split('/').pop() : 'object'}</code></p>` : ''}
<table><tr><th>Status</th><th>Meaning</th><th>Body</th></tr>${responses.map(([status, r]) => {
        const content = r.content ? Object.entries(r.content as Record<string, Json>)[0] : undefined;
        const schemaName = content?.[1]?.schema?.$ref ? String(content[1].schema.$ref).split('/').pop() : '';
        return html`<tr><td>${status}</td><td class="note">${r.description}${r.headers ? html`<p>Headers: ${Object.keys(r.headers).join(', ')}</p>` : ''}</td><td>${content ? html`<code>${content[0]}</code> ${schemaName}` : ''}</td></tr>`;
      })}</table>
</section>`);
    }
  }
  const problems = Object.entries(doc['x-problem-types'] as Record<string, Json>).map(
    ([code, p]) => html`<tr id="problem-${code.replace(/_/g, '-')}"><td><code>${code}</code></td><td>${p.status}</td><td>${p.title}</td><td class="note"><code>${p.type}</code></td></tr>`,
  );
  const schemas = Object.entries(doc.components.schemas as Record<string, Json>).map(
    ([name, s]) => html`<section id="schema-${name}"><h3>${name}</h3><pre>${schemaText(s)}</pre></section>`,
  );
  const body = html`<p>${doc.info.summary}</p>
<p>${doc.info.description}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI ${doc.openapi}). Full notes: docs/rest-api.md in the repository.</p>
${ops}
<h2 id="problems">Problem types</h2>
<p>Every error is <code>application/problem+json</code> (RFC 9457) with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, <code>code</code> and <code>requestId</code>.</p>
<table><tr><th>Code</th><th>Status</th><th>Title</th><th>type</th></tr>${problems}</table>
<h2 id="schemas">Schemas</h2>
${schemas}`;
  return page('siteline REST API reference', body, { wide: true, signedInAs });
}
