// The mail queue (table mail_queue, migration 100): every message is written here before anything
// tries to send it. A worker claims one due row at a time with FOR UPDATE SKIP LOCKED and a lease, so
// two instances on one PostgreSQL never hold the same message; updates after the claim are fenced by
// (worker_id, attempts), so a worker that lost its lease cannot overwrite another's outcome.
// Timestamps come from the application clock (not the database's now()), like the rest of auth.
import type { MailContext } from './mail-context.ts';
import type { MailMessage } from './message.ts';

type QueueCtx = Pick<MailContext, 'db' | 'clock'>;

export type MailStatus = 'queued' | 'sending' | 'sent' | 'failed';

export interface QueuedMail {
  id: number;
  to: string;
  subject: string;
  text: string;
  html: string;
  status: MailStatus;
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
  failedAt: string | null;
}

interface Row {
  id: number | string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  status: MailStatus;
  attempts: number;
  next_attempt_at: Date | string;
  last_error: string | null;
  created_at: Date | string;
  sent_at: Date | string | null;
  failed_at: Date | string | null;
}

const COLUMNS = 'id, to_address, subject, text_body, html_body, status, attempts, next_attempt_at, last_error, created_at, sent_at, failed_at';
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function fromRow(r: Row): QueuedMail {
  return {
    id: Number(r.id),
    to: r.to_address,
    subject: r.subject,
    text: r.text_body,
    html: r.html_body,
    status: r.status,
    attempts: Number(r.attempts),
    nextAttemptAt: iso(r.next_attempt_at)!,
    lastError: r.last_error,
    createdAt: iso(r.created_at)!,
    sentAt: iso(r.sent_at),
    failedAt: iso(r.failed_at),
  };
}

/** Writes a message to the queue: 'queued' (a worker sends it) or already 'sent' (the dev outbox took it). */
export async function enqueueMail(ctx: QueueCtx, msg: MailMessage & { html: string }, status: 'queued' | 'sent' = 'queued'): Promise<number> {
  const now = ctx.clock.now().toISOString();
  const rows = await ctx.db.query<{ id: number }>(
    `INSERT INTO mail_queue (to_address, subject, text_body, html_body, status, attempts, next_attempt_at, created_at, sent_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) RETURNING id`,
    // A sent message keeps no body: it may hold a single-use link (reset, e-mail change) that the database must not keep readable.
    [
      msg.to,
      msg.subject,
      status === 'sent' ? '' : msg.text,
      status === 'sent' ? '' : msg.html,
      status,
      status === 'sent' ? 1 : 0,
      now,
      status === 'sent' ? now : null,
    ],
  );
  return Number(rows[0]!.id);
}

/**
 * Claims the oldest due message for this worker: queued and due, or 'sending' under a lease that passed
 * (its worker died mid-send) with attempts left.
 */
export async function claimMail(ctx: QueueCtx, workerId: string, leaseMs: number, maxAttempts: number): Promise<QueuedMail | null> {
  const now = ctx.clock.now();
  const rows = await ctx.db.query<Row>(
    `UPDATE mail_queue SET status = 'sending', attempts = attempts + 1, worker_id = $1, lease_until = $3
      WHERE id = (SELECT id FROM mail_queue
                   WHERE (status = 'queued' AND next_attempt_at <= $2) OR (status = 'sending' AND lease_until < $2 AND attempts < $4)
                   ORDER BY next_attempt_at, id LIMIT 1
                   FOR UPDATE SKIP LOCKED)
      RETURNING ${COLUMNS}`,
    [workerId, now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), maxAttempts],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Messages whose worker died mid-send on their last allowed attempt: failed, with the reason. */
export async function failAbandoned(ctx: QueueCtx, maxAttempts: number): Promise<number> {
  const now = ctx.clock.now().toISOString();
  const rows = await ctx.db.query(
    `UPDATE mail_queue SET status = 'failed', failed_at = $1, lease_until = NULL,
            last_error = 'The worker sending it stopped before the mail server answered, on each of ' || attempts || ' attempts.'
      WHERE status = 'sending' AND lease_until < $1 AND attempts >= $2 RETURNING id`,
    [now, maxAttempts],
  );
  return rows.length;
}

const fence = "WHERE id = $1 AND worker_id = $2 AND attempts = $3 AND status = 'sending'";

export async function markSent(ctx: QueueCtx, mail: QueuedMail, workerId: string): Promise<boolean> {
  // The body goes once sent (it may hold a single-use link); to, subject and times stay as the record.
  const rows = await ctx.db.query(
    `UPDATE mail_queue SET status = 'sent', sent_at = $4, lease_until = NULL, last_error = NULL, text_body = '', html_body = '' ${fence} RETURNING id`,
    [mail.id, workerId, mail.attempts, ctx.clock.now().toISOString()],
  );
  return rows.length > 0;
}

export async function markRetry(ctx: QueueCtx, mail: QueuedMail, workerId: string, error: string, delayMs: number): Promise<boolean> {
  const rows = await ctx.db.query(`UPDATE mail_queue SET status = 'queued', next_attempt_at = $4, lease_until = NULL, last_error = $5 ${fence} RETURNING id`, [
    mail.id,
    workerId,
    mail.attempts,
    new Date(ctx.clock.now().getTime() + delayMs).toISOString(),
    error,
  ]);
  return rows.length > 0;
}

export async function markFailed(ctx: QueueCtx, mail: QueuedMail, workerId: string, error: string): Promise<boolean> {
  const rows = await ctx.db.query(`UPDATE mail_queue SET status = 'failed', failed_at = $4, lease_until = NULL, last_error = $5 ${fence} RETURNING id`, [
    mail.id,
    workerId,
    mail.attempts,
    ctx.clock.now().toISOString(),
    error,
  ]);
  return rows.length > 0;
}

/** Messages to one address with one subject since an instant (the claim notice's flood limit). */
export async function mailCountSince(ctx: QueueCtx, to: string, subject: string, since: Date): Promise<number> {
  const rows = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM mail_queue WHERE to_address = $1 AND subject = $2 AND created_at > $3', [
    to,
    subject,
    since.toISOString(),
  ]);
  return rows[0]?.n ?? 0;
}

/** Counts per status (the staff page; metrics can read the same). */
export async function mailQueueCounts(ctx: QueueCtx): Promise<Record<MailStatus, number>> {
  const rows = await ctx.db.query<{ status: MailStatus; n: number }>('SELECT status, count(*)::int AS n FROM mail_queue GROUP BY status');
  const out: Record<MailStatus, number> = { queued: 0, sending: 0, sent: 0, failed: 0 };
  for (const r of rows) out[r.status] = r.n;
  return out;
}

/** Messages that need a person: failed for good, and those still retrying after an error. Newest first. */
export async function troubledMail(ctx: QueueCtx, limit = 200): Promise<QueuedMail[]> {
  const rows = await ctx.db.query<Row>(
    `SELECT ${COLUMNS} FROM mail_queue WHERE status = 'failed' OR (status IN ('queued', 'sending') AND last_error IS NOT NULL)
      ORDER BY COALESCE(failed_at, created_at) DESC, id DESC LIMIT $1`,
    [limit],
  );
  return rows.map(fromRow);
}

/** A failed message back in the queue (staff, once the cause is fixed): attempts start again. */
export async function requeueFailed(ctx: QueueCtx, id: number): Promise<boolean> {
  const rows = await ctx.db.query(
    `UPDATE mail_queue SET status = 'queued', attempts = 0, next_attempt_at = $2, failed_at = NULL WHERE id = $1 AND status = 'failed' RETURNING id`,
    [id, ctx.clock.now().toISOString()],
  );
  return rows.length > 0;
}

/** Sent messages older than `before` are deleted (the hourly sweep, src/auth/sweep.ts); failed ones stay for staff. */
export async function sweepSentMail(ctx: QueueCtx, before: Date): Promise<number> {
  const rows = await ctx.db.query(`DELETE FROM mail_queue WHERE status = 'sent' AND sent_at < $1 RETURNING id`, [before.toISOString()]);
  return rows.length;
}
