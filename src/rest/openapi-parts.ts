// The pieces of the OpenAPI document that every route's path item uses: component and query schemas from
// the zod registry (zod 4's z.toJSONSchema, JSON Schema 2020-12, the dialect OpenAPI 3.1 uses), response
// and header shapes, and the example address. src/rest/openapi.ts assembles the document.
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { PROBLEMS, type ProblemCode } from './problem.ts';
import { registry } from './schemas.ts';

export type Json = Record<string, any>;

const REQUEST_SCHEMAS = new Set(['SiteCheckRequest', 'ApiKeyCreateRequest', 'CheckoutRequest']);
const QUERY_SCHEMAS = new Set(['SiteCheckQuery', 'CoverageQuery']);

export function componentSchemas(): { components: Record<string, Json>; query: Record<string, Json> } {
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

export function queryParameters(schema: Json, required: boolean): Json[] {
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const req = new Set<string>((schema.required as string[] | undefined) ?? []);
  return Object.entries(props).map(([name, s]) => {
    const { description, ...rest } = s;
    return { name, in: 'query', required: required && req.has(name), ...(description ? { description } : {}), schema: rest };
  });
}

export const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
export const problem = (code: ProblemCode, description?: string) => ({
  description: description ?? PROBLEMS[code].title,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});
export const json = (id: string, description: string, headers?: Json) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: ref(id) } },
});

export const rateHeaders = {
  'RateLimit-Policy': { description: 'The per-key limit, IETF draft form: "<limit>;w=<window seconds>".', schema: { type: 'string' } },
  'RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
};
export const creditHeaders = {
  'Siteline-Credits-Charged': { description: 'Credits this request spent (0 for free answers, replays and errors).', schema: { type: 'integer' } },
  'Siteline-Credits-Remaining': { description: "The account's balance after this request.", schema: { type: 'integer' } },
};
export const common401_429 = {
  '401': problem('unauthorized', 'No, a malformed, unknown or revoked key, or a pre-claim token. WWW-Authenticate says how to authenticate.'),
  '429': problem('rate_limited', 'The per-key rate limit is used up; Retry-After says when to retry. Nothing was charged.'),
};

/** The address every example asks about (a Cambridge lot the address table holds). */
export const EXAMPLE_ADDRESS = '11 Acorn St, Cambridge, MA';

/** Parameters with the examples given for some of them (an example is what the page's curl sends). */
export function withExamples(params: Json[], examples: Record<string, unknown>): Json[] {
  return params.map((p) => (examples[p.name] === undefined ? p : { ...p, example: examples[p.name] }));
}

/** A route file's part of the document: its paths, given the query schemas (src/rest/openapi.ts calls each). */
export type PathItemsOf = (ctx: AppContext, query: Record<string, Json>) => Record<string, Json>;
