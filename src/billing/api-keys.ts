// Prepaid REST API keys. A key is `sl_live_` + 32 base62 characters (about 190 random bits) + a
// 6-character base62 CRC-32 checksum, so a mistyped or truncated key is refused without a database
// call. Only the SHA-256 of a key is stored, with a short display prefix; the key is shown once.
// Keys open /api/v1 only (the MCP endpoint takes OAuth tokens), and a key cannot mint keys.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { rateWindow, type RateDecision, type RatePolicy } from '../ops/rate-limit.ts';
import { GroupCommit, groupCommitFor } from './group-commit.ts';
import { SNAPSHOT_PRICE } from './credit-ledger.ts';
import { accountVerified } from './verified-account.ts';

export const API_KEY_PREFIX = 'sl_live_';
const BODY_CHARS = 32;
const CHECK_CHARS = 6;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${BODY_CHARS + CHECK_CHARS}}$`);
/** How much of a key is kept in clear to tell keys apart in lists. */
const DISPLAY_CHARS = API_KEY_PREFIX.length + 4;
/** Unrevoked keys one account may hold at once. */
export const MAX_ACTIVE_KEYS = 25;
export const KEY_NAME_MAX = 80;
const KEY_NEEDS_VERIFIED =
  "No API key was created: this account's e-mail address is not verified yet. Open the link mailed to it at sign-up (the account page sends a new one), then create the key.";

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62(zlib.crc32(API_KEY_PREFIX + body), CHECK_CHARS);
}

/** A new key (not stored). */
export function newApiKey(): string {
  let body = '';
  for (let i = 0; i < BODY_CHARS; i++) body += BASE62[crypto.randomInt(62)];
  return API_KEY_PREFIX + body + checksum(body);
}

/** True when the text has a key's shape and a matching checksum (no database call). */
export function apiKeyWellFormed(key: string): boolean {
  if (!KEY_SHAPE.test(key)) return false;
  const body = key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY_CHARS);
  return key.slice(API_KEY_PREFIX.length + BODY_CHARS) === checksum(body);
}

function apiKeyHash(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface ApiKeyInfo {
  id: string;
  name: string;
  /** The first characters of the key, e.g. `sl_live_4fZq`. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface KeyRow {
  key_id: string;
  name: string;
  display_prefix: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
}

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

function info(r: KeyRow): ApiKeyInfo {
  return { id: r.key_id, name: r.name, prefix: r.display_prefix, createdAt: iso(r.created_at)!, lastUsedAt: iso(r.last_used_at), revokedAt: iso(r.revoked_at) };
}

/**
 * Creates a key for the account; the returned `key` is the only time the secret exists in clear.
 * Only an account whose address is verified gets one (issue 45: a key made by someone who signed up
 * with another person's address would keep spending that person's credit once they took it over).
 */
export async function createApiKey(ctx: AppContext, accountId: string, nameIn: string): Promise<ApiKeyInfo & { key: string }> {
  const name = nameIn.trim().replace(/\s+/g, ' ');
  if (name === '' || name.length > KEY_NAME_MAX)
    throw new SitelineError('bad_input', `A key needs a name of 1 to ${KEY_NAME_MAX} characters (e.g. "production").`);
  if (!(await accountVerified(ctx, accountId))) throw new SitelineError('forbidden', KEY_NEEDS_VERIFIED);
  const key = newApiKey();
  const id = `key_${crypto.randomBytes(12).toString('base64url')}`;
  const now = ctx.clock.now().toISOString();
  // The cap is checked in the INSERT itself (one statement, no read-then-write gap in the code).
  const rows = await ctx.db.query<KeyRow>(
    `INSERT INTO api_keys (key_id, account_id, key_hash, display_prefix, name, created_at)
     SELECT $1, $2, $3, $4, $5, $6
     WHERE (SELECT count(*) FROM api_keys WHERE account_id = $2 AND revoked_at IS NULL) < $7
     RETURNING key_id, name, display_prefix, created_at, last_used_at, revoked_at`,
    [id, accountId, apiKeyHash(key), key.slice(0, DISPLAY_CHARS), name, now, MAX_ACTIVE_KEYS],
  );
  if (!rows[0]) throw new SitelineError('conflict', `An account may hold at most ${MAX_ACTIVE_KEYS} active keys; revoke one first.`);
  return { ...info(rows[0]), key };
}

export async function listApiKeys(ctx: AppContext, accountId: string): Promise<ApiKeyInfo[]> {
  const rows = await ctx.db.query<KeyRow>(
    `SELECT key_id, name, display_prefix, created_at, last_used_at, revoked_at FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, key_id`,
    [accountId],
  );
  return rows.map(info);
}

/** Revokes one of the account's keys; false when the account holds no such key. Revoking twice is fine. */
export async function revokeApiKey(ctx: AppContext, accountId: string, keyId: string): Promise<boolean> {
  const rows = await ctx.db.query<{ key_id: string }>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE key_id = $1 AND account_id = $2 RETURNING key_id`,
    [keyId, accountId, ctx.clock.now().toISOString()],
  );
  return rows.length > 0;
}

/**
 * A paid call whose answer is already known (its snapshot came from the cache) asks its key check to
 * settle the bill in the same statement: `charge` (an answered snapshot, SNAPSHOT_PRICE credits) or
 * not (a free answer: only the balance is read). Nothing is charged when the rate limit refuses the call.
 */
export interface ChargeRequest {
  charge: boolean;
  /** Kept on the ledger entry (e.g. `sites/check <request id>`). */
  reference: string;
}
/** charged 0 on a wanted charge: the balance was short (or the call was over its rate limit). */
export interface ChargeOutcome {
  charged: number;
  /** The balance after this call's charge, as if the batch's charges had run one by one. */
  balance: number;
}

export type KeyLookup = { kind: 'valid'; keyId: string; accountId: string; rate?: RateDecision; charge?: ChargeOutcome } | { kind: 'invalid'; reason: string };

/**
 * The key's owner, read from the database on every call (no cache: a revocation holds at once on
 * every instance). With a rate policy, the key's request is counted in the same statement (subject
 * `key:<id>`), and concurrent checks share that statement (see group-commit.ts and countedKeyChecks),
 * so a paid call's key and limit cost a fraction of one round trip under load. With a charge too,
 * the same statement charges the call (see paidChecks). last_used_at is written (awaited, so a page
 * read next sees it) at most once a minute per key and instance.
 */
export async function lookupApiKey(ctx: AppContext, key: string, rate?: RatePolicy, charge?: ChargeRequest): Promise<KeyLookup> {
  if (!apiKeyWellFormed(key)) return { kind: 'invalid', reason: 'The API key is malformed (wrong length or checksum); copy it again from where it was shown.' };
  let found: { keyId: string; accountId: string; revoked: boolean; rate?: RateDecision; charge?: ChargeOutcome } | undefined;
  if (rate) {
    const keyHash = apiKeyHash(key);
    const checked = await (charge ? paidChecks(ctx, rate).submit({ keyHash, ...charge }) : countedChecks(ctx, rate).submit({ keyHash }));
    found = checked.keyId
      ? {
          keyId: checked.keyId,
          accountId: checked.accountId!,
          revoked: checked.revoked,
          ...(checked.rate ? { rate: checked.rate } : {}),
          ...(checked.charge ? { charge: checked.charge } : {}),
        }
      : undefined;
  } else {
    const row = (
      await ctx.db.query<{ key_id: string; account_id: string; revoked_at: Date | null }>(
        'SELECT key_id, account_id, revoked_at FROM api_keys WHERE key_hash = $1',
        [apiKeyHash(key)],
      )
    )[0];
    found = row ? { keyId: row.key_id, accountId: row.account_id, revoked: row.revoked_at !== null } : undefined;
  }
  if (!found) return { kind: 'invalid', reason: 'The API key is unknown.' };
  if (found.revoked) return { kind: 'invalid', reason: 'The API key has been revoked.' };
  await touchLastUsed(ctx, found.keyId);
  const valid: KeyLookup = { kind: 'valid' as const, keyId: found.keyId, accountId: found.accountId };
  if (found.rate) valid.rate = found.rate;
  if (found.charge) valid.charge = found.charge;
  return valid;
}

/** Counts one request of a user-token caller (subject `account:<id>`) against the policy, batched like key checks. */
export async function countApiRequest(ctx: AppContext, rate: RatePolicy, subject: string): Promise<RateDecision> {
  return (await countedChecks(ctx, rate).submit({ subject })).rate!;
}

/** countApiRequest, settling a paid call's bill in the same statement (see ChargeRequest). */
export async function countPaidApiRequest(
  ctx: AppContext,
  rate: RatePolicy,
  accountId: string,
  subject: string,
  charge: ChargeRequest,
): Promise<{ rate: RateDecision; charge: ChargeOutcome }> {
  const r = await paidChecks(ctx, rate).submit({ subject, accountId, ...charge });
  return { rate: r.rate!, charge: r.charge! };
}

type CheckReq = { keyHash: string; subject?: undefined } | { subject: string; keyHash?: undefined };
type PaidReq = ({ keyHash: string; subject?: undefined; accountId?: undefined } | { subject: string; accountId: string; keyHash?: undefined }) & ChargeRequest;
interface CheckRes {
  keyId?: string;
  accountId?: string;
  revoked: boolean;
  /** Absent for unknown or revoked keys (they are not counted). */
  rate?: RateDecision;
  /** Paid checks: the bill, for every counted call. */
  charge?: ChargeOutcome;
}

function countedChecks(ctx: AppContext, rate: RatePolicy): GroupCommit<CheckReq, CheckRes> {
  return groupCommitFor(
    ctx.db,
    `api-key-check:${rate.bucket}:${rate.limit}:${rate.windowSeconds}`,
    () => new GroupCommit((batch) => checkBatch(ctx, rate, batch)),
  );
}

function paidChecks(ctx: AppContext, rate: RatePolicy): GroupCommit<PaidReq, CheckRes> {
  return groupCommitFor(
    ctx.db,
    `api-paid-check:${rate.bucket}:${rate.limit}:${rate.windowSeconds}`,
    () => new GroupCommit((batch) => paidCheckBatch(ctx, rate, batch)),
  );
}

/** The decision for the request numbered `number` in its window (counted even when over the limit). */
function decision(rate: RatePolicy, window: ReturnType<typeof rateWindow>, number: number): RateDecision {
  const base = { limit: rate.limit, resetSeconds: window.resetSeconds, windowSeconds: rate.windowSeconds };
  return number <= rate.limit ? { allowed: true, remaining: Math.max(0, rate.limit - number), ...base } : { allowed: false, remaining: 0, ...base };
}

/** A new window opened: old windows go (as takeRateLimit does). */
async function sweepWindows(ctx: AppContext, window: ReturnType<typeof rateWindow>): Promise<void> {
  await ctx.db.query('DELETE FROM rate_limit_windows WHERE window_start < $1', [window.sweepBefore]);
}

const CHECK_BATCH_SQL = 'SELECT * FROM api_key_check_batch($1::text[], $2::text[], $3, $4)';
const PAID_BATCH_SQL = 'SELECT * FROM api_paid_call_batch($1::text[], $2::text[], $3::text[], $4::boolean[], $5::text[], $6, $7, $8, $9, $10)';

/**
 * One statement for a batch of key checks and counts (api_key_check_batch, migration 091): the keys are looked up, each unrevoked key's
 * and each user subject's requests are added to its window counter (one upsert row per subject, by
 * how many requests of the batch it has), and the counter after the batch comes back. The i-th
 * request of a subject in the batch is then request number (hits - n + i) of the window: allowed
 * while that is within the limit. Requests over the limit are counted too (they were made), so a
 * window's counter may pass the limit; the answer says remaining 0.
 */
async function checkBatch(ctx: AppContext, rate: RatePolicy, batch: CheckReq[]): Promise<CheckRes[]> {
  const window = rateWindow(ctx, rate);
  type Row = {
    o_ord: number;
    o_key_id: string | null;
    o_account_id: string | null;
    o_revoked: boolean | null;
    o_subject: string | null;
    o_hits: number | null;
    o_n: number | null;
  };
  // A function (its plan prepared once per session), called as a prepared statement (no parse per call).
  const rows = await ctx.db.prepared<Row>(CHECK_BATCH_SQL)([
    batch.map((b) => b.keyHash ?? null),
    batch.map((b) => b.subject ?? null),
    rate.bucket,
    window.windowStart,
  ]);
  const seen = new Map<string, number>();
  let opened = false;
  const out = rows.map((r): CheckRes => {
    const res: CheckRes = { revoked: r.o_revoked === true, ...(r.o_key_id ? { keyId: r.o_key_id, accountId: r.o_account_id! } : {}) };
    if (r.o_subject === null || r.o_hits === null || r.o_n === null) return res;
    const i = (seen.get(r.o_subject) ?? 0) + 1;
    seen.set(r.o_subject, i);
    const number = Number(r.o_hits) - Number(r.o_n) + i;
    if (number === 1) opened = true;
    res.rate = decision(rate, window, number);
    return res;
  });
  if (out.length !== batch.length) throw new Error(`key check: ${out.length} rows for ${batch.length} requests`);
  if (opened) await sweepWindows(ctx, window);
  return out;
}

/**
 * One statement for a batch of paid calls whose answers are known (api_paid_call_batch, migration
 * 092): the key check and count of checkBatch, and the charge of each counted call within the limit
 * that wants one, in arrival order per account while the balance covers it, with its ledger entry.
 * The statement commits before any of its calls is answered.
 */
async function paidCheckBatch(ctx: AppContext, rate: RatePolicy, batch: PaidReq[]): Promise<CheckRes[]> {
  const window = rateWindow(ctx, rate);
  type Row = {
    o_key_id: string | null;
    o_account_id: string | null;
    o_revoked: boolean | null;
    o_number: number | null;
    o_charged: boolean;
    o_balance: number;
    o_entries: number;
  };
  const rows = await ctx.db.prepared<Row>(PAID_BATCH_SQL)([
    batch.map((b) => b.keyHash ?? null),
    batch.map((b) => b.subject ?? null),
    batch.map((b) => b.accountId ?? null),
    batch.map((b) => b.charge),
    batch.map((b) => b.reference),
    rate.bucket,
    window.windowStart,
    rate.limit,
    SNAPSHOT_PRICE,
    ctx.clock.now().toISOString(),
  ]);
  if (rows.length !== batch.length) throw new Error(`paid check: ${rows.length} rows for ${batch.length} requests`);
  let opened = false;
  let charged = 0;
  const out = rows.map((r): CheckRes => {
    const res: CheckRes = {
      revoked: r.o_revoked === true,
      ...(r.o_key_id ? { keyId: r.o_key_id } : {}),
      ...(r.o_account_id ? { accountId: r.o_account_id } : {}),
    };
    if (r.o_number === null) return res;
    const number = Number(r.o_number);
    if (number === 1) opened = true;
    res.rate = decision(rate, window, number);
    res.charge = { charged: r.o_charged ? SNAPSHOT_PRICE : 0, balance: Number(r.o_balance) };
    if (r.o_charged) charged++;
    return res;
  });
  if (charged !== Number(rows[0]?.o_entries ?? 0)) throw new Error(`paid check: ${rows[0]?.o_entries} ledger entries for ${charged} charges`);
  if (opened) await sweepWindows(ctx, window);
  return out;
}

const LAST_USED_EVERY_MS = 60_000;
const lastWritten = new WeakMap<object, Map<string, number>>();

async function touchLastUsed(ctx: AppContext, keyId: string): Promise<void> {
  let seen = lastWritten.get(ctx.db);
  if (!seen) lastWritten.set(ctx.db, (seen = new Map()));
  const now = ctx.clock.now().getTime();
  const last = seen.get(keyId);
  if (last !== undefined && now - last < LAST_USED_EVERY_MS && now >= last) return;
  seen.set(keyId, now);
  if (seen.size > 10_000) seen.delete(seen.keys().next().value!);
  await ctx.db
    .query('UPDATE api_keys SET last_used_at = $2 WHERE key_id = $1 AND (last_used_at IS NULL OR last_used_at < $2)', [keyId, new Date(now).toISOString()])
    .catch((err: unknown) => ctx.logger.warn({ err, keyId }, 'could not record a key use'));
}
