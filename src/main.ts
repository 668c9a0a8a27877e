// `npm start`: the service on $HOST:$PORT, embedded PGlite unless DATABASE_URL is set.
import { ConfigError, assertMailConfigured, loadConfig } from './config.ts';
import { startService } from './service.ts';
import { workerOptionsFromEnv } from './analysis/analysis-workers.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
    assertMailConfigured(config); // a public base URL needs SITELINE_SMTP_URL (or the explicit outbox opt-in)
    workerOptionsFromEnv(); // the analysis workers' variables, checked with the rest before anything starts
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const svc = await startService(config);
  // SIGTERM/SIGINT: stop accepting, finish in-flight requests and analysis runs within
  // SITELINE_SHUTDOWN_GRACE_MS, hand unfinished runs back to the queue, exit 0 (docs/deploy.md).
  const stop = async (signal: string) => {
    svc.ctx.logger.info({ signal, graceMs: config.shutdownGraceMs }, 'shutting down');
    // A last bound: whatever hangs past the grace period and closing the database, the process still ends.
    setTimeout(() => {
      svc.ctx.logger.error({ signal }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 15_000).unref();
    await svc.close({ graceMs: config.shutdownGraceMs });
    svc.ctx.logger.info({}, 'stopped');
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`siteline failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
