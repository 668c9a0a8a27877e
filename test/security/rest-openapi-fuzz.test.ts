// REST bad input, driven by the service's own OpenAPI document: the test reads /api/v1/openapi.json
// from the real server, and for every operation sends malformed requests built from what the document
// says each parameter and body property is: each parameter missing, of the wrong type, oversized, in
// other scripts, with NUL and control characters, duplicated; each body property missing, of the wrong
// type, oversized, with NUL; extra fields; bodies that are not JSON or not an object; the wrong content
// type; no or a forged credential. Every answer must be a status the document declares for that
// operation (never a 5xx), and every non-2xx body must be application/problem+json matching the
// document's Problem schema; the malformed classes must be 4xx.
//
// Deterministic: the random variants come from fast-check with a fixed seed (FUZZ_SEED overrides it),
// printed with the counts so a failure can be replayed exactly: FUZZ_SEED=<seed> npm test -- rest-openapi-fuzz
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { getUserToken } from '../support/auth-flow.ts';
import { accountIdOf, createKey, grant } from '../rest-support.ts';

const Ajv2020 = createRequire(import.meta.url)('ajv/dist/2020') as new (
  opts: Record<string, unknown>,
) => {
  addSchema(schema: unknown, key: string): void;
  getSchema(ref: string): ((data: unknown) => boolean) & { errors?: unknown[] | null };
};

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261129;
/** Random variants per (operation, parameter, class). */
const VARIANTS = 3;

type Json = any;
interface Operation {
  method: string;
  path: string;
  op: Json;
}
interface Case {
  op: Operation;
  what: string;
  /** Malformed: must be refused with a 4xx. Otherwise any declared status (a 2xx included). */
  malformed: boolean;
  path: string;
  query: [string, string][];
  headers: Record<string, string>;
  body?: Buffer | string;
  /** Sent with node:http so the URL may hold raw bytes fetch would refuse. */
  rawPath?: string;
}

let svc: TestServer;
let doc: Json;
let ajv: InstanceType<typeof Ajv2020>;
let jwt: string;
let apiKey: string;

before(async () => {
  svc = await startTestServer();
  const email = 'fuzz@example.com';
  jwt = await getUserToken(svc.url, email);
  apiKey = (await createKey(svc.url, jwt, 'fuzz')).key;
  await grant(svc.ctx, await accountIdOf(svc.ctx, email), 100_000);
  doc = await (await fetch(`${svc.url}/api/v1/openapi.json`)).json();
  ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(doc, 'openapi.json');
});
after(async () => {
  await svc?.close();
});

const resolve = (node: Json): Json => {
  if (node && typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    return resolve(
      node.$ref
        .slice(2)
        .split('/')
        .reduce((o: Json, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc),
    );
  }
  return node;
};

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) out.push({ method: method.toUpperCase(), path, op });
    }
  }
  return out;
}

/** A value the document accepts for a schema (the baseline each malformed case departs from). */
function validValue(schema: Json, name: string): Json {
  const s = resolve(schema);
  if (s.enum) return s.enum[0];
  if (s.type === 'number' || s.type === 'integer') return s.minimum !== undefined && s.minimum > 0 ? s.minimum : 0;
  if (s.type === 'boolean') return true;
  if (s.type === 'object') return Object.fromEntries((s.required ?? []).map((k: string) => [k, validValue(s.properties[k], k)]));
  if (s.type === 'array') return [];
  if (/address/i.test(name)) return '57 Inman St, Cambridge, MA';
  return 'fuzz';
}

// The random parts, drawn by fast-check from SEED: deterministic for one seed.
let draw = 0;
function sample<T>(arb: fc.Arbitrary<T>): T[] {
  draw += 1;
  return fc.sample(arb, { seed: SEED + draw, numRuns: VARIANTS });
}
const controlChar = fc.integer({ min: 1, max: 31 }).map((c) => String.fromCharCode(c));
const unicodeText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 });
const withNul = fc.tuple(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 })).map(([a, b]) => `${a}\u0000${b}`);
const withControl = fc.tuple(fc.string({ maxLength: 10 }), controlChar, fc.string({ maxLength: 10 })).map(([a, c, b]) => `${a}${c}${b}`);
const notANumber = fc.constantFrom('abc', 'NaN', 'Infinity', '1e999', '', ' ', '0x1F', '1,5', '--1', '٣');
const wrongJsonTypes = fc.constantFrom<Json>(123, -1.5, true, false, null, [], ['x'], {}, { a: 1 });

function auth(op: Operation): Record<string, string> {
  if (op.op.security && op.op.security.length === 0) return {};
  // Keys are managed with a user token; the paid and free calls take the API key.
  return { authorization: `Bearer ${op.path.startsWith('/api/v1/keys') ? jwt : apiKey}` };
}

function baseCase(op: Operation, what: string, malformed: boolean): Case {
  const params = (op.op.parameters ?? []).map(resolve);
  const query: [string, string][] = params.filter((p: Json) => p.in === 'query' && p.required).map((p: Json) => [p.name, String(validValue(p.schema, p.name))]);
  const path = op.path.replace(/\{(\w+)\}/g, 'key_does_not_exist');
  const headers: Record<string, string> = { ...auth(op) };
  const c: Case = { op, what, malformed, path, query, headers };
  const body = op.op.requestBody ? resolve(op.op.requestBody) : undefined;
  if (body?.content?.['application/json']) {
    c.headers['content-type'] = 'application/json';
    c.body = JSON.stringify(validValue(body.content['application/json'].schema, 'body'));
  }
  return c;
}

function casesFor(op: Operation): Case[] {
  const cases: Case[] = [];
  const add = (what: string, malformed: boolean, change: (c: Case) => void) => {
    const c = baseCase(op, what, malformed);
    change(c);
    cases.push(c);
  };
  const params = (op.op.parameters ?? []).map(resolve);

  // Credentials: none, and a forged one, where the operation needs one.
  if (!(op.op.security && op.op.security.length === 0)) {
    add('no credential', true, (c) => delete c.headers.authorization);
    add('a forged credential', true, (c) => (c.headers.authorization = 'Bearer sl_live_forged000000000000000000'));
    add('a credential that is not a bearer', true, (c) => (c.headers.authorization = 'Basic Zm9vOmJhcg=='));
  }

  for (const p of params) {
    const schema = resolve(p.schema ?? {});
    const setParam = (c: Case, value: string) => {
      if (p.in === 'query') c.query = [...c.query.filter(([k]) => k !== p.name), [p.name, value]];
      else if (p.in === 'header') c.headers[p.name.toLowerCase()] = value;
      else if (p.in === 'path') c.path = op.path.replace(`{${p.name}}`, encodeURIComponent(value));
    };
    const bounded = schema.type === 'string' && schema.maxLength !== undefined;
    if (p.required && p.in === 'query') add(`${p.name} missing`, true, (c) => (c.query = c.query.filter(([k]) => k !== p.name)));
    if (schema.type === 'number' || schema.type === 'integer') {
      for (const v of sample(notANumber)) add(`${p.name} not a number (${JSON.stringify(v)})`, true, (c) => setParam(c, v));
      if (schema.maximum !== undefined) add(`${p.name} over its maximum`, true, (c) => setParam(c, String(schema.maximum + 1)));
      if (schema.minimum !== undefined) add(`${p.name} under its minimum`, true, (c) => setParam(c, String(schema.minimum - 1)));
    }
    if (schema.enum) add(`${p.name} not one of ${schema.enum.join('|')}`, true, (c) => setParam(c, 'not-an-option'));
    if (schema.type === 'string' && schema.minLength) add(`${p.name} empty`, true, (c) => setParam(c, ''));
    if (bounded) add(`${p.name} one over maxLength ${schema.maxLength}`, true, (c) => setParam(c, 'x'.repeat(schema.maxLength + 1)));
    // Oversized far past any limit, still inside the 16 KiB the HTTP parser takes for a request line.
    add(`${p.name} 6,000 characters`, bounded || p.in === 'path', (c) => setParam(c, 'y'.repeat(6_000)));
    if (p.in === 'header') {
      // A header cannot carry NUL or control bytes (HTTP refuses them before the server sees them):
      // the malformed header values are the bytes it can carry that the document's "visible ASCII" excludes.
      add(`${p.name} with a space`, true, (c) => setParam(c, 'two words'));
      add(`${p.name} with Latin-1 bytes`, true, (c) => setParam(c, 'cl\u00e9-\u00fc'));
    } else {
      for (const v of sample(withNul)) add(`${p.name} with a NUL byte`, true, (c) => setParam(c, v));
    }
    if (p.in !== 'header') {
      for (const v of sample(withControl)) add(`${p.name} with a control character`, false, (c) => setParam(c, v));
      for (const v of sample(unicodeText)) add(`${p.name} in other scripts`, false, (c) => setParam(c, v));
      // Bytes that are not UTF-8 (a lone surrogate, an overlong form): sent raw.
      add(`${p.name} percent-encoding bytes that are not UTF-8`, false, (c) => {
        setParam(c, 'MARK');
        c.rawPath = 'MARK';
      });
    }
    if (p.in === 'query') {
      add(`${p.name} given twice`, false, (c) => {
        const v = c.query.find(([k]) => k === p.name)?.[1] ?? String(validValue(schema, p.name));
        c.query = [...c.query.filter(([k]) => k !== p.name), [p.name, v], [p.name, v === 'x' ? 'y' : `${v}x`]];
      });
    }
  }
  if (op.path.includes('{')) add('a raw NUL byte in the path', true, (c) => (c.rawPath = op.path.replace(/\{\w+\}/, '%00')));
  add('%00 in the query string', true, (c) => (c.query = [...c.query, ['q', '\u0000']]));

  const body = op.op.requestBody ? resolve(op.op.requestBody) : undefined;
  const schema = body?.content?.['application/json'] ? resolve(body.content['application/json'].schema) : undefined;
  if (schema) {
    const valid = validValue(schema, 'body');
    const withBody = (what: string, malformed: boolean, value: Json) =>
      add(what, malformed, (c) => (c.body = typeof value === 'string' ? value : JSON.stringify(value)));
    for (const [name, propRaw] of Object.entries<Json>(schema.properties ?? {})) {
      const prop = resolve(propRaw);
      if ((schema.required ?? []).includes(name)) withBody(`body.${name} missing`, true, { ...valid, [name]: undefined });
      for (const v of sample(wrongJsonTypes))
        if (prop.type === 'string') withBody(`body.${name} of the wrong type (${JSON.stringify(v)})`, true, { ...valid, [name]: v });
      if (prop.enum) withBody(`body.${name} not one of ${prop.enum.join('|')}`, true, { ...valid, [name]: 'not-an-option' });
      if (prop.maxLength !== undefined) {
        withBody(`body.${name} one over maxLength ${prop.maxLength}`, true, { ...valid, [name]: 'x'.repeat(prop.maxLength + 1) });
        withBody(`body.${name} 12,000 characters`, true, { ...valid, [name]: 'z'.repeat(12_000) });
      }
      if (prop.minLength) withBody(`body.${name} empty`, true, { ...valid, [name]: '' });
      for (const v of sample(withNul)) withBody(`body.${name} with a NUL character`, true, { ...valid, [name]: v });
      for (const v of sample(withControl)) withBody(`body.${name} with a control character`, false, { ...valid, [name]: v });
      for (const v of sample(unicodeText)) withBody(`body.${name} in other scripts`, false, { ...valid, [name]: v });
    }
    if (schema.additionalProperties === false) {
      for (const k of sample(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in (schema.properties ?? {})) && k !== '__proto__')))
        withBody(`an extra field ${JSON.stringify(k)}`, true, { ...valid, [k]: 1 });
      withBody('an extra field __proto__', true, `{"__proto__":{"polluted":1},${JSON.stringify(valid).slice(1)}`);
    }
    for (const v of [
      '',
      '{',
      '{"address":',
      `${JSON.stringify(valid)}garbage`,
      '[]',
      'null',
      '"text"',
      '42',
      '{"a":'.repeat(5000),
      `{"x":1,${'"x":1,'.repeat(2)}"x":1}`,
    ]) {
      withBody(`bad JSON ${JSON.stringify(v.slice(0, 24))}`, true, v);
    }
    add('a body that is not UTF-8', true, (c) => (c.body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])));
    add(
      'duplicated keys',
      false,
      (c) =>
        (c.body = `{${Object.entries(valid)
          .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},${JSON.stringify(k)}:${JSON.stringify(v)}`)
          .join(',')}}`),
    );
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/xml']) {
      add(`content type ${type}`, true, (c) => (c.headers['content-type'] = type));
    }
    add('no content type', true, (c) => delete c.headers['content-type']);
  }
  return cases;
}

interface Answer {
  status: number;
  type: string;
  text: string;
}

function send(c: Case): Promise<Answer> {
  const qs = c.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  let path = `${c.path}${qs ? `?${qs}` : ''}`;
  if (c.rawPath === 'MARK') path = path.replace('MARK', '%ED%A0%80%C0%AF');
  else if (c.rawPath) path = c.rawPath;
  const u = new URL(svc.url);
  const body = c.body === undefined ? undefined : Buffer.isBuffer(c.body) ? c.body : Buffer.from(c.body, 'utf8');
  return new Promise((resolveAnswer, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, method: c.op.method, path, headers: { ...c.headers, ...(body ? { 'content-length': String(body.length) } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolveAnswer({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function check(c: Case, a: Answer): string | undefined {
  const label = `${c.op.method} ${c.op.path}: ${c.what}`;
  if (a.status >= 500) return `${label}: ${a.status} ${a.text.slice(0, 200)}`;
  const declared = c.op.op.responses[String(a.status)];
  if (!declared)
    return `${label}: status ${a.status} is not declared for this operation (declared: ${Object.keys(c.op.op.responses).join(', ')}); body ${a.text.slice(0, 200)}`;
  if (c.malformed && (a.status < 400 || a.status >= 500)) return `${label}: malformed input answered ${a.status}`;
  if (a.status >= 400) {
    if (!a.type.startsWith('application/problem+json')) return `${label}: ${a.status} with content type ${a.type}, not application/problem+json`;
    let body: Json;
    try {
      body = JSON.parse(a.text);
    } catch {
      return `${label}: ${a.status} body is not JSON`;
    }
    const problem = ajv.getSchema('openapi.json#/components/schemas/Problem')!;
    if (!problem(body)) return `${label}: problem body does not match the Problem schema: ${JSON.stringify(problem.errors)}`;
    if (body.status !== a.status) return `${label}: problem status ${body.status} differs from HTTP ${a.status}`;
  } else {
    const media = resolve(declared).content?.['application/json'];
    if (media?.schema) {
      const validate = media.schema.$ref ? ajv.getSchema(`openapi.json${media.schema.$ref}`)! : undefined;
      if (validate && !validate(JSON.parse(a.text)))
        return `${label}: ${a.status} body does not match its declared schema: ${JSON.stringify(validate.errors).slice(0, 300)}`;
    }
  }
  return undefined;
}

test('REST fuzz from the OpenAPI document: every malformed request gets a declared 4xx problem, nothing gets a 5xx or an undeclared status', {
  timeout: 600_000,
}, async () => {
  const ops = operations();
  assert.ok(ops.length >= 7, 'the document lists the operations');
  const failures: string[] = [];
  const counts = { operations: ops.length, requests: 0, malformed: 0, byStatus: {} as Record<string, number> };
  for (const op of ops) {
    for (const c of casesFor(op)) {
      const a = await send(c);
      counts.requests += 1;
      if (c.malformed) counts.malformed += 1;
      counts.byStatus[a.status] = (counts.byStatus[a.status] ?? 0) + 1;
      const problem = check(c, a);
      if (problem) failures.push(problem);
    }
  }
  console.log(
    `# REST OpenAPI fuzz: seed ${SEED} (replay: FUZZ_SEED=${SEED}); ${counts.operations} operations, ${counts.requests} requests (${counts.malformed} malformed); statuses ${JSON.stringify(counts.byStatus)}`,
  );
  assert.deepEqual(failures, [], `${failures.length} of ${counts.requests} answers broke the contract (seed ${SEED}):\n${failures.slice(0, 40).join('\n')}`);
});

test('a NUL byte in a REST URL (raw or %00, in the path or the query) is a 400 application/problem+json', async () => {
  for (const path of ['/api/v1/sites/check?address=57%00Inman', '/api/v1/keys/%00', '/api/v1/usage?x=%00', '/api/v1/%00/coverage']) {
    const a = await send({
      op: { method: 'GET', path, op: { responses: {} } },
      what: 'nul',
      malformed: true,
      path,
      query: [],
      headers: { authorization: `Bearer ${apiKey}` },
      rawPath: path,
    });
    assert.equal(a.status, 400, path);
    assert.match(a.type, /^application\/problem\+json/, path);
    const body = JSON.parse(a.text);
    assert.equal(body.code, 'bad_request');
    assert.match(body.detail, /NUL byte/);
    assert.equal(ajv.getSchema('openapi.json#/components/schemas/Problem')!(body), true);
  }
  // Outside /api/v1 the service's own envelope stays as it was.
  const page = await send({
    op: { method: 'GET', path: '/x', op: { responses: {} } },
    what: 'nul',
    malformed: true,
    path: '/x',
    query: [],
    headers: {},
    rawPath: '/coverage?x=%00',
  });
  assert.equal(page.status, 400);
  assert.match(page.type, /^application\/json/);
});
