// `siteline worker [--concurrency N]`: analysis workers alone, without the HTTP server, for deployments
// that scale out (several processes on one PostgreSQL database). On embedded PGlite only one process
// may open the data directory, so there the workers inside `npm start` are the way.
// Runs until SIGTERM or SIGINT; the run in hand may finish for SITELINE_SHUTDOWN_GRACE_MS, then it is
// handed back to the queue. Exit 0 when stopped; 2 bad usage; 5 the database cannot be reached.
import { UsageError, type Command, type CommandInput } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { out, type Io } from './output.ts';
import type { WorkerOptions } from '../analysis/analysis-workers.ts';

/** How long a stopped worker waits for its last handles to close by themselves before it exits anyway. */
const STOPPED_EXIT_MS = 1000;

async function runWorker({ flags, io }: CommandInput): Promise<number> {
  let concurrency: number | undefined;
  if (flags.concurrency !== undefined) {
    if (!/^\d+$/.test(String(flags.concurrency)) || Number(flags.concurrency) < 1) throw new UsageError('--concurrency needs a whole number of at least 1');
    concurrency = Number(flags.concurrency);
  }
  return runWorkerProcess(io, concurrency ? { concurrency } : {});
}

/**
 * The worker process after its flags: workers from the configuration (SITELINE_ANALYSIS_*), with `overrides` (the loop count;
 * a caller that starts the process itself may pass the run's work, WorkerOptions.analyse) until
 * SIGTERM/SIGINT.
 */
export async function runWorkerProcess(io: Io, overrides: Partial<WorkerOptions>): Promise<number> {
  const [
    { loadConfig },
    { createLogger },
    { openContext },
    { startAnalysisWorkers, workerOptions },
    { DatabaseUnreachableError },
    { MigrationError },
    { watchLauncher },
    { boundTheStop, STOP_BOUND_SLACK_MS },
  ] = await Promise.all([
    import('../config.ts'),
    import('../logger.ts'),
    import('../context.ts'),
    import('../analysis/analysis-workers.ts'),
    import('../db/database.ts'),
    import('../db/migrate.ts'),
    import('../ops/launcher-watch.ts'),
    import('../ops/stop-bound.ts'),
  ]);
  const config = loadConfig(io.env);
  const logger = createLogger(config.logLevel, io.stdout);
  let ctx;
  try {
    ctx = await openContext(config, { logger });
  } catch (err) {
    // One line that says what to mend, as the service process does (src/service-process.ts).
    if (err instanceof DatabaseUnreachableError) {
      logger.fatal(
        { variable: err.variable, host: err.host, port: err.port, database: err.database, reason: err.reason },
        `siteline worker cannot start: ${err.message}`,
      );
      return EXIT.unreachable;
    }
    if (err instanceof MigrationError) {
      logger.fatal({ migration: err.file }, `siteline worker cannot start: ${err.message}`);
      return EXIT.failure;
    }
    throw err;
  }
  const opts = workerOptions(config, overrides);
  if (opts.concurrency === 0) opts.concurrency = 1; // a worker process with no workers would do nothing
  const workers = startAnalysisWorkers(ctx, opts);
  // SIGTERM or SIGINT, or (under npx, where npm's shell dies of the SIGTERM without passing it on) the
  // launching process gone: stop. A second signal while stopping is ignored (npm passes on the SIGTERM
  // that systemd also sends to the whole group). The signals are taken before the line below says the
  // worker runs: whoever signals it on that line finds them handled (before, a SIGTERM sent at once
  // could land before the handler and kill the process outright).
  const stopAsked = new Promise<string>((resolve) => {
    let first: string | undefined;
    const on = (what: string) => {
      if (first) return void logger.info({ signal: what }, 'already stopping; signal ignored');
      first = what;
      resolve(what);
    };
    process.on('SIGTERM', () => on('SIGTERM'));
    process.on('SIGINT', () => on('SIGINT'));
    watchLauncher((parent) => on(`the launching process ${parent} exited`));
  });
  out(io, `siteline worker ${opts.workerId}: ${opts.concurrency} loop(s) on ${ctx.db.kind}`);
  const why = await stopAsked;
  logger.info({ signal: why, graceMs: config.shutdownGraceMs }, 'shutting down');
  // A last bound, as the service process has: whatever hangs past the grace period, the process ends.
  boundTheStop(logger, why, config.shutdownGraceMs + STOP_BOUND_SLACK_MS, EXIT.failure);
  await workers.stop(config.shutdownGraceMs);
  await ctx.db.close();
  logger.info({}, 'stopped');
  // Stopped: the process ends now. A handle something left open (a socket, a timer) would keep it
  // running as an orphan with nothing to do; it is named in the log and the process exits anyway.
  setTimeout(() => {
    logger.warn({ open: process.getActiveResourcesInfo() }, 'handles still open after the worker stopped; exiting');
    process.exit(EXIT.ok);
  }, STOPPED_EXIT_MS).unref();
  return EXIT.ok;
}

export const workerCommand: Command = {
  name: 'worker',
  summary: 'Run feasibility-analysis workers without the HTTP server (until SIGTERM/SIGINT)',
  usage: 'worker [--concurrency N]',
  description: `Runs analysis workers against the configured database. On SIGTERM/SIGINT the run in hand may finish for
SITELINE_SHUTDOWN_GRACE_MS (default 20000); one still working then is handed back to the queue.
For PostgreSQL deployments that scale out (DATABASE_URL shared with the servers). On embedded PGlite
only one process may open the data directory: there use the workers inside \`npm start\`.
Environment: SITELINE_ANALYSIS_WORKERS (loops, default 2), SITELINE_ANALYSIS_LEASE_MS (default 30000),
SITELINE_ANALYSIS_POLL_MS (default 500), SITELINE_SHUTDOWN_GRACE_MS, DATABASE_URL.
Exit 0 when stopped, 5 when the database cannot be reached at start (one log line names its host).`,
  flags: [{ name: 'concurrency', value: 'N', description: 'Worker loops in this process (default: SITELINE_ANALYSIS_WORKERS, at least 1)' }],
  examples: ['DATABASE_URL=postgres://... siteline worker --concurrency 4'],
  run: runWorker,
};
