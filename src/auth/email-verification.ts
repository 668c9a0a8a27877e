// E-mail verification: an account proves it controls its address by following a link mailed to it
// (through ctx.mailer, src/mail/). Until then it can do everything but link an
// agent (the claim ceremony) and buy credit. A link is `<link id>.<expiry>.<HMAC>`: the HMAC (a key
// kept in the database, shared by every instance) covers the id, the account, the address and the
// expiry, so an altered link is refused; the row makes it single use.
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import { instanceSecret } from '../db/instance-secret.ts';
import { EMAIL_VERIFY_LINK_TTL_S, EMAIL_VERIFY_MAILS_PER_HOUR, EMAIL_VERIFY_RESEND_GAP_S } from './lifetimes.ts';

export const VERIFY_EMAIL_PATH = '/verify-email';
export const VERIFY_MAIL_SUBJECT = 'Confirm your e-mail address for siteline';

const linkKey = (ctx: AppContext): Promise<Buffer> => instanceSecret(ctx, 'email_link_keys');

const mac = (key: Buffer, linkId: string, accountId: string, email: string, expires: number) =>
  crypto.createHmac('sha256', key).update(`siteline-email-verify:${linkId}:${accountId}:${email}:${expires}`).digest('base64url');

/** True once the account followed a verification link. */
export async function isEmailVerified(ctx: AppContext, accountId: string): Promise<boolean> {
  const rows = await ctx.db.query<{ email_verified_at: Date | null }>('SELECT email_verified_at FROM accounts WHERE account_id = $1', [accountId]);
  return rows[0]?.email_verified_at != null;
}

export async function emailVerifiedAt(ctx: AppContext, accountId: string): Promise<string | undefined> {
  const rows = await ctx.db.query<{ email_verified_at: Date | null }>('SELECT email_verified_at FROM accounts WHERE account_id = $1', [accountId]);
  const at = rows[0]?.email_verified_at;
  return at ? new Date(at).toISOString() : undefined;
}

export type SendOutcome =
  | { sent: true; expiresAt: string }
  | { sent: false; reason: 'already_verified'; message: string }
  | { sent: false; reason: 'throttled'; message: string; retryAfterS: number };

/**
 * Mails a new verification link to the account's address: at most one a minute and
 * EMAIL_VERIFY_MAILS_PER_HOUR an hour per account (a resend button cannot flood a mailbox).
 */
export async function sendVerificationMail(ctx: AppContext, account: { accountId: string; email: string }): Promise<SendOutcome> {
  if (await isEmailVerified(ctx, account.accountId)) return { sent: false, reason: 'already_verified', message: 'Your e-mail address is already verified.' };
  const now = ctx.clock.now();
  const recent = await ctx.db.query<{ created_at: Date }>(
    'SELECT created_at FROM email_verification_links WHERE account_id = $1 AND created_at > $2 ORDER BY created_at',
    [account.accountId, new Date(now.getTime() - 3600_000).toISOString()],
  );
  const last = recent.at(-1);
  const sinceLast = last ? (now.getTime() - new Date(last.created_at).getTime()) / 1000 : Infinity;
  if (sinceLast < EMAIL_VERIFY_RESEND_GAP_S || recent.length >= EMAIL_VERIFY_MAILS_PER_HOUR) {
    const retryAfterS = Math.max(
      1,
      Math.ceil(
        sinceLast < EMAIL_VERIFY_RESEND_GAP_S
          ? EMAIL_VERIFY_RESEND_GAP_S - sinceLast
          : (new Date(recent[0]!.created_at).getTime() + 3600_000 - now.getTime()) / 1000,
      ),
    );
    const wait = retryAfterS >= 120 ? `${Math.ceil(retryAfterS / 60)} minutes` : `${retryAfterS} seconds`;
    return {
      sent: false,
      reason: 'throttled',
      message: `A verification e-mail was sent recently. Check your mailbox, or ask for a new one in ${wait}.`,
      retryAfterS,
    };
  }
  const linkId = crypto.randomBytes(16).toString('base64url');
  const expires = Math.floor(now.getTime() / 1000) + EMAIL_VERIFY_LINK_TTL_S;
  await ctx.db.query('INSERT INTO email_verification_links (link_id, account_id, email, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    linkId,
    account.accountId,
    account.email,
    now.toISOString(),
    new Date(expires * 1000).toISOString(),
  ]);
  const token = `${linkId}.${expires}.${mac(await linkKey(ctx), linkId, account.accountId, account.email, expires)}`;
  const link = `${ctx.config.baseUrl}${VERIFY_EMAIL_PATH}/${token}`;
  const expiresAt = new Date(expires * 1000).toISOString();
  await ctx.mailer.send({
    to: account.email,
    subject: VERIFY_MAIL_SUBJECT,
    text:
      `Someone (hopefully you) created a siteline account for ${account.email}.\n\n` +
      `To confirm this address, open ${link} and press the button. The link works once, until ${expiresAt}.\n` +
      `Until you confirm it, the account cannot link an agent or buy credit. If you did not sign up, ignore this message.\n`,
  });
  ctx.logger.info({ accountId: account.accountId }, 'verification mail sent');
  return { sent: true, expiresAt };
}

export type LinkState = { state: 'valid'; accountId: string; email: string } | { state: 'invalid' | 'expired' | 'used' };

interface LinkRow {
  link_id: string;
  account_id: string;
  email: string;
  used_at: Date | null;
}

async function checkToken(ctx: AppContext, token: string, rowOf: (linkId: string) => Promise<LinkRow | undefined>): Promise<LinkState & { row?: LinkRow }> {
  const m = /^([A-Za-z0-9_-]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return { state: 'invalid' };
  const [, linkId, expiresRaw, sig] = m as unknown as [string, string, string, string];
  const row = await rowOf(linkId);
  if (!row) return { state: 'invalid' };
  const expires = Number(expiresRaw);
  const want = Buffer.from(mac(await linkKey(ctx), linkId, row.account_id, row.email, expires));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !crypto.timingSafeEqual(want, got)) return { state: 'invalid' };
  if (expires * 1000 <= ctx.clock.now().getTime()) return { state: 'expired' };
  if (row.used_at) return { state: 'used' };
  return { state: 'valid', accountId: row.account_id, email: row.email, row };
}

/** What a link is worth, without using it (the page that shows the confirm button). */
export async function inspectVerificationLink(ctx: AppContext, token: string): Promise<LinkState> {
  const s = await checkToken(
    ctx,
    token,
    async (id) => (await ctx.db.query<LinkRow>('SELECT link_id, account_id, email, used_at FROM email_verification_links WHERE link_id = $1', [id]))[0],
  );
  return s.state === 'valid' ? { state: 'valid', accountId: s.accountId, email: s.email } : { state: s.state };
}

/** Uses a link: once, before its expiry, unaltered, for the address the account still has. */
export async function useVerificationLink(ctx: AppContext, token: string): Promise<LinkState> {
  const now = ctx.clock.now().toISOString();
  await linkKey(ctx); // loaded outside the transaction: PGlite has one connection, so no ctx.db call may run inside it
  return ctx.db.transaction(async (tx) => {
    const s = await checkToken(
      ctx,
      token,
      async (id) =>
        (await tx.query<LinkRow>('SELECT link_id, account_id, email, used_at FROM email_verification_links WHERE link_id = $1 FOR UPDATE', [id]))[0],
    );
    if (s.state !== 'valid') return { state: s.state };
    await tx.query('UPDATE email_verification_links SET used_at = $2 WHERE link_id = $1', [s.row!.link_id, now]);
    const verified = await tx.query(
      'UPDATE accounts SET email_verified_at = COALESCE(email_verified_at, $3) WHERE account_id = $1 AND email = $2 RETURNING 1',
      [s.accountId, s.email, now],
    );
    if (verified.length === 0) return { state: 'invalid' };
    ctx.logger.info({ accountId: s.accountId }, 'e-mail address verified');
    return { state: 'valid', accountId: s.accountId, email: s.email };
  });
}

/** The sentence every refused action shows (the pages add the resend button); billing refuses with it too, so it is billing's (auth sits above billing). */
export { UNVERIFIED_MESSAGE } from '../billing/verified-account.ts';
