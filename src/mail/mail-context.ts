// What the mail room needs of the application context. The context (src/context.ts) is built around the
// mailer, so the mail room names the parts it reads instead of importing the context it is part of.
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../ops/metrics.ts';

export interface MailContext {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  metrics?: Metrics | undefined;
}
