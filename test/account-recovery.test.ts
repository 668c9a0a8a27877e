// Password change, reset by e-mail and e-mail address change through the real HTTP server and a real
// SMTP server: the links come from the mails that arrive. A reset link used twice, expired or forged
// gets a page that says so and changes nothing; the reset request answers the same whether or not the
// address has an account, and is rate-limited per address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { startTestServer, type TestServer } from './support/harness.ts';
import { CookieJar, TEST_PASSWORD, csrfFrom, getPage, postForm, signUpOrIn } from './support/auth-flow.ts';
import { noteSecret } from './support/log-capture.ts';
import { SmtpSink, smtpEnv } from './support/smtp-sink.ts';
import { ManualClock } from '../src/clock.ts';
import { RESET_MAIL_SUBJECT, EMAIL_CHANGE_MAIL_SUBJECT } from '../src/auth/account-recovery.ts';

const NEW_PASSWORD = 'a quite different passphrase 42';
const OTHER_PASSWORD = 'yet another long passphrase 7';
noteSecret(NEW_PASSWORD, OTHER_PASSWORD);

async function signInWith(svc: TestServer, email: string, password: string, jar = new CookieJar()): Promise<{ status: number; jar: CookieJar }> {
  const form = await getPage(`${svc.url}/signin`, jar);
  const r = await postForm(`${svc.url}/signin`, jar, { csrf: csrfFrom(form.body), email, password, next: '/account' });
  return { status: r.status, jar };
}

/** Submits the form on `path` (GET for its CSRF token, then POST). */
async function submit(svc: TestServer, path: string, jar: CookieJar, fields: Record<string, string>) {
  const form = await getPage(`${svc.url}${path}`, jar);
  assert.equal(form.status, 200, `${path}: ${form.status}`);
  return postForm(`${svc.url}${path}`, jar, { csrf: csrfFrom(form.body), ...fields });
}

function linkIn(text: string, path: string): string {
  const m = new RegExp(`https?://[^\\s]+${path}/[A-Za-z0-9_-]+`).exec(text);
  assert.ok(m, `a ${path} link in: ${text}`);
  noteSecret(m[0].slice(m[0].lastIndexOf('/') + 1));
  return m[0];
}
const onServer = (svc: TestServer, link: string) => `${svc.url}${new URL(link).pathname}`;

async function until(what: string, fn: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('password change: the current password is required, other sessions end, this one stays, a notice is mailed', async () => {
  const smtp = new SmtpSink();
  await smtp.start();
  const svc = await startTestServer({ env: smtpEnv(smtp) });
  try {
    const email = 'changer@siteline.test';
    const here = await signUpOrIn(svc.url, email);
    const elsewhere = (await signInWith(svc, email, TEST_PASSWORD)).jar;
    assert.equal((await getPage(`${svc.url}/account`, elsewhere)).status, 200);

    const anonymous = await getPage(`${svc.url}/account/password`, new CookieJar());
    assert.equal(anonymous.status, 303);
    const noCsrf = await postForm(`${svc.url}/account/password`, here, { current_password: TEST_PASSWORD, new_password: NEW_PASSWORD });
    assert.equal(noCsrf.status, 403);
    const wrong = await submit(svc, '/account/password', here, { current_password: 'not the password at all', new_password: NEW_PASSWORD });
    assert.equal(wrong.status, 401);
    assert.match(wrong.body, /current password is not right/);
    const weak = await submit(svc, '/account/password', here, { current_password: TEST_PASSWORD, new_password: 'password123' });
    assert.equal(weak.status, 400);
    assert.equal((await signInWith(svc, email, TEST_PASSWORD)).status, 303, 'refused changes changed nothing');

    const done = await submit(svc, '/account/password', here, { current_password: TEST_PASSWORD, new_password: NEW_PASSWORD });
    assert.equal(done.status, 200, done.body.slice(0, 400));
    assert.match(done.body, /id="password-changed"/);
    assert.match(done.body, /<ul id="ended"><li>2 other browser sessions \(signed out\)<\/li><\/ul>/); // `elsewhere` and the check sign-in above
    assert.equal((await getPage(`${svc.url}/account`, here)).status, 200, 'this session stays');
    const ended = await getPage(`${svc.url}/account`, elsewhere);
    assert.equal(ended.status, 303, 'the other session ended');
    assert.match(ended.location ?? '', /^\/signin/);
    assert.equal((await signInWith(svc, email, TEST_PASSWORD)).status, 401, 'the old password no longer works');
    assert.equal((await signInWith(svc, email, NEW_PASSWORD)).status, 303);
    const notices = await smtp.waitFor(email, 2); // the verification mail, then the notice
    assert.ok(notices.some((m) => m.subject === 'Your siteline password was changed'));
  } finally {
    await svc.close();
    await smtp.stop();
  }
});

test('reset by e-mail: the same answer for any address, a single-use link that expires within the hour; used twice, expired or forged changes nothing', async () => {
  const smtp = new SmtpSink();
  await smtp.start();
  const clock = new ManualClock(Date.now());
  const svc = await startTestServer({ env: smtpEnv(smtp), clock });
  try {
    const email = 'forgetful@siteline.test';
    const session = await signUpOrIn(svc.url, email);
    await smtp.waitFor(email, 1); // the verification mail
    assert.match((await getPage(`${svc.url}/signin`, new CookieJar())).body, /href="\/reset-password"/, 'the sign-in page offers the reset');

    const known = await submit(svc, '/reset-password', new CookieJar(), { email });
    const unknown = await submit(svc, '/reset-password', new CookieJar(), { email: 'nobody-here@siteline.test' });
    assert.equal(known.status, 200);
    assert.equal(unknown.status, 200);
    assert.equal(
      known.body.replace(email, ''),
      unknown.body.replace('nobody-here@siteline.test', ''),
      'the same answer whether or not the address has an account',
    );
    const [, resetMail] = await smtp.waitFor(email, 2);
    assert.equal(resetMail!.subject, RESET_MAIL_SUBJECT);
    assert.ok(resetMail!.html.includes('<a href="'), 'the HTML part has the link');
    const link = onServer(svc, linkIn(resetMail!.text, '/reset-password'));
    const stored = await svc.ctx.db.query<{ token_hash: string }>('SELECT token_hash FROM password_resets');
    assert.equal(stored.length, 1);
    assert.ok(!link.includes(stored[0]!.token_hash), 'the token is stored hashed');
    const token = link.slice(link.lastIndexOf('/') + 1);
    await until(
      'the sent reset mail leaves no copy of its link in the queue',
      async () => (await svc.ctx.db.query(`SELECT 1 FROM mail_queue WHERE strpos(text_body, $1) > 0 OR strpos(html_body, $1) > 0`, [token])).length === 0,
    );

    // Forged links: a page that says so.
    for (const forged of [`${svc.url}/reset-password/slpr_${crypto.randomBytes(32).toString('base64url')}`, `${svc.url}/reset-password/garbage`, `${link}x`]) {
      const r = await getPage(forged, new CookieJar());
      assert.equal(r.status, 400, forged);
      assert.match(r.body, /not valid.*Nothing was changed/);
      const jar = new CookieJar();
      const withCsrf = await getPage(`${svc.url}/reset-password`, jar);
      const p = await postForm(forged, jar, { csrf: csrfFrom(withCsrf.body), new_password: OTHER_PASSWORD });
      assert.equal(p.status, 400);
    }

    // The real link: a form, a weak password refused (the link still works), then the new password.
    const jar = new CookieJar();
    const shown = await getPage(link, jar);
    assert.equal(shown.status, 200);
    const weak = await postForm(link, jar, { csrf: csrfFrom(shown.body), new_password: 'password123' });
    assert.equal(weak.status, 400);
    const done = await postForm(link, jar, { csrf: csrfFrom(shown.body), new_password: NEW_PASSWORD });
    assert.equal(done.status, 200, done.body.slice(0, 400));
    assert.match(done.body, /id="password-reset"/);
    assert.equal((await getPage(`${svc.url}/account`, session)).status, 303, 'every session ended');
    assert.equal((await signInWith(svc, email, NEW_PASSWORD)).status, 303);

    // Used twice: a page that says so, and the password stays.
    const again = await getPage(link, new CookieJar());
    assert.equal(again.status, 410);
    assert.match(again.body, /already used/);
    const reuse = await postForm(link, jar, { csrf: csrfFrom(shown.body), new_password: OTHER_PASSWORD });
    assert.equal(reuse.status, 410);
    assert.equal((await signInWith(svc, email, OTHER_PASSWORD)).status, 401, 'the second use changed nothing');
    assert.equal((await signInWith(svc, email, NEW_PASSWORD)).status, 303);

    // Expired: a new link, the clock moved past the hour.
    await submit(svc, '/reset-password', new CookieJar(), { email });
    const mails = await smtp.waitFor(email, 4); // verification, reset, "was reset" notice, reset
    const fresh = onServer(svc, linkIn(mails.filter((m) => m.subject === RESET_MAIL_SUBJECT).at(-1)!.text, '/reset-password'));
    assert.notEqual(fresh, link);
    const form = await getPage(fresh, jar);
    assert.equal(form.status, 200);
    clock.advance(60 * 60_000 + 1000);
    const expired = await getPage(fresh, new CookieJar());
    assert.equal(expired.status, 410);
    assert.match(expired.body, /expired/);
    assert.equal((await postForm(fresh, jar, { csrf: csrfFrom(form.body), new_password: OTHER_PASSWORD })).status, 410);
    assert.equal((await signInWith(svc, email, OTHER_PASSWORD)).status, 401, 'the expired link changed nothing');
  } finally {
    await svc.close();
    await smtp.stop();
  }
});

test('reset requests are rate-limited per address, with the same answer', async () => {
  const smtp = new SmtpSink();
  await smtp.start();
  const svc = await startTestServer({ env: smtpEnv(smtp) });
  try {
    const email = 'flooded@siteline.test';
    await signUpOrIn(svc.url, email);
    const bodies = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const r = await submit(svc, '/reset-password', new CookieJar(), { email });
      assert.equal(r.status, 200);
      bodies.add(r.body);
    }
    assert.equal(bodies.size, 1, 'the answer does not change when the limit is reached');
    await smtp.waitFor(email, 4); // verification + 3 resets
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(smtp.received.filter((m) => m.subject === RESET_MAIL_SUBJECT).length, 3, 'three reset mails an hour per address');
  } finally {
    await svc.close();
    await smtp.stop();
  }
});

test('e-mail change: the password is required, the new address confirms by its link, the old one is told; the link works once', async () => {
  const smtp = new SmtpSink();
  await smtp.start();
  const svc = await startTestServer({ env: smtpEnv(smtp) });
  try {
    const oldEmail = 'mover-old@siteline.test';
    const newEmail = 'mover-new@siteline.test';
    const jar = await signUpOrIn(svc.url, oldEmail);
    await signUpOrIn(svc.url, 'taken@siteline.test', new CookieJar());
    assert.match((await getPage(`${svc.url}/account`, jar)).body, /href="\/account\/email"/);

    const wrong = await submit(svc, '/account/email', jar, { new_email: newEmail, current_password: 'not my password at all' });
    assert.equal(wrong.status, 401);
    const taken = await submit(svc, '/account/email', jar, { new_email: 'taken@siteline.test', current_password: TEST_PASSWORD });
    assert.equal(taken.status, 409);
    const bad = await submit(svc, '/account/email', jar, { new_email: 'not an address', current_password: TEST_PASSWORD });
    assert.equal(bad.status, 400);

    const asked = await submit(svc, '/account/email', jar, { new_email: newEmail, current_password: TEST_PASSWORD });
    assert.equal(asked.status, 200, asked.body.slice(0, 400));
    const [confirm] = await smtp.waitFor(newEmail, 1);
    assert.equal(confirm!.subject, EMAIL_CHANGE_MAIL_SUBJECT);
    const notices = await smtp.waitFor(oldEmail, 2); // verification, then the notice of the request
    assert.match(notices[1]!.text, new RegExp(newEmail));
    assert.equal((await signInWith(svc, newEmail, TEST_PASSWORD)).status, 401, 'nothing changes before the new address confirms');

    const link = onServer(svc, linkIn(confirm!.text, '/confirm-email-change'));
    const other = new CookieJar();
    const shown = await getPage(link, other);
    assert.equal(shown.status, 200);
    assert.match(shown.body, new RegExp(newEmail));
    const done = await postForm(link, other, { csrf: csrfFrom(shown.body) });
    assert.equal(done.status, 200, done.body.slice(0, 400));
    assert.match(done.body, /id="email-changed"/);
    const account = await getPage(`${svc.url}/account`, jar);
    assert.match(account.body, new RegExp(`id="signed-in-email">${newEmail}<`));
    assert.match(account.body, /E-mail address verified on/);
    assert.equal((await signInWith(svc, newEmail, TEST_PASSWORD)).status, 303);
    assert.equal((await signInWith(svc, oldEmail, TEST_PASSWORD)).status, 401);
    const told = await smtp.waitFor(oldEmail, 3);
    assert.equal(told[2]!.subject, 'Your siteline e-mail address was changed');

    const twice = await postForm(link, other, { csrf: csrfFrom(shown.body) });
    assert.equal(twice.status, 410);
    assert.match(twice.body, /already used/);
  } finally {
    await svc.close();
    await smtp.stop();
  }
});
