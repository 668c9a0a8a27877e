// Issue 25, "done when": a client that hands only text to its model (the OpenAI Agents SDK's default)
// gets the whole answer. Every tool in the registry is called through the official SDK client on both
// legs (it validates structuredContent against the tool's outputSchema on every non-error result), and
// the JSON text block, parsed, equals structuredContent. A tool added to the registry without a call
// here fails the coverage check at the end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/harness.ts';
import { connectClient, type Leg } from './mcp-support.ts';
import { getUserToken } from './support/auth-flow.ts';
import { ManualClock } from '../src/clock.ts';
import { MCP_TOOLS } from '../src/mcp/registry.ts';
import { checkAnswer } from '../src/feedback/feedback-form.ts';

let svc: TestServer;
let token: string;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'], clock: new ManualClock(Date.now()), analysisWorkers: { concurrency: 0 } });
  token = await getUserToken(svc.url, 'text-only@example.com');
});
after(async () => {
  await svc?.close();
});

type Result = { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text: string }[] };

/** What a text-only client sees: the blocks' text. The last block is the answer as JSON; one summary line may precede it. */
function textOnly(r: Result): unknown {
  assert.ok(r.content.length >= 1 && r.content.length <= 2, `one or two text blocks, got ${r.content.length}`);
  for (const c of r.content) assert.equal(c.type, 'text');
  if (r.content.length === 2) assert.ok(!r.content[0]!.text.includes('\n'), 'the summary is one line');
  return JSON.parse(r.content.at(-1)!.text);
}

/** A client that declares form elicitation (2026-07-28) and answers each form from a script, keeping the schemas it was shown. */
async function formClient(answers: Record<string, unknown>[]) {
  const forms: { message: string; requestedSchema: any }[] = [];
  const client = new Client(
    { name: 'text-only-forms', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (req) => {
    forms.push(req.params as never);
    const next = answers.shift();
    assert.ok(next, 'more forms than scripted');
    return next as never;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return { client, forms };
}

for (const leg of ['modern', 'legacy'] as Leg[]) {
  test(`${leg}: every tool's text block, parsed as JSON, equals its structuredContent, which validates against its outputSchema`, async () => {
    const client = await connectClient(svc.url, leg, token);
    const called = new Set<string>();
    const checked: string[] = [];
    const call = async (name: string, args: Record<string, unknown>, expectError = false) => {
      // callTool throws when a non-error structuredContent does not match the tool's outputSchema.
      const r = (await client.callTool({ name, arguments: args })) as Result;
      assert.equal(r.isError === true, expectError, `${name} ${JSON.stringify(args)}: ${r.content.map((c) => c.text).join(' | ')}`);
      assert.ok(r.structuredContent, `${name} answers structured content`);
      assert.deepEqual(textOnly(r), r.structuredContent, `${name}: the text block is the whole answer`);
      called.add(name);
      checked.push(name);
      return r.structuredContent!;
    };
    try {
      const { tools } = await client.listTools();
      for (const t of tools) assert.equal(t.outputSchema?.type, 'object', `${t.name} declares an outputSchema`);

      const guide = await call('getServiceMcpGuide', {});
      assert.deepEqual(guide.surface.tools.map((t: { name: string }) => t.name).sort(), tools.map((t) => t.name).sort(), 'the guide names every listed tool');
      await call('getServiceMcpGuide', { role: 'developer', market: 'US', scale: 'portfolio' });
      await call('explainFeasibilityStatus', { status: 'not_extracted' });
      await call('explainFeasibilityStatus', { status: 'unlimited' });
      await call('cityInventory', { city: 'Cambridge', region: 'MA' });
      await call('cityInventory', { lat: 42.3736, lng: -71.1097 });
      await call('cityInventory', { city: 'Springfield' });
      await call('previewSiteCoverage', { address: '10 Garden St, Cambridge, MA' });
      const snap = await call('getFeasibilitySnapshot', { address: '10 Garden St, Cambridge, MA', source: 'full' });
      assert.equal(snap.answered, true);
      assert.ok(Object.keys(snap.envelope).length > 0, 'the envelope reaches a text-only client');
      await call('getFeasibilitySnapshot', { address: '10 Garden St, Cambridge, MA', source: 'full', includeSources: true });
      await call('getFeasibilitySnapshot', { address: '1 Main St, Springfield, IL', source: 'full' });

      const name = `Text only ${leg}`;
      const created = await call('saveToProject', { action: 'create', name, address: '10 Garden St, Cambridge, MA', preview: false });
      const projectId = created.projectId ?? created.project?.projectId;
      assert.ok(projectId, JSON.stringify(created));
      await call('saveToProject', { action: 'attach_parcels', preview: true });
      // One spelling of a point: saveToProject's lat/lng; latitude/longitude are refused by name, nothing written.
      const misspelt = await call('saveToProject', { action: 'create', name: `${name} 2`, latitude: 42.3736, longitude: -71.1097, preview: false }, true);
      assert.match(misspelt.error.message, /"latitude" is spelled "lat".*"longitude" is spelled "lng"/);
      await call('updateProject', { projectId, lifecycleStatus: 'due_diligence', preview: true });
      await call('getProjectContext', { projectId, documentsLimit: 2, evidenceLimit: 2 });
      await call('runFeasibilityAnalysis', { projectId });
      await call('getProjectContext', { projectId, documentsLimit: 2, evidenceLimit: 2 });
      await call('produceProjectReport', { audience: 'owner', detail: 'brief', preview: true, confirm: false });
      await call('produceProjectReport', { projectId, audience: 'owner', detail: 'brief', preview: true, confirm: false }, true);
      await call('setProjectMapListing', { projectId, listed: true, preview: true });
      // Listing needs the human's form: this client cannot show one, so a normal isError result says why and where to finish.
      const refused = await call('setProjectMapListing', { projectId, listed: true, preview: false }, true);
      assert.equal(refused.error.code, 'elicitation_unavailable');
      assert.match(refused.error.finishAt, new RegExp(`/projects/${projectId}$`));
      const fb = await call('submitServiceFeedback', {}, true);
      assert.match(fb.error.finishAt, /\/feedback$/);
      // Errors carry structured content too (the code), in the text as well.
      const bad = await call('explainFeasibilityStatus', {}, true);
      assert.equal(bad.error.code, 'invalid_arguments');

      assert.deepEqual([...called].sort(), MCP_TOOLS.map((t) => t.name).sort(), 'every tool in the registry went through the text-only path');
    } finally {
      await client.close();
    }
  });
}

test('modern, with forms: the feedback form declares the tool-name rule it enforces; the accepted answer comes back whole in the text', async () => {
  const { client, forms } = await formClient([
    {
      action: 'accept',
      content: {
        category: 'suggestion',
        message: 'Please add Somerville.',
        affectedToolName: 'cityInventory',
        contactConsent: false,
        shareStreetAddresses: false,
      },
    },
  ]);
  try {
    const r = (await client.callTool({ name: 'submitServiceFeedback', arguments: { affectedToolName: 'cityInventory' } })) as Result;
    assert.notEqual(r.isError, true, r.content.map((c) => c.text).join(' | '));
    assert.equal(r.structuredContent!.success, true);
    assert.deepEqual(textOnly(r), r.structuredContent);
    // MCP form strings cannot carry a pattern, so the rule is declared as an enum of the registry's tools.
    const field = forms[0]!.requestedSchema.properties.affectedToolName;
    const names = MCP_TOOLS.map((t) => t.name);
    assert.deepEqual(field.enum, names, 'the form states the rule');
    assert.equal(field.default, 'cityInventory', 'the prefill is one of the choices');
    for (const v of ['getFeasibilitySnapshot', 'cityInventory', 'city inventory', 'getWeather', 'x'.repeat(65)]) {
      assert.equal(
        checkAnswer({ category: 'other', message: 'hello there', affectedToolName: v }, names).ok,
        field.enum.includes(v),
        `"${v}": the schema and the check agree`,
      );
    }
    // The tool's own argument is held to the same rule, so a prefill can never break the form.
    const badArg = (await client.callTool({ name: 'submitServiceFeedback', arguments: { affectedToolName: 'city inventory' } })) as Result;
    assert.equal(badArg.isError, true);
    assert.match(badArg.content[0]!.text, /affectedToolName must be a tool name/);
  } finally {
    await client.close();
  }
});
