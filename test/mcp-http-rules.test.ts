// Each HTTP rule of POST /api/mcp, over raw HTTP (node:http, so Host can be set), on both legs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { startTestServer, type TestServer } from './support/harness.ts';
import { legacyRequest, modernRequest, parseRpcBody, connectClient } from './mcp-support.ts';
import { HttpApp } from '../src/http/http-app.ts';
import { createHttpServer } from '../src/http/server.ts';
import { createLogger } from '../src/logger.ts';
import { createMcpEndpoint, MAX_JSON_DEPTH } from '../src/mcp/endpoint.ts';
import { MCP_MAX_BODY_BYTES } from '../src/mcp/http-rules.ts';
import { defineTool, type McpToolDefinition } from '../src/mcp/tool-definition.ts';
import { SitelineError } from '../src/core/errors.ts';

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  message: ReturnType<typeof parseRpcBody>;
}

function raw(baseUrl: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer; path?: string }): Promise<RawReply> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: opts.path ?? '/api/mcp', method: opts.method ?? 'POST', headers: opts.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let message: RawReply['message'] = null;
          try {
            message = parseRpcBody(body, res.headers['content-type'] ?? null);
          } catch {
            message = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, message });
        });
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const legs = {
  modern: () => modernRequest('tools/list'),
  legacy: () => legacyRequest('tools/list'),
};

function send(baseUrl: string, leg: keyof typeof legs, headerChanges: Record<string, string | null> = {}) {
  const r = legs[leg]();
  const headers: Record<string, string> = { ...r.headers };
  for (const [k, v] of Object.entries(headerChanges)) {
    if (v === null) delete headers[k];
    else headers[k] = v;
  }
  return raw(baseUrl, { headers, body: JSON.stringify(r.body) });
}

let svc: TestServer;
before(async () => {
  svc = await startTestServer({ config: { mcpAllowedOrigins: ['https://agent.example.org'] } });
});
after(async () => {
  await svc?.close();
});

for (const leg of ['modern', 'legacy'] as const) {
  test(`${leg}: a well-formed tools/list passes every rule (JSON or one SSE data frame)`, async () => {
    const r = await send(svc.url, leg);
    assert.equal(r.status, 200, r.body);
    assert.ok(Array.isArray(r.message?.result?.tools));
    assert.equal(r.headers['mcp-session-id'], undefined);
  });

  test(`${leg}: GET and DELETE are 405 with Allow: POST`, async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await raw(svc.url, { method, headers: { accept: 'application/json, text/event-stream' } });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.allow, 'POST');
      assert.match(r.message!.error!.message, /POST/);
    }
  });

  test(`${leg}: an Accept without both JSON and SSE is 406`, async () => {
    for (const accept of ['application/json', 'text/event-stream', '*/*', null]) {
      const r = await send(svc.url, leg, { accept });
      assert.equal(r.status, 406, String(accept));
      assert.match(r.message!.error!.message, /application\/json and text\/event-stream/);
    }
    const reordered = await send(svc.url, leg, { accept: 'text/event-stream;q=0.9, application/json' });
    assert.equal(reordered.status, 200);
  });

  test(`${leg}: Origin outside the allowlist is 403; none, own and MCP_ALLOWED_ORIGINS pass`, async () => {
    const evil = await send(svc.url, leg, { origin: 'https://evil.example' });
    assert.equal(evil.status, 403);
    assert.match(evil.message!.error!.message, /Origin/);
    const nullOrigin = await send(svc.url, leg, { origin: 'null' });
    assert.equal(nullOrigin.status, 403);
    const portSwap = await send(svc.url, leg, { origin: 'https://agent.example.org:8443' });
    assert.equal(portSwap.status, 403, 'an origin is scheme, host and port');
    const none = await send(svc.url, leg);
    assert.equal(none.status, 200);
    const own = await send(svc.url, leg, { origin: svc.ctx.config.baseUrl });
    assert.equal(own.status, 200);
    assert.equal(own.headers['access-control-allow-origin'], svc.ctx.config.baseUrl);
    const extra = await send(svc.url, leg, { origin: 'https://agent.example.org' });
    assert.equal(extra.status, 200);
    const hostPort = new URL(svc.url).host;
    const sameOrigin = await send(svc.url, leg, { host: hostPort, origin: `http://${hostPort}` });
    assert.equal(sameOrigin.status, 200, 'an Origin equal to the request host is the service itself');
    const otherPort = await send(svc.url, leg, { host: hostPort, origin: 'http://127.0.0.1:1' });
    assert.equal(otherPort.status, 403, 'another local port is another origin');
  });

  test(`${leg}: a Host that is not the service's own is refused (DNS rebinding)`, async () => {
    const evil = await send(svc.url, leg, { host: 'evil.example:80' });
    assert.equal(evil.status, 403);
    assert.match(evil.message!.error!.message, /Host/);
    const rebound = await send(svc.url, leg, { host: 'attacker.localhost.example' });
    assert.equal(rebound.status, 403);
    for (const host of ['localhost', '127.0.0.1', `localhost:${new URL(svc.url).port}`]) {
      const ok = await send(svc.url, leg, { host });
      assert.equal(ok.status, 200, host);
    }
  });

  test(`${leg}: a body over the cap is 413 with the limit named; bad JSON is -32700`, async () => {
    const r = legs[leg]();
    const big = JSON.stringify({ ...r.body, params: { ...(r.body as { params?: object }).params, pad: 'x'.repeat(MCP_MAX_BODY_BYTES) } });
    const tooBig = await raw(svc.url, { headers: r.headers, body: big });
    assert.equal(tooBig.status, 413);
    assert.match(tooBig.message!.error!.message, new RegExp(String(MCP_MAX_BODY_BYTES)));
    const chunked = await raw(svc.url, { headers: { ...r.headers, 'transfer-encoding': 'chunked' }, body: big });
    assert.equal(chunked.status, 413, 'no Content-Length: counted while reading');
    const broken = await raw(svc.url, { headers: r.headers, body: '{"jsonrpc":"2.0",' });
    assert.equal(broken.status, 400);
    assert.equal(broken.message!.error!.code, -32700);
    const wrongType = await raw(svc.url, { headers: { ...r.headers, 'content-type': 'text/plain' }, body: JSON.stringify(r.body) });
    assert.equal(wrongType.status, 415);
  });

  test(`${leg}: JSON nested deeper than ${MAX_JSON_DEPTH} levels is refused with -32600 and the limit named; at the limit it reaches the SDK`, async () => {
    const r = legs[leg]();
    // the request object is level 1 and params level 2: an extra argument whose innermost value is at level depth
    const nested = (depth: number, leaf: unknown) => {
      let v: unknown = leaf;
      for (let i = 0; i < depth - 3; i++) v = i % 2 ? [v] : { v };
      return JSON.stringify({ ...r.body, params: { ...(r.body as { params?: object }).params, deep: v } });
    };
    const over = await raw(svc.url, { headers: r.headers, body: nested(MAX_JSON_DEPTH + 1, {}) });
    assert.equal(over.status, 400);
    assert.equal(over.message!.error!.code, -32600);
    assert.match(over.message!.error!.message, new RegExp(`more than ${MAX_JSON_DEPTH} levels`));
    assert.equal(over.message!.id, (r.body as { id: unknown }).id, 'the id is echoed');
    // deep objects inside an array count too
    const inArray = await raw(svc.url, { headers: r.headers, body: JSON.stringify([JSON.parse(nested(MAX_JSON_DEPTH, {}))]) });
    assert.equal(inArray.status, 400);
    const atLimit = await raw(svc.url, { headers: r.headers, body: nested(MAX_JSON_DEPTH, {}) });
    assert.notEqual(atLimit.status, 400, 'at the limit the depth rule lets it through');
    // scalars at any depth below the limit do not count as a level
    const scalarLeaf = await raw(svc.url, { headers: r.headers, body: nested(MAX_JSON_DEPTH, 'x') });
    assert.notEqual(scalarLeaf.status, 400);
  });
}

test('a browser preflight from an allowed origin gets CORS headers; from another origin 403', async () => {
  const ok = await raw(svc.url, { method: 'OPTIONS', headers: { origin: 'https://agent.example.org', 'access-control-request-method': 'POST' } });
  assert.equal(ok.status, 204);
  assert.equal(ok.headers['access-control-allow-origin'], 'https://agent.example.org');
  assert.match(String(ok.headers['access-control-allow-headers']), /Authorization/);
  const bad = await raw(svc.url, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
  assert.equal(bad.status, 403);
});

test('a public base URL: its host is accepted, others refused, localhost forms only when bound to loopback', async () => {
  const pub = await startTestServer({ config: { baseUrl: 'https://siteline.example.com' } });
  try {
    assert.equal((await send(pub.url, 'modern', { host: 'siteline.example.com' })).status, 200);
    assert.equal((await send(pub.url, 'modern', { host: 'other.example.com' })).status, 403);
    assert.equal((await send(pub.url, 'modern', { host: '127.0.0.1' })).status, 200, 'bound to 127.0.0.1: loopback forms allowed');
    assert.equal((await send(pub.url, 'modern', { origin: 'https://siteline.example.com' })).status, 200);
    assert.equal((await send(pub.url, 'modern', { origin: 'http://localhost:3000' })).status, 403);
  } finally {
    await pub.close();
  }
});

test('an unexpected tool failure is -32603 with no detail, logged with the request id; a domain error is isError', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const ctx = { ...svc.ctx, logger: createLogger('error', sink) };
  const boom = defineTool({
    name: 'boom',
    title: 'Boom',
    description: 'Fails unexpectedly (test tool).',
    input: z.object({}),
    purpose: 'A test tool.',
    output: z.object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    access: 'public',
    async handler() {
      throw new Error('secret internal detail: connection string postgres://x');
    },
  });
  const refuse = defineTool({
    name: 'refuse',
    title: 'Refuse',
    description: 'Fails on its own terms (test tool).',
    input: z.object({}),
    purpose: 'A test tool.',
    output: z.object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    access: 'public',
    async handler() {
      throw new SitelineError('bad_input', 'That address has no street number; add one and call again.');
    },
  });
  const app = new HttpApp(ctx.logger);
  const endpoint = createMcpEndpoint(ctx, { tools: [boom, refuse] as unknown as McpToolDefinition[] });
  app.nodeRoute('*', '/api/mcp', (req, res) => endpoint.handle(req, res));
  const server = createHttpServer(ctx, app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    for (const leg of ['modern', 'legacy'] as const) {
      const req =
        leg === 'modern' ? modernRequest('tools/call', { name: 'boom', arguments: {} }) : legacyRequest('tools/call', { name: 'boom', arguments: {} });
      const r = await raw(url, { headers: { ...req.headers, 'x-request-id': `req-${leg}-boom` }, body: JSON.stringify(req.body) });
      assert.equal(r.message!.error!.code, -32603, r.body);
      assert.doesNotMatch(r.body, /secret|postgres/);
      assert.ok(
        lines.some((l) => l.includes(`req-${leg}-boom`) && l.includes('secret internal detail')),
        'logged with the request id',
      );

      const client = await connectClient(url, leg);
      try {
        for (let i = 0; i < 5; i++) assert.equal((await client.callTool({ name: 'refuse', arguments: {} })).isError, true);
        const refused = await client.callTool({ name: 'refuse', arguments: {} });
        assert.equal(refused.isError, true);
        assert.match((refused.content as { text: string }[])[0]!.text, /no street number/);
      } finally {
        await client.close();
      }
    }
    // Sequential 2026-07-28 exchanges reuse built server instances (one per concurrent exchange).
    assert.ok(endpoint.poolStats().built <= 2, `built ${endpoint.poolStats().built} instances for sequential calls`);
    assert.ok(endpoint.poolStats().idle >= 1);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});
