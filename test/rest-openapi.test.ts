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
import { COVERED, OUTSIDE, accountIdOf, api, checkPath, grant, type ApiReply } from './rest-support.ts';

const Ajv2020 = createRequire(import.meta.url)('ajv/dist/2020') as new (
  opts: Record<string, unknown>,
) => {
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
  assert.deepEqual(coverageParams, [
    'address',
    'city',
    'region',
    'geoDivisionId',
    'lat',
    'lng',
    'district',
    'changesSince',
    'changesBy',
    'changesPage',
    'changesPageSize',
  ]);
  assert.deepEqual(
    doc.paths['/api/v1/sites/check'].get.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required]),
    [
      ['address', true],
      ['include', false],
      ['district', false],
      ['buildingType', false],
      ['conditions', false],
      ['lotId', false],
      ['Idempotency-Key', false],
    ],
  );
  for (const status of ['200', '400', '401', '402', '422', '429']) assert.ok(doc.paths['/api/v1/sites/check'].post.responses[status], status);
});

test('real responses match the document: snapshots (answered or not), coverage, usage, keys, and problems', async () => {
  // The checker can fail: wrong shapes are refused.
  assert.equal(ajv.getSchema('openapi.json#/components/schemas/Snapshot')!({ answered: 'yes', coverage: {}, sources: [], generatedAt: 'x' }), false);
  assert.equal(ajv.getSchema('openapi.json#/components/schemas/Problem')!({ title: 'x' }), false);
  assert.equal(
    ajv.getSchema('openapi.json#/components/schemas/Usage')!({ balance: 1.5, recent: [], perDay: [], purchasing: { enabled: false, how: '' } }),
    false,
  );
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
  conforms(
    '/api/v1/sites/check',
    'post',
    await api(svc.url, '/api/v1/sites/check', { token: key, body: { address: COVERED }, headers: { 'idempotency-key': 'spec-1' } }),
  );
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

test('the document carries info.license and examples; /docs/api gives a curl command for every operation and schemas as field lists', async () => {
  assert.equal(typeof doc.info.license?.name, 'string');
  assert.ok(doc.info.license.name.length > 0);
  assert.deepEqual(doc.paths['/api/v1/sites/check'].post.requestBody.content['application/json'].example, { address: '11 Acorn St, Cambridge, MA' });
  assert.equal(doc.paths['/api/v1/coverage'].get.parameters.find((p: { name: string }) => p.name === 'address').example, '11 Acorn St, Cambridge, MA');
  const body = await (await fetch(`${svc.url}/docs/api`)).text();
  let ops = 0;
  for (const [path, methods] of Object.entries(
    doc.paths as Record<string, Record<string, { operationId: string; security?: unknown[]; requestBody?: unknown }>>,
  )) {
    for (const [method, op] of Object.entries(methods)) {
      ops++;
      const section = new RegExp(`<section id="${op.operationId}"[^>]*>([\\s\\S]*?)</section>`).exec(body)?.[1];
      assert.ok(section, op.operationId);
      const curl = /<pre class="curl"><code>([\s\S]*?)<\/code><\/pre>/
        .exec(section)?.[1]
        ?.replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
      assert.ok(curl, `${op.operationId}: a curl example`);
      assert.match(curl, new RegExp(`^curl -sS${method === 'get' ? '' : ` -X ${method.toUpperCase()}`}`), op.operationId);
      assert.ok(curl.includes(`'${doc.servers[0].url}${path.replace(/\{id\}/, 'key_')}`), `${op.operationId}: ${curl}`);
      if (op.security?.length !== 0) assert.match(curl, /Authorization: Bearer \$SITELINE_(API_KEY|USER_TOKEN)/, op.operationId);
      if (op.requestBody) assert.match(curl, /-d '\{/, `${op.operationId} sends its example body`);
    }
  }
  assert.equal((body.match(/<pre class="curl">/g) ?? []).length, ops, 'one curl example per operation');
  // Schemas read as field lists, not JSON dumps; headings are words, not raw paths.
  assert.match(
    body,
    /<details class="schema"><summary><h3>SiteCheckRequest<\/h3><\/summary><div id="schema-SiteCheckRequest"><dl class="fields"><dt><code>address<\/code> <span class="muted">required<\/span><\/dt>/,
  );
  assert.doesNotMatch(body, /"properties":|"type": "object"/, 'no raw JSON schema on the page');
  assert.match(body, /<h2>Feasibility snapshot for one address \(paid\)<\/h2>/);
});

test('the curl examples for coverage and the key list, run as printed by a shell against the server, answer 200', async () => {
  // Asynchronously: the server answering the command runs in this process.
  const { execFile } = await import('node:child_process');
  const run = (cmd: string, env: Record<string, string>) =>
    new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile('sh', ['-c', cmd], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } }, (_e, stdout, stderr) => resolve({ stdout, stderr })),
    );
  const curlOf = (body: string, id: string) =>
    new RegExp(`<section id="${id}"[\\s\\S]*?<pre class="curl"><code>([\\s\\S]*?)</code></pre>`)
      .exec(body)![1]!
      .replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&');
  const body = await (await fetch(`${svc.url}/docs/api`)).text();
  const jwt = await getUserToken(svc.url, 'openapi.curl@example.com');
  const key = (await api(svc.url, '/api/v1/keys', { token: jwt, body: { name: 'curl' } })).json.key as string;
  for (const [id, env] of [
    ['coverage', { SITELINE_API_KEY: key }],
    ['listKeys', { SITELINE_USER_TOKEN: jwt }],
  ] as const) {
    const cmd = `${curlOf(body, id)} -o /dev/null -w '%{http_code}'`;
    const r = await run(cmd, env);
    assert.equal(r.stdout, '200', `${id}: ${cmd}\n${r.stderr}`);
  }
});
