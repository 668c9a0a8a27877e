// Staff act on a running service (issue 24, item 3): the real `siteline` server process holds the
// database (on PGlite the data directory is locked), and the real CLI binary grants credit, reviews
// feedback and revokes a key through the service's staff API as the logged-in staff account; the
// balance changes, each action is recorded (who, when, what, why) and listed on /staff/actions; a
// non-staff login is refused with nothing changed; with the server stopped the same command works on
// the database directly and is recorded too. On PostgreSQL (DATABASE_URL) the CLI is pointed at the
// service with --url (it could also work on the shared database directly).
// The first staff member of a fresh install (issue 49, item 5; issue 45): on the machine, with no
// login, `siteline staff add` acts as the machine's operator through the running server (the
// credential it wrote into its data directory), the account gets the staff pages without a restart,
// `staff remove` takes them back, and the log records the operator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createPlacesEnv, ROOT } from './support/harness.ts';
import { CookieJar, TEST_PASSWORD, claimUserIdentity, csrfFrom, getPage, postForm, signUpOrIn } from './support/auth-flow.ts';
import { runSiteline } from './support/cli.ts';
import { listening, startSiteline, stop } from './support/siteline-process.ts';

const STAFF = 'staff.person@example.com';
const VIEW_REASON = 'read the feedback reports (a view is recorded; no reason is asked)';
const CUSTOMER = 'customer@example.com';

test('staff actions on a running service: CLI and /staff forms, recorded with who and why; a non-staff login is refused', { timeout: 600_000 }, async () => {
  const dbEnv = await createPlacesEnv([]);
  const work = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'staff-'));
  const onPg = Boolean(dbEnv.env.DATABASE_URL);
  const serverEnv = {
    ...(process.env as Record<string, string>),
    ...dbEnv.env,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    SITELINE_ANALYSIS_WORKERS: '0',
    SITELINE_STAFF_EMAILS: `other@example.com, ${STAFF.toUpperCase()}`,
    // On PostgreSQL the server still keeps its data directory (signing keys, outbox, operator credential) here.
    ...(onPg ? { SITELINE_DATA_DIR: path.join(work, 'server-data') } : {}),
  };
  const dataDir = serverEnv.SITELINE_DATA_DIR!;
  const server = startSiteline(serverEnv, ROOT);
  try {
    const url = await listening(server);

    // The first staff member, made on the machine by its operator: no login, no restart.
    const first = 'first.staff@example.com';
    const firstJar = await signUpOrIn(url, first);
    assert.equal((await getPage(`${url}/staff`, firstJar)).status, 403);
    const operatorEnv = { SITELINE_DATA_DIR: dataDir, DATABASE_URL: '', SITELINE_CONFIG_DIR: path.join(work, 'operator-cli'), LOG_LEVEL: 'warn' };
    assert.equal((fs.statSync(path.join(dataDir, 'operator.json')).mode & 0o777).toString(8), '600', 'the credential is readable by its owner only');
    // On PGlite the held data directory is found without a flag; on PostgreSQL the CLI would work on the database, so --operator says which.
    const asOperator = (...args: string[]) => runSiteline([...args, ...(onPg ? ['--operator'] : [])], operatorEnv);
    const added = await asOperator('staff', 'add', first, '--reason', 'first staff of this install');
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /first\.staff@example\.com is staff now/);
    assert.equal((await getPage(`${url}/staff`, firstJar)).status, 200, 'the staff pages open at once');
    const listedStaff = JSON.parse((await asOperator('staff', 'list', '--json')).stdout) as Array<{ email: string; addedBy: string }>;
    assert.deepEqual(
      listedStaff.map((m) => m.email),
      [first],
    );
    assert.match(listedStaff[0]!.addedBy, /^operator:.+@.+/);
    // An account that never opened its verification link cannot be made staff.
    const unverified = 'never.opened@example.com';
    const upJar = new CookieJar();
    const upForm = await getPage(`${url}/signup`, upJar);
    assert.equal((await postForm(`${url}/signup`, upJar, { csrf: csrfFrom(upForm.body), email: unverified, password: TEST_PASSWORD, next: '/' })).status, 303);
    const refusedAdd = await asOperator('staff', 'add', unverified);
    assert.equal(refusedAdd.code, 2, refusedAdd.stderr);
    assert.match(refusedAdd.stderr, /has not verified its e-mail address yet/);
    const removed = await runSiteline(['staff', 'remove', first, '--reason', 'test over', '--operator'], operatorEnv);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal((await getPage(`${url}/staff`, firstJar)).status, 403, 'and close at once');
    const otherOperator = await fetch(`${url}/staff/api/actions`, { headers: { authorization: 'Bearer slop_' + 'A'.repeat(43) } });
    assert.equal(otherOperator.status, 401, 'another operator credential is refused');
    const staff = await claimUserIdentity(url, STAFF);
    const customer = await claimUserIdentity(url, CUSTOMER);
    const login = (dir: string, email: string, assertion: string) => {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify({ server: url, email, identity_assertion: assertion }), { mode: 0o600 });
    };
    login(path.join(work, 'staff-cli'), STAFF, staff.identityAssertion);
    login(path.join(work, 'customer-cli'), CUSTOMER, customer.identityAssertion);
    // The CLI sees the same database settings as the server: on PGlite it finds the data directory held.
    const cliEnv = (who: string) => ({ ...dbEnv.env, SITELINE_CONFIG_DIR: path.join(work, who), SITELINE_URL: url, LOG_LEVEL: 'warn' });
    const viaService = onPg ? ['--url', url] : [];
    const staffCli = (...args: string[]) => runSiteline([...args, ...viaService], cliEnv('staff-cli'));
    const customerCli = (...args: string[]) => runSiteline([...args, ...viaService], cliEnv('customer-cli'));

    // Credit: granted through the running service, the balance changes.
    const granted = await staffCli('credits', 'grant', 'Customer@Example.com', '40', '--reason', 'pilot customer', '--json');
    assert.equal(granted.code, 0, granted.stderr);
    assert.deepEqual(JSON.parse(granted.stdout), { email: CUSTOMER, granted: 40, balance: 40 });
    const balance = await staffCli('credits', 'balance', CUSTOMER);
    assert.equal(balance.code, 0, balance.stderr);
    assert.match(balance.stdout, /customer@example\.com: 40 credits\n$/);

    // Refused: bad input and an unknown account change nothing (exit 2, the reason on stderr).
    const nobody = await staffCli('credits', 'grant', 'nobody@example.com', '5', '--reason', 'trial');
    assert.equal(nobody.code, 2);
    assert.match(nobody.stderr, /no account with the e-mail nobody@example\.com/i);

    // A non-staff login is refused by the service; nothing changed.
    const refused = await customerCli('credits', 'grant', CUSTOMER, '1000', '--reason', 'free money');
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /refused by the service: customer@example\.com is not staff/);
    assert.match((await staffCli('credits', 'balance', CUSTOMER)).stdout, /: 40 credits/);
    // The staff API itself: no token 401, the customer's token 403.
    assert.equal((await fetch(`${url}/staff/api/actions`)).status, 401);

    // Feedback: the customer sends a report on the web; staff list and review it through the CLI.
    const fbPage = await getPage(`${url}/feedback`, customer.jar);
    const sent = await postForm(`${url}/feedback`, customer.jar, {
      csrf: csrfFrom(fbPage.body),
      category: 'wrong_data',
      message: 'The FAR for 11 Acorn St looks wrong.',
    });
    assert.equal(sent.status, 200, sent.body.slice(0, 300));
    const listed = await staffCli('feedback', 'list', '--json');
    assert.equal(listed.code, 0, listed.stderr);
    const [report] = JSON.parse(listed.stdout) as Array<{ submissionId: string; review: unknown }>;
    assert.equal(report!.review, null);
    assert.equal((await customerCli('feedback', 'list')).code, 1, 'feedback is staff only');
    const reviewed = await staffCli('feedback', 'review', report!.submissionId, '--note', 'checked the rules file; value is right');
    assert.equal(reviewed.code, 0, reviewed.stderr);
    const after = JSON.parse((await staffCli('feedback', 'list', '--json')).stdout) as Array<{ review: { by: string; note: string } }>;
    assert.deepEqual([after[0]!.review.by, after[0]!.review.note], [STAFF, 'checked the rules file; value is right']);

    // A key revoked for abuse: the customer's key stops working at once.
    const keysPage = await getPage(`${url}/account/api-keys`, customer.jar);
    const createdKey = await postForm(`${url}/account/api-keys`, customer.jar, { csrf: csrfFrom(keysPage.body), name: 'scraper' });
    const key = /<pre id="new-key">(sl_live_[0-9A-Za-z]+)<\/pre>/.exec(createdKey.body)![1]!;
    const keyList = await customerCli('keys', 'list', '--json');
    const keyId = (JSON.parse(keyList.stdout) as Array<{ id: string }>)[0]!.id;
    assert.equal((await fetch(`${url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
    const revoked = await staffCli('staff', 'revoke-key', keyId, '--reason', 'scraping beyond the terms');
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`Revoked key ${keyId} of customer@example\\.com`));
    assert.equal((await fetch(`${url}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } })).status, 401);

    // The web forms: a grant on /staff; a non-staff account gets 403 and no form.
    const staffPage = await getPage(`${url}/staff`, staff.jar);
    assert.equal(staffPage.status, 200);
    const webGrant = await postForm(`${url}/staff/credit-grants`, staff.jar, {
      csrf: csrfFrom(staffPage.body),
      email: CUSTOMER,
      credits: '2',
      reason: 'apology for downtime',
    });
    assert.equal(webGrant.status, 200);
    assert.match(webGrant.body, /Granted 2 credits to customer@example\.com; balance 42\./);
    const webBad = await postForm(`${url}/staff/credit-grants`, staff.jar, { csrf: csrfFrom(staffPage.body), email: CUSTOMER, credits: '2', reason: '' });
    assert.equal(webBad.status, 400);
    assert.match(webBad.body, /a reason is required[\s\S]*Nothing was changed/);
    // The web review form on /staff/feedback: a second report, reviewed on the page.
    const fbPage2 = await getPage(`${url}/feedback`, customer.jar);
    assert.equal(
      (await postForm(`${url}/feedback`, customer.jar, { csrf: csrfFrom(fbPage2.body), category: 'city_request', message: 'Please cover Somerville.' })).status,
      200,
    );
    const staffFeedback = await getPage(`${url}/staff/feedback`, staff.jar);
    const formAction = /action="\/staff\/feedback\/([0-9a-f-]{36})\/review"/.exec(staffFeedback.body);
    assert.ok(formAction, 'the unreviewed report has a review form');
    const webReview = await postForm(`${url}/staff/feedback/${formAction[1]}/review`, staff.jar, {
      csrf: csrfFrom(staffFeedback.body),
      note: 'added to the city list',
    });
    assert.equal(webReview.status, 200);
    assert.match(webReview.body, /marked reviewed/);
    const forged = await postForm(`${url}/staff/feedback/${report!.submissionId}/review`, staff.jar, { csrf: 'not-the-token', note: 'x' });
    assert.equal(forged.status, 403, 'a review without the CSRF token is refused');
    // The staff API refuses the customer's own user token (403), as the CLI showed.
    const { tokenRequest, JWT_BEARER_GRANT } = await import('./support/auth-flow.ts');
    const customerToken = (await tokenRequest(url, { grant_type: JWT_BEARER_GRANT, assertion: customer.identityAssertion })).json.access_token as string;
    const asCustomer = await fetch(`${url}/staff/api/credit-grants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${customerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: CUSTOMER, credits: 5, reason: 'x' }),
    });
    assert.equal(asCustomer.status, 403);
    assert.equal((await getPage(`${url}/staff`, customer.jar)).status, 403);
    assert.equal((await getPage(`${url}/staff/actions`, customer.jar)).status, 403);

    // The record: every action with who, how and why, on the page and through the CLI.
    const record = await getPage(`${url}/staff/actions`, staff.jar);
    assert.equal(record.status, 200);
    for (const why of ['pilot customer', 'checked the rules file; value is right', 'scraping beyond the terms', 'apology for downtime'])
      assert.ok(record.body.includes(why), why);
    assert.doesNotMatch(record.body, /free money/, 'the refused grant left no record');
    const actions = JSON.parse((await staffCli('staff', 'actions', '--json')).stdout) as Array<{
      actor: string;
      via: string;
      action: string;
      subject: string;
      reason: string;
      details: Record<string, unknown>;
    }>;
    assert.deepEqual(
      actions.map((a) => [a.action, /^operator:.+@.+$/.test(a.actor) ? 'operator:<os user>@<host>' : a.actor, a.via, a.subject, a.reason]).reverse(),
      [
        ['staff_add', 'operator:<os user>@<host>', 'operator', 'first.staff@example.com', 'first staff of this install'],
        ['staff_remove', 'operator:<os user>@<host>', 'operator', 'first.staff@example.com', 'test over'],
        // The listed, verified staff address is seeded at its first staff check (the grant below), once.
        [
          'staff_add',
          'SITELINE_STAFF_EMAILS',
          'config',
          STAFF,
          'listed in SITELINE_STAFF_EMAILS; seeded once, when a staff check met the account with this address verified',
        ],
        ['credit_grant', STAFF, 'api', CUSTOMER, 'pilot customer'],
        // Reading the reports is recorded too: the CLI's list, twice, and the staff page (the customer's refused list is not).
        ['feedback_view', STAFF, 'api', 'all', VIEW_REASON],
        ['feedback_review', STAFF, 'api', report!.submissionId, 'checked the rules file; value is right'],
        ['feedback_view', STAFF, 'api', 'all', VIEW_REASON],
        ['key_revoke', STAFF, 'api', keyId, 'scraping beyond the terms'],
        ['credit_grant', STAFF, 'web', CUSTOMER, 'apology for downtime'],
        ['feedback_view', STAFF, 'web', 'all', VIEW_REASON],
        ['feedback_review', STAFF, 'web', formAction![1], 'added to the city list'],
      ],
    );
    assert.deepEqual(actions.findLast((a) => a.action === 'credit_grant')!.details, { credits: 40 });
    assert.ok(record.body.includes('Feedback read'), 'views are listed on /staff/actions');
  } finally {
    await stop(server);
  }
  try {
    // No server: the same command works on the database directly, recorded as the OS user.
    const direct = await runSiteline(['credits', 'grant', CUSTOMER, '3', '--reason', 'offline grant'], {
      ...dbEnv.env,
      SITELINE_CONFIG_DIR: path.join(work, 'nobody'),
      SITELINE_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'warn',
    });
    assert.equal(direct.code, 0, direct.stderr);
    assert.match(direct.stdout, /balance 45\./);
    const actions = JSON.parse(
      (await runSiteline(['staff', 'actions', '--json'], { ...dbEnv.env, SITELINE_CONFIG_DIR: path.join(work, 'nobody'), LOG_LEVEL: 'warn' })).stdout,
    ) as Array<{ actor: string; via: string; reason: string }>;
    assert.equal(actions[0]!.reason, 'offline grant');
    assert.equal(actions[0]!.via, 'cli');
    assert.match(actions[0]!.actor, /^cli:.+@.+/);
  } finally {
    await dbEnv.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
});
