// submitServiceFeedback over the real server and the official SDK client: the form on 2026-07-28
// (accept, decline, cancel, a bad answer asked again), scrubbing before storage, idempotent retry by
// submissionId (answered without a second form), an unknown tool name refused before any form, a
// real failed write (a constraint the test adds), and the honest 2025-leg answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/harness.ts';
import { getUserToken } from './support/auth-flow.ts';
import { connectClient, modernRequest, postRpc } from './mcp-support.ts';

type FormAnswer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
interface Asked {
  message: string;
  schema: { properties: Record<string, { default?: unknown; enum?: string[] }>; required?: string[] };
}

let svc: TestServer;
let token: string;
before(async () => {
  svc = await startTestServer();
  token = await getUserToken(svc.url, 'feedback-user@example.com');
});
after(async () => {
  await svc?.close();
});

/** A 2026-07-28 client whose form handler answers from a script, recording every form it was shown. */
function formClient(answers: FormAnswer[]): Promise<{ client: Client; asked: Asked[] }> {
  return formClientFor(token, answers);
}

async function formClientFor(bearer: string, answers: FormAnswer[]): Promise<{ client: Client; asked: Asked[] }> {
  const asked: Asked[] = [];
  const client = new Client(
    { name: 'feedback-test', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (req) => {
    const p = req.params as unknown as { message: string; requestedSchema: Asked['schema'] };
    asked.push({ message: p.message, schema: p.requestedSchema });
    const next = answers.shift();
    assert.ok(next, 'the server asked for more forms than the test scripted');
    return next as { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string | number | boolean> };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${bearer}` } } }));
  return { client, asked };
}

async function rows(): Promise<{ submission_id: string; message: string; category: string; contact_email: string | null; affected_tool: string | null }[]> {
  return svc.ctx.db.query('SELECT submission_id, message, category, contact_email, affected_tool FROM service_feedback ORDER BY created_at');
}

const structured = (r: { structuredContent?: unknown }) => r.structuredContent as Record<string, any>;
const textOf = (r: { content?: unknown }) => (r.content as { text: string }[])[0]!.text;

test('tools/list: submitServiceFeedback is a gated write tool (not read-only, not destructive)', async () => {
  const { client } = await formClient([]);
  try {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'submitServiceFeedback');
    assert.ok(tool);
    assert.equal(tool.annotations?.readOnlyHint, false);
    assert.equal(tool.annotations?.destructiveHint, false);
    assert.equal((tool._meta as Record<string, unknown>)['siteline/access'], 'gated');
  } finally {
    await client.close();
  }
});

test('accept: the form (tool name prefilled) is shown, the answer is scrubbed and stored once', async () => {
  const before = (await rows()).length;
  const { client, asked } = await formClient([
    {
      action: 'accept',
      content: {
        category: 'wrong_data',
        message: 'The height for 12 Main Street, Cambridge, MA 02139 looks wrong. Reach me at ada@example.org or (617) 555-0123.',
        affectedToolName: 'getFeasibilitySnapshot',
        contactConsent: true,
      },
    },
  ]);
  try {
    const r = await client.callTool({ name: 'submitServiceFeedback', arguments: { affectedToolName: 'getFeasibilitySnapshot' } });
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.schema.properties['affectedToolName']!.default, 'getFeasibilitySnapshot');
    assert.deepEqual(asked[0]!.schema.properties['category']!.enum, ['problem', 'wrong_data', 'city_request', 'suggestion', 'praise', 'other']);
    assert.deepEqual(asked[0]!.schema.required, ['category', 'message']);
    const s = structured(r);
    assert.equal(s.success, true);
    assert.match(s.submissionId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(s.duplicate, false);
    assert.deepEqual(s.removed, { email: 1, phone: 1, street_address: 1 });
    const stored = (await rows()).find((x) => x.submission_id === s.submissionId);
    assert.ok(stored);
    assert.equal(stored.message, 'The height for [removed: street address] looks wrong. Reach me at [removed: e-mail] or [removed: phone].');
    assert.equal(stored.category, 'wrong_data');
    assert.equal(stored.affected_tool, 'getFeasibilitySnapshot');
    // Consent to contact keeps the account's own e-mail beside the report, not the one typed in the text.
    assert.equal(stored.contact_email, 'feedback-user@example.com');
    assert.equal((await rows()).length, before + 1);
  } finally {
    await client.close();
  }
});

test('accept with shareStreetAddresses: the address the user chose to share is kept', async () => {
  const { client } = await formClient([
    { action: 'accept', content: { category: 'problem', message: 'No envelope for 57 Inman Street.', shareStreetAddresses: true } },
  ]);
  try {
    const r = await client.callTool({ name: 'submitServiceFeedback', arguments: {} });
    const stored = (await rows()).find((x) => x.submission_id === structured(r).submissionId);
    assert.equal(stored?.message, 'No envelope for 57 Inman Street.');
    assert.equal(stored?.contact_email, null);
  } finally {
    await client.close();
  }
});

for (const action of ['decline', 'cancel'] as const) {
  test(`${action}: nothing is stored and the result says so`, async () => {
    const before = (await rows()).length;
    const { client, asked } = await formClient([{ action }]);
    try {
      const r = await client.callTool({ name: 'submitServiceFeedback', arguments: { submissionId: '6f1c1d0e-8a43-4d7e-9d0e-2f6c5d1b9a70' } });
      assert.equal(asked.length, 1);
      assert.notEqual(r.isError, true);
      assert.equal(structured(r).submitted, false);
      assert.equal(structured(r).action, action === 'decline' ? 'declined' : 'cancelled');
      assert.match(textOf(r), /Nothing was sent or stored/);
      assert.equal((await rows()).length, before);
    } finally {
      await client.close();
    }
  });
}

test('a bad answer is asked again with what the user typed kept; the corrected answer is stored', async () => {
  const { client, asked } = await formClient([
    { action: 'accept', content: { category: 'nonsense', message: 'Please add Springfield, IL.' } },
    { action: 'accept', content: { category: 'city_request', message: 'Please add Springfield, IL.' } },
  ]);
  try {
    const r = await client.callTool({ name: 'submitServiceFeedback', arguments: {} });
    assert.equal(asked.length, 2);
    assert.match(asked[1]!.message, /Choose a category/);
    assert.equal(asked[1]!.schema.properties['message']!.default, 'Please add Springfield, IL.');
    assert.equal(structured(r).success, true);
    assert.equal(structured(r).category, 'city_request');
  } finally {
    await client.close();
  }
});

test("the same submissionId twice: the retry answers duplicate without showing the form again (on either leg), one row; another account's id is refused before any form", async () => {
  const id = 'a3e0f7a4-2b6c-4f0e-9b7d-51c2e0d3f4a1';
  const content = { category: 'suggestion', message: 'Show the lot frontage in feet and metres.' };
  // One form scripted: a second one would fail the call (issue 47: the human was asked again before "duplicate").
  const { client, asked } = await formClient([{ action: 'accept', content }]);
  try {
    const first = await client.callTool({ name: 'submitServiceFeedback', arguments: { submissionId: id } });
    const second = await client.callTool({ name: 'submitServiceFeedback', arguments: { submissionId: id.toUpperCase() } });
    assert.equal(structured(first).duplicate, false);
    assert.equal(asked.length, 1, 'the retry shows no form');
    assert.equal(structured(second).success, true);
    assert.equal(structured(second).duplicate, true);
    assert.equal(structured(second).storedMessage, content.message);
    assert.match(textOf(second), /already received/);
    assert.equal((await rows()).filter((x) => x.submission_id === id).length, 1);
  } finally {
    await client.close();
  }
  // The 2025 leg cannot carry a form, but a retry needs none.
  const legacy = await connectClient(svc.url, 'legacy', token);
  try {
    const r = await legacy.callTool({ name: 'submitServiceFeedback', arguments: { submissionId: id } });
    assert.notEqual(r.isError, true, textOf(r));
    assert.equal(structured(r).duplicate, true);
  } finally {
    await legacy.close();
  }
  const other = await formClientFor(await getUserToken(svc.url, 'feedback-other@example.com'), []);
  try {
    const r = await other.client.callTool({ name: 'submitServiceFeedback', arguments: { submissionId: id } });
    assert.equal(r.isError, true);
    assert.equal(structured(r).error.code, 'submission_id_taken');
    assert.equal(other.asked.length, 0, 'refused before the form');
  } finally {
    await other.client.close();
  }
});

test('an unknown affectedToolName is refused with the list of tools, before any form, and nothing is stored', async () => {
  const before = (await rows()).length;
  const { client, asked } = await formClient([]);
  try {
    const r = await client.callTool({ name: 'submitServiceFeedback', arguments: { affectedToolName: 'nope' } });
    assert.equal(r.isError, true);
    assert.equal(asked.length, 0, 'no form was shown');
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.equal(
      textOf(r),
      `affectedToolName "nope" is not a tool of this service; nothing was sent or stored. Call submitServiceFeedback again with one of: ${names.join(', ')}, or without affectedToolName.`,
    );
    assert.equal(structured(r).error.code, 'invalid_arguments');
    assert.deepEqual(structured(r).error.acceptedToolNames, names);
  } finally {
    await client.close();
  }
  assert.equal((await rows()).length, before);
});

test('a failed write answers success: false with the submissionId to retry; the retry stores it once', async () => {
  const content = { category: 'praise', message: 'The citations are very useful.' };
  const { client } = await formClient([
    { action: 'accept', content },
    { action: 'accept', content },
  ]);
  // A real database error: every new row now violates a constraint (NOT VALID skips existing rows).
  await svc.ctx.db.query('ALTER TABLE service_feedback ADD CONSTRAINT feedback_test_refuses_writes CHECK (false) NOT VALID');
  let id: string;
  try {
    const failed = await client.callTool({ name: 'submitServiceFeedback', arguments: {} });
    assert.equal(failed.isError, true);
    const s = structured(failed);
    assert.equal(s.success, false);
    assert.equal(s.error.code, 'write_failed');
    id = s.submissionId;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.match(textOf(failed), new RegExp(`Retry with the same submissionId ${id}`));
    assert.equal((await rows()).filter((x) => x.submission_id === id).length, 0);
  } finally {
    await svc.ctx.db.query('ALTER TABLE service_feedback DROP CONSTRAINT feedback_test_refuses_writes');
  }
  try {
    const retry = await client.callTool({ name: 'submitServiceFeedback', arguments: { submissionId: id } });
    assert.equal(structured(retry).success, true);
    assert.equal(structured(retry).submissionId, id);
    assert.equal((await rows()).filter((x) => x.submission_id === id).length, 1);
  } finally {
    await client.close();
  }
});

test('2025 leg: no form can travel, so the answer says how to send feedback and nothing is stored', async () => {
  const before = (await rows()).length;
  const client = await connectClient(svc.url, 'legacy', token);
  try {
    const r = await client.callTool({ name: 'submitServiceFeedback', arguments: { affectedToolName: 'cityInventory' } });
    assert.equal(r.isError, true);
    const s = structured(r);
    assert.equal(s.success, false);
    assert.equal(s.error.code, 'elicitation_unavailable');
    assert.equal(s.feedbackUrl, `${svc.ctx.config.baseUrl}/feedback`);
    assert.match(textOf(r), /2026-07-28/);
    assert.match(textOf(r), /nothing was sent or stored/);
  } finally {
    await client.close();
  }
  assert.equal((await rows()).length, before);
});

test('2026-07-28 without the elicitation capability: a normal isError result with the reason and the web page to finish on (the form is never sent)', async () => {
  const req = modernRequest('tools/call', { name: 'submitServiceFeedback', arguments: {} });
  const r = await postRpc(svc.url, req, { authorization: `Bearer ${token}` });
  assert.equal(r.status, 200, r.raw);
  assert.equal(r.message?.error, undefined, 'not a protocol error');
  const result = r.message!.result;
  assert.equal(result.resultType, 'complete');
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /did not declare the elicitation capability/);
  const page = `${svc.ctx.config.baseUrl}/feedback`;
  assert.ok(result.content[0].text.includes(page), result.content[0].text);
  assert.equal(result.structuredContent.error.code, 'elicitation_unavailable');
  assert.equal(result.structuredContent.error.finishAt, page);
  assert.equal(result.structuredContent.submitted, false);
});

test('without a token the tool is refused with 401 (gated)', async () => {
  const r = await postRpc(svc.url, modernRequest('tools/call', { name: 'submitServiceFeedback', arguments: {} }));
  assert.equal(r.status, 401);
});
