// `siteline worker`: analysis workers alone, without the HTTP server, for deployments that scale out
// (several processes on one PostgreSQL database). On embedded PGlite only one process may open the
// data directory, so there the workers inside `npm start` are the way (this command says so).
// Runs until SIGTERM or SIGINT; the run in hand is finished first. Self-contained: run(argv) -> exit code.
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { openContext } from '../service.ts';
import { startAnalysisWorkers, workerOptionsFromEnv } from '../analysis/analysis-workers.ts';

const USAGE = `siteline worker [--concurrency N]

Runs feasibility-analysis workers against the configured database until SIGTERM/SIGINT.
Environment: SITELINE_ANALYSIS_WORKERS (loops, default 2), SITELINE_ANALYSIS_LEASE_MS (default 30000),
SITELINE_ANALYSIS_POLL_MS (default 500), DATABASE_URL (PostgreSQL; shared with the servers).
`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return 0;
  }
  let concurrency: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--concurrency' && /^\d+$/.test(argv[i + 1] ?? '') && Number(argv[i + 1]) >= 1) concurrency = Number(argv[++i]);
    else {
      process.stderr.write(`Unknown or incomplete option ${a}.\n\n${USAGE}`);
      return 2;
    }
  }
  const config = loadConfig();
  const logger = createLogger(config.logLevel, process.stdout);
  const ctx = await openContext(config, { logger });
  const opts = workerOptionsFromEnv(process.env, concurrency ? { concurrency } : {});
  if (opts.concurrency === 0) opts.concurrency = 1; // a worker process with no workers would do nothing
  const workers = startAnalysisWorkers(ctx, opts);
  process.stdout.write(`siteline worker ${opts.workerId}: ${opts.concurrency} loop(s) on ${ctx.db.kind}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  await workers.stop();
  await ctx.db.close();
  return 0;
}
