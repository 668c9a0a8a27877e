// Accounts: e-mail + password (argon2id), and sign-in with throttled failures: per e-mail and client
// address together (5), per client address (20) and per e-mail over all addresses (100). The pair is
// the tight limit, so failures from one address never lock the owner out from another.
import crypto from 'node:crypto';
import { hash, verify, type Algorithm } from '@node-rs/argon2';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { dictionary as commonDictionary } from '@zxcvbn-ts/language-common';
import { sendVerificationMail } from './email-verification.ts';
import { takeRateLimit, normaliseIp, type RatePolicy } from '../ops/rate-limit.ts';
import { SIGN_IN_MAX_FAILURES_PER_EMAIL, SIGN_IN_MAX_FAILURES_PER_EMAIL_AND_IP, SIGN_IN_MAX_FAILURES_PER_IP, SIGN_IN_WINDOW_S } from './lifetimes.ts';

// OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane.
// Algorithm is an ambient const enum; 2 is Argon2id.
const ARGON = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const PASSWORD_MIN = 10;
const PASSWORD_MAX = 256;

/**
 * NIST SP 800-63B password rules: a length range counted in characters (code points), every character
 * allowed, no composition rules, and a refusal of passwords that are common (49,233 entries from breach
 * corpora, shipped by @zxcvbn-ts/language-common), one repeated character or a run of a sequence,
 * whitespace only, or the e-mail address itself.
 */
let commonPasswords: Set<string> | undefined;
export function passwordProblem(password: string, email = ''): string | undefined {
  const chars = [...password];
  if (chars.length < PASSWORD_MIN || chars.length > PASSWORD_MAX) return `Choose a password of ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`;
  if (password.trim() === '') return 'A password cannot be only spaces.';
  if (/\u0000/.test(password)) return 'A password cannot contain a NUL character.';
  const lower = password.toLowerCase();
  commonPasswords ??= new Set(commonDictionary['passwords-common'].map((p) => String(p).toLowerCase()));
  if (commonPasswords.has(lower) || commonPasswords.has(lower.trim()))
    return 'That password is on a list of commonly used (breached) passwords. Choose another one; a few unrelated words make a good password.';
  if (new Set(chars).size === 1) return 'A password cannot be one character repeated.';
  const codes = chars.map((c) => c.codePointAt(0)!);
  const step = codes[1]! - codes[0]!;
  if (Math.abs(step) === 1 && codes.every((c, i) => i === 0 || c - codes[i - 1]! === step))
    return 'A password cannot be a simple sequence (like 1234567890 or abcdefghij).';
  const e = normaliseEmail(email);
  if (e && (lower === e || lower === e.split('@')[0])) return 'A password cannot be your e-mail address.';
  return undefined;
}

export interface Account {
  accountId: string;
  email: string;
}

export type SignUpResult =
  | { ok: true; account: Account }
  | { ok: false; reason: 'email_taken' | 'bad_email' | 'weak_password'; message: string }
  | { ok: false; reason: 'throttled' | 'busy'; message: string; retryAfterS: number };
export type SignInResult =
  | { ok: true; account: Account }
  | { ok: false; reason: 'invalid'; message: string }
  | { ok: false; reason: 'throttled' | 'busy'; message: string; retryAfterS: number };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** C0/C1 control characters (NUL, tab, CR/LF, DEL, ...): never part of an e-mail address. */
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
const normaliseEmail = (s: string) => s.trim().toLowerCase();

/** Sign-ups that reach password hashing: per client address, and for the whole service (config: hourly limits). */
const signUpPolicies = (ctx: AppContext): { client: RatePolicy; all: RatePolicy } => ({
  client: { bucket: 'signup-client', limit: ctx.config.signUpsPerClientHourly, windowSeconds: 3600 },
  all: { bucket: 'signup-all', limit: ctx.config.signUpsHourly, windowSeconds: 3600 },
});

/**
 * argon2id takes 19 MiB and tens of milliseconds of a core per call: at most ARGON_CONCURRENCY run at
 * once (libuv's pool has 4 threads and also serves file and DNS work), and at most ARGON_QUEUE wait;
 * beyond that the request is refused as busy rather than queued without bound.
 */
export const ARGON_CONCURRENCY = 2;
export const ARGON_QUEUE = 32;

export class Semaphore {
  private active = 0;
  /** The most tasks that ever ran at once. */
  peak = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly startWatchers: (() => void)[] = [];
  constructor(
    private readonly slots: number,
    private readonly maxWaiting: number,
  ) {}
  /** Runs fn in a slot; undefined (without running it) when the queue is full. */
  async run<T>(fn: () => Promise<T>): Promise<T | undefined> {
    if (this.active >= this.slots) {
      if (this.waiting.length >= this.maxWaiting) return undefined;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    this.peak = Math.max(this.peak, this.active);
    for (const w of this.startWatchers.splice(0)) w();
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
  /** Resolves when the next task starts in a slot: the pool is at work (an awaited event, not a guess in time). */
  nextStart(): Promise<void> {
    return new Promise((resolve) => this.startWatchers.push(resolve));
  }
  get inUse(): number {
    return this.active;
  }
}

/** One per process: the hashing work of every request shares it. */
export const argonSlots = new Semaphore(ARGON_CONCURRENCY, ARGON_QUEUE);
const BUSY_MESSAGE: string = 'The service is busy; try again in a few seconds.';

export async function createAccount(ctx: AppContext, emailIn: string, password: string, ip = 'unknown'): Promise<SignUpResult> {
  // Cheap checks first: nothing below costs a hash until the input is sound and the client is within its limits.
  if (CONTROL_CHARS.test(emailIn)) return { ok: false, reason: 'bad_email', message: 'An e-mail address cannot contain control characters.' };
  const email = normaliseEmail(emailIn);
  if (!EMAIL.test(email) || email.length > 254) return { ok: false, reason: 'bad_email', message: 'Enter a valid e-mail address.' };
  const weak = passwordProblem(password, email);
  if (weak) return { ok: false, reason: 'weak_password', message: weak };
  const taken = await ctx.db.query('SELECT 1 FROM accounts WHERE email = $1', [email]);
  if (taken.length > 0) return { ok: false, reason: 'email_taken', message: 'An account with this e-mail already exists. Sign in instead.' };
  const policies = signUpPolicies(ctx);
  for (const [policy, subject] of [
    [policies.client, normaliseIp(ip)],
    [policies.all, '*'],
  ] as const) {
    const d = await takeRateLimit(ctx, policy, subject);
    if (!d.allowed) {
      ctx.logger.warn({ throttle: policy.bucket }, 'sign-up throttled');
      const who = policy === policies.all ? ' right now' : ' from your network';
      return {
        ok: false,
        reason: 'throttled',
        message: `Too many sign-ups${who}. Try again in ${Math.ceil(d.resetSeconds / 60)} minute(s).`,
        retryAfterS: d.resetSeconds,
      };
    }
  }
  const accountId = crypto.randomUUID();
  const passwordHash = await argonSlots.run(() => hash(password, ARGON));
  if (passwordHash === undefined) return { ok: false, reason: 'busy', message: BUSY_MESSAGE, retryAfterS: 5 };
  const rows = await ctx.db.query<{ account_id: string }>(
    'INSERT INTO accounts (account_id, email, password_hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (email) DO NOTHING RETURNING account_id',
    [accountId, email, passwordHash, ctx.clock.now().toISOString()],
  );
  if (rows.length === 0) return { ok: false, reason: 'email_taken', message: 'An account with this e-mail already exists. Sign in instead.' };
  ctx.logger.info({ accountId }, 'account created');
  // The account works at once (public tools, projects); linking an agent and buying credit wait for this link.
  await sendVerificationMail(ctx, { accountId, email });
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
  // Counted before verifying, atomically: this attempt is recorded as a failure first, then the window
  // is counted with it. Parallel attempts each see at least their own rank, so no more than the limit
  // ever reach the password check, however many arrive at once.
  const mine = await ctx.db.query<{ id: number }>('INSERT INTO sign_in_failures (throttle_key, failed_at) VALUES ($1, $4), ($2, $4), ($3, $4) RETURNING id', [
    keys.pair,
    keys.ip,
    keys.email,
    now.toISOString(),
  ]);
  const myIds = mine.map((r) => Number(r.id));
  const forget = () => ctx.db.query('DELETE FROM sign_in_failures WHERE id = ANY($1::bigint[])', [myIds]);
  const counts = await ctx.db.query<{ throttle_key: string; n: number; oldest: Date }>(
    `SELECT throttle_key, count(*)::int AS n, min(failed_at) AS oldest FROM sign_in_failures
      WHERE throttle_key = ANY($1) AND failed_at > $2 GROUP BY throttle_key`,
    [Object.values(keys), since],
  );
  for (const c of counts) {
    if (c.n > (limits[c.throttle_key] ?? Infinity)) {
      await forget(); // a refused attempt is not a failure: the window does not grow while throttled
      const retryAfterS = Math.max(1, Math.ceil((new Date(c.oldest).getTime() + SIGN_IN_WINDOW_S * 1000 - now.getTime()) / 1000));
      ctx.logger.warn({ throttle: c.throttle_key.split(':')[0] }, 'sign-in throttled');
      return { ok: false, reason: 'throttled', message: `Too many failed sign-ins. Try again in ${Math.ceil(retryAfterS / 60)} minute(s).`, retryAfterS };
    }
  }
  const rows = await ctx.db.query<{ account_id: string; password_hash: string }>('SELECT account_id, password_hash FROM accounts WHERE email = $1', [email]);
  const row = rows[0];
  // Unknown e-mails still cost one verify, so timing does not tell which addresses exist.
  dummyHash ??= hash(crypto.randomBytes(16).toString('hex'), ARGON);
  const stored = row?.password_hash ?? (await dummyHash);
  // verify rejects only a stored value that is not an argon2 hash: a damaged account row, never a wrong
  // password. It is logged and the sign-in fails as an error, not as "wrong password".
  const good = await argonSlots.run(() =>
    verify(stored, password).catch((err) => {
      ctx.logger.error(
        { accountId: row?.account_id, err: err instanceof Error ? err.message : String(err) },
        'sign-in: the stored password hash cannot be read',
      );
      throw new SitelineError('internal', 'The password could not be checked.');
    }),
  );
  if (good === undefined) {
    await forget();
    return { ok: false, reason: 'busy', message: BUSY_MESSAGE, retryAfterS: 5 };
  }
  ctx.logger.debug({ throttle: 'passed' }, 'password check');
  if (row && good) {
    await forget();
    await ctx.db.query('DELETE FROM sign_in_failures WHERE throttle_key = $1', [keys.pair]);
    return { ok: true, account: { accountId: row.account_id, email } };
  }
  await ctx.db.query('DELETE FROM sign_in_failures WHERE failed_at < $1', [new Date(now.getTime() - 24 * 3600_000).toISOString()]);
  return { ok: false, reason: 'invalid', message: 'That e-mail and password do not match an account.' };
}

export async function accountById(ctx: AppContext, accountId: string): Promise<Account | undefined> {
  const rows = await ctx.db.query<{ account_id: string; email: string }>('SELECT account_id, email FROM accounts WHERE account_id = $1', [accountId]);
  return rows[0] ? { accountId: rows[0].account_id, email: rows[0].email } : undefined;
}

/** An argon2id hash of a new password (undefined: the service is busy hashing; try again). */
export async function hashPassword(password: string): Promise<string | undefined> {
  return argonSlots.run(() => hash(password, ARGON));
}

/** The message a busy service gives (sign-up, sign-in, password changes). */
export const BUSY = BUSY_MESSAGE;

/** Same shape as the sign-up check: a well-formed address, lower-cased; undefined when it is not one. */
export function validEmail(emailIn: string): string | undefined {
  if (CONTROL_CHARS.test(emailIn)) return undefined;
  const email = normaliseEmail(emailIn);
  return EMAIL.test(email) && email.length <= 254 ? email : undefined;
}
