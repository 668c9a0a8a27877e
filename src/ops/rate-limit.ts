// Request limits counted in the database, so every instance on one PostgreSQL agrees (PGlite: one
// process, same code). Fixed windows: one upsert per request that never counts past the limit.
import type { Clock } from '../clock.ts';
import type { Queryable } from '../db/database.ts';

/** What a limit needs of the context: the database it counts in and the clock its windows follow. */
export interface RateContext {
  db: Queryable;
  clock: Clock;
}

export interface RatePolicy {
  bucket: string;
  limit: number;
  windowSeconds: number;
}

/** LOCATION: cityInventory's capability probes and /api/geo/coverage-status share it (spec: Limits). */
export const LOCATION_LIMIT: RatePolicy = { bucket: 'location', limit: 30, windowSeconds: 60 };

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Seconds until the window resets (>= 1). */
  resetSeconds: number;
  windowSeconds: number;
}

/** Windows older than this are swept when a new window opens. */
const SWEEP_AFTER_MS = 3_600_000;

/** The policy's current fixed window for the clock's now. */
export function rateWindow(ctx: RateContext, policy: RatePolicy): { windowStart: string; resetSeconds: number; sweepBefore: string } {
  const now = ctx.clock.now().getTime();
  const windowMs = policy.windowSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  return {
    windowStart: new Date(windowStart).toISOString(),
    resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
    sweepBefore: new Date(windowStart - SWEEP_AFTER_MS).toISOString(),
  };
}

/**
 * The decision from the counter an upsert returned (undefined: the window was full), sweeping old
 * windows when this request opened a new one. Callers that count inside a larger statement (the API
 * key check) use this with rateWindow and the same upsert as takeRateLimit.
 */
export async function rateDecision(
  ctx: RateContext,
  policy: RatePolicy,
  window: ReturnType<typeof rateWindow>,
  hits: number | undefined,
): Promise<RateDecision> {
  if (hits === 1) await ctx.db.query('DELETE FROM rate_limit_windows WHERE window_start < $1', [window.sweepBefore]);
  const base = { limit: policy.limit, resetSeconds: window.resetSeconds, windowSeconds: policy.windowSeconds };
  if (hits === undefined) return { allowed: false, remaining: 0, ...base };
  return { allowed: true, remaining: Math.max(0, policy.limit - Number(hits)), ...base };
}

/** Counts one request by subject against the policy and says whether it may proceed. */
export async function takeRateLimit(ctx: RateContext, policy: RatePolicy, subject: string): Promise<RateDecision> {
  const window = rateWindow(ctx, policy);
  const rows = await ctx.db.query<{ hits: number }>(
    `INSERT INTO rate_limit_windows (bucket, subject, window_start, hits) VALUES ($1, $2, $3, 1)
     ON CONFLICT (bucket, subject, window_start) DO UPDATE SET hits = rate_limit_windows.hits + 1
     WHERE rate_limit_windows.hits < $4
     RETURNING hits`,
    [policy.bucket, subject, window.windowStart, policy.limit],
  );
  return rateDecision(ctx, policy, window, rows[0]?.hits);
}

/** The LOCATION limit for one client IP (IPv4-mapped IPv6 counted as the IPv4 address). */
export function takeLocationProbe(ctx: RateContext, ip: string): Promise<RateDecision> {
  return takeRateLimit(ctx, LOCATION_LIMIT, normaliseIp(ip));
}

export function normaliseIp(ip: string): string {
  const v = ip.trim().toLowerCase();
  return v.startsWith('::ffff:') && v.includes('.') ? v.slice(7) : v || 'unknown';
}

/** The sentence a limited caller gets (the tool's isError text; the REST body's message). */
export function rateLimitMessage(d: RateDecision): string {
  return `Location lookups are limited to ${d.limit} per ${d.windowSeconds} seconds per IP address, and this limit is used up. Wait ${d.resetSeconds} seconds, then retry.`;
}
