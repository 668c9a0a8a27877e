// The schemas tools/list sends (src/mcp/wire-schema.ts): portable spellings and the refusal branch.
// The authority on portability is the MCP Inspector CLI's --strict check, run against a live service
// by scripts/conformance.sh (CI); the rules below restate what that check flags (read from the
// Inspector 2.12.0 CLI's schemaLint), so `npm test` catches a regression before CI does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { MCP_TOOLS } from './registry.ts';
import { wireCatalogue } from './build-server.ts';
import { outputSchemaWithRefusal, portableSchema } from './wire-schema.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords that say something about the instance (a schema with none of them accepts anything). */
const CONSTRAINING = new Set(
  (
    'type enum const multipleOf maximum exclusiveMaximum minimum exclusiveMinimum maxLength minLength pattern format contentMediaType contentEncoding contentSchema ' +
    'maxItems minItems uniqueItems maxContains minContains maxProperties minProperties required dependentRequired allOf anyOf oneOf not items prefixItems contains ' +
    'additionalItems unevaluatedItems properties patternProperties additionalProperties unevaluatedProperties propertyNames dependentSchemas dependencies $ref $dynamicRef $recursiveRef'
  ).split(' '),
);
const MAY_BE_BOOLEAN = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const ONE = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', 'contentSchema', ...MAY_BE_BOOLEAN];
const LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];

/** What the Inspector's --strict check reports for one schema: [path, problem] pairs. */
function portabilityFindings(node: unknown, path = '', keyword?: string): string[] {
  if (typeof node === 'boolean') return MAY_BE_BOOLEAN.has(keyword ?? '') ? [] : [`${path}: a bare boolean where a schema is expected`];
  if (!isObject(node)) return [];
  const out: string[] = [];
  if (Array.isArray(node['type'])) out.push(`${path}: type is an array`);
  if (typeof node['$ref'] === 'string' && node['$ref'] !== '' && !node['$ref'].startsWith('#')) out.push(`${path}: a remote $ref`);
  const constrains = Object.keys(node).some((k) => CONSTRAINING.has(k)) || ('if' in node && ('then' in node || 'else' in node));
  if (!constrains && keyword !== 'not') out.push(`${path}: a schema with no validation keyword`);
  for (const k of MAPS)
    if (isObject(node[k])) for (const [name, sub] of Object.entries(node[k])) out.push(...portabilityFindings(sub, `${path}.${k}.${name}`, k));
  for (const k of LISTS) if (Array.isArray(node[k])) (node[k] as unknown[]).forEach((sub, i) => out.push(...portabilityFindings(sub, `${path}.${k}[${i}]`, k)));
  for (const k of ONE) {
    if (!(k in node)) continue;
    if (k === 'items' && Array.isArray(node[k])) (node[k] as unknown[]).forEach((sub, i) => out.push(...portabilityFindings(sub, `${path}.items[${i}]`, k)));
    else out.push(...portabilityFindings(node[k], `${path}.${k}`, k));
  }
  return out;
}

test('every tool schema on the wire passes the portability rules of the Inspector --strict check (before issue 47: 66 warnings)', () => {
  const findings = wireCatalogue(MCP_TOOLS).flatMap((t) => [
    ...portabilityFindings(t.inputSchema, `${t.name}.inputSchema`),
    ...portabilityFindings(t.outputSchema, `${t.name}.outputSchema`),
  ]);
  assert.deepEqual(findings, []);
  // The rules do find what zod writes on its own: an open object, a nullable string, an unknown value.
  const raw = z.toJSONSchema(z.object({ a: z.looseObject({}), b: z.string().nullable(), c: z.unknown() }), { io: 'output' });
  assert.deepEqual(portabilityFindings(raw, 'raw').sort(), [
    'raw.properties.a.additionalProperties: a schema with no validation keyword',
    'raw.properties.b: type is an array',
    'raw.properties.c: a schema with no validation keyword',
  ]);
});

test("the portable spellings accept exactly what zod's spellings accept", () => {
  const ajv = new Ajv2020({ strict: false });
  const source = z.object({
    open: z.looseObject({ n: z.number() }),
    name: z.string().max(3).nullable(),
    ref: z.string().nullable(),
    map: z.record(z.string(), z.unknown()),
  });
  const zodSchema = z.toJSONSchema(source, { io: 'output' });
  const ours = portableSchema(zodSchema as Json);
  assert.deepEqual(portabilityFindings(ours), []);
  const samples = [
    { open: { n: 1, extra: [1] }, name: 'abc', ref: null, map: { a: { b: 1 } } },
    { open: { n: 1 }, name: null, ref: 'x', map: {} },
    { open: { n: 'one' }, name: 'abc', ref: null, map: {} },
    { open: { n: 1 }, name: 'abcd', ref: null, map: {} },
    { open: { n: 1 }, name: 3, ref: null, map: {} },
    { open: { n: 1 }, name: 'a', ref: false, map: {} },
    { open: { n: 1 }, name: 'a', ref: null, map: [] },
  ];
  for (const s of samples) assert.equal(ajv.validate(ours, s), ajv.validate(zodSchema, s), JSON.stringify(s));
});

test('every outputSchema has a refusal branch: {error: {code}} validates, an answer without its required members does not', () => {
  const ajv = new Ajv2020({ strict: false });
  for (const t of wireCatalogue(MCP_TOOLS)) {
    const check = ajv.compile(t.outputSchema);
    assert.equal(t.outputSchema.type, 'object', t.name);
    assert.ok(
      check({ error: { code: 'invalid_arguments', message: 'Invalid arguments. Fix them and call again.' } }),
      `${t.name}: ${ajv.errorsText(check.errors)}`,
    );
    assert.ok(!check({ error: { message: 'no code' } }), `${t.name}: a refusal names its code`);
    const answerRequired = (t.outputSchema.anyOf as { required: string[] }[] | undefined)?.[0]?.required ?? [];
    if (answerRequired.length) assert.ok(!check({}), `${t.name}: neither an answer nor a refusal`);
    assert.ok('error' in (t.outputSchema.properties as Json), `${t.name} lists error among its properties`);
  }
  // The answer's own contract is unchanged: the guide still requires its four members on an answer.
  const guide = outputSchemaWithRefusal(MCP_TOOLS.find((t) => t.name === 'getServiceMcpGuide')!.output);
  assert.deepEqual(guide.anyOf, [{ required: ['surface', 'caller', 'advice', 'firstContactQuestions'] }, { required: ['error'] }]);
});
