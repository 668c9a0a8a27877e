// The scrubber's corpus through the real entry points: every positive sent through the web form and
// through the MCP tool (official SDK client, real token, real form elicitation) is gone from what
// /staff/feedback shows and from the stored row; every ordinary report is shown exactly as typed.
// Also: a form whose submissionId belongs to another account's report is refused with 409, nothing
// stored, the text kept under a fresh id.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from '../support/harness.ts';
import { csrfFrom, getPage, getUserToken, postForm, signUpOrIn, type CookieJar } from '../support/auth-flow.ts';
import { NEGATIVES, POSITIVES } from '../../src/feedback/scrub-corpus.ts';
import { esc } from '../../src/web/html.ts';

let svc: TestServer;
let author: CookieJar;
let staff: CookieJar;
before(async () => {
  svc = await startTestServer({ config: { staffEmails: ['staff@example.com'] } });
  author = await signUpOrIn(svc.url, 'corpus-author@example.com');
  staff = await signUpOrIn(svc.url, 'staff@example.com');
});
after(async () => {
  await svc?.close();
});

const field = (body: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1];
const count = async () => (await svc.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM service_feedback'))[0]!.n;

async function sendOnWeb(jar: CookieJar, message: string, submissionId?: string) {
  const form = await getPage(`${svc.url}/feedback`, jar);
  const id = submissionId ?? field(form.body, 'submissionId')!;
  const sent = await postForm(`${svc.url}/feedback`, jar, { csrf: csrfFrom(form.body), submissionId: id, category: 'problem', message, affectedToolName: '' });
  return { ...sent, submissionId: id };
}

async function storedMessage(submissionId: string): Promise<string | undefined> {
  return (await svc.ctx.db.query<{ message: string }>('SELECT message FROM service_feedback WHERE submission_id = $1', [submissionId]))[0]?.message;
}

test('web form: every secret and personal number in the corpus is gone from the stored row and from /staff/feedback', async () => {
  const ids: string[] = [];
  for (const p of POSITIVES) {
    const sent = await sendOnWeb(author, p.input);
    assert.equal(sent.status, 200, `${p.name}: ${sent.status}`);
    const stored = await storedMessage(sent.submissionId);
    assert.ok(stored !== undefined, `${p.name}: stored`);
    assert.ok(!stored.includes(p.secret), `${p.name}: ${p.secret} stored in ${stored}`);
    assert.ok(stored.includes(p.placeholder), `${p.name}: ${p.placeholder} missing from ${stored}`);
    ids.push(sent.submissionId);
  }
  const list = await getPage(`${svc.url}/staff/feedback`, staff);
  assert.equal(list.status, 200);
  for (const id of ids) assert.match(list.body, new RegExp(id), 'each report is listed');
  for (const p of POSITIVES) assert.ok(!list.body.includes(esc(p.secret)), `${p.name}: ${p.secret} shown to staff`);
});

test('web form: every ordinary report in the corpus is stored and shown to staff exactly as typed', async () => {
  for (const n of NEGATIVES) {
    const sent = await sendOnWeb(author, n);
    assert.equal(sent.status, 200);
    assert.equal(await storedMessage(sent.submissionId), n);
  }
  const list = await getPage(`${svc.url}/staff/feedback`, staff);
  for (const n of NEGATIVES) assert.ok(list.body.includes(esc(n)), `${n} not shown as typed`);
});

test('MCP tool: every secret and personal number in the corpus is gone from what is stored and shown', async () => {
  const token = await getUserToken(svc.url, 'corpus-agent@example.com');
  const queue = POSITIVES.map((p) => p.input);
  const client = new Client(
    { name: 'corpus-test', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { category: 'problem', message: queue[0]! } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  try {
    for (const p of POSITIVES) {
      const r = await client.callTool({ name: 'submitServiceFeedback', arguments: {} });
      queue.shift();
      assert.notEqual(r.isError, true, `${p.name}: ${JSON.stringify(r)}`);
      const out = r.structuredContent as { submissionId: string; storedMessage: string };
      assert.ok(!out.storedMessage.includes(p.secret), `${p.name}: answered ${out.storedMessage}`);
      const stored = await storedMessage(out.submissionId);
      assert.equal(stored, out.storedMessage);
      assert.ok(stored!.includes(p.placeholder), `${p.name}: ${stored}`);
    }
  } finally {
    await client.close();
  }
  const list = await getPage(`${svc.url}/staff/feedback`, staff);
  for (const p of POSITIVES) assert.ok(!list.body.includes(esc(p.secret)), `${p.name}: shown to staff`);
});

test('web form: a submissionId that belongs to another account is refused with 409, nothing stored, the text kept under a new id', async () => {
  const first = await sendOnWeb(author, 'The first report, mine.');
  assert.equal(first.status, 200);
  const other = await signUpOrIn(svc.url, 'corpus-other@example.com');
  const before = await count();
  const refused = await sendOnWeb(other, 'Someone else reusing the id', first.submissionId);
  assert.equal(refused.status, 409);
  assert.match(refused.body, /id="feedback-id-taken"/);
  assert.match(refused.body, />Someone else reusing the id<\/textarea>/);
  const fresh = field(refused.body, 'submissionId')!;
  assert.match(fresh, /^[0-9a-f-]{36}$/);
  assert.notEqual(fresh, first.submissionId);
  assert.equal(await count(), before, 'nothing stored');
  assert.equal(await storedMessage(first.submissionId), 'The first report, mine.', 'the other report untouched');
  // Sending the kept form again (with its new id) stores it once.
  const again = await postForm(`${svc.url}/feedback`, other, { csrf: csrfFrom(refused.body), submissionId: fresh, category: 'problem', message: 'Someone else reusing the id' });
  assert.equal(again.status, 200);
  assert.equal(await storedMessage(fresh), 'Someone else reusing the id');
});
