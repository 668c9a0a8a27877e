// Issue 45: the reset page answered faster for an address with no account (2.2 against 4.1 ms median),
// which told an attacker which addresses have accounts. Now both cost the same work. Measured by the
// work, not the clock: the statements the real server runs for one POST /reset-password are the same,
// in the same order, for a known and an unknown address, and each queues exactly one message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/harness.ts';
import { CookieJar, csrfFrom, getPage, postForm, signUpOrIn } from '../support/auth-flow.ts';
import { RESET_MAIL_SUBJECT } from '../../src/auth/account-recovery.ts';

test('a reset request runs the same statements and queues one message whether or not the address has an account', async () => {
  // No analysis workers: their polling would interleave its statements with the request's.
  const svc = await startTestServer({ analysisWorkers: { concurrency: 0 } });
  try {
    await signUpOrIn(svc.url, 'known@example.com');
    const db = svc.ctx.db;
    const query = db.query.bind(db);
    let statements: string[] | undefined;
    // Every statement the service runs is recorded while one request is in flight (the real query runs).
    db.query = (async (sql: string, params?: readonly unknown[]) => {
      statements?.push(sql.replace(/\s+/g, ' ').trim());
      return query(sql, params);
    }) as typeof db.query;
    const mailCount = async (to: string) =>
      (await query<{ n: number }>('SELECT count(*)::int AS n FROM mail_queue WHERE to_address = $1 AND subject = $2', [to, RESET_MAIL_SUBJECT]))[0]!.n;

    const ask = async (email: string) => {
      const jar = new CookieJar();
      const form = await getPage(`${svc.url}/reset-password`, jar);
      statements = [];
      const answer = await postForm(`${svc.url}/reset-password`, jar, { csrf: csrfFrom(form.body), email });
      const ran = statements;
      statements = undefined;
      assert.equal(answer.status, 200);
      return { ran, body: answer.body.replace(email, '<address>') };
    };
    // The client's hourly bucket sweeps old windows on its first hit: spend that hit first, so the two
    // requests compared below are the client's second and third.
    await ask('warm-up@example.com');
    const known = await ask('known@example.com');
    const unknown = await ask('nobody@example.com');

    assert.equal(known.body, unknown.body, 'the same page');
    assert.ok(known.ran.length >= 3, known.ran.join('\n'));
    assert.deepEqual(unknown.ran, known.ran, 'the same statements, in the same order');
    assert.equal(known.ran.filter((s) => s.includes('password_resets')).length, 1, 'one statement writes the link (a row only for an account)');
    assert.equal(known.ran.filter((s) => s.startsWith('INSERT INTO mail_queue')).length, 1, 'one message queued');

    // What the work produced: a link for the account; for the stranger a note and no link, no row.
    assert.equal(await mailCount('known@example.com'), 1);
    assert.equal(await mailCount('nobody@example.com'), 1);
    // (A sent message keeps no body in the queue; the development outbox has it.)
    const mail = await query<{ to_address: string; body: string }>('SELECT to_address, body FROM dev_outbox WHERE subject = $1', [RESET_MAIL_SUBJECT]);
    const body = (to: string) => mail.find((m) => m.to_address === to)!.body;
    assert.match(body('known@example.com'), /\/reset-password\/slpr_/);
    assert.doesNotMatch(body('nobody@example.com'), /slpr_/);
    assert.match(body('nobody@example.com'), /no siteline account uses this address/);
    const rows = await query<{ n: number }>('SELECT count(*)::int AS n FROM password_resets');
    assert.equal(rows[0]!.n, 1, 'a reset row for the account only');
  } finally {
    await svc.close();
  }
});
