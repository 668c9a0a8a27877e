// Hostile input on the web and MCP surfaces gets a clear 4xx, never a 500: NUL bytes in forms and
// URLs, JSON nested thousands deep, `initialize` with bad params, an Authorization header of spaces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/harness.ts';
import { logLines } from '../support/log-capture.ts';
import { CookieJar, TEST_PASSWORD, csrfFrom, getPage } from '../support/auth-flow.ts';
import { ACCEPT_BOTH, legacyRequest, modernRequest, parseRpcBody } from '../mcp-support.ts';

test('NUL bytes: 400 with a clear message on /signup, /signin, /claim/%00 and the OAuth authorize page', async () => {
  const svc = await startTestServer();
  try {
    const jar = new CookieJar();
    const csrf = csrfFrom((await getPage(`${svc.url}/signup`, jar)).body);
    for (const path of ['/signup', '/signin']) {
      for (const fields of [
        { email: 'nul\u0000@example.com', password: TEST_PASSWORD },
        { email: 'ok@example.com', password: `${TEST_PASSWORD}\u0000` },
      ]) {
        const res = await fetch(`${svc.url}${path}`, {
          method: 'POST',
          headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrf, ...fields }).toString(),
          redirect: 'manual',
        });
        assert.equal(res.status, 400, `${path} ${JSON.stringify(fields)}`);
        assert.match(await res.text(), /NUL/);
      }
    }
    for (const path of ['/claim/%00', '/claim/abc%00def', '/api/auth/oauth/authorize?client_id=%00&response_type=code', '/signin?next=/%00']) {
      const res = await fetch(`${svc.url}${path}`, { headers: { cookie: jar.header() }, redirect: 'manual' });
      assert.equal(res.status, 400, path);
      assert.match(await res.text(), /NUL/);
    }
    // A NUL inside an OAuth token request is an unknown token, not a storage failure.
    const tok = await fetch(`${svc.url}/api/auth/mcp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'abc\u0000def', client_id: 'x\u0000y' }).toString(),
    });
    assert.ok(tok.status >= 400 && tok.status < 500, String(tok.status));
  } finally {
    await svc.close();
  }
});

async function rawRpc(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body });
  const raw = await res.text();
  return { status: res.status, message: parseRpcBody(raw, res.headers.get('content-type')), raw };
}

test('JSON nested 5,000 deep on /api/mcp: 400 / -32600 before the SDK, logged at warn', async () => {
  const svc = await startTestServer();
  try {
    const from = logLines.length;
    for (const body of [
      '['.repeat(5000) + ']'.repeat(5000),
      `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
    ]) {
      const r = await rawRpc(svc.url, body);
      assert.equal(r.status, 400, r.raw.slice(0, 200));
      assert.equal(r.message?.error?.code, -32600);
      assert.match(r.message!.error!.message, /nested/);
    }
    const warned = logLines.slice(from).filter((l) => l.includes('"level":40') && l.includes('nested'));
    assert.equal(warned.length, 2);
    // Ordinary nesting still works.
    const ok = await rawRpc(svc.url, JSON.stringify(legacyRequest('tools/list').body));
    assert.equal(ok.status, 200);
  } finally {
    await svc.close();
  }
});

test('initialize with bad params: -32602 with a short message, not -32603 with a schema dump', async () => {
  const svc = await startTestServer();
  try {
    for (const params of [
      undefined,
      {},
      { protocolVersion: 5 },
      { protocolVersion: '2025-06-18', capabilities: 'x', clientInfo: { name: 'a', version: '1' } },
      { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 7 } },
    ]) {
      const r = await rawRpc(svc.url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'initialize', ...(params === undefined ? {} : { params }) }));
      assert.equal(r.message?.error?.code, -32602, `${JSON.stringify(params)}: ${r.raw.slice(0, 300)}`);
      assert.equal(r.message?.id, 9);
      assert.ok(r.message!.error!.message.length < 300, r.message!.error!.message);
      assert.ok(r.status < 500);
    }
    const good = await rawRpc(
      svc.url,
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
      }),
    );
    assert.equal(good.status, 200);
    assert.ok(good.message?.result?.protocolVersion);
  } finally {
    await svc.close();
  }
});

test('an Authorization header of only whitespace is a malformed bearer: 401 / -32010', async () => {
  const svc = await startTestServer();
  try {
    const req = modernRequest('tools/list');
    for (const value of ['   ', '\t', '']) {
      const res = await fetch(`${svc.url}/api/mcp`, { method: 'POST', headers: { ...req.headers, authorization: value }, body: JSON.stringify(req.body) });
      const message = parseRpcBody(await res.text(), res.headers.get('content-type'));
      assert.equal(res.status, 401, JSON.stringify(value));
      assert.equal(message?.error?.code, -32010);
      assert.ok(res.headers.get('www-authenticate')?.includes('invalid_token'));
    }
    const anonymous = await fetch(`${svc.url}/api/mcp`, { method: 'POST', headers: req.headers, body: JSON.stringify(req.body) });
    assert.equal(anonymous.status, 200, 'no header at all is still anonymous');
  } finally {
    await svc.close();
  }
});
