// The plumbing on the real node server (random port, no database): the 405 that lists a path's methods,
// one error format per path prefix with a SitelineError mapped once, a node handler mounted under a
// prefix that never takes a path a route holds, the server's own refusals in the path's format, and the
// metrics label (the route pattern, or 'unmatched').
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { SitelineError } from '../core/errors.ts';
import { HttpApp } from './http-app.ts';
import { createHttpServer } from './server.ts';
import type { ErrorFormat } from './errors.ts';

const observed: { route: string; status: number }[] = [];
let server: http.Server;
let base: string;

/** A second wire format, as a surface registers one (REST's problem+json is the real one). */
const plainText: ErrorFormat = (_req, status, code, message, headers = {}) => ({
  status,
  headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  body: `${code}: ${message}`,
});

before(async () => {
  const config = loadConfig({ DATABASE_URL: '', LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', autoImport: false });
  const logger = createLogger('silent');
  const app = new HttpApp(logger);
  app.pages.get('/things/:id', (c) => c.json({ id: c.req.param('id') }));
  app.pages.post('/things/:id', (c) => c.json({ posted: c.req.param('id') }));
  app.pages.get('/refused', () => {
    throw new SitelineError('conflict', 'That thing changed meanwhile.');
  });
  app.pages.get('/api/plain/refused', () => {
    throw new SitelineError('not_found', 'No such plain thing.');
  });
  app.pages.get('/api/plain/broken', () => {
    throw new Error('secret detail');
  });
  app.errors.under('/api/plain', plainText);
  // A library's node handler under a prefix; /mounted/held is a route of its own (POST only).
  app.pages.post('/mounted/held', (c) => c.json({ held: true }));
  app.nodeMount('/mounted', (req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`mount saw ${req.method} ${req.url}`);
  });
  server = createHttpServer({ config, logger, metrics: { observeRequest: (route, _m, status) => observed.push({ route, status }) } }, app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  config.baseUrl = base;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

test('405 names the methods a path has, in the order they were registered; 404 otherwise (JSON envelope with the request id)', async () => {
  const put = await fetch(`${base}/things/7`, { method: 'PUT' });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'GET, POST');
  const body = (await put.json()) as { error: { code: string; message: string; requestId: string } };
  assert.equal(body.error.code, 'method_not_allowed');
  assert.equal(body.error.requestId, put.headers.get('x-request-id'));
  assert.equal((await fetch(`${base}/things/7/more`)).status, 404);
  assert.deepEqual(await (await fetch(`${base}/things/7`)).json(), { id: '7' });
});

test('a SitelineError gets its status from one table and the format of its path; an unexpected error is a 500 without detail', async () => {
  const json = await fetch(`${base}/refused`);
  assert.equal(json.status, 409);
  assert.equal(((await json.json()) as { error: { code: string } }).error.code, 'conflict');
  const plain = await fetch(`${base}/api/plain/refused`);
  assert.equal(plain.status, 404);
  assert.equal(await plain.text(), 'not_found: No such plain thing.');
  const broken = await fetch(`${base}/api/plain/broken`);
  assert.equal(broken.status, 500);
  const text = await broken.text();
  assert.match(text, /^internal: /);
  assert.doesNotMatch(text, /secret detail/);
  // The server's own refusals use the same table: a NUL byte under /api/plain is plain text, elsewhere JSON.
  const nul = await fetch(`${base}/api/plain/x%00y`);
  assert.equal(nul.status, 400);
  assert.match(await nul.text(), /^bad_input: /);
  const nulJson = await fetch(`${base}/x%00y`);
  assert.equal(((await nulJson.json()) as { error: { code: string } }).error.code, 'bad_input');
});

test('a mounted node handler answers under its prefix, never on a path a route holds for another method', async () => {
  const mounted = await fetch(`${base}/mounted/anything?q=1`);
  assert.equal(await mounted.text(), 'mount saw GET /mounted/anything?q=1');
  assert.equal(await (await fetch(`${base}/mounted`)).text(), 'mount saw GET /mounted');
  const held = await fetch(`${base}/mounted/held`);
  assert.equal(held.status, 405);
  assert.equal(held.headers.get('allow'), 'POST');
});

test('the metrics label is the route pattern, the mount pattern, or unmatched', async () => {
  observed.length = 0;
  await (await fetch(`${base}/things/secret-id`)).text();
  await (await fetch(`${base}/mounted/x`)).text();
  await (await fetch(`${base}/no/such/path`)).text();
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(
    observed.map((o) => `${o.route} ${o.status}`),
    ['/things/:id 200', '/mounted/* 200', 'unmatched 404'],
  );
});
