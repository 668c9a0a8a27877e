// The scrubber's corpus through the real entry points: every positive sent through the web form and
// through the MCP tool (official SDK client, real token, real form elicitation) is gone from what
// /staff/feedback shows and from the stored row; every ordinary report is shown exactly as typed.
// siteline's own secrets, issued by this running server (a reset link, an e-mail verification link,
// an e-mail-change link, a signed report link, an API key, claim and pre-claim tokens, an assertion, a
// web session, a user JWT), are gone too: the scrubber knows them by shape, and this keeps the shapes
// in step with their issuers. Also: a form whose submissionId belongs to another account's report is
// refused with 409, nothing stored, the text kept under a fresh id.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from '../support/harness.ts';
import crypto from 'node:crypto';
import {
  CookieJar,
  TEST_PASSWORD,
  csrfFrom,
  getPage,
  getUserToken,
  postForm,
  postJson,
  signUpOrIn,
  tokenRequest,
  JWT_BEARER_GRANT,
  verificationLinkFromOutbox,
} from '../support/auth-flow.ts';
import { createKey } from '../rest-support.ts';
import { signExportUrl } from '../../src/reports/signed-url.ts';
import { NEGATIVES, POSITIVES } from '../fixtures/scrub-corpus.ts';
import { esc } from '../../src/http/html.ts';

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

/** Sends each message through the MCP tool (official SDK client, a real token, the form elicitation); returns what it stored. */
async function sendOnMcp(email: string, messages: string[]): Promise<{ submissionId: string; storedMessage: string }[]> {
  const token = await getUserToken(svc.url, email);
  const queue = [...messages];
  const client = new Client(
    { name: 'corpus-test', version: '1' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { category: 'problem', message: queue[0]! } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  const out: { submissionId: string; storedMessage: string }[] = [];
  try {
    for (const m of messages) {
      const r = await client.callTool({ name: 'submitServiceFeedback', arguments: {} });
      queue.shift();
      assert.notEqual(r.isError, true, `${m}: ${JSON.stringify(r)}`);
      const sent = r.structuredContent as { submissionId: string; storedMessage: string };
      assert.equal(await storedMessage(sent.submissionId), sent.storedMessage, 'the answer shows the text as stored');
      out.push(sent);
    }
  } finally {
    await client.close();
  }
  return out;
}

test('MCP tool: every secret and personal number in the corpus is gone from what is stored and shown', async () => {
  const sent = await sendOnMcp(
    'corpus-agent@example.com',
    POSITIVES.map((p) => p.input),
  );
  POSITIVES.forEach((p, i) => {
    const stored = sent[i]!.storedMessage;
    assert.ok(!stored.includes(p.secret), `${p.name}: stored ${stored}`);
    assert.ok(stored.includes(p.placeholder), `${p.name}: ${stored}`);
  });
  const list = await getPage(`${svc.url}/staff/feedback`, staff);
  for (const p of POSITIVES) assert.ok(!list.body.includes(esc(p.secret)), `${p.name}: shown to staff`);
});

test('MCP tool: every ordinary report in the corpus is stored exactly as typed', async () => {
  const sent = await sendOnMcp('corpus-agent-2@example.com', NEGATIVES);
  NEGATIVES.forEach((n, i) => assert.equal(sent[i]!.storedMessage, n));
});

/** The newest mail to `to` in the development outbox, as text. */
async function outbox(to: string): Promise<string> {
  const res = await fetch(`${svc.url}/dev/outbox?to=${encodeURIComponent(to)}`);
  assert.equal(res.status, 200);
  return res.text();
}

test("siteline's own secrets, issued by this server, are gone through the web form and the MCP tool", async () => {
  // An unused password-reset link, mailed by the reset page.
  const resetJar = new CookieJar();
  const resetForm = await getPage(`${svc.url}/reset-password`, resetJar);
  assert.equal((await postForm(`${svc.url}/reset-password`, resetJar, { csrf: csrfFrom(resetForm.body), email: 'corpus-author@example.com' })).status, 200);
  const resetLink = /https?:\/\/[^\s<"]+\/reset-password\/slpr_[A-Za-z0-9_-]+/.exec(await outbox('corpus-author@example.com'))?.[0];
  assert.ok(resetLink, 'a reset link was mailed');
  // An unused e-mail verification link: a new account that has not opened it.
  const fresh = new CookieJar();
  const signup = await getPage(`${svc.url}/signup`, fresh);
  assert.equal(
    (await postForm(`${svc.url}/signup`, fresh, { csrf: csrfFrom(signup.body), email: 'corpus-new@example.com', password: TEST_PASSWORD, next: '/account' }))
      .status,
    303,
  );
  const verifyLink = await verificationLinkFromOutbox(svc.url, 'corpus-new@example.com');
  assert.ok(verifyLink, 'a verification link was mailed');
  // An e-mail-change link, mailed to the new address.
  const change = await getPage(`${svc.url}/account/email`, author);
  assert.equal(
    (
      await postForm(`${svc.url}/account/email`, author, {
        csrf: csrfFrom(change.body),
        new_email: 'corpus-moved@example.com',
        current_password: TEST_PASSWORD,
      })
    ).status,
    200,
  );
  const changeLink = /https?:\/\/[^\s<"]+\/confirm-email-change\/slec_[A-Za-z0-9_-]+/.exec(await outbox('corpus-moved@example.com'))?.[0];
  assert.ok(changeLink, 'an e-mail-change link was mailed');
  // A signed report download link, signed with this server's key.
  const reportLink = (await signExportUrl(svc.ctx, crypto.randomUUID())).url;
  // An API key, a user JWT, a claim token, an identity assertion and a pre-claim token, a web session.
  const userJwt = await getUserToken(svc.url, 'corpus-keys@example.com');
  const apiKey = (await createKey(svc.url, userJwt)).key;
  const reg = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'anonymous' });
  assert.equal(reg.status, 201);
  const preClaim = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion: reg.json.identity_assertion });
  assert.equal(preClaim.status, 200);
  const session = /sls_[A-Za-z0-9_-]{43}/.exec(author.header())?.[0];
  assert.ok(session, 'the web session cookie');

  const secretOf = (link: string) => link.slice(link.lastIndexOf('/') + 1);
  const issued: { name: string; message: string; secret: string }[] = [
    { name: 'password-reset link', message: `this link does nothing: ${resetLink}`, secret: secretOf(resetLink!) },
    { name: 'e-mail verification link', message: `the link ${verifyLink} says invalid`, secret: secretOf(verifyLink!) },
    { name: 'e-mail verification token, pasted alone', message: `token ${secretOf(verifyLink!)} ?`, secret: secretOf(verifyLink!).split('.')[2]! },
    { name: 'e-mail-change link', message: `opened ${changeLink} twice`, secret: secretOf(changeLink!) },
    { name: 'signed report link', message: `the PDF link ${reportLink} gives 403`, secret: new URL(reportLink).searchParams.get('sig')! },
    { name: 'API key', message: `curl -H "Authorization: Bearer ${apiKey}" fails; key ${apiKey}`, secret: apiKey.slice(8) },
    { name: 'user JWT', message: `my token ${userJwt} expired`, secret: userJwt.split('.')[1]! },
    { name: 'claim token', message: `claim_token ${reg.json.claim_token} expired`, secret: reg.json.claim_token.slice(4) },
    { name: 'identity assertion', message: `assertion ${reg.json.identity_assertion} refused`, secret: String(reg.json.identity_assertion).slice(5) },
    { name: 'pre-claim token', message: `got ${preClaim.json.access_token} from the token endpoint`, secret: String(preClaim.json.access_token).slice(5) },
    { name: 'web session', message: `cookie ${session}`, secret: session!.slice(4) },
  ];
  const check = (name: string, secret: string, stored: string | undefined) => {
    assert.ok(stored !== undefined, `${name}: stored`);
    assert.ok(!stored.includes(secret), `${name}: ${secret} stored in ${stored}`);
    assert.match(stored, /\[removed: /, `${name}: ${stored}`);
  };
  for (const x of issued) {
    const sent = await sendOnWeb(author, x.message);
    assert.equal(sent.status, 200, `${x.name}: ${sent.status}`);
    check(x.name, x.secret, await storedMessage(sent.submissionId));
  }
  const onMcp = await sendOnMcp(
    'corpus-agent-3@example.com',
    issued.map((x) => x.message),
  );
  issued.forEach((x, i) => check(`${x.name} (MCP)`, x.secret, onMcp[i]!.storedMessage));
  const list = await getPage(`${svc.url}/staff/feedback`, staff);
  for (const x of issued) assert.ok(!list.body.includes(esc(x.secret)), `${x.name}: shown to staff`);
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
  const again = await postForm(`${svc.url}/feedback`, other, {
    csrf: csrfFrom(refused.body),
    submissionId: fresh,
    category: 'problem',
    message: 'Someone else reusing the id',
  });
  assert.equal(again.status, 200);
  assert.equal(await storedMessage(fresh), 'Someone else reusing the id');
});
