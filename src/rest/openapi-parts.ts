// The pieces of the OpenAPI document the route declarations (createRoute) use: response and header
// shapes, the example address, and the component schemas as zod 4 writes them (z.toJSONSchema, JSON Schema
// 2020-12, the dialect OpenAPI 3.1 uses). src/rest/openapi.ts generates the document.
import { z } from 'zod';
import type { ZodObject } from 'zod';
import { PROBLEMS, type ProblemCode } from './problem.ts';
import { registry } from './schemas.ts';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is open-ended JSON
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
  'RateLimit-Policy': { description: 'The per-key limit, IETF draft form: "<limit>;w=<window seconds>".', schema: { type: 'string' as const } },
  'RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' as const } },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' as const } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' as const } },
};
export const creditHeaders = {
  'Siteline-Credits-Charged': { description: 'Credits this request spent (0 for free answers, replays and errors).', schema: { type: 'integer' as const } },
  'Siteline-Credits-Remaining': { description: "The account's balance after this request.", schema: { type: 'integer' as const } },
};
export const common401_429 = {
  '401': problem('unauthorized', 'No, a malformed, unknown or revoked key, or a pre-claim token. WWW-Authenticate says how to authenticate.'),
  '429': problem('rate_limited', 'The per-key rate limit is used up; Retry-After says when to retry. Nothing was charged.'),
};

/** The address every example asks about (a Cambridge lot the address table holds). */
export const EXAMPLE_ADDRESS = '11 Acorn St, Cambridge, MA';

/** A query schema whose parameters carry examples (an example is what the reference page's curl sends); validation is unchanged. */
export function withExample<T extends ZodObject>(schema: T, examples: Record<string, unknown>): T {
  const shape = schema.shape as Record<string, z.ZodType & { openapi(meta: unknown): z.ZodType }>;
  return schema.safeExtend(Object.fromEntries(Object.entries(examples).map(([k, example]) => [k, shape[k]!.openapi({ param: { example } })]))) as unknown as T;
}
