// Getting back into an account and keeping it current: a password change (the current password
// required), a reset by e-mail (a single-use link stored hashed, valid for an hour, rate-limited, the
// same answer whether or not the address has an account), and an e-mail address change (the current
// password required; the new address confirms by a link; the old one is told, and once it is done gets
// a link that moves the account back for 7 days). Recovery wins (issue 45): a reset, a change of
// password, "sign out everywhere" and an undo end every credential of the account and cancel every
// pending address change (src/auth/end-credentials.ts), and the mail says what ended. docs/auth.md.
import type { AppContext } from '../context.ts';
import { newSecret, secretHash } from './secrets.ts';
import { BUSY, hashPassword, passwordProblem, signIn, validEmail, type Account } from './accounts.ts';
import { takeRateLimit, normaliseIp } from '../ops/rate-limit.ts';
import { afterCommit, credentialsOf, describeCredentials, endEveryCredential, type Credentials } from './end-credentials.ts';
import {
  EMAIL_CHANGE_TTL_S,
  EMAIL_CHANGE_UNDO_TTL_S,
  EMAIL_CHANGES_PER_ACCOUNT_HOURLY,
  PASSWORD_RESET_TTL_S,
  PASSWORD_RESETS_PER_CLIENT_HOURLY,
  PASSWORD_RESETS_PER_EMAIL_HOURLY,
} from './lifetimes.ts';

export const RESET_PATH = '/reset-password';
export const EMAIL_CHANGE_PATH = '/confirm-email-change';
/**
 * The undo link of an address change lives beside the reset links (it also sets a new password), told
 * apart by its prefix: the request log already drops the token from these paths (src/http/server.ts).
 */
export const EMAIL_UNDO_PATH = RESET_PATH;
export const RESET_MAIL_SUBJECT = 'Reset your siteline password';
export const EMAIL_CHANGE_MAIL_SUBJECT = 'Confirm your new e-mail address for siteline';
const RESET_PREFIX = 'slpr';
const EMAIL_CHANGE_PREFIX = 'slec';
export const EMAIL_UNDO_PREFIX = 'slue';
const TOKEN = (prefix: string) => new RegExp(`^${prefix}_[A-Za-z0-9_-]{43}$`);

/** Where a single-use link stands (`cancelled`: an address change ended by a recovery since it was asked for). */
export type LinkState = 'valid' | 'invalid' | 'expired' | 'used' | 'cancelled';

export type Refusal =
  | { ok: false; reason: 'wrong_password' | 'weak_password' | 'bad_email' | 'same_email' | 'email_taken'; message: string }
  | { ok: false; reason: 'throttled' | 'busy'; message: string; retryAfterS: number };

/** The lines of a mail that say what ended (or that nothing else could act for the account). */
function endedText(ended: Credentials, thisBrowser: boolean): string {
  const lines = describeCredentials(ended, { thisBrowser });
  return lines.length
    ? `Everything else that could act for the account was ended:\n${lines.map((l) => `  - ${l}`).join('\n')}\n`
    : 'Nothing else was signed in to the account (no other session, app, agent, CLI login, API key or pending address change).\n';
}

async function checkPassword(ctx: AppContext, account: Account, password: string, ip: string): Promise<Refusal | undefined> {
  const r = await signIn(ctx, account.email, password, ip);
  if (r.ok) return undefined;
  if (r.reason === 'invalid') return { ok: false, reason: 'wrong_password', message: 'Your current password is not right.' };
  return r;
}

/**
 * Changes the password of a signed-in account. Every credential of the account ends except this
 * browser's session (`currentSessionHash`): other sessions, apps, agents, CLI logins, API keys, and
 * pending address changes (end-credentials.ts). The notice mail says what ended.
 */
export async function changePassword(
  ctx: AppContext,
  account: Account,
  current: string,
  next: string,
  ip: string,
  currentSessionHash: string | undefined,
): Promise<{ ok: true; ended: Credentials } | Refusal> {
  const weak = passwordProblem(next, account.email);
  if (weak) return { ok: false, reason: 'weak_password', message: weak };
  const wrong = await checkPassword(ctx, account, current, ip);
  if (wrong) return wrong;
  const hashed = await hashPassword(next);
  if (!hashed) return { ok: false, reason: 'busy', message: BUSY, retryAfterS: 5 };
  const ended = await credentialsOf(ctx, account.accountId, currentSessionHash);
  await ctx.db.transaction(async (tx) => {
    await tx.query('UPDATE accounts SET password_hash = $2 WHERE account_id = $1', [account.accountId, hashed]);
    await endEveryCredential(ctx, tx, account.accountId, { reason: 'password changed', keepSessionHash: currentSessionHash });
  });
  afterCommit(ctx, account.accountId);
  ctx.logger.info({ accountId: account.accountId }, 'password changed; every other credential ended');
  await ctx.mailer.send({
    to: account.email,
    subject: 'Your siteline password was changed',
    text:
      `The password of the siteline account ${account.email} was changed on ${ctx.clock.now().toISOString()} from a signed-in browser, which stays signed in.\n\n` +
      endedText(ended, true) +
      `\nIf you did not do this, reset your password now: ${ctx.config.baseUrl}${RESET_PATH}\n`,
  });
  return { ok: true, ended };
}

/** "Sign out everywhere": every credential of the account ends, this browser's session too; the address is told what ended. */
export async function signOutEverywhere(ctx: AppContext, account: Account): Promise<Credentials> {
  const ended = await credentialsOf(ctx, account.accountId);
  await ctx.db.transaction((tx) => endEveryCredential(ctx, tx, account.accountId, { reason: 'signed out everywhere' }));
  afterCommit(ctx, account.accountId);
  ctx.logger.info({ accountId: account.accountId }, 'signed out everywhere');
  await ctx.mailer.send({
    to: account.email,
    subject: 'Your siteline account was signed out everywhere',
    text:
      `The siteline account ${account.email} was signed out everywhere on ${ctx.clock.now().toISOString()}.\n\n` +
      endedText(ended, false) +
      `\nIf you did not do this, someone may know your password: reset it at ${ctx.config.baseUrl}${RESET_PATH}\n`,
  });
  return ended;
}

/**
 * Mails a reset link when the address has an account, and a note saying no account uses it when it has
 * none. The caller shows the same answer whatever happens here (no account, the address's hourly limit
 * reached); only the client address's own limit is told (it says nothing about any account). Known and
 * unknown addresses cost the same work, so the answer's timing tells nothing either: one token drawn and
 * hashed, one INSERT … SELECT that writes a row only for an account, one message queued (issue 45).
 */
export async function requestPasswordReset(
  ctx: AppContext,
  emailIn: string,
  ip: string,
): Promise<{ ok: true } | { ok: false; reason: 'throttled'; message: string; retryAfterS: number }> {
  const byClient = await takeRateLimit(ctx, { bucket: 'reset-client', limit: PASSWORD_RESETS_PER_CLIENT_HOURLY, windowSeconds: 3600 }, normaliseIp(ip));
  if (!byClient.allowed) {
    return {
      ok: false,
      reason: 'throttled',
      message: `Too many reset requests from your network. Try again in ${Math.ceil(byClient.resetSeconds / 60)} minute(s).`,
      retryAfterS: byClient.resetSeconds,
    };
  }
  const email = validEmail(emailIn);
  if (!email) return { ok: true };
  const byEmail = await takeRateLimit(ctx, { bucket: 'reset-email', limit: PASSWORD_RESETS_PER_EMAIL_HOURLY, windowSeconds: 3600 }, email);
  if (!byEmail.allowed) {
    ctx.logger.warn({ throttle: 'reset-email' }, 'password reset throttled');
    return { ok: true };
  }
  const token = newSecret(RESET_PREFIX);
  const now = ctx.clock.now();
  const expires = new Date(now.getTime() + PASSWORD_RESET_TTL_S * 1000);
  const [account] = await ctx.db.query<{ account_id: string }>(
    'INSERT INTO password_resets (token_hash, account_id, created_at, expires_at) SELECT $1, account_id, $3, $4 FROM accounts WHERE email = $2 RETURNING account_id',
    [secretHash(token), email, now.toISOString(), expires.toISOString()],
  );
  await ctx.mailer.send({
    to: email,
    subject: RESET_MAIL_SUBJECT,
    text: account
      ? `Someone (hopefully you) asked to reset the password of the siteline account ${email}.\n\n` +
        `To choose a new password, open ${ctx.config.baseUrl}${RESET_PATH}/${token}\n` +
        `The link works once, until ${expires.toISOString()}. Setting a new password signs the account out everywhere and ends every app, agent, CLI login and API key that can act for it, and any pending change of its address (the page lists them first).\n` +
        `If you did not ask for this, ignore this message: your password stays as it is.\n`
      : `Someone (hopefully you) asked to reset the password of a siteline account for ${email}, but no siteline account uses this address.\n\n` +
        `If you have an account, it may be under another address: ask again with that one at ${ctx.config.baseUrl}${RESET_PATH}. ` +
        `To create an account with this address: ${ctx.config.baseUrl}/signup\n` +
        `If you did not ask for this, ignore this message.\n`,
  });
  ctx.logger.info(
    account ? { accountId: account.account_id } : {},
    account ? 'password reset link sent' : 'password reset asked for an address with no account',
  );
  return { ok: true };
}

interface TokenRow {
  token_hash: string;
  account_id: string;
  expires_at: Date | string;
  used_at: Date | string | null;
  cancelled_at?: Date | string | null;
}

function stateOf(ctx: AppContext, row: TokenRow | undefined): LinkState {
  if (!row) return 'invalid';
  if (row.used_at) return 'used';
  if (row.cancelled_at) return 'cancelled';
  if (new Date(row.expires_at).getTime() <= ctx.clock.now().getTime()) return 'expired';
  return 'valid';
}

/** What a reset link is worth, without using it; a valid one says what setting the password will end. */
export async function inspectResetLink(ctx: AppContext, token: string): Promise<{ state: LinkState; email?: string; willEnd?: Credentials }> {
  if (!TOKEN(RESET_PREFIX).test(token)) return { state: 'invalid' };
  const rows = await ctx.db.query<TokenRow & { email: string }>(
    'SELECT r.token_hash, r.account_id, r.expires_at, r.used_at, a.email FROM password_resets r JOIN accounts a USING (account_id) WHERE r.token_hash = $1',
    [secretHash(token)],
  );
  const state = stateOf(ctx, rows[0]);
  if (state !== 'valid') return { state };
  return { state, email: rows[0]!.email, willEnd: await credentialsOf(ctx, rows[0]!.account_id) };
}

/**
 * Uses a reset link: a new password, and every credential of the account ended with it (sessions,
 * apps, agents, CLI logins, API keys, pending address changes). Changes nothing unless the link is valid.
 */
export async function completePasswordReset(
  ctx: AppContext,
  token: string,
  password: string,
): Promise<{ ok: true; email: string; ended: Credentials } | { ok: false; reason: LinkState | 'weak_password' | 'busy'; message: string }> {
  if (!TOKEN(RESET_PREFIX).test(token)) return { ok: false, reason: 'invalid', message: 'This reset link is not valid.' };
  const [row] = await ctx.db.query<TokenRow & { email: string }>(
    'SELECT r.token_hash, r.account_id, r.expires_at, r.used_at, a.email FROM password_resets r JOIN accounts a USING (account_id) WHERE r.token_hash = $1',
    [secretHash(token)],
  );
  const before = stateOf(ctx, row);
  if (before !== 'valid') return { ok: false, reason: before, message: `This reset link is ${before === 'invalid' ? 'not valid' : before}.` };
  const weak = passwordProblem(password, row!.email);
  if (weak) return { ok: false, reason: 'weak_password', message: weak };
  const hashed = await hashPassword(password);
  if (!hashed) return { ok: false, reason: 'busy', message: BUSY };
  const now = ctx.clock.now().toISOString();
  const ended = await credentialsOf(ctx, row!.account_id);
  // The link is used under a row lock: two submissions at once change the password once.
  const outcome = await ctx.db.transaction(async (tx) => {
    const [locked] = await tx.query<TokenRow>('SELECT token_hash, account_id, expires_at, used_at FROM password_resets WHERE token_hash = $1 FOR UPDATE', [
      row!.token_hash,
    ]);
    const state = stateOf(ctx, locked);
    if (state !== 'valid') return state;
    // Every reset link of the account ends with this one; following the mailed link proves the address too.
    await tx.query('UPDATE password_resets SET used_at = $2 WHERE account_id = $1 AND used_at IS NULL', [row!.account_id, now]);
    await tx.query('UPDATE accounts SET password_hash = $2, email_verified_at = COALESCE(email_verified_at, $3) WHERE account_id = $1 AND email = $4', [
      row!.account_id,
      hashed,
      now,
      row!.email,
    ]);
    await endEveryCredential(ctx, tx, row!.account_id, { reason: 'password reset' });
    return 'valid' as const;
  });
  if (outcome !== 'valid') return { ok: false, reason: outcome, message: `This reset link is ${outcome === 'invalid' ? 'not valid' : outcome}.` };
  afterCommit(ctx, row!.account_id);
  ctx.logger.info({ accountId: row!.account_id }, 'password reset; every credential ended');
  await ctx.mailer.send({
    to: row!.email,
    subject: 'Your siteline password was reset',
    text:
      `The password of the siteline account ${row!.email} was reset through an e-mailed link on ${now}, and every session was signed out.\n\n` +
      endedText(ended, false) +
      `\nIf you did not do this, reset it again at ${ctx.config.baseUrl}${RESET_PATH} and tell us.\n`,
  });
  return { ok: true, email: row!.email, ended };
}

/** Starts an e-mail address change: the new address gets a link, the old one a notice. */
export async function requestEmailChange(
  ctx: AppContext,
  account: Account,
  newEmailIn: string,
  password: string,
  ip: string,
): Promise<{ ok: true; newEmail: string; expiresAt: string } | Refusal> {
  const newEmail = validEmail(newEmailIn);
  if (!newEmail) return { ok: false, reason: 'bad_email', message: 'Enter a valid e-mail address.' };
  if (newEmail === account.email) return { ok: false, reason: 'same_email', message: 'That is already your address.' };
  const wrong = await checkPassword(ctx, account, password, ip);
  if (wrong) return wrong;
  const limit = await takeRateLimit(ctx, { bucket: 'email-change', limit: EMAIL_CHANGES_PER_ACCOUNT_HOURLY, windowSeconds: 3600 }, account.accountId);
  if (!limit.allowed) {
    return {
      ok: false,
      reason: 'throttled',
      message: `Too many address changes asked for. Try again in ${Math.ceil(limit.resetSeconds / 60)} minute(s).`,
      retryAfterS: limit.resetSeconds,
    };
  }
  // Told only to someone who knows this account's password.
  const taken = await ctx.db.query('SELECT 1 FROM accounts WHERE email = $1', [newEmail]);
  if (taken.length) return { ok: false, reason: 'email_taken', message: 'Another account uses that address.' };
  const token = newSecret(EMAIL_CHANGE_PREFIX);
  const now = ctx.clock.now();
  const expires = new Date(now.getTime() + EMAIL_CHANGE_TTL_S * 1000);
  await ctx.db.query('INSERT INTO email_changes (token_hash, account_id, old_email, new_email, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    secretHash(token),
    account.accountId,
    account.email,
    newEmail,
    now.toISOString(),
    expires.toISOString(),
  ]);
  await ctx.mailer.send({
    to: newEmail,
    subject: EMAIL_CHANGE_MAIL_SUBJECT,
    text:
      `The siteline account ${account.email} asked to use this address (${newEmail}) from now on.\n\n` +
      `To confirm it, open ${ctx.config.baseUrl}${EMAIL_CHANGE_PATH}/${token} and press the button. The link works once, until ${expires.toISOString()}.\n` +
      `If you did not ask for this, ignore this message: nothing changes.\n`,
  });
  await ctx.mailer.send({
    to: account.email,
    subject: 'A change of your siteline e-mail address was requested',
    text:
      `Someone signed in to the siteline account ${account.email} asked to change its address to ${newEmail}. Nothing changes until the new address confirms it.\n\n` +
      `If this was not you, someone knows your password: reset it at ${ctx.config.baseUrl}${RESET_PATH}. The reset cancels this change (its link stops working) and ends everything signed in to the account.\n`,
  });
  ctx.logger.info({ accountId: account.accountId }, 'e-mail change requested');
  return { ok: true, newEmail, expiresAt: expires.toISOString() };
}

interface ChangeRow extends TokenRow {
  old_email: string;
  new_email: string;
}

export async function inspectEmailChange(ctx: AppContext, token: string): Promise<{ state: LinkState; newEmail?: string }> {
  if (!TOKEN(EMAIL_CHANGE_PREFIX).test(token)) return { state: 'invalid' };
  const [row] = await ctx.db.query<ChangeRow>(
    'SELECT token_hash, account_id, expires_at, used_at, cancelled_at, old_email, new_email FROM email_changes WHERE token_hash = $1',
    [secretHash(token)],
  );
  const state = stateOf(ctx, row);
  return state === 'valid' ? { state, newEmail: row!.new_email } : { state };
}

/**
 * Uses an e-mail change link: the account's address becomes the new one, verified. The old address is
 * told, with a link that moves the account back for EMAIL_CHANGE_UNDO_TTL_S (see undoEmailChange).
 */
export async function completeEmailChange(
  ctx: AppContext,
  token: string,
): Promise<{ ok: true; oldEmail: string; newEmail: string } | { ok: false; reason: LinkState | 'email_taken'; message: string }> {
  if (!TOKEN(EMAIL_CHANGE_PREFIX).test(token)) return { ok: false, reason: 'invalid', message: 'This link is not valid.' };
  const now = ctx.clock.now().toISOString();
  const undoToken = newSecret(EMAIL_UNDO_PREFIX);
  const undoExpires = new Date(ctx.clock.now().getTime() + EMAIL_CHANGE_UNDO_TTL_S * 1000).toISOString();
  const outcome = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.query<ChangeRow>(
      'SELECT token_hash, account_id, expires_at, used_at, cancelled_at, old_email, new_email FROM email_changes WHERE token_hash = $1 FOR UPDATE',
      [secretHash(token)],
    );
    const state = stateOf(ctx, row);
    if (state !== 'valid') return { state } as const;
    const taken = await tx.query('SELECT 1 FROM accounts WHERE email = $1', [row!.new_email]);
    if (taken.length) return { state: 'email_taken' } as const;
    // Only from the address the link was asked for: a second change since then makes this link void.
    const changed = await tx.query('UPDATE accounts SET email = $3, email_verified_at = $4 WHERE account_id = $1 AND email = $2 RETURNING 1', [
      row!.account_id,
      row!.old_email,
      row!.new_email,
      now,
    ]);
    if (!changed.length) return { state: 'invalid' } as const;
    await tx.query('UPDATE email_changes SET used_at = $2 WHERE account_id = $1 AND used_at IS NULL', [row!.account_id, now]);
    await tx.query('INSERT INTO email_change_undos (token_hash, account_id, old_email, new_email, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      secretHash(undoToken),
      row!.account_id,
      row!.old_email,
      row!.new_email,
      now,
      undoExpires,
    ]);
    return { state: 'done', row: row! } as const;
  });
  if (outcome.state === 'email_taken') return { ok: false, reason: 'email_taken', message: 'Another account took that address in the meantime.' };
  if (outcome.state !== 'done')
    return { ok: false, reason: outcome.state, message: `This link is ${outcome.state === 'invalid' ? 'not valid' : outcome.state}.` };
  const { old_email: oldEmail, new_email: newEmail, account_id: accountId } = outcome.row;
  ctx.logger.info({ accountId }, 'e-mail address changed');
  await ctx.mailer.send({
    to: oldEmail,
    subject: 'Your siteline e-mail address was changed',
    text:
      `The siteline account that used ${oldEmail} now uses ${newEmail} (confirmed from that address on ${now}). Mail about the account goes there from now on.\n\n` +
      `If you did not ask for this, undo it: open ${ctx.config.baseUrl}${EMAIL_UNDO_PATH}/${undoToken} (it works once, until ${undoExpires}). ` +
      `The account goes back to ${oldEmail}, you choose a new password, and everything signed in to the account (sessions, apps, agents, CLI logins, API keys) is ended.\n`,
  });
  return { ok: true, oldEmail, newEmail };
}

interface UndoRow extends TokenRow {
  old_email: string;
  new_email: string;
}

/** What an undo link is worth, without using it: the address it moves the account back to. */
export async function inspectEmailUndo(ctx: AppContext, token: string): Promise<{ state: LinkState; oldEmail?: string; currentEmail?: string }> {
  if (!TOKEN(EMAIL_UNDO_PREFIX).test(token)) return { state: 'invalid' };
  const [row] = await ctx.db.query<UndoRow & { email: string }>(
    'SELECT u.token_hash, u.account_id, u.expires_at, u.used_at, u.old_email, u.new_email, a.email FROM email_change_undos u JOIN accounts a USING (account_id) WHERE u.token_hash = $1',
    [secretHash(token)],
  );
  const state = stateOf(ctx, row);
  return state === 'valid' ? { state, oldEmail: row!.old_email, currentEmail: row!.email } : { state };
}

/**
 * Uses an undo link (mailed to the old address when a change completed): the account goes back to the
 * old address (verified: the link proved it), takes the new password chosen here (whoever moved it
 * knew the old one), and every credential of the account ends, as after a reset. It works whatever
 * the address became since, as long as no other account has taken the old one.
 */
export async function undoEmailChange(
  ctx: AppContext,
  token: string,
  password: string,
): Promise<{ ok: true; email: string; ended: Credentials } | { ok: false; reason: LinkState | 'weak_password' | 'busy' | 'email_taken'; message: string }> {
  if (!TOKEN(EMAIL_UNDO_PREFIX).test(token)) return { ok: false, reason: 'invalid', message: 'This link is not valid.' };
  const [row] = await ctx.db.query<UndoRow & { email: string }>(
    'SELECT u.token_hash, u.account_id, u.expires_at, u.used_at, u.old_email, u.new_email, a.email FROM email_change_undos u JOIN accounts a USING (account_id) WHERE u.token_hash = $1',
    [secretHash(token)],
  );
  const before = stateOf(ctx, row);
  if (before !== 'valid') return { ok: false, reason: before, message: `This link is ${before === 'invalid' ? 'not valid' : before}.` };
  const weak = passwordProblem(password, row!.old_email);
  if (weak) return { ok: false, reason: 'weak_password', message: weak };
  const hashed = await hashPassword(password);
  if (!hashed) return { ok: false, reason: 'busy', message: BUSY };
  const now = ctx.clock.now().toISOString();
  const ended = await credentialsOf(ctx, row!.account_id);
  const outcome = await ctx.db.transaction(async (tx) => {
    const [locked] = await tx.query<UndoRow>(
      'SELECT token_hash, account_id, expires_at, used_at, old_email, new_email FROM email_change_undos WHERE token_hash = $1 FOR UPDATE',
      [row!.token_hash],
    );
    const state = stateOf(ctx, locked);
    if (state !== 'valid') return state;
    const taken = await tx.query('SELECT 1 FROM accounts WHERE email = $1 AND account_id <> $2', [row!.old_email, row!.account_id]);
    if (taken.length) return 'email_taken' as const;
    const [moved] = await tx.query<{ email: string }>('SELECT email FROM accounts WHERE account_id = $1 FOR UPDATE', [row!.account_id]);
    await tx.query('UPDATE accounts SET email = $2, email_verified_at = $3, password_hash = $4 WHERE account_id = $1', [
      row!.account_id,
      row!.old_email,
      now,
      hashed,
    ]);
    await tx.query('UPDATE email_change_undos SET used_at = $2 WHERE token_hash = $1', [row!.token_hash, now]);
    await endEveryCredential(ctx, tx, row!.account_id, { reason: 'e-mail change undone' });
    return { movedFrom: moved!.email };
  });
  if (outcome === 'email_taken')
    return {
      ok: false,
      reason: 'email_taken',
      message: `Another account uses ${row!.old_email} now, so the account cannot move back to it. Contact the people running siteline.`,
    };
  if (typeof outcome === 'string') return { ok: false, reason: outcome, message: `This link is ${outcome === 'invalid' ? 'not valid' : outcome}.` };
  afterCommit(ctx, row!.account_id);
  ctx.logger.info({ accountId: row!.account_id }, 'e-mail change undone; every credential ended');
  await ctx.mailer.send({
    to: row!.old_email,
    subject: 'Your siteline account is back on this address',
    text:
      `The siteline account that had moved to ${outcome.movedFrom} uses ${row!.old_email} again (undone through the link mailed here, on ${now}), with the new password chosen then.\n\n` +
      endedText(ended, false),
  });
  if (outcome.movedFrom !== row!.old_email) {
    await ctx.mailer.send({
      to: outcome.movedFrom,
      subject: 'This address no longer belongs to a siteline account',
      text: `The siteline account that used ${outcome.movedFrom} was moved back to its previous address on ${now}, through the link mailed there; everything signed in to it was signed out.\n`,
    });
  }
  return { ok: true, email: row!.old_email, ended };
}
