// What staff do to a running service: grant credit, review feedback, revoke a key for abuse, make an
// account staff or not (staff-members.ts), set an account's export allowance. Each action and its
// record in staff_actions (who: the acting account's id and its address at the time, or the operator;
// when, what, why) are written in one transaction, so an action is never taken unrecorded. The same
// calls serve the /staff pages, the staff API the CLI uses against a running service, and the CLI
// working on the database directly. No HTTP here.
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';
import { SitelineError } from '../core/errors.ts';
import { addCredit, creditBalance, ledgerSum, MAX_CREDIT_PER_ENTRY } from '../billing/credit-ledger.ts';
import { listFeedback, type FeedbackFilter, type StoredFeedback } from '../feedback/feedback-store.ts';
import { MAX_EXPORTS_PER_MONTH, REPORT_EXPORTS_PER_MONTH } from '../reports/export-store.ts';

/** web, api: a staff account; cli: the CLI on the database directly; operator: the machine's operator through the service; config: SITELINE_STAFF_EMAILS seeding. */
export type StaffVia = 'web' | 'api' | 'cli' | 'operator' | 'config';
export type StaffActionKind = 'credit_grant' | 'feedback_review' | 'key_revoke' | 'feedback_view' | 'staff_add' | 'staff_remove' | 'export_allowance';

/** Who acts, and through which door. */
export interface StaffActor {
  /**
   * The staff account's e-mail at the time, `operator:<os user>@<host>` for the machine's operator,
   * `cli:<os user>@<host>` when the CLI works on the database directly, `SITELINE_STAFF_EMAILS` for seeding.
   */
  who: string;
  via: StaffVia;
  /** The staff account's id (web, api); absent for the operator, the CLI on the database and seeding. */
  accountId?: string;
}

export interface StaffAction {
  actionId: string;
  actor: string;
  /** The acting account's id; null for the operator, the CLI on the database, seeding, and records from before migration 161. */
  actorAccountId: string | null;
  via: StaffVia;
  action: StaffActionKind;
  subject: string;
  details: Record<string, unknown>;
  reason: string;
  createdAt: string;
}

export const REASON_MAX = 500;

const normaliseEmail = (s: string) => s.trim().toLowerCase();

function checkReason(reason: string | undefined, what: string): string {
  const r = (reason ?? '').trim();
  if (!r) throw new SitelineError('bad_input', `Say why (${what}): a reason is required and kept with the action.`);
  if (r.length > REASON_MAX) throw new SitelineError('bad_input', `The reason is ${r.length} characters; at most ${REASON_MAX}.`);
  return r;
}

export async function record(
  ctx: AppContext,
  q: Queryable,
  actor: StaffActor,
  action: StaffActionKind,
  subject: string,
  details: Record<string, unknown>,
  reason: string,
): Promise<string> {
  const actionId = crypto.randomUUID();
  await q.query(
    `INSERT INTO staff_actions (action_id, actor, actor_account_id, via, action, subject, details, reason, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)`,
    [actionId, actor.who, actor.accountId ?? null, actor.via, action, subject, JSON.stringify(details), reason, ctx.clock.now().toISOString()],
  );
  return actionId;
}

export async function accountByEmail(q: Queryable, email: string): Promise<string> {
  const rows = await q.query<{ account_id: string }>('SELECT account_id FROM accounts WHERE email = $1', [normaliseEmail(email)]);
  if (!rows[0]) throw new SitelineError('not_found', `No account with the e-mail ${normaliseEmail(email)} (the person signs up on the web first).`);
  return rows[0].account_id;
}

export interface GrantResult {
  email: string;
  granted: number;
  balance: number;
  actionId: string;
}

/** Adds prepaid credit to an account: a `grant` ledger entry naming the reason, and its staff record. */
export async function grantCredit(
  ctx: AppContext,
  actor: StaffActor,
  req: { email: string; credits: number; reason: string | undefined },
): Promise<GrantResult> {
  const reason = checkReason(req.reason, 'why the credit is given');
  if (!Number.isSafeInteger(req.credits) || req.credits < 1 || req.credits > MAX_CREDIT_PER_ENTRY) {
    throw new SitelineError('bad_input', `Credits must be a whole number from 1 to ${MAX_CREDIT_PER_ENTRY}.`);
  }
  const email = normaliseEmail(req.email);
  const accountId = await accountByEmail(ctx.db, email);
  let actionId = '';
  const r = await addCredit(ctx, { accountId, kind: 'grant', credits: req.credits, reference: `operator grant: ${reason.slice(0, 200)}` }, async (tx) => {
    actionId = await record(ctx, tx, actor, 'credit_grant', email, { credits: req.credits }, reason);
  });
  return { email, granted: req.credits, balance: r.balance, actionId };
}

/** An account's balance and the ledger's sum (they must agree). */
export async function balanceOf(ctx: AppContext, emailIn: string): Promise<{ email: string; balance: number; ledgerSum: number }> {
  const email = normaliseEmail(emailIn);
  const accountId = await accountByEmail(ctx.db, email);
  return { email, balance: await creditBalance(ctx.db, accountId), ledgerSum: await ledgerSum(ctx.db, accountId) };
}

export interface AllowanceResult {
  email: string;
  /** The monthly allowance before and after (the default is REPORT_EXPORTS_PER_MONTH). */
  from: number;
  allowance: number;
  actionId: string;
}

/**
 * Sets an account's monthly allowance of project report exports (the records.exports meter; default
 * REPORT_EXPORTS_PER_MONTH), raised or lowered, with its record. Lowering it below what was used this
 * month leaves nothing to spend until it renews; nothing already exported is touched.
 */
export async function setExportAllowance(
  ctx: AppContext,
  actor: StaffActor,
  req: { email: string; allowance: number; reason: string | undefined },
): Promise<AllowanceResult> {
  const reason = checkReason(req.reason, 'why the allowance changes');
  if (!Number.isSafeInteger(req.allowance) || req.allowance < 0 || req.allowance > MAX_EXPORTS_PER_MONTH) {
    throw new SitelineError(
      'bad_input',
      `The allowance must be a whole number of exports a month from 0 to ${MAX_EXPORTS_PER_MONTH} (the default is ${REPORT_EXPORTS_PER_MONTH}).`,
    );
  }
  const email = normaliseEmail(req.email);
  const accountId = await accountByEmail(ctx.db, email);
  const now = ctx.clock.now().toISOString();
  return ctx.db.transaction(async (tx) => {
    // The account row locked: two changes at once record their from-to in order.
    await tx.query('SELECT 1 FROM accounts WHERE account_id = $1 FOR UPDATE', [accountId]);
    const [was] = await tx.query<{ monthly_exports: number }>('SELECT monthly_exports FROM account_export_allowances WHERE account_id = $1', [accountId]);
    const from = was ? Number(was.monthly_exports) : REPORT_EXPORTS_PER_MONTH;
    await tx.query(
      `INSERT INTO account_export_allowances (account_id, monthly_exports, set_at, set_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id) DO UPDATE SET monthly_exports = EXCLUDED.monthly_exports, set_at = EXCLUDED.set_at, set_by = EXCLUDED.set_by`,
      [accountId, req.allowance, now, actor.who],
    );
    const actionId = await record(ctx, tx, actor, 'export_allowance', email, { from, to: req.allowance }, reason);
    return { email, from, allowance: req.allowance, actionId };
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Marks a feedback report reviewed, with the reviewer's note (the action's reason). */
export async function reviewFeedback(
  ctx: AppContext,
  actor: StaffActor,
  req: { submissionId: string; note: string | undefined },
): Promise<{ submissionId: string; reviewedAt: string; actionId: string }> {
  const note = checkReason(req.note, 'a note on what was done about it');
  if (!UUID.test(req.submissionId)) throw new SitelineError('bad_input', `"${req.submissionId.slice(0, 60)}" is not a feedback submission id (a UUID).`);
  const at = ctx.clock.now().toISOString();
  return ctx.db.transaction(async (tx) => {
    const rows = await tx.query<{ submission_id: string }>(
      `UPDATE service_feedback SET reviewed_at = $2, reviewed_by = $3, review_note = $4 WHERE submission_id = $1 RETURNING submission_id::text AS submission_id`,
      [req.submissionId, at, actor.who, note],
    );
    if (!rows[0]) throw new SitelineError('not_found', `No feedback with the submission id ${req.submissionId}.`);
    const actionId = await record(ctx, tx, actor, 'feedback_review', rows[0].submission_id, {}, note);
    return { submissionId: rows[0].submission_id, reviewedAt: at, actionId };
  });
}

/** Revokes any account's API key (abuse); a key already revoked keeps its first revocation time. */
export async function revokeKeyForAbuse(
  ctx: AppContext,
  actor: StaffActor,
  req: { keyId: string; reason: string | undefined },
): Promise<{ keyId: string; accountEmail: string; revokedAt: string; actionId: string }> {
  const reason = checkReason(req.reason, 'why the key is revoked');
  const keyId = req.keyId.trim();
  if (!keyId || keyId.length > 100) throw new SitelineError('bad_input', 'Give the key id (as `siteline keys list` or the account page shows it).');
  const at = ctx.clock.now().toISOString();
  return ctx.db.transaction(async (tx) => {
    const rows = await tx.query<{ email: string; revoked_at: Date | string; name: string }>(
      `UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, $2) FROM accounts a
        WHERE k.key_id = $1 AND a.account_id = k.account_id RETURNING a.email, k.revoked_at, k.name`,
      [keyId, at],
    );
    if (!rows[0]) throw new SitelineError('not_found', `No API key with the id ${keyId}.`);
    const actionId = await record(ctx, tx, actor, 'key_revoke', keyId, { account: rows[0].email, name: rows[0].name }, reason);
    return { keyId, accountEmail: rows[0].email, revokedAt: new Date(rows[0].revoked_at).toISOString(), actionId };
  });
}

/** The record, newest first. */
export async function listStaffActions(ctx: AppContext, limit = 100): Promise<StaffAction[]> {
  const n = Math.min(Math.max(Math.trunc(limit) || 100, 1), 1000);
  const rows = await ctx.db.query<{
    action_id: string;
    actor: string;
    actor_account_id: string | null;
    via: StaffVia;
    action: StaffActionKind;
    subject: string;
    details: Record<string, unknown> | string;
    reason: string;
    created_at: Date | string;
  }>(
    `SELECT action_id::text AS action_id, actor, actor_account_id, via, action, subject, details, reason, created_at FROM staff_actions ORDER BY created_at DESC, action_id LIMIT ${n}`,
  );
  return rows.map((r) => ({
    actionId: r.action_id,
    actor: r.actor,
    actorAccountId: r.actor_account_id,
    via: r.via,
    action: r.action,
    subject: r.subject,
    details: typeof r.details === 'string' ? JSON.parse(r.details) : r.details,
    reason: r.reason,
    createdAt: new Date(r.created_at).toISOString(),
  }));
}

/**
 * The feedback reports as staff read them, the reading recorded: what people wrote is personal, so who
 * looked, when and at what (the filter, how many) is kept like any other staff action.
 */
export async function viewFeedback(ctx: AppContext, actor: StaffActor, filter: FeedbackFilter = {}): Promise<StoredFeedback[]> {
  const items = await listFeedback(ctx, filter);
  const subject = filter.category ?? 'all';
  const details = {
    shown: items.length,
    ...(filter.since ? { since: filter.since.toISOString() } : {}),
    ...(filter.limit !== undefined ? { limit: filter.limit } : {}),
  };
  await record(ctx, ctx.db, actor, 'feedback_view', subject, details, 'read the feedback reports (a view is recorded; no reason is asked)');
  return items;
}
