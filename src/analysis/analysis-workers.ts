// Analysis workers: loops that claim runs from the queue and execute them. They run inside
// `npm start` by default (src/service.ts) and alone in `siteline worker` for deployments that scale
// out. Each loop claims one run at a time; an idle loop sleeps until a local enqueue wakes it or
// its poll interval passes (another instance's enqueue is seen at the next poll).
import os from 'node:os';
import crypto from 'node:crypto';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { analysisResultText, loadAnalysisInputs, type AnalysisInputs } from './feasibility-analysis.ts';
import { claimRun, completeRun, failAttempt, failExhausted, onEnqueue, releaseLeases, renewLease, type RunRow } from './run-queue.ts';

/** One run's work: its inputs in, the result text out. `signal` aborts when the run is handed back at shutdown. */
export type RunAnalysis = (inputs: AnalysisInputs, signal: AbortSignal) => string | Promise<string>;

export interface WorkerOptions {
  /** Concurrent loops in this process (0: no workers here). */
  concurrency: number;
  /** How long a claim holds a run before another worker may take it (renewed while the run works). */
  leaseMs: number;
  /** How often an idle loop looks for runs enqueued by other processes. */
  pollMs: number;
  /** Names this process in analysis_runs.worker_id. */
  workerId: string;
  /**
   * The work of one run, from its inputs to the result text stored (default: the deterministic
   * analysis). Injected at construction by whoever starts the workers: a test that needs a run still in
   * hand when it stops or kills a worker passes a step that waits for the hand-back signal.
   */
  analyse?: RunAnalysis;
}

/** This process's worker options: the configuration's (SITELINE_ANALYSIS_*, src/config.ts), a name of its own, and any overrides. */
export function workerOptions(config: Pick<Config, 'analysisWorkers'>, overrides: Partial<WorkerOptions> = {}): WorkerOptions {
  return {
    ...config.analysisWorkers,
    workerId: `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString('hex')}`,
    ...overrides,
  };
}

export interface RunningWorkers {
  readonly workerId: string;
  /** Runs this process finished (succeeded or failed attempts), for logs and tests. */
  readonly executed: () => number;
  /**
   * Stops claiming and waits for the runs in hand. With boundMs, waits at most that long, then hands
   * the unfinished runs back to the queue (another worker, or this one after a restart, runs them).
   */
  stop(boundMs?: number): Promise<void>;
}

/** Executes one claimed run: inputs -> deterministic result -> stored (fenced by the claim). */
export async function executeRun(ctx: AppContext, run: RunRow, opts: WorkerOptions, signal?: AbortSignal): Promise<void> {
  const heartbeat = setInterval(
    () => {
      // A renewal that fails is retried at the next beat; if the lease passes meanwhile, the result is
      // fenced out (completeRun says so). Each failure is logged, not dropped.
      renewLease(ctx, run, opts.workerId, opts.leaseMs).catch((err) =>
        ctx.logger.warn(
          { runId: run.run_id, workerId: opts.workerId, err: err instanceof Error ? err.message : String(err) },
          'analysis run: the lease could not be renewed',
        ),
      );
    },
    Math.max(50, Math.floor(opts.leaseMs / 3)),
  );
  try {
    ctx.logger.info({ runId: run.run_id, attempt: run.attempts, workerId: opts.workerId }, 'analysis run started');
    const inputs = await loadAnalysisInputs(ctx, ctx.db, run.project_id);
    const text = await (opts.analyse ?? analysisResultText)(inputs, signal ?? new AbortController().signal);
    const stored = await completeRun(ctx, run, opts.workerId, inputs.digest, text);
    if (!stored) ctx.logger.warn({ runId: run.run_id, workerId: opts.workerId }, 'analysis run lost its lease before finishing; result discarded');
  } catch (err) {
    if (signal?.aborted) return void ctx.logger.info({ runId: run.run_id, workerId: opts.workerId }, 'analysis run stopped; it was handed back to the queue');
    ctx.logger.error({ runId: run.run_id, err: err instanceof Error ? err.message : String(err) }, 'analysis run failed');
    await failAttempt(ctx, run, opts.workerId, err instanceof Error ? err.message : String(err)).catch((recordErr) =>
      // Not recorded: the lease runs out and the attempt is counted by failExhausted or the next claim.
      ctx.logger.error(
        { runId: run.run_id, workerId: opts.workerId, err: recordErr instanceof Error ? recordErr.message : String(recordErr) },
        'analysis run: the failed attempt could not be recorded; it is counted when its lease passes',
      ),
    );
  } finally {
    clearInterval(heartbeat);
  }
}

export function startAnalysisWorkers(ctx: AppContext, opts: WorkerOptions): RunningWorkers {
  let stopped = false;
  let executed = 0;
  // Aborted when a bounded stop hands the runs back: a run's work that can stop waiting does.
  const handBack = new AbortController();
  const sleepers = new Set<() => void>();
  const wakeAll = () => {
    for (const w of sleepers) w();
  };
  const unsubscribe = onEnqueue(ctx, wakeAll);
  const idle = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, opts.pollMs);
      sleepers.add(done);
    });
  let lastSweep = 0;
  const loop = async () => {
    while (!stopped) {
      try {
        if (Date.now() - lastSweep > opts.pollMs) {
          lastSweep = Date.now();
          await failExhausted(ctx);
        }
        const run = await claimRun(ctx, opts.workerId, opts.leaseMs);
        if (!run) {
          await idle();
          continue;
        }
        await executeRun(ctx, run, opts, handBack.signal);
        executed++;
      } catch (err) {
        if (stopped) break;
        ctx.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'analysis worker: queue unavailable, retrying');
        await idle();
      }
    }
  };
  const loops = Array.from({ length: opts.concurrency }, () => loop());
  if (opts.concurrency > 0) ctx.logger.info({ workerId: opts.workerId, concurrency: opts.concurrency }, 'analysis workers started');
  return {
    workerId: opts.workerId,
    executed: () => executed,
    async stop(boundMs?: number) {
      stopped = true;
      unsubscribe();
      wakeAll();
      const all = Promise.all(loops);
      if (boundMs === undefined) return void (await all);
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([all.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), boundMs)))]);
      clearTimeout(timer);
      if (finished) return;
      const released = await releaseLeases(ctx, opts.workerId).catch((err) => {
        // Not handed back now: the runs return to the queue when their leases pass.
        ctx.logger.error(
          { workerId: opts.workerId, err: err instanceof Error ? err.message : String(err) },
          'analysis workers: the runs in hand could not be handed back; they return when their leases pass',
        );
        return 0;
      });
      handBack.abort(); // after the release, so the interrupted run's own failure write is fenced out
      ctx.logger.warn({ workerId: opts.workerId, released, boundMs }, 'analysis workers stopped before their runs finished; runs handed back to the queue');
    },
  };
}
