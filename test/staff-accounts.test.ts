// Issue 45, "staff rights come from an e-mail string, verified or not": signing up, unverified, with a
// listed staff address that had no account gave every staff page (the intruder granted itself 5,000
// credits, recorded under the real staff member's address), and it also worked after a staff member
// moved to another address. Now staff are verified accounts by id: SITELINE_STAFF_EMAILS seeds a
// listed address once, when its account is verified; the staff log keeps the acting account's id and
// its address at the time. Over the real HTTP server, with the mail read from the development outbox.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import {
  CookieJar,
  TEST_PASSWORD,
  csrfFrom,
  followVerificationLink,
  getPage,
  newestMail,
  postForm,
  signUpOrIn,
  verificationLinkFromOutbox,
} from './support/auth-flow.ts';
import { EMAIL_CHANGE_MAIL_SUBJECT } from '../src/auth/account-recovery.ts';

const BOSS = 'boss@example.com';
const STAFF_PAGES = ['/staff', '/staff/feedback', '/staff/mail', '/staff/actions'];
let svc: TestServer;
before(async () => {
  svc = await startTestServer({ config: { staffEmails: [BOSS, 'never.signed.up@example.com'] } });
});
after(async () => {
  await svc?.close();
});

/** Signs up through the form without opening the verification link. */
async function signUpUnverified(email: string): Promise<CookieJar> {
  const jar = new CookieJar();
  const form = await getPage(`${svc.url}/signup`, jar);
  const up = await postForm(`${svc.url}/signup`, jar, { csrf: csrfFrom(form.body), email, password: TEST_PASSWORD, next: '/account' });
  assert.equal(up.status, 303, `sign-up of ${email}`);
  return jar;
}

async function assertNoStaffPage(jar: CookieJar, who: string): Promise<void> {
  for (const p of STAFF_PAGES) assert.equal((await getPage(`${svc.url}${p}`, jar)).status, 403, `${who}: ${p}`);
  const page = await getPage(`${svc.url}/staff`, jar);
  assert.match(page.body, /Staff are accounts with a verified e-mail address that were made staff[\s\S]*siteline staff add/);
  const csrf = csrfFrom((await getPage(`${svc.url}/feedback`, jar)).body);
  const grant = await postForm(`${svc.url}/staff/credit-grants`, jar, { csrf, email: BOSS, credits: '5000', reason: 'mine now' });
  assert.equal(grant.status, 403, `${who}: a grant posted anyway`);
}

const balance = async (email: string) =>
  Number(
    (
      await svc.ctx.db.query<{ b: string }>(
        'SELECT COALESCE(sum(l.amount), 0) AS b FROM credit_ledger l JOIN accounts a USING (account_id) WHERE a.email = $1',
        [email],
      )
    )[0]!.b,
  );

test('an unverified sign-up with a listed staff address gets no staff page and grants nothing; once the address is verified it is staff, seeded once and recorded', async () => {
  const intruder = await signUpUnverified(BOSS);
  await assertNoStaffPage(intruder, 'unverified listed address');
  assert.equal(await balance(BOSS), 0, 'no credit was granted');

  // The owner of the mailbox opens the link: the same account is staff now, recorded as the configuration's doing.
  const link = await verificationLinkFromOutbox(svc.url, BOSS);
  assert.equal((await followVerificationLink(svc.url, link!)).status, 200);
  const staff = await getPage(`${svc.url}/staff`, intruder);
  assert.equal(staff.status, 200);
  assert.match(staff.body, /<ul id="staff-members"><li><strong>boss@example\.com<\/strong> \(since [^)]+, by SITELINE_STAFF_EMAILS\)/);
  const actions = await getPage(`${svc.url}/staff/actions`, intruder);
  assert.match(actions.body, /<td>SITELINE_STAFF_EMAILS<\/td><td>config<\/td><td>Made staff<\/td><td><code>boss@example\.com<\/code><\/td>/);
});

test('the staff log records the acting account id and its address at the time; staff rights stay with the account when it moves, and its old listed address gives a newcomer none', async () => {
  const bossJar = await signUpOrIn(svc.url, BOSS);
  const bossId = (await svc.ctx.db.query<{ account_id: string }>('SELECT account_id FROM accounts WHERE email = $1', [BOSS]))[0]!.account_id;
  await signUpOrIn(svc.url, 'customer@example.com');
  const form = await getPage(`${svc.url}/staff`, bossJar);
  const granted = await postForm(`${svc.url}/staff/credit-grants`, bossJar, {
    csrf: csrfFrom(form.body),
    email: 'customer@example.com',
    credits: '7',
    reason: 'pilot',
  });
  assert.equal(granted.status, 200, granted.body.slice(0, 300));

  // The staff member moves to another address (the new address confirms; the old one is told).
  const asked = await postForm(`${svc.url}/account/email`, bossJar, {
    csrf: csrfFrom((await getPage(`${svc.url}/account/email`, bossJar)).body),
    new_email: 'boss.moved@example.com',
    current_password: TEST_PASSWORD,
  });
  assert.equal(asked.status, 200);
  const confirm = /https?:\/\/\S+\/confirm-email-change\/[A-Za-z0-9_-]+/.exec(
    (await newestMail(svc.url, 'boss.moved@example.com', EMAIL_CHANGE_MAIL_SUBJECT)).text,
  )![0];
  const confirmUrl = `${svc.url}${new URL(confirm).pathname}`;
  const shown = await getPage(confirmUrl, bossJar);
  assert.equal((await postForm(confirmUrl, bossJar, { csrf: csrfFrom(shown.body) })).status, 200);
  const after = await getPage(`${svc.url}/staff`, bossJar);
  assert.equal(after.status, 200, 'still staff at the new address: the rights belong to the account');
  assert.equal(
    (
      await postForm(`${svc.url}/staff/credit-grants`, bossJar, {
        csrf: csrfFrom(after.body),
        email: 'customer@example.com',
        credits: '3',
        reason: 'after the move',
      })
    ).status,
    200,
  );

  // Someone takes the old listed address, even verified: no staff page.
  const newcomer = await signUpOrIn(svc.url, BOSS);
  await assertNoStaffPage(newcomer, 'a newcomer on the address staff moved away from');

  // The record: each grant under the account's id and the address it had then.
  const rows = await svc.ctx.db.query<{ actor: string; actor_account_id: string | null; reason: string }>(
    `SELECT actor, actor_account_id, reason FROM staff_actions WHERE action = 'credit_grant' ORDER BY created_at`,
  );
  assert.deepEqual(rows, [
    { actor: BOSS, actor_account_id: bossId, reason: 'pilot' },
    { actor: 'boss.moved@example.com', actor_account_id: bossId, reason: 'after the move' },
  ]);
  const page = await getPage(`${svc.url}/staff/actions`, bossJar);
  assert.ok(page.body.includes(`<td>boss.moved@example.com<br><small>account <code>${bossId}</code></small></td><td>web</td><td>Credit grant</td>`));
  assert.equal(await balance('customer@example.com'), 10);
});
