// The JSON Schemas tools/list sends, as every client reads them (issue 47). zod's conversion is
// rewritten into equivalent spellings that single-type dialects keep (the MCP Inspector's --strict
// portability check, Gemini-style function declarations), and every outputSchema gets its refusal
// branch, so an isError result's structuredContent validates against the schema its tool advertises:
// SDK v1 clients (@modelcontextprotocol/sdk 1.x, LangChain's MCP adapters, the Inspector CLI) check
// it and otherwise throw -32602 instead of handing the refusal's sentence to the model.
import { z } from 'zod';

type Json = Record<string, unknown>;

/** Keywords whose value may be a boolean instead of a schema: `{}` there is spelled `true`. */
const BOOLEAN_VALUED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const SCHEMA_VALUED = new Set(['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'contentSchema', ...BOOLEAN_VALUED]);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The same schema in the spellings every client keeps: an empty schema under additionalProperties
 * (zod's spelling of "any further member") becomes `true`, and a `type` array (zod's nullable
 * primitive) becomes `anyOf` with one type per branch. Both rewrites accept exactly the same values.
 */
export function portableSchema(node: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (BOOLEAN_VALUED.has(key) && isObject(value) && Object.keys(value).length === 0) out[key] = true;
    else if (SCHEMA_VALUED.has(key) && isObject(value)) out[key] = portableSchema(value);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map((v) => (isObject(v) ? portableSchema(v) : v));
    else if (SCHEMA_MAPS.has(key) && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isObject(v) ? portableSchema(v) : v]));
    else out[key] = value;
  }
  if (Array.isArray(out['type'])) {
    // Keywords beside it that concern one type (maxLength, ...) apply to that type's instances only, so they may stay here.
    const branches = (out['type'] as string[]).map((t) => ({ type: t }));
    delete out['type'];
    if (out['anyOf']) out['allOf'] = [...((out['allOf'] as Json[] | undefined) ?? []), { anyOf: branches }];
    else out['anyOf'] = branches;
  }
  return out;
}

/**
 * What an isError result's structuredContent.error holds (docs/mcp.md, "Results"): the code always,
 * and whatever the refusal adds (the sentence, a next step, a retry delay, the page to finish on).
 */
const refusalOutput = z
  .looseObject({
    code: z
      .string()
      .describe(
        'invalid_arguments, unauthorized, elicitation_unavailable, rate_limited, tool_error, or a domain code such as bad_input, not_found or conflict.',
      ),
    message: z.string().optional().describe('The refusal in a sentence (the first text block says it too).'),
    next: z.looseObject({ action: z.string() }).optional().describe("A project refusal's next step as data (look_up_lot, widen_radius, ...)."),
    retryAfterSeconds: z.number().optional().describe('rate_limited: wait this long, then retry.'),
    finishAt: z.string().optional().describe('elicitation_unavailable: the web page where the user can finish.'),
  })
  .describe('Only on an isError result (a refusal; the first text block says what to do next). Never on an answer.');

/**
 * A tool's outputSchema as sent: its answer's fields plus `error`, the refusal branch. The answer's
 * required members move into `anyOf`: either all of them are present (an answer), or `error` is (a
 * refusal, which may carry some of the answer's fields too, e.g. feedbackUrl or wouldShow).
 */
export function outputSchemaWithRefusal(output: z.ZodObject): { type: 'object'; [key: string]: unknown } {
  const converted = z.toJSONSchema(output.extend({ error: refusalOutput.optional() }), { io: 'output' }) as Json;
  const { $schema: _drop, required, ...rest } = portableSchema(converted);
  const answer = Array.isArray(required) ? (required as string[]) : [];
  return { ...rest, type: 'object', ...(answer.length ? { anyOf: [{ required: answer }, { required: ['error'] }] } : {}) };
}

/** A tool's inputSchema as sent. */
export function inputSchemaOf(input: z.ZodObject): { type: 'object'; [key: string]: unknown } {
  const { $schema: _drop, ...rest } = portableSchema(z.toJSONSchema(input, { io: 'input' }) as Json);
  return { ...rest, type: 'object' };
}
