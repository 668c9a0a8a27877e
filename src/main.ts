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
  const stop = async () => {
    await svc.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  process.stderr.write(`siteline failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
