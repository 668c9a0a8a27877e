// Issue 47: every client reads every answer. Item 1: every refusal. Clients built on the official SDK v1
// (@modelcontextprotocol/sdk 1.x: LangChain's MCP adapters, the Inspector CLI) check an isError
// result's structuredContent against the tool's outputSchema too, and threw -32602 "Structured
// content does not match the tool's output schema" for five tools, so "Fix them and call again" or
// "Wait N seconds, then retry" never reached the model. Each tool's refusals are called here through
// the SDK v1 client (2025 leg), the v2 client (both legs) and LangChain's adapter over the v1 client;
// each must hand over the refusal's sentence. Item 2: the summary block carries the answer's warnings.
// Item 4, last (it takes the database away): a failure
// after the body parsed is still a JSON-RPC answer to the request. One server for the file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadMcpTools } from '@langchain/mcp-adapters';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient, legacyRequest, modernRequest, postRpc, type Leg } from './mcp-support.ts';
import { logLine, logLines } from './support/log-capture.ts';
import { getUserToken } from './support/auth-flow.ts';
import { ManualClock } from '../src/clock.ts';
import { MCP_TOOLS } from '../src/mcp/registry.ts';

let svc: TestServer;
let token: string;
let projectId: string;
const NO_SUCH_PROJECT = '00000000-0000-4000-8000-000000000000';

interface Refusal {
  tool: string;
  args: () => Record<string, unknown>;
  code: string;
  /** Part of the sentence the model must read. */
  says: RegExp;
  /** The arguments break the advertised inputSchema: LangChain refuses them itself before any call (see the LangChain test). */
  schemaInvalid?: boolean;
}

/** At least one refusal per tool in the registry; several for the five whose refusals were lost. */
const REFUSALS: Refusal[] = [
  {
    tool: 'getServiceMcpGuide',
    args: () => ({ role: 'ceo' }),
    code: 'invalid_arguments',
    says: /^Invalid arguments for getServiceMcpGuide: .*role\. Fix them and call again\.$/,
    schemaInvalid: true,
  },
  {
    tool: 'explainFeasibilityStatus',
    args: () => ({}),
    code: 'invalid_arguments',
    says: /^Invalid arguments for explainFeasibilityStatus: .*status\. Fix them and call again\.$/,
    schemaInvalid: true,
  },
  {
    tool: 'cityInventory',
    args: () => ({ city: 'cambridge-ma' }),
    code: 'bad_input',
    says: /"cambridge-ma" looks like an internal slug, which is not accepted\. Pass the city name/,
  },
  { tool: 'cityInventory', args: () => ({}), code: 'tool_error', says: /^Give exactly one of: city/ },
  {
    tool: 'cityInventory',
    args: () => ({ city: 'Cambridge', latitude: 42.37 }),
    code: 'invalid_arguments',
    says: /"latitude" is spelled "lat" here\. Fix them and call again\./,
  },
  // The budget is used up in before(): every counted lookup is refused with the wait.
  { tool: 'cityInventory', args: () => ({ city: 'Cambridge', region: 'MA' }), code: 'rate_limited', says: /Wait \d+ seconds, then retry\.$/ },
  {
    tool: 'previewSiteCoverage',
    args: () => ({ address: '' }),
    code: 'invalid_arguments',
    says: /^Invalid arguments for previewSiteCoverage: .*The address is empty\./,
    schemaInvalid: true,
  },
  { tool: 'previewSiteCoverage', args: () => ({ address: '!!!' }), code: 'bad_input', says: /^The address has no street\.$/ },
  {
    tool: 'getFeasibilitySnapshot',
    args: () => ({ address: '10 Garden St, Cambridge, MA', source: 'nope' }),
    code: 'invalid_arguments',
    says: /^Invalid arguments for getFeasibilitySnapshot: .*source\. Fix them and call again\.$/,
    schemaInvalid: true,
  },
  { tool: 'getFeasibilitySnapshot', args: () => ({ address: '!!!', source: 'full' }), code: 'bad_input', says: /^The address has no street\.$/ },
  {
    tool: 'submitServiceFeedback',
    args: () => ({}),
    code: 'elicitation_unavailable',
    says: /nothing was sent or stored\. The user can send it on the web at http:\/\/\S+\/feedback/,
  },
  {
    tool: 'saveToProject',
    args: () => ({ action: 'attach_parcels', projectId, parcelExternalIds: ['nope'], preview: true }),
    code: 'bad_input',
    says: /Parcel nope is not a known lot in US-MA:cambridge\. Nothing was attached\. Copy parcelExternalId from a getFeasibilitySnapshot answer/,
  },
  {
    tool: 'updateProject',
    args: () => ({ projectId, undoOperationId: 'nope', preview: true }),
    code: 'not_found',
    says: /^No receipt of yours has id nope\. Pass the receiptId an updateProject write returned\.$/,
  },
  { tool: 'runFeasibilityAnalysis', args: () => ({ projectId: NO_SUCH_PROJECT }), code: 'not_found', says: /^No project of yours has projectId 0{8}-/ },
  {
    tool: 'getProjectContext',
    args: () => ({ projectId: NO_SUCH_PROJECT, documentsLimit: 1, evidenceLimit: 1 }),
    code: 'not_found',
    says: /^No project of yours has projectId 0{8}-/,
  },
  {
    tool: 'produceProjectReport',
    args: () => ({ projectId, audience: 'owner', detail: 'brief', preview: true, confirm: false }),
    code: 'bad_input',
    says: /has no finished feasibility analysis yet.*Call runFeasibilityAnalysis for it/,
  },
  {
    tool: 'setProjectMapListing',
    args: () => ({ projectId, listed: true, preview: false }),
    code: 'elicitation_unavailable',
    says: /Nothing was published\. The user can confirm on the web project page/,
  },
];

before(async () => {
  // A fixed clock: the location window does not roll over while the file runs.
  svc = await startTestServer({ places: ['cambridge-ma'], clock: new ManualClock(Date.now()), analysisWorkers: { concurrency: 0 } });
  token = await getUserToken(svc.url, 'refusals@example.com');
  const client = await connectClient(svc.url, 'modern', token);
  const created = (await client.callTool({
    name: 'saveToProject',
    arguments: { action: 'create', name: 'Refusals', address: '10 Garden St, Cambridge, MA', preview: false },
  })) as { structuredContent: Record<string, any> };
  projectId = created.structuredContent.project?.projectId;
  assert.ok(projectId, JSON.stringify(created.structuredContent));
  await client.close();
  // Use up this IP's location budget (shared with the coverage-status API) so cityInventory refuses with the wait.
  for (let i = 0; i < 40; i++) {
    const res = await fetch(`${svc.url}/api/geo/coverage-status?city=Cambridge&region=MA`);
    await res.arrayBuffer();
    if (res.status === 429) break;
  }
});
after(async () => {
  // The last test took the database away: the service closes without it, and the test database is dropped all the same.
  await svc?.close().catch(() => svc.testDb.close().catch(() => undefined));
});

test('the refusal table covers every tool in the registry', () => {
  assert.deepEqual([...new Set(REFUSALS.map((r) => r.tool))].sort(), MCP_TOOLS.map((t) => t.name).sort());
});

type Result = { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text: string }[] };

function checkRefusal(r: Result, refusal: Refusal, who: string): void {
  const label = `${who} ${refusal.tool} ${JSON.stringify(refusal.args())}`;
  assert.equal(r.isError, true, `${label}: ${r.content.map((c) => c.text).join(' | ')}`);
  assert.match(r.content[0]!.text, refusal.says, label);
  assert.equal(r.structuredContent?.error?.code, refusal.code, label);
  assert.deepEqual(JSON.parse(r.content.at(-1)!.text), r.structuredContent, `${label}: the JSON block is the structured refusal`);
}

async function connectV1(): Promise<ClientV1> {
  const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(`${svc.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

test('SDK v1 (2025 leg): every refusal arrives as a result with its sentence; its structured refusal matches the advertised outputSchema', async () => {
  const client = await connectV1();
  try {
    await client.listTools(); // the v1 client compiles each outputSchema here and checks every later result against it
    for (const refusal of REFUSALS) {
      // Before issue 47 this threw McpError -32602 "Structured content does not match the tool's output schema" for five tools.
      const r = (await client.callTool({ name: refusal.tool, arguments: refusal.args() })) as Result;
      checkRefusal(r, refusal, 'sdk v1');
    }
  } finally {
    await client.close();
  }
});

for (const leg of ['modern', 'legacy'] as Leg[]) {
  test(`SDK v2 (${leg}): every refusal arrives with its sentence, and its structured refusal matches the outputSchema listed on this leg`, async () => {
    const client = await connectClient(svc.url, leg, token);
    try {
      const { tools } = await client.listTools();
      // The v2 client does not check isError results: check them with the validator the v1 client uses.
      const validator = new AjvJsonSchemaValidator();
      const validate = new Map(tools.map((t) => [t.name, validator.getValidator(t.outputSchema as never)]));
      for (const refusal of REFUSALS) {
        const r = (await client.callTool({ name: refusal.tool, arguments: refusal.args() })) as Result;
        checkRefusal(r, refusal, `sdk v2 ${leg}`);
        const v = validate.get(refusal.tool)!(r.structuredContent);
        assert.ok(v.valid, `${refusal.tool}: ${v.errorMessage}`);
      }
    } finally {
      await client.close();
    }
  });
}

test("LangChain's MCP adapter (over the SDK v1 client): each refusal reaches the model as a ToolException carrying the sentence", async () => {
  const client = await connectV1();
  try {
    const tools = new Map((await loadMcpTools('siteline', client as never)).map((t) => [t.name, t]));
    for (const refusal of REFUSALS) {
      const tool = tools.get(refusal.tool);
      assert.ok(tool, refusal.tool);
      let run: Promise<unknown>;
      if (refusal.schemaInvalid) {
        // LangChain checks the arguments against the inputSchema before calling and refuses them itself;
        // the adapter's own call path, which a model's call takes once its arguments pass, is the tool's function.
        await assert.rejects(tool.invoke(refusal.args() as never), /did not match expected schema/, refusal.tool);
        run = Promise.resolve().then(() => tool.func(refusal.args() as never, undefined, undefined));
      } else {
        run = tool.invoke(refusal.args() as never);
      }
      await assert.rejects(run, (err: Error) => {
        assert.equal(err.name, 'ToolException', `${refusal.tool}: ${err.message}`);
        assert.doesNotMatch(err.message, /-32602|does not match the tool's output schema/, refusal.tool);
        const sentence = err.message.replace(/^MCP tool '\w+' on server 'siteline' returned an error: /, '').split('\n')[0]!;
        assert.match(sentence, refusal.says, refusal.tool);
        return true;
      });
    }
  } finally {
    await client.close();
  }
});

test("LangChain's adapter keeps every argument's type, updateProject's externalRef included, and an empty string clears it", async () => {
  const client = await connectV1();
  try {
    const tools = await loadMcpTools('siteline', client as never);
    for (const t of tools) {
      const props = (t.schema as { properties: Record<string, { type?: unknown; enum?: unknown }> }).properties;
      for (const [name, p] of Object.entries(props))
        assert.ok(p.type !== undefined || p.enum !== undefined, `${t.name}.${name} lost its type in the adapter: ${JSON.stringify(p)}`);
    }
    const update = tools.find((t) => t.name === 'updateProject')!;
    assert.equal((update.schema as { properties: Record<string, { type?: string }> }).properties['externalRef']!.type, 'string');
    const set = (await update.invoke({ projectId, externalRef: 'crm:47', preview: false })) as unknown;
    assert.match(JSON.stringify(set), /Written \(receipt/);
    const cleared = (await update.invoke({ projectId, externalRef: '', preview: false })) as unknown;
    assert.match(JSON.stringify(cleared), /Written \(receipt/);
    assert.match(JSON.stringify(cleared), /\\"field\\":\\"externalRef\\",\\"before\\":\\"crm:47\\",\\"after\\":null/);
  } finally {
    await client.close();
  }
});

test('item 2: the first text block carries the lot-area warning the answer carries, word for word, through SDK v1 and v2 (a text-only client shows that block first)', async () => {
  const v1 = await connectV1();
  const v2 = await connectClient(svc.url, 'legacy', token);
  try {
    for (const address of ['6 Brattle Cir, Cambridge, MA', '235 Albany St, Cambridge, MA 02139']) {
      for (const client of [v1, v2]) {
        const r = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address, source: 'full' } })) as Result;
        const warning = (r.structuredContent!.address.warnings as string[]).find((w) => w.startsWith('The lot polygon measures'));
        assert.ok(warning, `${address}: the answer carries a lot-area warning`);
        assert.ok(r.content[0]!.text.includes(warning), `${address}: the summary says it: ${r.content[0]!.text}`);
      }
    }
  } finally {
    await v1.close();
    await v2.close();
  }
});

test('item 4, last: with the database gone (the bearer check fails), /api/mcp answers JSON-RPC -32603 with the request id on both legs, and both SDKs read it', async () => {
  // A token not used yet: a verified token and its account's revocations are remembered for a while,
  // so only a first use needs the database.
  const fresh = await getUserToken(svc.url, 'refusals-second@example.com');
  // v2 clients connected while the database is there (the modern client's discovery needs an answer),
  // then calling with the fresh token.
  const v2s: [Leg, Client][] = [];
  for (const leg of ['modern', 'legacy'] as Leg[]) {
    const headers = { authorization: `Bearer ${token}` };
    const v2 = new Client({ name: 'sdk-v2', version: '1' }, { versionNegotiation: { mode: leg === 'modern' ? { pin: '2026-07-28' } : 'legacy' } });
    await v2.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/api/mcp`), { requestInit: { headers } }));
    headers.authorization = `Bearer ${fresh}`;
    v2s.push([leg, v2]);
  }
  await svc.testDb.db.close(); // the database goes away under the running service
  const from = logLines.length;
  const bearer = { authorization: `Bearer ${fresh}` };
  for (const req of [
    modernRequest('tools/list', {}, 'list-47'),
    legacyRequest('tools/list', undefined, 47),
    legacyRequest('tools/call', { name: 'getServiceMcpGuide', arguments: {} }, 'call-47'),
  ]) {
    const r = await postRpc(svc.url, req, bearer);
    // Before issue 47: HTTP 500 with the router's plain {error: {code: "internal"}}, no jsonrpc, no id.
    assert.equal(r.status, 200, r.raw);
    assert.equal(r.message?.jsonrpc, '2.0', r.raw);
    assert.equal(r.message?.id, req.body.id, r.raw);
    assert.equal(r.message?.error?.code, -32603, r.raw);
    assert.equal(r.message?.error?.message, 'Internal error', 'no detail leaks');
    const requestId = r.headers.get('x-request-id');
    assert.ok(requestId && r.message?.error?.data?.requestId === requestId, 'the error names the request id');
    assert.match(await logLine((l) => l.includes(requestId) && l.includes('mcp request failed'), from), /"level":50/);
  }
  // The SDK clients read it as the answer to their own request (an HTTP error would be a transport failure to them).
  const v1 = new ClientV1({ name: 'sdk-v1', version: '1.0.0' });
  await assert.rejects(
    v1.connect(new TransportV1(new URL(`${svc.url}/api/mcp`), { requestInit: { headers: bearer } })),
    (err: { code?: number }) => err.code === -32603,
  );
  for (const [leg, v2] of v2s) {
    try {
      await assert.rejects(v2.callTool({ name: 'getServiceMcpGuide', arguments: {} }), (err: { code?: number }) => err.code === -32603, leg);
    } finally {
      await v2.close();
    }
  }
});
