// The service as a process (`npm start`, through src/main.ts): configuration checked before anything
// starts, then the service, then a graceful stop on SIGTERM/SIGINT. The start options are the same
// ones startService takes, so what a process runs (e.g. the analysis workers' step) is passed in at
// construction rather than read from a test-only variable.
import { ConfigError, assertMailConfigured, loadConfig } from './config.ts';
import { startService, type StartOptions } from './service.ts';
import { workerOptionsFromEnv } from './analysis/analysis-workers.ts';

export async function runServiceProcess(opts: StartOptions = {}): Promise<void> {
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
  const svc = await startService(config, opts);
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
