// Mail through a real SMTP server started by the test: the verification mail of a new account arrives
// (text and HTML parts, the right link) and following the link through the real HTTP server verifies
// the address; a mail server that is down at start or goes down mid-test loses nothing (the messages
// wait in the queue and arrive once it is back, each once); a permanent refusal (550) is recorded as
// failed and shown to staff on /staff/mail; two workers draining one queue never send a message twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { startTestServer, createTestDb, testCtx } from './support/harness.ts';
import { CookieJar, csrfFrom, followVerificationLink, getPage, postForm, signUpOrIn } from './support/auth-flow.ts';
import { SmtpSink, smtpEnv } from './support/smtp-sink.ts';
import { logLines } from './support/log-capture.ts';
import { loadConfig } from '../src/config.ts';
import { withMailer } from '../src/context.ts';
import { VERIFY_MAIL_SUBJECT } from '../src/auth/email-verification.ts';

const LINK = /https?:\/\/[^\s<>"]+\/verify-email\/[A-Za-z0-9_.-]+/;

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A loopback port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

test('a new account gets its verification mail over SMTP (text and HTML, the right link); following it verifies the address', async () => {
  const smtp = new SmtpSink();
  await smtp.start();
  const svc = await startTestServer({ env: smtpEnv(smtp) });
  try {
    assert.equal(svc.ctx.mailer.transport, 'smtp');
    const email = 'new-person@siteline.test';
    const jar = await signUpOrIn(svc.url, email);
    const [mail] = await smtp.waitFor(email);
    assert.equal(mail!.subject, VERIFY_MAIL_SUBJECT);
    assert.match(mail!.from, /noreply@siteline\.test/);
    const link = LINK.exec(mail!.text)?.[0];
    assert.ok(link, `a verification link in the text part: ${mail!.text}`);
    assert.ok(link.startsWith(`${svc.ctx.config.baseUrl}/verify-email/`), `the link names the service's base URL: ${link}`);
    assert.ok(mail!.html.includes(`<a href="${link}">`), 'the HTML part has the same link, clickable');
    // Nothing went to the development outbox: the mail left through SMTP.
    assert.equal((await svc.ctx.db.query('SELECT 1 FROM dev_outbox')).length, 0);
    const before = await getPage(`${svc.url}/account`, jar);
    assert.match(before.body, /not verified yet/);
    const done = await followVerificationLink(svc.url, link);
    assert.equal(done.status, 200, done.body.slice(0, 300));
    assert.match(done.body, /id="email-verified"/);
    const after = await getPage(`${svc.url}/account`, jar);
    assert.match(after.body, /E-mail address verified on/);
    const [row] = await svc.ctx.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM mail_queue WHERE to_address = $1', [email]);
    assert.deepEqual({ ...row }, { status: 'sent', attempts: 1 });
  } finally {
    await svc.close();
    await smtp.stop();
  }
});

test('a mail server down at start, then down again mid-test: every message waits in the queue and arrives once it is back, each once', async () => {
  const smtp = new SmtpSink();
  smtp.port = await freePort(); // nothing listens there yet
  const from = logLines.length;
  const svc = await startTestServer({ env: smtpEnv(smtp) });
  try {
    // The service started; the unreachable server is logged, naming the variable.
    await until('the start-up check logs the unreachable server', async () =>
      logLines.slice(from).some((l) => l.includes('SITELINE_SMTP_URL') && l.includes(`127.0.0.1:${smtp.port}`) && l.includes('cannot be reached')),
    );
    const first = 'first-down@siteline.test';
    await signUpOrIn(svc.url, first, new CookieJar()); // sign-up answers although no mail can leave
    const queued = await until('a failed attempt is recorded and the message stays queued', async () => {
      const rows = await svc.ctx.db.query<{ status: string; attempts: number; last_error: string | null }>(
        'SELECT status, attempts, last_error FROM mail_queue WHERE to_address = $1',
        [first],
      );
      return rows[0] && rows[0].attempts >= 2 && rows[0].status === 'queued' ? rows[0] : undefined;
    });
    assert.match(queued.last_error ?? '', /ECONNREFUSED|ESOCKET|ECONNECTION/);
    await smtp.start();
    const [a] = await smtp.waitFor(first);
    assert.match(a!.text, LINK);

    // Down again mid-test: the next message waits, then arrives after the restart.
    await smtp.stop();
    const second = 'second-down@siteline.test';
    await signUpOrIn(svc.url, second, new CookieJar());
    await until('the second message is retrying', async () => {
      const rows = await svc.ctx.db.query<{ attempts: number; status: string }>('SELECT attempts, status FROM mail_queue WHERE to_address = $1', [second]);
      return rows[0] && rows[0].attempts >= 2 && rows[0].status === 'queued';
    });
    await smtp.start(); // the same port
    const [b] = await smtp.waitFor(second);
    assert.match(b!.text, LINK);
    await new Promise((r) => setTimeout(r, 400)); // a duplicate would arrive within a retry period
    assert.equal(smtp.received.length, 2, 'each message arrived exactly once');
    const rows = await svc.ctx.db.query<{ status: string }>('SELECT status FROM mail_queue ORDER BY id');
    assert.deepEqual(
      rows.map((r) => r.status),
      ['sent', 'sent'],
    );
  } finally {
    await svc.close();
    await smtp.stop();
  }
});

test('a permanent refusal (550) is recorded as failed after one attempt and shown on /staff/mail to staff only', async () => {
  const smtp = new SmtpSink(new Set(['nobody@siteline.test']));
  await smtp.start();
  const svc = await startTestServer({ env: smtpEnv(smtp), config: { staffEmails: ['staff@siteline.test'] } });
  try {
    await signUpOrIn(svc.url, 'nobody@siteline.test', new CookieJar());
    const failed = await until('the refused message is failed', async () => {
      const rows = await svc.ctx.db.query<{ status: string; attempts: number; last_error: string }>(
        `SELECT status, attempts, last_error FROM mail_queue WHERE to_address = 'nobody@siteline.test'`,
      );
      return rows[0]?.status === 'failed' ? rows[0] : undefined;
    });
    assert.equal(failed.attempts, 1, 'a 5xx answer is not retried');
    assert.match(failed.last_error, /550/);

    const anonymous = await getPage(`${svc.url}/staff/mail`, new CookieJar());
    assert.equal(anonymous.status, 303);
    assert.match(anonymous.location ?? '', /^\/signin\?next=\/staff\/mail/);
    const member = await signUpOrIn(svc.url, 'member@siteline.test', new CookieJar());
    assert.equal((await getPage(`${svc.url}/staff/mail`, member)).status, 403);
    const staff = await signUpOrIn(svc.url, 'staff@siteline.test', new CookieJar());
    // Staff are verified accounts (a listed address is not enough): the link comes by SMTP here.
    const [verify] = await smtp.waitFor('staff@siteline.test');
    assert.equal((await followVerificationLink(svc.url, LINK.exec(verify!.text)![0])).status, 200);
    const pageRes = await getPage(`${svc.url}/staff/mail`, staff);
    assert.equal(pageRes.status, 200);
    assert.match(pageRes.body, /id="mail-table"/);
    assert.match(pageRes.body, /nobody@siteline\.test/);
    assert.match(pageRes.body, /550/);
    assert.match(pageRes.body, /failed: <strong>1<\/strong>/);
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    assert.match(metrics, /^siteline_mail_queue_messages\{status="failed"\} 1$/m, 'the failure is on /metrics too');

    // The cause fixed (the mailbox now exists), staff send it again: it arrives, once.
    smtp.refuse.clear();
    const id = /action="\/staff\/mail\/(\d+)\/retry"/.exec(pageRes.body)?.[1];
    assert.ok(id, 'a send-again button');
    assert.equal(
      (await postForm(`${svc.url}/staff/mail/${id}/retry`, member, { csrf: csrfFrom((await getPage(`${svc.url}/account`, member)).body) })).status,
      403,
      'not for members',
    );
    const again = await postForm(`${svc.url}/staff/mail/${id}/retry`, staff, { csrf: csrfFrom(pageRes.body) });
    assert.equal(again.status, 303);
    const [arrived] = await smtp.waitFor('nobody@siteline.test');
    assert.match(arrived!.text, LINK);
    await until(
      'the row is sent',
      async () => (await svc.ctx.db.query<{ status: string }>(`SELECT status FROM mail_queue WHERE id = $1`, [Number(id)]))[0]?.status === 'sent',
    );
    const cleared = await getPage(`${svc.url}/staff/mail`, staff);
    assert.match(cleared.body, /failed: <strong>0<\/strong>/);
    const [body] = await svc.ctx.db.query<{ text_body: string }>('SELECT text_body FROM mail_queue WHERE id = $1', [Number(id)]);
    assert.equal(body!.text_body, '', 'a sent message keeps no body (its link)');
  } finally {
    await svc.close();
    await smtp.stop();
  }
});

test('two workers draining one queue send each message once (FOR UPDATE SKIP LOCKED; on PostgreSQL two connections)', async () => {
  const smtp = new SmtpSink();
  await smtp.start();
  const t = await createTestDb();
  try {
    const mail = loadConfig({ ...smtpEnv(smtp), SITELINE_BASE_URL: 'https://siteline.example' }).mail;
    const base = testCtx(t.db);
    const a = withMailer({ ...base, config: { ...base.config, mail } }).mailer;
    const b = withMailer({ ...base, config: { ...base.config, mail } }).mailer;
    for (let i = 0; i < 24; i++) await (i % 2 ? a : b).send({ to: `many-${i}@siteline.test`, subject: `Message ${i}`, text: `Number ${i}.` });
    const [na, nb] = await Promise.all([a.drain(), b.drain()]);
    assert.equal(na + nb, 24, 'every message was claimed once');
    await smtp.waitFor('@siteline.test', 24);
    const subjects = smtp.received.map((m) => m.subject).sort();
    assert.equal(new Set(subjects).size, 24, 'no message twice');
    assert.equal(smtp.received.length, 24);
    const counts = await t.db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM mail_queue GROUP BY status');
    assert.deepEqual(
      counts.map((c) => ({ ...c })),
      [{ status: 'sent', n: 24 }],
    );
    await a.stop();
    await b.stop();
  } finally {
    await t.close();
    await smtp.stop();
  }
});

test('without SMTP on a loopback base URL, mail goes to the development outbox, whose links are clickable', async () => {
  const svc = await startTestServer();
  try {
    assert.equal(svc.ctx.mailer.transport, 'outbox');
    const email = 'outbox-reader@siteline.test';
    await signUpOrIn(svc.url, email, new CookieJar());
    const res = await fetch(`${svc.url}/dev/outbox?to=${encodeURIComponent(email)}`);
    const body = await res.text();
    const link = LINK.exec(body)?.[0];
    assert.ok(link);
    assert.ok(body.includes(`<a href="${link}">${link}</a>`), 'the link is an anchor');
  } finally {
    await svc.close();
  }
});

test('a message whose worker died mid-send is taken again after its lease; on its last attempt it is recorded as failed', async () => {
  const smtp = new SmtpSink();
  await smtp.start();
  const t = await createTestDb();
  try {
    const mail = loadConfig({ ...smtpEnv(smtp), SITELINE_MAIL_MAX_ATTEMPTS: '3' }).mail;
    const base = testCtx(t.db);
    const mailer = withMailer({ ...base, config: { ...base.config, mail } }).mailer;
    const past = new Date(Date.now() - 60_000).toISOString();
    const insert = (to: string, attempts: number) =>
      t.db.query(
        `INSERT INTO mail_queue (to_address, subject, text_body, html_body, status, attempts, next_attempt_at, lease_until, worker_id, created_at)
         VALUES ($1, 'Left behind', 'Hello again.', '<p>Hello again.</p>', 'sending', $2, $3, $3, 'a-worker-that-died', $3)`,
        [to, attempts, past],
      );
    await insert('retaken@siteline.test', 1);
    await insert('exhausted@siteline.test', 3);
    await mailer.drain();
    const [m] = await smtp.waitFor('retaken@siteline.test');
    assert.equal(m!.subject, 'Left behind');
    const rows = await t.db.query<{ to_address: string; status: string; attempts: number; last_error: string | null }>(
      'SELECT to_address, status, attempts, last_error FROM mail_queue ORDER BY id',
    );
    assert.deepEqual({ ...rows[0] }, { to_address: 'retaken@siteline.test', status: 'sent', attempts: 2, last_error: null });
    assert.equal(rows[1]!.status, 'failed');
    assert.match(rows[1]!.last_error ?? '', /stopped before the mail server answered, on each of 3 attempts/);
    assert.equal(smtp.received.length, 1, 'the exhausted one was not sent');
    await mailer.stop();
  } finally {
    await t.close();
    await smtp.stop();
  }
});
