// The server card (both paths), the RFC 9727 api-catalog, and the guide it links to, over real HTTP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient } from './mcp-support.ts';

let svc: TestServer;
before(async () => {
  svc = await startTestServer();
});
after(async () => {
  await svc?.close();
});

test('the server card names the runtime server and version, protocol 2026-07-28, the endpoint, tools dynamic', async () => {
  const res = await fetch(`${svc.url}/.well-known/mcp/server-card.json`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const card = (await res.json()) as Record<string, any>;
  const client = await connectClient(svc.url, 'modern');
  try {
    const runtime = client.getServerVersion()!;
    assert.equal(card.name, runtime.name);
    assert.equal(card.version, runtime.version);
    assert.equal(card.serverInfo.name, runtime.name);
    assert.equal(card.serverInfo.version, runtime.version);
  } finally {
    await client.close();
  }
  assert.equal(card.protocolVersion, '2026-07-28');
  assert.equal(card.tools, 'dynamic');
  const base = svc.ctx.config.baseUrl;
  assert.deepEqual(card.remotes, [{ type: 'streamable-http', url: `${base}/api/mcp`, supportedProtocolVersions: ['2026-07-28', '2025-06-18'] }]);
  assert.equal(card.transport.endpoint, `${base}/api/mcp`);
  assert.ok(card.description.length >= 1 && card.description.length <= 100);

  const alias = await fetch(`${svc.url}/api/mcp/server-card`);
  assert.equal(alias.status, 200);
  assert.equal(alias.headers.get('content-type'), 'application/mcp-server-card+json');
  assert.deepEqual(await alias.json(), card);
});

test('the api-catalog is an RFC 9727 linkset pointing at the endpoint, the card, the auth metadata and the docs, all of which answer', async () => {
  const res = await fetch(`${svc.url}/.well-known/api-catalog`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/linkset\+json/);
  assert.match(res.headers.get('link') ?? '', /rel="api-catalog"/);
  const { linkset } = (await res.json()) as { linkset: Record<string, any>[] };
  const base = svc.ctx.config.baseUrl;
  const mcp = linkset.find((l) => l.anchor === `${base}/api/mcp`)!;
  assert.ok(mcp, 'the MCP endpoint is an anchor');
  const hrefs = [...mcp['service-desc'], ...mcp['service-doc'], ...mcp['service-meta']].map((l: { href: string }) => l.href);
  for (const path of [
    '/.well-known/mcp/server-card.json',
    '/docs/mcp',
    '/.well-known/oauth-protected-resource/api/mcp',
    '/.well-known/oauth-authorization-server',
  ]) {
    const href = `${base}${path}`;
    assert.ok(hrefs.includes(href), `links ${path}`);
    const linked = await fetch(`${svc.url}${path}`);
    assert.equal(linked.status, 200, `${path} answers`);
  }
  const doc = await (await fetch(`${svc.url}/docs/mcp`)).text();
  assert.match(doc, /# MCP endpoint/);
});
