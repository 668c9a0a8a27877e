// Prepaid REST API keys. A key is `sl_live_` + 32 base62 characters (about 190 random bits) + a
// 6-character base62 CRC-32 checksum, so a mistyped or truncated key is refused without a database
// call. Only the SHA-256 of a key is stored, with a short display prefix; the key is shown once.
// Keys open /api/v1 only (the MCP endpoint takes OAuth tokens), and a key cannot mint keys.
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { rateDecision, rateWindow, type RateDecision, type RatePolicy } from '../core/rate-limit.ts';

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

export function apiKeyHash(key: string): string {
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

/** Creates a key for the account; the returned `key` is the only time the secret exists in clear. */
export async function createApiKey(ctx: AppContext, accountId: string, nameIn: string): Promise<ApiKeyInfo & { key: string }> {
  const name = nameIn.trim().replace(/\s+/g, ' ');
  if (name === '' || name.length > KEY_NAME_MAX) throw new SitelineError('bad_input', `A key needs a name of 1 to ${KEY_NAME_MAX} characters (e.g. "production").`);
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

export type KeyLookup = { kind: 'valid'; keyId: string; accountId: string; rate?: RateDecision } | { kind: 'invalid'; reason: string };

/**
 * The key's owner, read from the database on every call (no cache: a revocation holds at once on
 * every instance). With a rate policy, the key's request is counted in the same statement (subject
 * `key:<id>`), so a paid call costs one round trip for the key and its limit. last_used_at is
 * written (awaited, so a page read next sees it) at most once a minute per key and instance.
 */
export async function lookupApiKey(ctx: AppContext, key: string, rate?: RatePolicy): Promise<KeyLookup> {
  if (!apiKeyWellFormed(key)) return { kind: 'invalid', reason: 'The API key is malformed (wrong length or checksum); copy it again from where it was shown.' };
  type Row = { key_id: string; account_id: string; revoked_at: Date | null; hits: number | null };
  let row: Row | undefined;
  let window: ReturnType<typeof rateWindow> | undefined;
  if (rate) {
    window = rateWindow(ctx, rate);
    row = (
      await ctx.db.query<Row>(
        `WITH k AS (SELECT key_id, account_id, revoked_at FROM api_keys WHERE key_hash = $1),
         counted AS (
           INSERT INTO rate_limit_windows (bucket, subject, window_start, hits)
           SELECT $2, 'key:' || key_id, $3, 1 FROM k WHERE revoked_at IS NULL
           ON CONFLICT (bucket, subject, window_start) DO UPDATE SET hits = rate_limit_windows.hits + 1
           WHERE rate_limit_windows.hits < $4
           RETURNING hits)
         SELECT k.key_id, k.account_id, k.revoked_at, (SELECT hits FROM counted) AS hits FROM k`,
        [apiKeyHash(key), rate.bucket, window.windowStart, rate.limit],
      )
    )[0];
  } else {
    row = (await ctx.db.query<Row>('SELECT key_id, account_id, revoked_at, NULL::int AS hits FROM api_keys WHERE key_hash = $1', [apiKeyHash(key)]))[0];
  }
  if (!row) return { kind: 'invalid', reason: 'The API key is unknown.' };
  if (row.revoked_at) return { kind: 'invalid', reason: 'The API key has been revoked.' };
  await touchLastUsed(ctx, row.key_id);
  const found = { kind: 'valid' as const, keyId: row.key_id, accountId: row.account_id };
  if (!rate || !window) return found;
  return { ...found, rate: await rateDecision(ctx, rate, window, row.hits === null ? undefined : Number(row.hits)) };
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
