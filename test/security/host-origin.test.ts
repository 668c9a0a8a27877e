// DNS-rebinding protection on every route (not only /api/mcp), an http Origin refused on an https
// deployment, and the CSRF cookie under the __Host- prefix on https.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer } from '../support/harness.ts';
import { CookieJar, TEST_PASSWORD, csrfFrom, getPage } from '../support/auth-flow.ts';
import { modernRequest } from '../mcp-support.ts';

/** A request with a chosen Host header (fetch does not let a caller set it). */
function raw(url: string, path: string, headers: Record<string, string>, method = 'GET', body?: string): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('every route refuses a foreign Host (rebinding), except the probes (/healthz, /readyz); a trusted proxy may name the host', async () => {
  const svc = await startTestServer();
  try {
    for (const path of ['/dev/outbox', '/signin', '/account', '/', '/.well-known/oauth-authorization-server', '/api/auth/jwks']) {
      const r = await raw(svc.url, path, { host: 'rebind.evil.example' });
      assert.equal(r.status, 403, path);
      assert.match(r.body, /DNS-rebinding/);
    }
    assert.equal((await raw(svc.url, '/dev/outbox', { host: `localhost:${new URL(svc.url).port}` })).status, 200, 'its own host is served');
    // Probes by address still reach /healthz and /readyz. This server holds no places, so /readyz answers
    // 503 "unavailable": the point is that it answers, not 403.
    const alive = await raw(svc.url, '/healthz', { host: '10.0.0.5:8080' });
    assert.equal(alive.status, 200, 'liveness probes by address still reach /healthz');
    const probe = await raw(svc.url, '/readyz', { host: '10.0.0.5:8080' });
    assert.equal(probe.status, 503, 'readiness probes by address still reach /readyz');
    assert.equal(JSON.parse(probe.body).status, 'unavailable');
  } finally {
    await svc.close();
  }
  const proxied = await startTestServer({ config: { baseUrl: 'https://siteline.example', host: '0.0.0.0', trustedProxies: ['loopback'] } });
  try {
    const port = new URL(proxied.url).port;
    assert.equal((await raw(proxied.url, '/signin', { host: `backend:${port}` })).status, 403);
    assert.equal((await raw(proxied.url, '/signin', { host: `backend:${port}`, 'x-forwarded-host': 'siteline.example' })).status, 200);
  } finally {
    await proxied.close();
  }
});

test('an https deployment refuses an http Origin (MCP and forms) and names its CSRF cookie __Host-sl_csrf', async () => {
  const svc = await startTestServer({ config: { baseUrl: 'https://siteline.example' } });
  try {
    const host = new URL(svc.url).host;
    const req = modernRequest('tools/list');
    const mcp = (origin: string) => raw(svc.url, '/api/mcp', { ...req.headers, host, origin }, 'POST', JSON.stringify(req.body));
    assert.equal((await mcp(`http://${host}`)).status, 403, 'http Origin of the same host');
    assert.equal((await mcp(`https://${host}`)).status, 200, 'https Origin of the same host');
    assert.equal((await mcp('https://siteline.example')).status, 200);

    const jar = new CookieJar();
    const page = await getPage(`${svc.url}/signup`, jar);
    assert.ok(jar.get('__Host-sl_csrf'), 'the CSRF cookie has the __Host- prefix');
    assert.equal(jar.get('sl_csrf'), undefined);
    const form = new URLSearchParams({ csrf: csrfFrom(page.body), email: 'origin@example.com', password: TEST_PASSWORD }).toString();
    const post = (origin: string) =>
      raw(
        svc.url,
        '/signup',
        { host, origin, cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(form)) },
        'POST',
        form,
      );
    assert.equal((await post(`http://${host}`)).status, 403, 'an http Origin on an https deployment');
    assert.equal((await post('https://siteline.example')).status, 303);
  } finally {
    await svc.close();
  }
});
