// runFeasibilityAnalysis: enqueue a fresh run for one of the caller's projects and return at once
// with agentStatus and a receipt. The run itself is executed by a worker (analysis-workers.ts).
import crypto from 'node:crypto';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { projectById, resolveProject, type ProjectList, type TargetArgs } from '../projects/project-store.ts';
import { insertReceipt, type Receipt } from '../projects/receipts.ts';
import { statusOfRun } from './agent-status.ts';
import { insertRun, latestRun, notifyEnqueued } from './run-queue.ts';
import type { NextStep } from '../core/next-step.ts';

/** getProjectContext answers only the status within this many seconds of an enqueue (spec: Limits). */
export const RECHECK_INTERVAL_S = 15;

export type RunOutcome =
  | { kind: 'list'; list: ProjectList }
  | { kind: 'candidates'; query: string; candidates: { projectId: string; name: string; lifecycleStatus: string }[] }
  | { kind: 'queued'; result: Record<string, unknown> };

export async function runFeasibilityAnalysis(ctx: AppContext, accountId: string, args: TargetArgs): Promise<RunOutcome> {
  const target = await resolveProject(ctx, accountId, args);
  if (target.kind === 'list') return { kind: 'list', list: target.list };
  if (target.kind === 'candidates') return { kind: 'candidates', query: target.query, candidates: target.candidates };
  const project = target.project;
  const runId = crypto.randomUUID();
  const result = await ctx.db.transaction(async (tx) => {
    if (!(await projectById(tx, accountId, project.project_id, true))) throw new SitelineError('not_found', 'The project was removed meanwhile.');
    // Nothing to analyse without a build lot: said now, instead of a run that finishes with nothing.
    if (!(await tx.query(`SELECT 1 FROM project_lots WHERE project_id = $1 AND role = 'build' LIMIT 1`, [project.project_id])).length) {
      throw new SitelineError('bad_input', `Project "${project.name}" has no build lot, so there is nothing to analyse; nothing was queued.`, {
        field: 'projectId',
        next: { action: 'attach_build_lot', then: 'run_analysis' } satisfies NextStep,
      });
    }
    const before = statusOfRun(await latestRun(tx, project.project_id));
    return await insertReceipt(
      ctx,
      tx,
      {
        accountId,
        operation: 'analysis.run',
        action: 'enqueue',
        projectId: project.project_id,
        changes: [{ field: 'analysis', before: before.status, after: 'queued' }],
      },
      (receipt: Receipt) => {
        return {
          project: { projectId: project.project_id, name: project.name },
          runId,
          receiptId: receipt.receiptId,
          receipt,
          agentStatus: { status: 'queued', runId, enqueuedAt: receipt.at },
          recheckAfterSeconds: RECHECK_INTERVAL_S,
          note: `The run is queued; it does not finish within this call. Read the project's agentStatus after ${RECHECK_INTERVAL_S} s and, once current, the analysis.`,
        };
      },
    ).then(async (w) => {
      await insertRun(ctx, tx, { projectId: project.project_id, accountId, receiptId: w.receipt.receiptId, runId });
      return w.result;
    });
  });
  notifyEnqueued(ctx);
  return { kind: 'queued', result };
}
