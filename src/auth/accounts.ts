// Accounts: e-mail + password (argon2id), and sign-in with throttled failures: per e-mail and client
// address together (5), per client address (20) and per e-mail over all addresses (100). The pair is
// the tight limit, so failures from one address never lock the owner out from another.
import crypto from 'node:crypto';
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import type { AppContext } from '../context.ts';
import { SIGN_IN_MAX_FAILURES_PER_EMAIL, SIGN_IN_MAX_FAILURES_PER_EMAIL_AND_IP, SIGN_IN_MAX_FAILURES_PER_IP, SIGN_IN_WINDOW_S } from './lifetimes.ts';

// OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane.
// Algorithm is an ambient const enum; 2 is Argon2id.
const ARGON = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

export interface Account {
  accountId: string;
  email: string;
}

export type SignUpResult = { ok: true; account: Account } | { ok: false; reason: 'email_taken' | 'bad_email' | 'weak_password'; message: string };
export type SignInResult =
  | { ok: true; account: Account }
  | { ok: false; reason: 'invalid'; message: string }
  | { ok: false; reason: 'throttled'; message: string; retryAfterS: number };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const normaliseEmail = (s: string) => s.trim().toLowerCase();

export async function createAccount(ctx: AppContext, emailIn: string, password: string): Promise<SignUpResult> {
  const email = normaliseEmail(emailIn);
  if (!EMAIL.test(email) || email.length > 254) return { ok: false, reason: 'bad_email', message: 'Enter a valid e-mail address.' };
  if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    return { ok: false, reason: 'weak_password', message: `Choose a password of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.` };
  }
  const accountId = crypto.randomUUID();
  const passwordHash = await hash(password, ARGON);
  const rows = await ctx.db.query<{ account_id: string }>(
    'INSERT INTO accounts (account_id, email, password_hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (email) DO NOTHING RETURNING account_id',
    [accountId, email, passwordHash, ctx.clock.now().toISOString()],
  );
  if (rows.length === 0) return { ok: false, reason: 'email_taken', message: 'An account with this e-mail already exists. Sign in instead.' };
  ctx.logger.info({ accountId }, 'account created');
  return { ok: true, account: { accountId, email } };
}

let dummyHash: Promise<string> | undefined;

export async function signIn(ctx: AppContext, emailIn: string, password: string, ip: string): Promise<SignInResult> {
  const email = normaliseEmail(emailIn);
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - SIGN_IN_WINDOW_S * 1000).toISOString();
  const keys = { pair: `pair:${email} ${ip}`, ip: `ip:${ip}`, email: `email:${email}` };
  const limits: Record<string, number> = {
    [keys.pair]: SIGN_IN_MAX_FAILURES_PER_EMAIL_AND_IP,
    [keys.ip]: SIGN_IN_MAX_FAILURES_PER_IP,
    [keys.email]: SIGN_IN_MAX_FAILURES_PER_EMAIL,
  };
  const counts = await ctx.db.query<{ throttle_key: string; n: number; oldest: Date }>(
    `SELECT throttle_key, count(*)::int AS n, min(failed_at) AS oldest FROM sign_in_failures
      WHERE throttle_key = ANY($1) AND failed_at > $2 GROUP BY throttle_key`,
    [Object.values(keys), since],
  );
  for (const c of counts) {
    if (c.n >= (limits[c.throttle_key] ?? Infinity)) {
      const retryAfterS = Math.max(1, Math.ceil((new Date(c.oldest).getTime() + SIGN_IN_WINDOW_S * 1000 - now.getTime()) / 1000));
      ctx.logger.warn({ throttle: c.throttle_key.split(':')[0] }, 'sign-in throttled');
      return { ok: false, reason: 'throttled', message: `Too many failed sign-ins. Try again in ${Math.ceil(retryAfterS / 60)} minute(s).`, retryAfterS };
    }
  }
  const rows = await ctx.db.query<{ account_id: string; password_hash: string }>('SELECT account_id, password_hash FROM accounts WHERE email = $1', [email]);
  const row = rows[0];
  // Unknown e-mails still cost one verify, so timing does not tell which addresses exist.
  dummyHash ??= hash(crypto.randomBytes(16).toString('hex'), ARGON);
  const good = await verify(row?.password_hash ?? (await dummyHash), password).catch(() => false);
  if (row && good) {
    await ctx.db.query('DELETE FROM sign_in_failures WHERE throttle_key = $1', [keys.pair]);
    return { ok: true, account: { accountId: row.account_id, email } };
  }
  await ctx.db.query('INSERT INTO sign_in_failures (throttle_key, failed_at) VALUES ($1, $4), ($2, $4), ($3, $4)', [keys.pair, keys.ip, keys.email, now.toISOString()]);
  await ctx.db.query('DELETE FROM sign_in_failures WHERE failed_at < $1', [new Date(now.getTime() - 24 * 3600_000).toISOString()]);
  return { ok: false, reason: 'invalid', message: 'That e-mail and password do not match an account.' };
}

export async function accountById(ctx: AppContext, accountId: string): Promise<Account | undefined> {
  const rows = await ctx.db.query<{ account_id: string; email: string }>('SELECT account_id, email FROM accounts WHERE account_id = $1', [accountId]);
  return rows[0] ? { accountId: rows[0].account_id, email: rows[0].email } : undefined;
}
