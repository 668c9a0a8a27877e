// The /feedback form and the staff-only /staff/feedback page over real HTTP with a real web session.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import { CookieJar, csrfFrom, getPage, postForm, signUpOrIn } from './support/auth-flow.ts';
import { RECORD_DEMAND_POINTER } from '../src/snapshot/city-inventory.ts';

let svc: TestServer;
before(async () => {
  svc = await startTestServer({ config: { staffEmails: ['staff@example.com'] } });
});
after(async () => {
  await svc?.close();
});

const count = async () => (await svc.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM service_feedback'))[0]!.n;
const field = (body: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1];

test('/feedback needs a signed-in user: sign-in first, then back to the form with the city prefilled', async () => {
  // cityInventory's pointer for unmapped cities names this page and the MCP tool.
  assert.match(RECORD_DEMAND_POINTER, /submitServiceFeedback/);
  assert.match(RECORD_DEMAND_POINTER, /\/feedback\?city=/);
  const jar = new CookieJar();
  const anon = await getPage(`${svc.url}/feedback?city=Springfield`, jar);
  assert.equal(anon.status, 303);
  assert.equal(anon.location, '/signin?next=%2Ffeedback%3Fcity%3DSpringfield');
  await signUpOrIn(svc.url, 'web-feedback@example.com', jar);
  const form = await getPage(`${svc.url}/feedback?city=Springfield`, jar);
  assert.equal(form.status, 200);
  assert.match(form.body, /<option value="city_request" selected>/);
  assert.match(form.body, />Please cover Springfield\.<\/textarea>/);
  assert.match(field(form.body, 'submissionId') ?? '', /^[0-9a-f-]{36}$/);
});

test('/feedback: a report is scrubbed, stored once per submissionId, and shown back as stored', async () => {
  const jar = await signUpOrIn(svc.url, 'web-feedback@example.com');
  const form = await getPage(`${svc.url}/feedback`, jar);
  const fields = {
    csrf: csrfFrom(form.body),
    submissionId: field(form.body, 'submissionId')!,
    category: 'problem',
    message: 'The map is blank. My number is 617-555-0123 and password=opensesame.',
    affectedToolName: '',
  };
  const before = await count();
  const sent = await postForm(`${svc.url}/feedback`, jar, fields);
  assert.equal(sent.status, 200);
  assert.match(sent.body, /id="feedback-received"/);
  // A secret's value runs to the next space or separator, so a full stop right after it goes too.
  assert.match(sent.body, /The map is blank\. My number is \[removed: phone\] and password=\[removed: secret\]/);
  // The browser sends the same form twice (a double click, a reload): still one report.
  const again = await postForm(`${svc.url}/feedback`, jar, fields);
  assert.equal(again.status, 200);
  assert.equal(await count(), before + 1);
  const rows = await svc.ctx.db.query<{ message: string; channel: string }>('SELECT message, channel FROM service_feedback WHERE submission_id = $1', [
    fields.submissionId,
  ]);
  assert.deepEqual(rows, [{ message: 'The map is blank. My number is [removed: phone] and password=[removed: secret]', channel: 'web' }]);
});

test('/feedback: a bad answer is refused with the problems named and what was typed kept; a bad CSRF token is refused', async () => {
  const jar = await signUpOrIn(svc.url, 'web-feedback@example.com');
  const form = await getPage(`${svc.url}/feedback`, jar);
  const before = await count();
  const bad = await postForm(`${svc.url}/feedback`, jar, {
    csrf: csrfFrom(form.body),
    submissionId: field(form.body, 'submissionId')!,
    category: '',
    message: 'Keep <this> text',
  });
  assert.equal(bad.status, 400);
  assert.match(bad.body, /Choose a category/);
  assert.match(bad.body, />Keep &lt;this&gt; text<\/textarea>/);
  const forged = await postForm(`${svc.url}/feedback`, jar, { csrf: 'x'.repeat(32), category: 'other', message: 'forged report' });
  assert.equal(forged.status, 403);
  assert.equal(await count(), before);
});

test('/staff/feedback: staff see the reports; other accounts get 403; anonymous visitors are sent to sign in', async () => {
  const anon = await getPage(`${svc.url}/staff/feedback`, new CookieJar());
  assert.equal(anon.status, 303);
  const user = await signUpOrIn(svc.url, 'not-staff@example.com');
  const refused = await getPage(`${svc.url}/staff/feedback`, user);
  assert.equal(refused.status, 403);
  assert.doesNotMatch(refused.body, /removed: phone/);

  const author = await signUpOrIn(svc.url, 'web-feedback@example.com');
  const form = await getPage(`${svc.url}/feedback`, author);
  await postForm(`${svc.url}/feedback`, author, {
    csrf: csrfFrom(form.body),
    submissionId: field(form.body, 'submissionId')!,
    category: 'praise',
    message: 'Lovely <b>citations</b>.',
    contactConsent: '1',
  });
  const staff = await signUpOrIn(svc.url, 'Staff@example.com');
  const list = await getPage(`${svc.url}/staff/feedback`, staff);
  assert.equal(list.status, 200);
  assert.match(list.body, /id="feedback-table"/);
  assert.match(list.body, /Lovely &lt;b&gt;citations&lt;\/b&gt;\./);
  assert.match(list.body, /web-feedback@example\.com/);
  const filtered = await getPage(`${svc.url}/staff/feedback?category=city_request`, staff);
  assert.doesNotMatch(filtered.body, /Lovely/);
});
