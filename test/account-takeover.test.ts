// Issue 45 (an outside attack test): recovery wins. Someone who knows the password asks to move the
// account to their own address; the owner, warned by mail, resets or changes the password or signs
// out everywhere, and the pending move dies with it (its link refuses, the account keeps its
// address). A completed move mails the old address a link that moves the account back for 7 days. A
// reset ends every credential: agent and CLI logins (tokens and assertions), OAuth access and refresh
// tokens, API keys; the reset page lists them before, the mail says what ended. All over real HTTP,
// with the mail read from the development outbox.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { auth } from '@modelcontextprotocol/client';
import { startTestServer, type TestServer } from './support/harness.ts';
import {
  CLAIM_GRANT,
  CookieJar,
  JWT_BEARER_GRANT,
  TEST_PASSWORD,
  confirmClaimOnPage,
  csrfFrom,
  getPage,
  newestMail,
  postForm,
  postJson,
  signUpOrIn,
  tokenRequest,
} from './support/auth-flow.ts';
import { authorizeWithConsent } from './support/oauth-flow.ts';
import { noteSecret } from './support/log-capture.ts';
import { EMAIL_CHANGE_MAIL_SUBJECT, RESET_MAIL_SUBJECT } from '../src/auth/account-recovery.ts';

const PASSWORDS = ['the owner took it back 1', 'the owner took it back 2', 'a thief chose this one 3', 'the owner undid it all 4', 'after the reset came 5'];
noteSecret(...PASSWORDS);
const [RESET_PW, CHANGED_PW, THIEF_PW, UNDO_PW, LATER_PW] = PASSWORDS as [string, string, string, string, string];

let svc: TestServer;
// Real time, moved forward by hand for the 7-day expiry (last in this file).
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
before(async () => {
  svc = await startTestServer({ clock });
});
after(async () => {
  await svc?.close();
});

/** A page's text with the entities the pages escape put back (quotes in names and sentences). */
const decoded = (body: string) =>
  body
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
const onServer = (link: string) => `${svc.url}${new URL(link).pathname}`;

function linkIn(text: string, path: string): string {
  const m = new RegExp(`https?://[^\\s]+${path}/[A-Za-z0-9_-]+`).exec(text);
  assert.ok(m, `a ${path} link in: ${text}`);
  return onServer(m[0]);
}

async function signInWith(email: string, password: string, jar = new CookieJar()): Promise<{ status: number; jar: CookieJar }> {
  const form = await getPage(`${svc.url}/signin`, jar);
  const r = await postForm(`${svc.url}/signin`, jar, { csrf: csrfFrom(form.body), email, password, next: '/account' });
  return { status: r.status, jar };
}

async function signedIn(email: string, password: string): Promise<CookieJar> {
  const r = await signInWith(email, password);
  assert.equal(r.status, 303, `sign-in of ${email}`);
  return r.jar;
}

/** Submits the form on `path` (GET for its CSRF token, then POST). */
async function submit(path: string, jar: CookieJar, fields: Record<string, string>) {
  const form = await getPage(`${svc.url}${path}`, jar);
  assert.equal(form.status, 200, `${path}: ${form.status}`);
  return postForm(`${svc.url}${path}`, jar, { csrf: csrfFrom(form.body), ...fields });
}

/** Signed in with the password, asks to move the account to `to`; returns the confirmation link mailed there. */
async function askToMove(jar: CookieJar, to: string, password: string): Promise<string> {
  const asked = await submit('/account/email', jar, { new_email: to, current_password: password });
  assert.equal(asked.status, 200, asked.body.slice(0, 300));
  return linkIn((await newestMail(svc.url, to, EMAIL_CHANGE_MAIL_SUBJECT)).text, '/confirm-email-change');
}

/** The move's link, opened and pressed: both refused as cancelled, nothing changed. */
async function assertCancelled(link: string): Promise<void> {
  const jar = new CookieJar();
  const shown = await getPage(link, jar);
  assert.equal(shown.status, 410, shown.body.slice(0, 300));
  assert.match(
    decoded(shown.body),
    /id="link-refused">This e-mail change link was cancelled: the account's password was reset or changed, or it was signed out everywhere/,
  );
  const withCsrf = await getPage(`${svc.url}/signin`, jar);
  const pressed = await postForm(link, jar, { csrf: csrfFrom(withCsrf.body) });
  assert.equal(pressed.status, 410);
}

async function createKey(jar: CookieJar, name: string): Promise<string> {
  const page = await getPage(`${svc.url}/account/api-keys`, jar);
  const made = await postForm(`${svc.url}/account/api-keys`, jar, { csrf: csrfFrom(page.body), name });
  assert.equal(made.status, 201, made.body.slice(0, 300));
  const key = /<pre id="new-key">(sl_live_[0-9A-Za-z]+)<\/pre>/.exec(made.body)![1]!;
  noteSecret(key);
  return key;
}

const bearer = (path: string, token: string) => fetch(`${svc.url}${path}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

test('a pending move to another address dies when the owner resets the password, changes it or signs out everywhere: its link refuses and the account keeps its address', async () => {
  const owner = 'victim@example.com';
  await signUpOrIn(svc.url, owner);

  // 1. Reset. The thief knows the password and asks to move the account; the owner is warned and resets as the mail says.
  const thief = await signedIn(owner, TEST_PASSWORD);
  const move1 = await askToMove(thief, 'thief-1@example.net', TEST_PASSWORD);
  const warning = await newestMail(svc.url, owner, 'A change of your siteline e-mail address was requested');
  assert.match(warning.text, /thief-1@example\.net[\s\S]*reset it at .*\/reset-password/);
  assert.equal((await submit('/reset-password', new CookieJar(), { email: owner })).status, 200);
  const resetLink = linkIn((await newestMail(svc.url, owner, RESET_MAIL_SUBJECT)).text, '/reset-password');
  const ownerJar = new CookieJar();
  const resetPage = await getPage(resetLink, ownerJar);
  assert.equal(resetPage.status, 200);
  const reset = await postForm(resetLink, ownerJar, { csrf: csrfFrom(resetPage.body), new_password: RESET_PW });
  assert.equal(reset.status, 200, reset.body.slice(0, 300));
  await assertCancelled(move1);
  assert.equal((await signInWith(owner, RESET_PW)).status, 303, 'the account answers to its own address');
  assert.equal((await signInWith('thief-1@example.net', RESET_PW)).status, 401, "and not to the thief's");
  assert.equal((await getPage(`${svc.url}/account`, thief)).status, 303, "the thief's session ended");
  // What the owner read: the warning says a reset cancels the move, the reset page listed it.
  assert.match(warning.text, /The reset cancels this change/);
  assert.match(
    decoded(resetPage.body),
    /<li>Pending change of the account's address to thief-1@example\.net \(cancelled: its confirmation link no longer works\)<\/li>/,
  );

  // 2. A signed-in password change (the thief learned the new password too).
  const thief2 = await signedIn(owner, RESET_PW);
  const move2 = await askToMove(thief2, 'thief-2@example.net', RESET_PW);
  const owner2 = await signedIn(owner, RESET_PW);
  const form = await getPage(`${svc.url}/account/password`, owner2);
  assert.match(
    decoded(form.body),
    /id="will-end"[\s\S]*<li>\d+ other browser sessions? \(signed out\)<\/li>[\s\S]*thief-2@example\.net/,
    'the page says what the change ends',
  );
  const changed = await postForm(`${svc.url}/account/password`, owner2, { csrf: csrfFrom(form.body), current_password: RESET_PW, new_password: CHANGED_PW });
  assert.equal(changed.status, 200, changed.body.slice(0, 300));
  assert.match(decoded(changed.body), /id="ended"[\s\S]*Pending change of the account's address to thief-2@example\.net/);
  await assertCancelled(move2);
  assert.equal((await getPage(`${svc.url}/account`, thief2)).status, 303, "the thief's session ended");
  assert.equal((await getPage(`${svc.url}/account`, owner2)).status, 200, 'the browser that changed it stays signed in');
  assert.match((await newestMail(svc.url, owner, 'Your siteline password was changed')).text, /thief-2@example\.net \(cancelled/);

  // 3. Sign out everywhere: the pending move and the API keys end with it.
  const thief3 = await signedIn(owner, CHANGED_PW);
  const move3 = await askToMove(thief3, 'thief-3@example.net', CHANGED_PW);
  const key = await createKey(owner2, 'made before signing out');
  assert.equal(await bearer('/api/v1/usage', key), 200);
  const account = await getPage(`${svc.url}/account`, owner2);
  assert.match(account.body, /every REST API key \(create new ones after\), and any pending change of your address/);
  const out = await postForm(`${svc.url}/signout/everywhere`, owner2, { csrf: csrfFrom(account.body) });
  assert.equal(out.status, 303);
  await assertCancelled(move3);
  assert.equal(await bearer('/api/v1/usage', key), 401, 'the API key ended too');
  const notice = await newestMail(svc.url, owner, 'Your siteline account was signed out everywhere');
  assert.match(notice.text, /"made before signing out" \(sl_live_/);
  assert.match(notice.text, /thief-3@example\.net/);
  assert.equal((await signInWith(owner, CHANGED_PW)).status, 303);
});

test('a password reset ends every credential: agent and CLI logins (tokens and assertions), OAuth access and refresh tokens, API keys; the page lists them first, the mail says what ended', async () => {
  const email = 'owner.of.everything@example.com';
  const jar = await signUpOrIn(svc.url, email);
  // A CLI login, by its name.
  const reg = await postJson(`${svc.url}/api/auth/agent/identity`, { type: 'service_auth', login_hint: email, label: 'CLI on build-box' });
  assert.equal(reg.status, 201);
  assert.equal((await confirmClaimOnPage(svc.url, reg.json.claim.verification_uri, reg.json.claim.user_code, jar)).status, 200);
  const claimed = await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: reg.json.claim_token });
  assert.equal(claimed.status, 200, JSON.stringify(claimed.json));
  const cliToken = claimed.json.access_token as string;
  const assertion = claimed.json.identity_assertion as string;
  // An MCP client through browser sign-in.
  const { client, serverUrl, code, iss } = await authorizeWithConsent(svc.url, svc.ctx.config.baseUrl, jar);
  assert.equal(await auth(client, { serverUrl, authorizationCode: code, iss }), 'AUTHORIZED');
  const oauthAccess = client.saved.access_token as string;
  const refresh = client.saved.refresh_token as string;
  // An API key.
  const key = await createKey(jar, 'production');
  assert.equal(await bearer('/api/auth/me', cliToken), 200);
  assert.equal(await bearer('/api/auth/me', oauthAccess), 200);
  assert.equal(await bearer('/api/v1/usage', key), 200);

  assert.equal((await submit('/reset-password', new CookieJar(), { email })).status, 200);
  const resetMail = await newestMail(svc.url, email, RESET_MAIL_SUBJECT);
  const link = linkIn(resetMail.text, '/reset-password');
  const other = new CookieJar();
  const page = await getPage(link, other);
  assert.equal(page.status, 200);
  const done = await postForm(link, other, { csrf: csrfFrom(page.body), new_password: LATER_PW });
  assert.equal(done.status, 200, done.body.slice(0, 300));

  assert.equal((await getPage(`${svc.url}/account`, jar)).status, 303, 'web sessions ended');
  assert.equal(await bearer('/api/auth/me', cliToken), 401, "the CLI's access token is refused");
  const exchange = await tokenRequest(svc.url, { grant_type: JWT_BEARER_GRANT, assertion });
  assert.equal(exchange.status, 400, "the CLI's 90-day identity assertion gets no new token");
  assert.equal(exchange.json.error, 'invalid_grant');
  assert.equal(
    (await tokenRequest(svc.url, { grant_type: CLAIM_GRANT, claim_token: reg.json.claim_token })).json.error,
    'invalid_grant',
    'nor does a repeat of the claim poll',
  );
  assert.equal(await bearer('/api/auth/me', oauthAccess), 401, "the OAuth client's access token is refused");
  const renewed = await tokenRequest(svc.url, { grant_type: 'refresh_token', refresh_token: refresh, client_id: client.info.client_id });
  assert.equal(renewed.status, 400, 'its refresh token is dead');
  assert.equal(renewed.json.error, 'invalid_grant');
  assert.equal(await bearer('/api/v1/usage', key), 401, 'the API key is revoked');

  // The reset mail said it would, the page listed each by name before, and the mail after says what ended.
  assert.match(resetMail.text, /ends every app, agent, CLI login and API key/);
  const willEnd = /<ul id="will-end">([\s\S]*?)<\/ul>/.exec(decoded(page.body))?.[1] ?? '';
  for (const named of [
    /browser sessions? \(signed out\)/,
    /Connected apps[^<]*Test MCP client/,
    /Linked agents and CLI logins[^<]*CLI on build-box/,
    /REST API keys[^<]*"production" \(sl_live_/,
  ])
    assert.match(willEnd, named);
  const told = await newestMail(svc.url, email, 'Your siteline password was reset');
  for (const named of [/Test MCP client/, /CLI on build-box/, /"production" \(sl_live_/]) assert.match(told.text, named);
  const revoked = await getPage(`${svc.url}/account/api-keys`, await signedIn(email, LATER_PW));
  assert.match(revoked.body, /<td>production<\/td>[\s\S]*?revoked /, 'the account page shows the key revoked');
});

test('a completed move mails the old address a link that moves the account back, with a new password, for 7 days', async () => {
  const old = 'mover@example.com';
  await signUpOrIn(svc.url, old);
  const thief = await signedIn(old, TEST_PASSWORD);
  const move = await askToMove(thief, 'taker@example.net', TEST_PASSWORD);
  const shown = await getPage(move, thief);
  const moved = await postForm(move, thief, { csrf: csrfFrom(shown.body) });
  assert.equal(moved.status, 200, moved.body.slice(0, 300));
  // The thief now holds the address and changes the password too: the undo still works.
  assert.equal((await submit('/account/password', thief, { current_password: TEST_PASSWORD, new_password: THIEF_PW })).status, 200);
  const notice = await newestMail(svc.url, old, 'Your siteline e-mail address was changed');
  assert.match(notice.text, /now uses taker@example\.net[\s\S]*undo it: open/);
  const undo = linkIn(notice.text, '/reset-password');
  const jar = new CookieJar();
  const form = await getPage(undo, jar);
  assert.equal(form.status, 200, form.body.slice(0, 300));
  assert.match(form.body, /now uses <strong>taker@example\.net<\/strong> back to <strong id="undo-to">mover@example\.com<\/strong>/);
  assert.equal(
    (await postForm(undo, jar, { csrf: csrfFrom(form.body), new_password: 'password123' })).status,
    400,
    'a weak password is refused, the link still works',
  );
  const undone = await postForm(undo, jar, { csrf: csrfFrom(form.body), new_password: UNDO_PW });
  assert.equal(undone.status, 200, undone.body.slice(0, 300));
  assert.match(undone.body, /id="email-change-undone">The account uses mover@example\.com again/);
  assert.equal((await signInWith(old, UNDO_PW)).status, 303);
  assert.equal((await signInWith('taker@example.net', THIEF_PW)).status, 401);
  assert.equal((await signInWith(old, THIEF_PW)).status, 401, "the thief's password is gone");
  assert.equal((await getPage(`${svc.url}/account`, thief)).status, 303, "the thief's session ended");
  assert.equal((await getPage(undo, new CookieJar())).status, 410, 'the link works once');
  assert.match(
    (await newestMail(svc.url, 'taker@example.net', 'This address no longer belongs to a siteline account')).text,
    /moved back to its previous address/,
  );
  assert.match(moved.body, /was told, with a link that undoes the change for 7 days/);

  // After 7 days the link no longer moves anything.
  const slow = 'slow@example.com';
  const slowJar = await signUpOrIn(svc.url, slow);
  const slowMove = await askToMove(slowJar, 'slow-new@example.net', TEST_PASSWORD);
  const slowShown = await getPage(slowMove, slowJar);
  assert.equal((await postForm(slowMove, slowJar, { csrf: csrfFrom(slowShown.body) })).status, 200);
  const slowUndo = linkIn((await newestMail(svc.url, slow, 'Your siteline e-mail address was changed')).text, '/reset-password');
  offsetMs += 7 * 86_400_000 + 60_000;
  const late = await getPage(slowUndo, new CookieJar());
  assert.equal(late.status, 410);
  assert.match(late.body, /link to undo an address change has expired/);
  assert.equal((await signInWith('slow-new@example.net', TEST_PASSWORD)).status, 303, 'the account stays where it was moved');
});
