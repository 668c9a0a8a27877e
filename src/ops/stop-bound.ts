// The last bound on a stop, shared by the service process and `siteline worker`: whatever hangs past the
// grace period (and the time to close the database), the process still ends, with one line saying so.
import type { Logger } from '../logger.ts';

/** Time allowed past the grace period for closing the database and logging. */
export const STOP_BOUND_SLACK_MS = 15_000;

/** Exits with `exitCode` if the stop begun for `why` has not ended within `ms` (the timer does not keep the process alive). */
export function boundTheStop(logger: Logger, why: string, ms: number, exitCode: number): void {
  setTimeout(() => {
    logger.error({ signal: why }, 'shutdown did not finish in time; exiting');
    process.exit(exitCode);
  }, ms).unref();
}
