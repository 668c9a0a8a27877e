// The OpenAPI 3.1 document at /api/v1/openapi.json: valid per a maintained OpenAPI parser
// (@readme/openapi-parser, which validates 3.1), generated from the zod schemas the routes use, and
// describing what the server really answers (real responses validated against it with Ajv, JSON
// Schema 2020-12: the dialect of OpenAPI 3.1). The reference page is generated from it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { validate, compileErrors } from '@readme/openapi-parser';
import { startTestServer, type TestServer } from './support/harness.ts';
import { getUserToken } from './support/auth-flow.ts';
import { SiteCheckBody } from '../src/rest/schemas.ts';
import { COVERED, OUTSIDE, accountIdOf, api, checkPath, createKey, grant, type ApiReply } from './rest-support.ts';

const Ajv2020 = createRequire(import.meta.url)('ajv/dist/2020') as new (opts: Record<string, unknown>) => {
  addSchema(schema: unknown, key: string): void;
  getSchema(ref: string): ((data: unknown) => boolean) & { errors?: unknown[] | null };
};

let svc: TestServer;
let doc: any;
let ajv: InstanceType<typeof Ajv2020>;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'] });
  doc = (await api(svc.url, '/api/v1/openapi.json')).json;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(doc, 'openapi.json');
});
after(async () => {
  await svc?.close();
});

/** The real reply matches the documented response for its status: content type and schema. */
function conforms(path: string, method: string, reply: ApiReply): void {
  const op = doc.paths[path]?.[method];
  assert.ok(op, `${method} ${path} is documented`);
  const documented = op.responses[String(reply.status)];
  assert.ok(documented, `${method} ${path} documents status ${reply.status}`);
  if (!documented.content) return;
  const [type, media] = Object.entries(documented.content)[0] as [string, { schema: { $ref?: string } }];
  assert.equal(reply.headers.get('content-type')?.split(';')[0], type, `${method} ${path} ${reply.status} content type`);
  if (!media.schema.$ref) return;
  const check = ajv.getSchema(`openapi.json${media.schema.$ref}`)!;
  assert.ok(check(reply.json), `${method} ${path} ${reply.status} body matches ${media.schema.$ref}: ${JSON.stringify(check.errors)}`);
}

test('the document is valid OpenAPI 3.1 (maintained parser) and its request schemas are the zod schemas the routes use', async () => {
  assert.equal(doc.openapi, '3.1.0');
  const result = await validate(structuredClone(doc));
  assert.equal(result.valid, true, compileErrors(result));
  const generated = z.toJSONSchema(SiteCheckBody, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete generated.$schema;
  assert.deepEqual(doc.components.schemas.SiteCheckRequest, generated);
  assert.deepEqual(doc.components.schemas.SiteCheckRequest.required, ['address']);
  assert.equal(doc.components.schemas.SiteCheckRequest.additionalProperties, false);
  const coverageParams = doc.paths['/api/v1/coverage'].get.parameters.map((p: { name: string }) => p.name);
  assert.deepEqual(coverageParams, ['address', 'city', 'region', 'geoDivisionId', 'lat', 'lng', 'district', 'changesSince']);
  assert.deepEqual(doc.paths['/api/v1/sites/check'].get.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required]), [
    ['address', true],
    ['include', false],
    ['Idempotency-Key', false],
  ]);
  for (const status of ['200', '400', '401', '402', '422', '429']) assert.ok(doc.paths['/api/v1/sites/check'].post.responses[status], status);
});

test('real responses match the document: snapshots (answered or not), coverage, usage, keys, and problems', async () => {
  // The checker can fail: wrong shapes are refused.
  assert.equal(ajv.getSchema('openapi.json#/components/schemas/Snapshot')!({ answered: 'yes', coverage: {}, sources: [], generatedAt: 'x' }), false);
  assert.equal(ajv.getSchema('openapi.json#/components/schemas/Problem')!({ title: 'x' }), false);
  assert.equal(ajv.getSchema('openapi.json#/components/schemas/Usage')!({ balance: 1.5, recent: [], perDay: [], purchasing: { enabled: false, how: '' } }), false);
  const email = 'openapi@example.com';
  const jwt = await getUserToken(svc.url, email);
  const created = await api(svc.url, '/api/v1/keys', { token: jwt, body: { name: 'spec' } });
  conforms('/api/v1/keys', 'post', created);
  const key = created.json.key as string;
  conforms('/api/v1/keys', 'get', await api(svc.url, '/api/v1/keys', { token: jwt }));
  conforms('/api/v1/sites/check', 'get', await api(svc.url, checkPath(COVERED), { token: key })); // 402: no credit yet
  await grant(svc.ctx, await accountIdOf(svc.ctx, email), 5);
  const answered = await api(svc.url, checkPath(COVERED), { token: key });
  assert.equal(answered.json.answered, true);
  conforms('/api/v1/sites/check', 'get', answered);
  const notAnswered = await api(svc.url, '/api/v1/sites/check', { token: key, body: { address: OUTSIDE }, headers: { 'idempotency-key': 'spec-1' } });
  assert.equal(notAnswered.json.answered, false);
  conforms('/api/v1/sites/check', 'post', notAnswered);
  conforms('/api/v1/sites/check', 'post', await api(svc.url, '/api/v1/sites/check', { token: key, body: { address: COVERED }, headers: { 'idempotency-key': 'spec-1' } }));
  conforms('/api/v1/sites/check', 'post', await api(svc.url, '/api/v1/sites/check', { token: key, body: { address: '' } }));
  conforms('/api/v1/sites/check', 'post', await api(svc.url, '/api/v1/sites/check', { token: key, body: 'x=1', headers: { 'content-type': 'text/plain' } }));
  conforms('/api/v1/sites/check', 'get', await api(svc.url, checkPath(COVERED)));
  for (const q of [`address=${encodeURIComponent(COVERED)}`, 'city=Cambridge', 'city=Springfield', 'lat=42.37&lng=-71.11', 'lat=1']) {
    conforms('/api/v1/coverage', 'get', await api(svc.url, `/api/v1/coverage?${q}`, { token: key }));
  }
  conforms('/api/v1/usage', 'get', await api(svc.url, '/api/v1/usage', { token: key }));
  conforms('/api/v1/keys/{id}', 'delete', await api(svc.url, '/api/v1/keys/key_none', { token: jwt, method: 'DELETE' }));
  conforms('/api/v1/keys/{id}', 'delete', await api(svc.url, `/api/v1/keys/${created.json.id}`, { token: jwt, method: 'DELETE' }));
});

test('the api-catalog (RFC 9727) links the REST API to its OpenAPI document and reference page', async () => {
  const catalog = (await api(svc.url, '/.well-known/api-catalog')).json;
  const entry = catalog.linkset.find((l: { anchor: string }) => l.anchor.endsWith('/api/v1'));
  assert.ok(entry, 'an /api/v1 entry');
  assert.ok(entry['service-desc'][0].href.endsWith('/api/v1/openapi.json'));
  assert.ok(entry['service-doc'][0].href.endsWith('/docs/api'));
  for (const link of [entry['service-desc'][0], entry['service-doc'][0]]) assert.equal((await fetch(`${svc.url}${new URL(link.href).pathname}`)).status, 200);
});

test('the reference page at /docs/api is generated from the document', async () => {
  const res = await fetch(`${svc.url}/docs/api`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const body = await res.text();
  for (const path of Object.keys(doc.paths)) assert.ok(body.includes(path), path);
  for (const code of Object.keys(doc['x-problem-types'])) assert.ok(body.includes(`id="problem-${code.replace(/_/g, '-')}"`), code);
  assert.match(body, /id="schema-Snapshot"/);
});
