// agentStatus: where a project's analysis stands, compact. none (never run), queued, running,
// current (the latest run succeeded; inputsChanged: true when the lots or the rules changed since),
// failed (the latest run failed; the reason is given). Always from the latest run.
import type { AppContext } from '../context.ts';
import { loadAnalysisInputs, type PlaceRow } from './feasibility-analysis.ts';
import { latestRun, type RunRow } from './run-queue.ts';
import type { ProjectLot } from '../projects/project-lots.ts';

export type AgentStatusValue = 'none' | 'queued' | 'running' | 'current' | 'failed';

export interface AgentStatus {
  status: AgentStatusValue;
  runId?: string;
  /** Only with current: true when the project's lots or its rules changed after that run. */
  inputsChanged?: boolean;
  enqueuedAt?: string;
  finishedAt?: string;
  attempts?: number;
  error?: string;
}

const iso = (d: Date | string | null) => (d === null ? undefined : new Date(d).toISOString());

export function statusOfRun(run: Pick<RunRow, 'run_id' | 'status' | 'attempts' | 'error' | 'enqueued_at' | 'finished_at'> | null): AgentStatus {
  if (!run) return { status: 'none' };
  const status: AgentStatusValue = run.status === 'succeeded' ? 'current' : run.status;
  return {
    status,
    runId: run.run_id,
    enqueuedAt: iso(run.enqueued_at)!,
    ...(run.finished_at ? { finishedAt: iso(run.finished_at)! } : {}),
    ...(run.attempts ? { attempts: run.attempts } : {}),
    ...(status === 'failed' && run.error ? { error: run.error } : {}),
  };
}

/** The status with inputsChanged computed (reads the lots and the cached rules: cheap, not free). */
export async function agentStatusOf(
  ctx: AppContext,
  projectId: string,
  run?: Pick<RunRow, 'run_id' | 'status' | 'attempts' | 'error' | 'inputs_digest' | 'enqueued_at' | 'finished_at'> | null,
  lots?: ProjectLot[],
  placeRows?: PlaceRow[],
): Promise<AgentStatus> {
  const latest = run === undefined ? await latestRun(ctx.db, projectId) : run;
  const s = statusOfRun(latest);
  if (s.status === 'current' && latest) {
    const now = await loadAnalysisInputs(ctx, ctx.db, projectId, lots, placeRows);
    s.inputsChanged = now.digest !== latest.inputs_digest;
  }
  return s;
}
