// The MCP endpoint through the official client on both legs, over real HTTP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient, legacyRequest, modernRequest, postRpc, type Leg } from './mcp-support.ts';
import { ALL_STATUSES } from '../src/core/statuses.ts';

let svc: TestServer;
before(async () => {
  svc = await startTestServer();
});
after(async () => {
  await svc?.close();
});

for (const leg of ['modern', 'legacy'] as Leg[]) {
  test(`${leg} leg: the SDK client lists the catalogue and calls the public static tools`, async () => {
    const client = await connectClient(svc.url, leg);
    try {
      const pkg = (await import('../package.json', { with: { type: 'json' } })).default as { name: string; version: string };
      assert.equal(client.getServerVersion()?.name, pkg.name);
      assert.equal(client.getServerVersion()?.version, pkg.version);
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const n of [
        'getServiceMcpGuide',
        'explainFeasibilityStatus',
        'saveToProject',
        'getProjectContext',
        'runFeasibilityAnalysis',
        'updateProject',
        'submitServiceFeedback',
        'produceProjectReport',
        'setProjectMapListing',
      ])
        assert.ok(names.includes(n), `${n} listed`);

      const first = await client.callTool({ name: 'getServiceMcpGuide', arguments: {} });
      assert.notEqual(first.isError, true);
      const s1 = first.structuredContent as { firstContactQuestions: { param: string }[]; advice: string[] };
      assert.deepEqual(
        s1.firstContactQuestions.map((q) => q.param),
        ['role', 'market', 'scale'],
      );
      assert.equal(s1.advice.length, 0);
      const blocks = first.content as { type: string; text: string }[];
      assert.equal(blocks.length, 2, 'a summary, then the guide as JSON');
      assert.deepEqual(JSON.parse(blocks[1]!.text), first.structuredContent, 'a text-only client reads the whole guide');
      assert.match(blocks[1]!.text, /401/);
      assert.match(blocks[1]!.text, /not_extracted/);
      assert.match(blocks[0]!.text, /12 tools/);

      const second = await client.callTool({ name: 'getServiceMcpGuide', arguments: { role: 'gc', market: 'CA', scale: 'portfolio' } });
      const s2 = second.structuredContent as { firstContactQuestions: unknown[]; advice: string[]; caller: Record<string, string> };
      assert.equal(s2.firstContactQuestions.length, 0);
      assert.equal(s2.advice.length, 3);
      assert.deepEqual(s2.caller, { role: 'gc', market: 'CA', scale: 'portfolio' });

      for (const status of ALL_STATUSES) {
        const r = await client.callTool({ name: 'explainFeasibilityStatus', arguments: { status } });
        assert.notEqual(r.isError, true);
        const s = r.structuredContent as { known: boolean; status: string; meaning: string };
        assert.equal(s.known, true);
        assert.equal(s.status, status);
        assert.ok(s.meaning.length > 10);
      }
      const notExtracted = await client.callTool({ name: 'explainFeasibilityStatus', arguments: { status: 'not_extracted' } });
      assert.match((notExtracted.content as { text: string }[])[0]!.text, /never report it as "no limit"/);

      const unknown = await client.callTool({ name: 'explainFeasibilityStatus', arguments: { status: 'unlimited' } });
      assert.notEqual(unknown.isError, true, 'an unknown status is not a failure');
      const su = unknown.structuredContent as { known: boolean; acceptedStatuses: string[] };
      assert.equal(su.known, false);
      assert.deepEqual(su.acceptedStatuses, [...ALL_STATUSES]);

      const bad = await client.callTool({ name: 'getServiceMcpGuide', arguments: { role: 'architect' } });
      assert.equal(bad.isError, true);
      assert.match((bad.content as { text: string }[])[0]!.text, /role/);
    } finally {
      await client.close();
    }
  });
}

test('modern leg: server/discover answers with the versions, tools capability and server identity', async () => {
  const r = await postRpc(svc.url, modernRequest('server/discover'));
  assert.equal(r.status, 200);
  const result = r.message!.result;
  assert.equal(result.resultType, 'complete');
  assert.ok(result.supportedVersions.includes('2026-07-28'));
  assert.ok(result.capabilities.tools);
  assert.equal(result._meta['io.modelcontextprotocol/serverInfo'].name, 'siteline');
  assert.equal(typeof result.ttlMs, 'number');
  assert.equal(r.headers.get('mcp-session-id'), null, 'stateless: no session id');
  // The instructions are built from the registry: every tool with its purpose, and the write rules (issue 25).
  const { MCP_TOOLS } = await import('../src/mcp/registry.ts');
  for (const t of MCP_TOOLS)
    assert.ok(result.instructions.includes(`${t.name}`) && result.instructions.includes(t.purpose), `server/discover instructions name ${t.name}`);
  assert.match(result.instructions, /Preview first/);
  assert.match(result.instructions, /Never list a private site without the human/);
  const init = await postRpc(
    svc.url,
    legacyRequest('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
  );
  assert.equal(init.message!.result.instructions, result.instructions, 'initialize on the 2025 leg gives the same instructions');
});

test('modern leg: a removed method (initialize, ping) is 404 / -32601', async () => {
  for (const method of ['ping', 'initialize']) {
    const r = await postRpc(svc.url, modernRequest(method));
    assert.equal(r.status, 404, method);
    assert.equal(r.message!.error!.code, -32601, method);
  }
});

test('modern leg: a missing Mcp-Method header or a mismatched version header is rejected with -32020', async () => {
  const req = modernRequest('tools/list');
  delete req.headers['mcp-method'];
  const missing = await postRpc(svc.url, req);
  assert.equal(missing.status, 400);
  assert.equal(missing.message!.error!.code, -32020);
  const mismatched = await postRpc(svc.url, modernRequest('tools/list'), { 'mcp-protocol-version': '2025-06-18' });
  assert.equal(mismatched.status, 400);
  assert.equal(mismatched.message!.error!.code, -32020);
});

test('modern leg: tools/list carries ttlMs and a public cacheScope (same catalogue for everyone)', async () => {
  const r = await postRpc(svc.url, modernRequest('tools/list'));
  assert.equal(r.status, 200);
  assert.equal(r.message!.result.cacheScope, 'public');
  assert.ok(r.message!.result.ttlMs > 0);
});

test('legacy leg: initialize with 2025-06-18, ping, and an unknown tool', async () => {
  const init = await postRpc(
    svc.url,
    legacyRequest('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }),
  );
  assert.equal(init.status, 200);
  assert.equal(init.message!.result.protocolVersion, '2025-06-18');
  assert.equal(init.message!.result.serverInfo.name, 'siteline');
  assert.ok(init.message!.result.capabilities.tools);
  assert.equal(init.headers.get('mcp-session-id'), null, 'stateless: no session id');
  const ping = await postRpc(svc.url, legacyRequest('ping'), { 'mcp-protocol-version': '2025-06-18' });
  assert.equal(ping.status, 200);
  assert.deepEqual(ping.message!.result, {});
  const unknown = await postRpc(svc.url, legacyRequest('tools/call', { name: 'noSuchTool', arguments: {} }), { 'mcp-protocol-version': '2025-06-18' });
  assert.equal(unknown.message!.error!.code, -32602);
});
