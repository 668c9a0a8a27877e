// The analysis queue: a plain table (analysis_runs) claimed with FOR UPDATE SKIP LOCKED, the same SQL
// on PGlite and PostgreSQL. A claim takes a lease; a worker that dies leaves its run to be claimed
// again after the lease, up to max_attempts, then the run is failed with the reason. Every update
// after the claim is fenced by (worker_id, attempts), so a worker that lost its lease cannot write.
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { Queryable } from '../db/database.ts';

const DEFAULT_MAX_ATTEMPTS = 3;

export interface RunRow {
  run_id: string;
  project_id: string;
  account_id: string;
  receipt_id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  attempts: number;
  max_attempts: number;
  worker_id: string | null;
  inputs_digest: string | null;
  result: string | null;
  error: string | null;
  enqueued_at: Date | string;
  started_at: Date | string | null;
  finished_at: Date | string | null;
}

const RUN_COLUMNS =
  'run_id::text AS run_id, project_id::text AS project_id, account_id, receipt_id::text AS receipt_id, status, attempts, max_attempts, worker_id, inputs_digest, result, error, enqueued_at, started_at, finished_at';

// Woken in this process when a run is enqueued, so an idle worker starts at once instead of at its next poll.
const wakers = new WeakMap<object, Set<() => void>>();

export function onEnqueue(ctx: AppContext, wake: () => void): () => void {
  let set = wakers.get(ctx.db);
  if (!set) wakers.set(ctx.db, (set = new Set()));
  set.add(wake);
  return () => set!.delete(wake);
}

export function notifyEnqueued(ctx: AppContext): void {
  for (const w of wakers.get(ctx.db) ?? []) w();
}

export async function insertRun(
  ctx: AppContext,
  q: Queryable,
  r: { projectId: string; accountId: string; receiptId: string; runId?: string; maxAttempts?: number },
): Promise<string> {
  const runId = r.runId ?? crypto.randomUUID();
  await q.query(
    `INSERT INTO analysis_runs (run_id, project_id, account_id, receipt_id, status, attempts, max_attempts, enqueued_at) VALUES ($1, $2, $3, $4, 'queued', 0, $5, $6)`,
    [runId, r.projectId, r.accountId, r.receiptId, r.maxAttempts ?? DEFAULT_MAX_ATTEMPTS, ctx.clock.now().toISOString()],
  );
  return runId;
}

/** Runs whose lease passed after their last allowed attempt: failed, with the reason. */
export async function failExhausted(ctx: AppContext): Promise<number> {
  const rows = await ctx.db.query(
    `UPDATE analysis_runs
        SET status = 'failed', finished_at = now(), lease_until = NULL,
            error = 'The worker running it stopped before finishing (lease expired) on each of ' || attempts || ' attempts.'
      WHERE status = 'running' AND lease_until < now() AND attempts >= max_attempts
      RETURNING run_id`,
  );
  return rows.length;
}

/** Claims the oldest claimable run for this worker: queued, or running with its lease passed. */
export async function claimRun(ctx: AppContext, workerId: string, leaseMs: number): Promise<RunRow | null> {
  const rows = await ctx.db.query<RunRow>(
    `UPDATE analysis_runs
        SET status = 'running', attempts = attempts + 1, worker_id = $1, lease_until = now() + ($2::int * interval '1 millisecond'), started_at = now()
      WHERE run_id = (
              SELECT run_id FROM analysis_runs
               WHERE status = 'queued' OR (status = 'running' AND lease_until < now() AND attempts < max_attempts)
               ORDER BY seq
               LIMIT 1
               FOR UPDATE SKIP LOCKED)
        AND (status = 'queued' OR (status = 'running' AND lease_until < now() AND attempts < max_attempts))
      RETURNING ${RUN_COLUMNS}`,
    [workerId, leaseMs],
  );
  return rows[0] ?? null;
}

/** Extends the lease while the run is still this worker's; false when it was lost. */
export async function renewLease(ctx: AppContext, run: RunRow, workerId: string, leaseMs: number): Promise<boolean> {
  const rows = await ctx.db.query(
    `UPDATE analysis_runs SET lease_until = now() + ($4::int * interval '1 millisecond')
      WHERE run_id = $1 AND worker_id = $2 AND attempts = $3 AND status = 'running' RETURNING run_id`,
    [run.run_id, workerId, run.attempts, leaseMs],
  );
  return rows.length > 0;
}

export async function completeRun(ctx: AppContext, run: RunRow, workerId: string, inputsDigest: string, result: string): Promise<boolean> {
  const rows = await ctx.db.query(
    `UPDATE analysis_runs SET status = 'succeeded', inputs_digest = $4, result = $5, error = NULL, finished_at = now(), lease_until = NULL
      WHERE run_id = $1 AND worker_id = $2 AND attempts = $3 AND status = 'running' RETURNING run_id`,
    [run.run_id, workerId, run.attempts, inputsDigest, result],
  );
  return rows.length > 0;
}

/**
 * A worker shutting down hands its running runs back: queued again at once (not after the lease), and
 * the interrupted attempt is not counted. Its own late writes are fenced out (worker_id is cleared).
 */
export async function releaseLeases(ctx: AppContext, workerId: string): Promise<number> {
  const rows = await ctx.db.query(
    `UPDATE analysis_runs SET status = 'queued', attempts = greatest(attempts - 1, 0), worker_id = NULL, lease_until = NULL, started_at = NULL
      WHERE worker_id = $1 AND status = 'running' RETURNING run_id`,
    [workerId],
  );
  return rows.length;
}

/** A run that threw: queued again while attempts remain, else failed with the reason. */
export async function failAttempt(ctx: AppContext, run: RunRow, workerId: string, reason: string): Promise<void> {
  await ctx.db.query(
    `UPDATE analysis_runs
        SET status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
            finished_at = CASE WHEN attempts >= max_attempts THEN now() ELSE NULL END,
            error = $4, lease_until = NULL
      WHERE run_id = $1 AND worker_id = $2 AND attempts = $3 AND status = 'running'`,
    [run.run_id, workerId, run.attempts, reason.slice(0, 500)],
  );
}

export async function latestRun(q: Queryable, projectId: string): Promise<RunRow | null> {
  const rows = await q.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM analysis_runs WHERE project_id = $1 ORDER BY seq DESC LIMIT 1`, [projectId]);
  return rows[0] ?? null;
}

export async function latestSucceededRun(q: Queryable, projectId: string): Promise<RunRow | null> {
  const rows = await q.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM analysis_runs WHERE project_id = $1 AND status = 'succeeded' ORDER BY seq DESC LIMIT 1`, [
    projectId,
  ]);
  return rows[0] ?? null;
}
