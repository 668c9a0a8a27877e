// The OpenAPI 3.1 description of /api/v1, generated from the zod schemas the routes validate with
// (zod 4's own z.toJSONSchema, JSON Schema 2020-12: the dialect OpenAPI 3.1 uses), and a plain HTML
// reference page generated from that document. Nothing here is written twice by hand.
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { html, type Html } from '../web/html.ts';
import { page } from '../web/page.ts';
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

/** The address every example asks about (a Cambridge lot the address table holds). */
const EXAMPLE_ADDRESS = '11 Acorn St, Cambridge, MA';

/** Parameters with the examples given for some of them (an example is what the page's curl sends). */
function withExamples(params: Json[], examples: Record<string, unknown>): Json[] {
  return params.map((p) => (examples[p.name] === undefined ? p : { ...p, example: examples[p.name] }));
}

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
    example: 'order-2026-0001',
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
      '/api/v1/sites/check': {
        get: {
          operationId: 'checkSiteGet',
          summary: 'Feasibility snapshot for one address (paid)',
          parameters: [...withExamples(queryParameters(query.SiteCheckQuery!, true), { address: EXAMPLE_ADDRESS }), idempotencyHeader],
          responses: { ...checkResponses, ...idempotencyResponses },
        },
        post: {
          operationId: 'checkSite',
          summary: 'Feasibility snapshot for one address (paid), with an optional Idempotency-Key',
          parameters: [idempotencyHeader],
          requestBody: { required: true, content: { 'application/json': { schema: ref('SiteCheckRequest'), example: { address: EXAMPLE_ADDRESS } } } },
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
          parameters: withExamples(queryParameters(query.CoverageQuery!, false), { address: EXAMPLE_ADDRESS }),
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
          'x-credential': 'user_token',
          summary: 'List the account\'s API keys (user token only)',
          responses: { '200': json('ApiKeyList', 'Every key, revoked ones included; never the keys themselves.'), ...common401_429, '403': problem('forbidden', 'Keys cannot manage keys.') },
        },
        post: {
          operationId: 'createKey',
          'x-credential': 'user_token',
          summary: `Create an API key (user token only; at most ${MAX_ACTIVE_KEYS} active keys)`,
          requestBody: { required: true, content: { 'application/json': { schema: ref('ApiKeyCreateRequest'), example: { name: 'production' } } } },
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
          'x-credential': 'user_token',
          summary: 'Revoke an API key at once, on every instance (user token only)',
          parameters: [{ name: 'id', in: 'path', required: true, description: 'The key\'s id, as listKeys shows it.', schema: { type: 'string' }, example: 'key_3kTn0bq8yQ2vW5xZ' }],
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
// Written for a developer on any screen: each operation headed by what it does, a curl command to copy,
// its parameters, body and answers as field lists (no table wider than a phone), and every schema as
// a field list whose types link to the schemas they name. Generated from the document alone.

/** The example the document gives for an operation's request body, if any. */
function bodyExample(op: Json): Json | undefined {
  return op.requestBody?.content?.['application/json']?.example as Json | undefined;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A curl command for one operation, with the document's examples (the credential from the environment). */
export function curlExample(base: string, method: string, path: string, op: Json): string {
  const lines: string[] = [];
  const params = (op.parameters ?? []) as Json[];
  const query = params.filter((p) => p.in === 'query' && p.example !== undefined);
  const url = base + path.replace(/\{(\w+)\}/g, (_m, name: string) => String(params.find((p) => p.in === 'path' && p.name === name)?.example ?? `<${name}>`));
  lines.push(`curl -sS${method === 'get' ? '' : ` -X ${method.toUpperCase()}`}${query.length ? ' -G' : ''} ${shellQuote(url)}`);
  for (const p of query) lines.push(`  --data-urlencode ${shellQuote(`${p.name}=${p.example}`)}`);
  const secured = !(Array.isArray(op.security) && op.security.length === 0);
  // The keys operations take a user access token only (x-credential); the rest an API key.
  if (secured) lines.push(`  -H "Authorization: Bearer ${op['x-credential'] === 'user_token' ? '$SITELINE_USER_TOKEN' : '$SITELINE_API_KEY'}"`);
  for (const p of params.filter((x) => x.in === 'header' && x.example !== undefined)) lines.push(`  -H ${shellQuote(`${p.name}: ${p.example}`)}`);
  const body = bodyExample(op);
  if (body !== undefined) {
    lines.push(`  -H 'Content-Type: application/json'`);
    lines.push(`  -d ${shellQuote(JSON.stringify(body))}`);
  }
  return lines.join(' \\\n');
}

/** A path with break opportunities after each slash, so it wraps between segments, never mid-word. */
function pathHtml(path: string): Html {
  return html`${path.split('/').map((seg, i) => html`${i ? html`/<wbr>` : ''}${seg}`)}`;
}

const refName = (ref: string) => ref.split('/').pop()!;

/** A schema's type in words, with links to the schemas it names. */
function typeHtml(s: Json | undefined, depth = 0): Html {
  if (!s || typeof s !== 'object') return html`any`;
  if (s.$ref) return html`<a href="#schema-${refName(s.$ref)}">${refName(s.$ref)}</a>`;
  if (s.const !== undefined) return html`<code>${JSON.stringify(s.const)}</code>`;
  if (Array.isArray(s.enum)) return html`one of ${s.enum.map((v: unknown, i: number) => html`${i ? ', ' : ''}<code>${JSON.stringify(v)}</code>`)}`;
  const alts = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (alts) return html`${alts.map((a, i) => html`${i ? ' or ' : ''}${typeHtml(a, depth)}`)}`;
  if (Array.isArray(s.type)) return html`${s.type.join(' or ')}`;
  if (s.type === 'array') return html`array of ${typeHtml(s.items, depth)}`;
  if (s.type === 'object' && s.properties && depth < 2) return html`object${fieldList(s, depth + 1)}`;
  if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object') return html`map of ${typeHtml(s.additionalProperties, depth)}`;
  return html`${s.type ?? 'any'}`;
}

/** Limits worth a reader's eye: length, range and pattern. */
function limitsText(s: Json): string {
  const out: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined) out.push(`${s.minLength ?? 0}–${s.maxLength ?? '…'} characters`);
  if (s.minimum !== undefined && Math.abs(s.minimum) < 1e15) out.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined && Math.abs(s.maximum) < 1e15) out.push(`≤ ${s.maximum}`);
  if (s.pattern && s.pattern.length < 30) out.push(`pattern ${s.pattern}`);
  return out.join(', ');
}

/** An object schema's fields: name, type, whether required, limits and description. */
function fieldList(s: Json, depth = 0): Html {
  const props = Object.entries((s.properties ?? {}) as Record<string, Json>);
  if (!props.length) return html``;
  const required = new Set<string>((s.required ?? []) as string[]);
  return html`<dl class="fields">${props.map(([name, f]) => {
    const limits = limitsText(f);
    return html`<dt><code>${name}</code> <span class="muted">${required.has(name) ? 'required' : 'optional'}</span></dt><dd>${typeHtml(f, depth)}${limits ? html` <span class="muted">(${limits})</span>` : ''}${f.description ? html`<br>${f.description}` : ''}</dd>`;
  })}</dl>`;
}

function schemaBlock(name: string, s: Json): Html {
  const fields = s.type === 'object' && s.properties;
  return html`<section id="schema-${name}" class="schema"><h3>${name}</h3>${s.description ? html`<p>${s.description}</p>` : ''}${fields ? fieldList(s) : html`<p>${typeHtml(s)}</p>`}</section>`;
}

const REFERENCE_STYLE = html`<style>
main h2,main h3{overflow-wrap:normal;word-break:normal;hyphens:manual}
.op-path{display:block;overflow-wrap:anywhere;font-size:.95rem}
pre.curl{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;border:1px solid #ddd;border-radius:4px;padding:.6rem;font-size:.85rem;max-width:100%}
dl.fields{margin:.4rem 0 1rem;padding:0}
dl.fields dt{margin-top:.5rem;font-weight:600}
dl.fields dd{margin:0 0 0 1rem;overflow-wrap:anywhere}
dl.fields dl.fields{margin-left:.5rem;border-left:2px solid #eee;padding-left:.5rem}
nav.toc ul{padding-left:1.2rem}
</style>`;

export function renderApiReference(doc: Json, signedInAs: string | null = null): string {
  const base = String(doc.servers?.[0]?.url ?? '');
  const ops: Html[] = [];
  const toc: Html[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? []) as Json[];
      const body = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
      const responses = Object.entries((op.responses ?? {}) as Record<string, Json>);
      toc.push(html`<li><a href="#${op.operationId}">${op.summary}</a></li>`);
      ops.push(html`<section id="${op.operationId}" class="op" data-method="${method.toUpperCase()}" data-path="${path}">
<h2>${op.summary}</h2>
<p><code class="op-path">${method.toUpperCase()} ${pathHtml(path)}</code></p>
${op.description ? html`<p>${op.description}</p>` : ''}
<p>Example:</p>
<pre class="curl"><code>${curlExample(base, method, path, op)}</code></pre>
${params.length
  ? html`<h3>Parameters</h3><dl class="fields">${params.map(
      (p) => html`<dt><code>${p.name}</code> <span class="muted">${p.in}, ${p.required ? 'required' : 'optional'}</span></dt><dd>${typeHtml(p.schema)}${limitsText(p.schema ?? {}) ? html` <span class="muted">(${limitsText(p.schema)})</span>` : ''}${p.description ? html`<br>${p.description}` : ''}</dd>`,
    )}</dl>`
  : ''}
${body ? html`<h3>Request body</h3><p><code>application/json</code>: ${typeHtml(body)}</p>` : ''}
<h3>Answers</h3>
<dl class="fields">${responses.map(([status, r]) => {
        const content = r.content ? Object.entries(r.content as Record<string, Json>)[0] : undefined;
        return html`<dt>${status}${content ? html` <span class="muted">${content[0]}</span>` : ''}${content?.[1]?.schema ? html` ${typeHtml(content[1].schema)}` : ''}</dt><dd>${r.description}${r.headers ? html`<br><span class="muted">Headers: ${Object.keys(r.headers).join(', ')}</span>` : ''}</dd>`;
      })}</dl>
</section>`);
    }
  }
  const problems = Object.entries(doc['x-problem-types'] as Record<string, Json>).map(
    ([code, p]) => html`<dt id="problem-${code.replace(/_/g, '-')}"><code>${code}</code> <span class="muted">${p.status}</span></dt><dd>${p.title}<br><span class="muted">type <code>${p.type}</code></span></dd>`,
  );
  const schemas = Object.entries(doc.components.schemas as Record<string, Json>).map(([name, s]) => schemaBlock(name, s));
  const body = html`<p>${doc.info.summary}</p>
<p>${doc.info.description}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI ${doc.openapi}). Full notes: docs/rest-api.md in the repository.${doc.info.license ? html` Licence: ${doc.info.license.name}.` : ''}</p>
<p>The examples read your API key from <code>$SITELINE_API_KEY</code>, and, for the key operations (which refuse API keys), a user access token from <code>$SITELINE_USER_TOKEN</code>.</p>
<nav class="toc" aria-label="Operations"><h2>Operations</h2><ul>${toc}<li><a href="#problems">Problem types</a></li><li><a href="#schemas">Schemas</a></li></ul></nav>
${ops}
<h2 id="problems">Problem types</h2>
<p>Every error is <code>application/problem+json</code> (RFC 9457) with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, <code>code</code> and <code>requestId</code>.</p>
<dl class="fields">${problems}</dl>
<h2 id="schemas">Schemas</h2>
${schemas}`;
  return page('siteline REST API reference', body, { wide: true, signedInAs, head: REFERENCE_STYLE });
}
