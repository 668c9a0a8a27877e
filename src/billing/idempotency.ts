// Idempotency-Key for billable POSTs, as Stripe does it: the first request with a key claims it (one
// INSERT that only one concurrent request can win), its response is stored with the charge (see
// spendCredit), and a retry within the window gets the stored response without a second charge. A
// retry with another body is refused. A retry that arrives while the first is still running waits for
// it. Responses that spend nothing and say "try again" (402, 429, 5xx) are not stored: the claim is
// released, so a retry after buying credit is answered afresh.
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';

/** How long a key's stored response is replayed. */
const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
/** A claim with no response after this long belongs to a request that died: a retry may take it over. */
export const IN_FLIGHT_TAKEOVER_MS = 30_000;
/** How long a retry waits for the first request with its key to finish. */
const WAIT_MS = 10_000;
export const IDEMPOTENCY_KEY_MAX = 255;

export function requestDigest(method: string, path: string, body: string): string {
  return crypto.createHash('sha256').update(`${method} ${path}\n${body}`, 'utf8').digest('hex');
}

/**
 * What the legacy column idempotency_keys.status_code holds once an answer is stored. Billing stores answers,
 * never HTTP outcomes: only a 200 answer was ever stored (refusals release the claim), and instances of the
 * previous release read the column as "a stored answer", so it is written with this one value until that
 * release is gone and a migration can drop it. Nothing here reads its value: only whether it is set.
 */
export const STORED_ANSWER = 200;

export interface StoredResponse {
  body: string;
  creditsCharged: number;
  creditsRemaining: number | null;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse } | { kind: 'mismatch' } | { kind: 'in_flight' };

interface Row {
  request_digest: string;
  status_code: number | null;
  response_body: string | null;
  credits_charged: number | null;
  credits_remaining: number | null;
  created_at: Date | string;
}

/** Claims the key for this request, or says what an earlier request with the same key left. */
export async function claimIdempotencyKey(ctx: AppContext, accountId: string, key: string, digest: string): Promise<Claim> {
  const deadline = Date.now() + WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const now = ctx.clock.now();
    // Expired keys of this account go first, so a key may be used again after the window.
    await ctx.db.query('DELETE FROM idempotency_keys WHERE account_id = $1 AND created_at < $2', [
      accountId,
      new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS).toISOString(),
    ]);
    const won = await ctx.db.query(
      `INSERT INTO idempotency_keys (account_id, idem_key, request_digest, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, idem_key) DO NOTHING RETURNING 1`,
      [accountId, key, digest, now.toISOString()],
    );
    if (won.length > 0) return { kind: 'claimed' };
    const rows = await ctx.db.query<Row>(
      'SELECT request_digest, status_code, response_body, credits_charged, credits_remaining, created_at FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2',
      [accountId, key],
    );
    const row = rows[0];
    if (!row) continue; // released or expired between the two statements: try to claim again
    if (row.request_digest !== digest) return { kind: 'mismatch' };
    if (row.status_code !== null) {
      return {
        kind: 'replay',
        response: {
          body: row.response_body ?? '',
          creditsCharged: Number(row.credits_charged ?? 0),
          creditsRemaining: row.credits_remaining === null ? null : Number(row.credits_remaining),
        },
      };
    }
    if (now.getTime() - new Date(row.created_at).getTime() > IN_FLIGHT_TAKEOVER_MS) {
      await releaseIdempotencyKey(ctx, accountId, key, true);
      continue;
    }
    if (Date.now() > deadline) return { kind: 'in_flight' };
    await new Promise((r) => setTimeout(r, Math.min(200, 10 * 2 ** Math.min(attempt, 5))));
  }
}

/** Stores an answer that spent nothing (answered:false): later retries replay it. */
export async function storeFreeResponse(ctx: AppContext, accountId: string, key: string, body: string, balance: number | null): Promise<void> {
  await ctx.db.query(
    `UPDATE idempotency_keys SET status_code = ${STORED_ANSWER}, response_body = $3, credits_charged = 0, credits_remaining = $4 WHERE account_id = $1 AND idem_key = $2 AND status_code IS NULL`,
    [accountId, key, body, balance],
  );
}

/** Gives the key up (the request failed or was refused for a reason a retry may not meet again). */
export async function releaseIdempotencyKey(ctx: AppContext, accountId: string, key: string, onlyInFlight = true): Promise<void> {
  await ctx.db.query(`DELETE FROM idempotency_keys WHERE account_id = $1 AND idem_key = $2${onlyInFlight ? ' AND status_code IS NULL' : ''}`, [accountId, key]);
}
