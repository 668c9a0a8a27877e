// A 10 MB body gets its refusal, not a connection reset: 413 with a JSON-RPC error on /api/mcp (the
// documented 64 KiB cap) and 413 application/problem+json on /api/v1 (16 KiB), both with a declared
// Content-Length and chunked. Real server, real sockets (node:http, fetch); the request must see the
// response and no socket error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { getUserToken } from '../support/auth-flow.ts';
import { MCP_MAX_BODY_BYTES } from '../../src/mcp/http-rules.ts';
import { MODERN, modernRequest } from '../mcp-support.ts';

let svc: TestServer;
let token: string;
before(async () => {
  svc = await startTestServer();
  token = await getUserToken(svc.url, 'oversized@example.com');
});
after(async () => {
  await svc?.close();
});

const TEN_MB = 10 * 1024 * 1024;
const bigJson = () => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { pad: 'x'.repeat(TEN_MB) } }));

/** POST with node:http and a declared Content-Length, writing the whole body; any socket error fails. */
function postWithLength(path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; type: string; text: string }> {
  const u = new URL(svc.url + path);
  return new Promise((resolve, reject) => {
    let answer: { status: number; type: string; text: string } | undefined;
    let failure: Error | undefined;
    const req = http.request(
      { host: u.hostname, port: u.port, path, method: 'POST', headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => (answer = { status: res.statusCode!, type: String(res.headers['content-type']), text }));
      },
    );
    // Settled when the exchange is over: the whole body written and the answer read, with no reset or
    // broken pipe on the way (a server that closes mid-upload shows up here even when the answer came).
    req.on('error', (err) => (failure = err));
    req.on('close', () => (failure ? reject(failure) : answer ? resolve(answer) : reject(new Error('no answer'))));
    req.end(body);
  });
}

/** POST with fetch and a streamed body (chunked, no Content-Length). */
async function postChunked(path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; type: string; text: string }> {
  const stream = new ReadableStream({
    start(c) {
      for (let i = 0; i < body.length; i += 64 * 1024) c.enqueue(body.subarray(i, i + 64 * 1024));
      c.close();
    },
  });
  const r = await fetch(svc.url + path, { method: 'POST', headers, body: stream, duplex: 'half' } as RequestInit);
  return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
}

const mcpHeaders = () => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  authorization: `Bearer ${token}`,
});

for (const [how, send] of [
  ['Content-Length', postWithLength],
  ['chunked', postChunked],
] as const) {
  test(`/api/mcp: a 10 MB body (${how}) gets 413 with a JSON-RPC error naming the cap, not a reset`, async () => {
    const r = await send('/api/mcp', mcpHeaders(), bigJson());
    assert.equal(r.status, 413);
    assert.match(r.type, /^application\/json/);
    const msg = JSON.parse(r.text);
    assert.equal(msg.jsonrpc, '2.0');
    assert.equal(msg.error.code, -32600);
    assert.match(msg.error.message, new RegExp(`limit for /api/mcp is ${MCP_MAX_BODY_BYTES} bytes`));
    assert.equal(typeof msg.error.data.requestId, 'string');
  });

  test(`/api/v1: a 10 MB body (${how}) gets 413 application/problem+json, not a reset`, async () => {
    const r = await send('/api/v1/keys', { 'content-type': 'application/json', authorization: `Bearer ${token}` }, bigJson());
    assert.equal(r.status, 413);
    assert.match(r.type, /^application\/problem\+json/);
    const p = JSON.parse(r.text);
    assert.equal(p.status, 413);
    assert.match(p.type, /payload_too_large|payload-too-large/);
  });
}

test('/api/mcp: a body just under the cap is still served after the refusals (the server is fine)', async () => {
  const { body, headers } = modernRequest('tools/list', { pad: 'x'.repeat(MCP_MAX_BODY_BYTES - 1024) });
  const r = await postWithLength('/api/mcp', { ...headers, authorization: `Bearer ${token}` }, Buffer.from(JSON.stringify(body)));
  assert.equal(r.status, 200, r.text.slice(0, 300));
});
