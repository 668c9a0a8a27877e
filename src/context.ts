// What every component receives: no module-level singletons, so a test can build a fresh app.
import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import type { Db } from './db/database.ts';
import type { Logger } from './logger.ts';

export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
}
