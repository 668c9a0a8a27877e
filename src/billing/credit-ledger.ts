// Prepaid credit. The balance lives in credit_accounts (CHECK balance >= 0) and every change is an
// append-only credit_ledger entry written in the same statement or transaction, so the ledger's
// amounts always sum to the balance. A spend is one guarded UPDATE that cannot overdraw under any
// concurrency: `balance = balance - cost WHERE balance >= cost`, and no row back means out of credit.
import { STORED_ANSWER } from './idempotency.ts';
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { SitelineError } from '../core/errors.ts';
import { GroupCommit, groupCommitFor } from './group-commit.ts';

export type LedgerKind = 'purchase' | 'grant' | 'spend' | 'refund' | 'clawback';

/** Credits one answered snapshot costs. */
export const SNAPSHOT_PRICE = 1;
/** The most credit one grant or purchase may add (a typo guard for the operator's command). */
export const MAX_CREDIT_PER_ENTRY = 10_000_000;

/** The net balance: credit left minus what refunds and disputes took back beyond it (can be below zero). */
export async function creditBalance(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ balance: number }>('SELECT balance - owed AS balance FROM credit_accounts WHERE account_id = $1', [accountId]);
  return Number(rows[0]?.balance ?? 0);
}

export interface SpendRequest {
  accountId: string;
  keyId: string | null;
  /** What was bought (e.g. `sites/check <request id>`), kept on the ledger entry. */
  reference: string;
  cost?: number;
  /** With an Idempotency-Key: the answer it replays is stored in the same statement as the spend. */
  idempotency?: { key: string; body: string };
}

export type SpendResult = { ok: true; charged: number; balance: number } | { ok: false; balance: number };

/**
 * Spends credit: balance update, ledger entry and (for idempotent requests) the stored response in
 * one statement, so all happen or none. ok:false means the balance was short and nothing was spent.
 * Spends without an idempotency key share a statement with the account's concurrent spends (group
 * commit, see spendBatch); each still gets its own entry, its own answer and its own balance after.
 */
export async function spendCredit(ctx: AppContext, req: SpendRequest): Promise<SpendResult> {
  const cost = req.cost ?? SNAPSHOT_PRICE;
  if (!Number.isSafeInteger(cost) || cost < 1) throw new SitelineError('bad_input', 'A spend costs a whole number of credits, at least 1.');
  if (!req.idempotency) {
    const q = groupCommitFor(
      ctx.db,
      `spend:${req.accountId}:${cost}`,
      () => new GroupCommit<SpendRequest, SpendResult>((batch) => spendBatch(ctx, req.accountId, cost, batch)),
    );
    return q.submit(req);
  }
  const now = ctx.clock.now().toISOString();
  const params: unknown[] = [req.accountId, cost, now, req.reference, req.keyId, req.idempotency.key, req.idempotency.body];
  const rows = await ctx.db.query<{ balance: number }>(
    `WITH spent AS (
       UPDATE credit_accounts SET balance = balance - $2, updated_at = $3 WHERE account_id = $1 AND balance >= $2 RETURNING balance),
     entry AS (
       INSERT INTO credit_ledger (account_id, kind, amount, reference, key_id, created_at)
       SELECT $1, 'spend', -$2::bigint, $4, $5, $3 FROM spent RETURNING entry_id),
     stored AS (
       UPDATE idempotency_keys SET status_code = ${STORED_ANSWER}, response_body = $7, credits_charged = $2, credits_remaining = (SELECT balance FROM spent)
       WHERE account_id = $1 AND idem_key = $6 AND EXISTS (SELECT 1 FROM spent) RETURNING 1)
     SELECT balance FROM spent, entry`,
    params,
  );
  if (rows[0]) return { ok: true, charged: cost, balance: Number(rows[0].balance) };
  return { ok: false, balance: await creditBalance(ctx.db, req.accountId) };
}

/**
 * One statement for n spends of one account at one cost: the balance row is locked (FOR UPDATE, so on
 * PostgreSQL a concurrent spend from another instance is waited for and its result read), k = as many
 * of the n as the balance covers (in arrival order) are taken in one guarded UPDATE, and k ledger
 * entries are appended. The CHECK (balance >= 0) stays the last guard. Request i (1-based) of the k
 * sees the balance as if the spends had run one by one: balance after all k + cost * (k - i).
 */
async function spendBatch(ctx: AppContext, accountId: string, cost: number, batch: SpendRequest[]): Promise<SpendResult[]> {
  const now = ctx.clock.now().toISOString();
  // The statement is credit_spend_batch (migration 091): a function, so its plan is prepared once per
  // session, called as a prepared statement (no parse per call).
  const rows = (
    await ctx.db.prepared<{ o_before: number | null; o_balance: number | null; o_taken: number | null; o_entries: number }>(
      'SELECT * FROM credit_spend_batch($1, $2, $3, $4, $5::text[], $6::text[])',
    )([accountId, cost, batch.length, now, batch.map((b) => b.reference), batch.map((b) => b.keyId)])
  ).map((r) => ({ before: r.o_before, balance: r.o_balance, taken: r.o_taken, entries: r.o_entries }));
  const r = rows[0];
  const taken = Number(r?.taken ?? 0);
  if (taken > 0 && Number(r!.entries) !== taken) throw new Error(`spend: ${r!.entries} ledger entries for ${taken} spends`);
  // Nothing taken: the balance as locked (short of the cost), or 0 for an account that never had credit.
  const after = taken > 0 ? Number(r!.balance) : Number(r?.before ?? 0);
  return batch.map((_, i) => (i < taken ? { ok: true, charged: cost, balance: after + cost * (taken - i - 1) } : { ok: false, balance: after }));
}

export interface CreditRequest {
  accountId: string;
  kind: Exclude<LedgerKind, 'spend' | 'clawback'>;
  credits: number;
  reference: string;
  /** A payment provider's event id: a second credit with the same id is ignored. */
  eventId?: string;
}

export type CreditResult = { credited: true; balance: number } | { credited: false; reason: 'duplicate_event'; balance: number };

/** Adds credit (purchase, grant, refund) exactly once per event id; `alongside` writes in the same transaction (a staff action's record). */
export async function addCredit(ctx: AppContext, req: CreditRequest, alongside?: (tx: Queryable) => Promise<void>): Promise<CreditResult> {
  if (!Number.isSafeInteger(req.credits) || req.credits < 1 || req.credits > MAX_CREDIT_PER_ENTRY) {
    throw new SitelineError('bad_input', `Credits must be a whole number from 1 to ${MAX_CREDIT_PER_ENTRY.toLocaleString('en-US')}.`);
  }
  const now = ctx.clock.now().toISOString();
  return ctx.db.transaction(async (tx) => {
    // The unique event id decides first: a concurrent redelivery waits here and then inserts nothing.
    const entry = await tx.query<{ entry_id: number }>(
      `INSERT INTO credit_ledger (account_id, kind, amount, reference, event_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (event_id) WHERE event_id IS NOT NULL DO NOTHING RETURNING entry_id`,
      [req.accountId, req.kind, req.credits, req.reference, req.eventId ?? null, now],
    );
    if (!entry[0]) return { credited: false, reason: 'duplicate_event', balance: await creditBalance(tx, req.accountId) };
    // What refunds and disputes took back beyond the balance (owed) is paid first; the rest is spendable.
    // Both SET expressions read the row as it was, so owed and balance move in one step.
    const rows = await tx.query<{ balance: number }>(
      `INSERT INTO credit_accounts (account_id, balance, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET
         balance = credit_accounts.balance + GREATEST(EXCLUDED.balance - credit_accounts.owed, 0),
         owed = GREATEST(credit_accounts.owed - EXCLUDED.balance, 0),
         updated_at = EXCLUDED.updated_at
       RETURNING balance - owed AS balance`,
      [req.accountId, req.credits, now],
    );
    if (alongside) await alongside(tx);
    return { credited: true, balance: Number(rows[0]!.balance) };
  });
}

export interface ClawbackRequest {
  /** The Stripe payment (PaymentIntent id) whose credit is taken back. */
  paymentIntent: string;
  /** The share of the payment refunded or disputed so far, in cents (cumulative, as Stripe reports it). */
  takenCents: number;
  reference: string;
  /** The payment provider's event id: the same event again takes nothing. */
  eventId: string;
}

export type ClawbackResult =
  | { kind: 'clawed'; accountId: string; credits: number; fromBalance: number; owed: number; balance: number }
  | { kind: 'nothing_to_take'; accountId: string; balance: number }
  | { kind: 'duplicate_event'; accountId: string; balance: number }
  | { kind: 'unknown_payment' };

/**
 * Takes back the credit a refunded or disputed payment granted, in proportion to the share taken
 * (floor(credits * takenCents / amountCents), never more than it granted, never twice: the purchase
 * row remembers what was taken, and the ledger's unique event id refuses a redelivery). The balance
 * drops by what it holds, never below zero; the rest becomes `owed`, paid first out of the next credit
 * (addCredit). One transaction, the purchase row locked, so concurrent events for one payment on two
 * instances take exactly the difference each.
 */
export async function clawBackCredit(ctx: AppContext, req: ClawbackRequest): Promise<ClawbackResult> {
  const now = ctx.clock.now().toISOString();
  return ctx.db.transaction(async (tx) => {
    const purchase = (
      await tx.query<{ account_id: string; credits: number | string; amount_cents: number | string; clawed_credits: number | string }>(
        'SELECT account_id, credits, amount_cents, clawed_credits FROM stripe_purchases WHERE payment_intent = $1 FOR UPDATE',
        [req.paymentIntent],
      )
    )[0];
    if (!purchase) return { kind: 'unknown_payment' } as const;
    const accountId = purchase.account_id;
    const credits = Number(purchase.credits);
    const amount = Number(purchase.amount_cents);
    const share = Math.min(Math.max(req.takenCents, 0), amount);
    // BigInt: credits * cents can pass 2^53 for a large purchase.
    const target = Number((BigInt(credits) * BigInt(share)) / BigInt(amount));
    const take = target - Number(purchase.clawed_credits);
    const seen = await tx.query('SELECT 1 FROM credit_ledger WHERE event_id = $1', [req.eventId]);
    if (seen.length) return { kind: 'duplicate_event', accountId, balance: await creditBalance(tx, accountId) } as const;
    if (take <= 0) return { kind: 'nothing_to_take', accountId, balance: await creditBalance(tx, accountId) } as const;
    const entry = await tx.query<{ entry_id: number }>(
      `INSERT INTO credit_ledger (account_id, kind, amount, reference, event_id, created_at) VALUES ($1, 'clawback', $2, $3, $4, $5)
       ON CONFLICT (event_id) WHERE event_id IS NOT NULL DO NOTHING RETURNING entry_id`,
      [accountId, -take, req.reference, req.eventId, now],
    );
    if (!entry[0]) return { kind: 'duplicate_event', accountId, balance: await creditBalance(tx, accountId) } as const;
    const before = (await tx.query<{ owed: number | string }>('SELECT owed FROM credit_accounts WHERE account_id = $1 FOR UPDATE', [accountId]))[0];
    // One statement: the balance gives what it has (never below zero), the rest is owed.
    const moved = await tx.query<{ owed: number | string; balance: number | string }>(
      `INSERT INTO credit_accounts AS c (account_id, balance, owed, updated_at) VALUES ($1, 0, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET
         balance = c.balance - LEAST(c.balance, $2),
         owed = c.owed + ($2 - LEAST(c.balance, $2)),
         updated_at = EXCLUDED.updated_at
       RETURNING c.owed, c.balance - c.owed AS balance`,
      [accountId, take, now],
    );
    await tx.query('UPDATE stripe_purchases SET clawed_credits = $2 WHERE payment_intent = $1', [req.paymentIntent, target]);
    const m = moved[0]!;
    const newlyOwed = Number(m.owed) - Number(before?.owed ?? 0);
    return { kind: 'clawed', accountId, credits: take, fromBalance: take - newlyOwed, owed: Number(m.owed), balance: Number(m.balance) } as const;
  });
}

export interface LedgerEntry {
  kind: LedgerKind;
  amount: number;
  reference: string;
  keyId: string | null;
  at: string;
}

export interface Usage {
  balance: number;
  recent: LedgerEntry[];
  /** Spends per UTC day, newest first, for the last `days` days that had any. */
  perDay: { day: string; charges: number; credits: number }[];
}

export async function usageOf(ctx: AppContext, accountId: string, opts: { recent?: number; days?: number } = {}): Promise<Usage> {
  const recentN = opts.recent ?? 20;
  const days = opts.days ?? 30;
  const since = new Date(ctx.clock.now().getTime() - days * 86_400_000).toISOString();
  const [balance, recent, perDay] = await Promise.all([
    creditBalance(ctx.db, accountId),
    ctx.db.query<{ kind: LedgerKind; amount: number; reference: string; key_id: string | null; created_at: Date | string }>(
      `SELECT kind, amount, reference, key_id, created_at FROM credit_ledger WHERE account_id = $1 ORDER BY created_at DESC, entry_id DESC LIMIT $2`,
      [accountId, recentN],
    ),
    ctx.db.query<{ day: string; charges: number; credits: number }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS charges, (-sum(amount))::int AS credits
       FROM credit_ledger WHERE account_id = $1 AND kind = 'spend' AND created_at >= $2 GROUP BY 1 ORDER BY 1 DESC`,
      [accountId, since],
    ),
  ]);
  return {
    balance,
    recent: recent.map((r) => ({ kind: r.kind, amount: Number(r.amount), reference: r.reference, keyId: r.key_id, at: new Date(r.created_at).toISOString() })),
    perDay: perDay.map((r) => ({ day: r.day, charges: Number(r.charges), credits: Number(r.credits) })),
  };
}

/** The sum of the account's ledger (equals the balance; tests and the CLI check it). */
export async function ledgerSum(db: Queryable, accountId: string): Promise<number> {
  const rows = await db.query<{ total: number | null }>('SELECT sum(amount) AS total FROM credit_ledger WHERE account_id = $1', [accountId]);
  return Number(rows[0]?.total ?? 0);
}
