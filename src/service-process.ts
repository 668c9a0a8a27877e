// The service as a process (`npm start`, through src/main.ts): configuration checked before anything
// starts, then the service, then a stop that drops nothing on SIGTERM/SIGINT (docs/deploy.md,
// "Shutdown"). The start options are the same ones startService takes, so what a process runs (e.g. the
// analysis workers' step) is passed in at construction rather than read from a test-only variable.
// Exit codes: 0 stopped, 1 failure (a failed migration is named in its log line), 2 configuration,
// 5 the database cannot be reached at start.
import { ConfigError, assertMailConfigured, loadConfig } from './config.ts';
import { startService, type RunningService, type StartOptions } from './service.ts';
import { createLogger, type Logger } from './logger.ts';
import { DatabaseUnreachableError } from './db/database.ts';
import { MigrationError } from './db/migrate.ts';
import { watchLauncher } from './ops/launcher-watch.ts';
import { boundTheStop, STOP_BOUND_SLACK_MS } from './ops/stop-bound.ts';

/** The service process's exit codes (docs/deploy.md). */
const SERVICE_EXIT = { stopped: 0, failure: 1, config: 2, databaseUnreachable: 5 } as const;

/**
 * A start that fails for a reason the operator can mend is one log line that says what to mend, and
 * its exit code; anything else is rethrown (src/main.ts prints it with its stack: a bug).
 */
function startFailure(err: unknown, logger: Logger, config: { port: number; host: string }): number | undefined {
  if (err instanceof DatabaseUnreachableError) {
    logger.fatal(
      { variable: err.variable, host: err.host, port: err.port, database: err.database, reason: err.reason },
      `siteline cannot start: ${err.message}`,
    );
    return SERVICE_EXIT.databaseUnreachable;
  }
  if (err instanceof MigrationError) {
    logger.fatal({ migration: err.file }, `siteline cannot start: ${err.message}`);
    return SERVICE_EXIT.failure;
  }
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    logger.fatal(
      { variable: 'PORT', port: config.port, host: config.host, code },
      `siteline cannot start: cannot listen on ${config.host}:${config.port} (PORT, HOST): ${code === 'EADDRINUSE' ? 'another process listens there' : code}`,
    );
    return SERVICE_EXIT.failure;
  }
  return undefined;
}

export async function runServiceProcess(opts: StartOptions = {}): Promise<void> {
  let config;
  try {
    config = loadConfig();
    assertMailConfigured(config); // a public base URL needs SITELINE_SMTP_URL (or the explicit outbox opt-in)
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(SERVICE_EXIT.config);
    }
    throw err;
  }
  const logger = opts.logger ?? createLogger(config.logLevel);
  // SIGTERM: /readyz answers 503 shutting_down for SITELINE_PRESTOP_MS while the listener still serves
  // (the proxy stops routing here); then no new connection, every request that arrived answered with
  // Connection: close, idle connections closed; in-flight requests and analysis runs finish within
  // SITELINE_SHUTDOWN_GRACE_MS, unfinished runs handed back to the queue; exit 0. SIGINT (Ctrl-C at a
  // terminal) skips the pre-stop period. A signal while stopping is ignored: under npm or systemd the
  // same SIGTERM can arrive twice (from the launcher and to the process group).
  // The handlers are installed when the server listens, before the 'listening' line: a signal between
  // that line and the end of the start (its last steps await the database) is kept and acted on once
  // the start returns. Before listening a signal ends the process at once, as it always has.
  let running: RunningService | undefined;
  let pending: { why: string; prestop: boolean } | undefined;
  let stopping = false;
  const stop = async (why: string, prestop: boolean) => {
    if (stopping) return void logger.info({ signal: why }, 'already stopping; signal ignored');
    if (!running) return void (pending ??= { why, prestop }); // listening, the start not yet returned
    stopping = true;
    const prestopMs = prestop ? config.prestopMs : 0;
    logger.info({ signal: why, prestopMs, graceMs: config.shutdownGraceMs }, 'shutting down');
    // A last bound: whatever hangs past the grace period and closing the database, the process still ends.
    boundTheStop(logger, why, prestopMs + config.shutdownGraceMs + STOP_BOUND_SLACK_MS, SERVICE_EXIT.failure);
    await running.close({ graceMs: config.shutdownGraceMs, prestopMs });
    logger.info({}, 'stopped');
    process.exit(SERVICE_EXIT.stopped);
  };
  const takeSignals = () => {
    process.on('SIGTERM', () => void stop('SIGTERM', true));
    process.on('SIGINT', () => void stop('SIGINT', false));
  };
  try {
    running = await startService(config, { ...opts, logger, onListening: takeSignals });
  } catch (err) {
    const code = startFailure(err, logger, config);
    if (code === undefined) throw err;
    process.exit(code);
  }
  if (pending) return void stop(pending.why, pending.prestop);
  watchLauncher((parent) => void stop(`the launching process ${parent} exited`, true));
}
