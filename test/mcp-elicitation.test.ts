// A tool that needs a form: on 2026-07-28 it travels as input_required and the SDK client's retry
// carries the answer back; on the stateless 2025 leg the answer is an isError result that says to
// reconnect on 2026-07-28 (our documented choice). Driven by a test tool over the real dispatcher.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { z } from 'zod';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient, legacyRequest, postRpc } from './mcp-support.ts';
import { HttpApp } from '../src/http/http-app.ts';
import { createHttpServer } from '../src/http/server.ts';
import { createMcpEndpoint } from '../src/mcp/endpoint.ts';
import { defineTool, type McpToolDefinition } from '../src/mcp/tool-definition.ts';

const seen: string[] = [];
const askName = defineTool({
  name: 'askName',
  title: 'Ask a name',
  description: 'Asks the human for a name through a form, then greets them (test tool).',
  input: z.object({}),
  purpose: 'Asks a name (test tool).',
  output: z.object({ name: z.string().optional(), declined: z.boolean().optional() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'public',
  async handler(_input, call) {
    const answer = call.inputResponses?.['name'] as { action?: string; content?: { name?: string } } | undefined;
    if (!answer) {
      return {
        text: 'A form is needed.',
        formRequest: {
          key: 'name',
          message: 'What is your name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
        },
      };
    }
    if (answer.action !== 'accept') return { text: 'Declined: nothing was saved.', structured: { declined: true } };
    seen.push(answer.content?.name ?? '');
    return { text: `Hello ${answer.content?.name}`, structured: { name: answer.content?.name } };
  },
});

let svc: TestServer;
let server: http.Server;
let url: string;
before(async () => {
  svc = await startTestServer();
  const app = new HttpApp(svc.ctx.logger);
  const endpoint = createMcpEndpoint(svc.ctx, { tools: [askName] as unknown as McpToolDefinition[] });
  app.nodeRoute('*', '/api/mcp', (req, res) => endpoint.handle(req, res));
  server = createHttpServer(svc.ctx, app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await svc?.close();
});

test('2026-07-28: the form travels as input_required; the SDK client answers it and the retry completes', async () => {
  const client = new Client(
    { name: 'elicit-test', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (req) => {
    asked.push(String((req.params as { message?: string }).message));
    return { action: 'accept', content: { name: 'Ada' } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`)));
  try {
    const r = await client.callTool({ name: 'askName', arguments: {} });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.deepEqual(r.structuredContent, { name: 'Ada' });
    assert.deepEqual(asked, ['What is your name?']);
    assert.deepEqual(seen, ['Ada']);
  } finally {
    await client.close();
  }
});

test('2025 leg: a tool that needs a form answers isError telling the model to reconnect on 2026-07-28; nothing runs past the form', async () => {
  seen.length = 0;
  const client = await connectClient(url, 'legacy');
  try {
    const r = await client.callTool({ name: 'askName', arguments: {} });
    assert.equal(r.isError, true);
    const text = (r.content as { text: string }[])[0]!.text;
    assert.match(text, /2026-07-28/);
    assert.match(text, /Nothing was saved/);
    assert.deepEqual((r.structuredContent as { error: { code: string } }).error.code, 'elicitation_unavailable');
  } finally {
    await client.close();
  }
  const raw = await postRpc(url, legacyRequest('tools/call', { name: 'askName', arguments: {} }), { 'mcp-protocol-version': '2025-06-18' });
  assert.equal(raw.status, 200);
  assert.equal(raw.message!.result.isError, true);
  assert.deepEqual(seen, []);
});
