// What every component receives: no module-level singletons, so a test can build a fresh app.
import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import type { Db } from './db/database.ts';
import type { Logger } from './logger.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';

export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** The one way to send mail (src/mail/): queued in the database, sent by the mail worker or written to the dev outbox. */
  mailer: Mailer;
}

/** A context from its parts, with the mailer its configuration asks for (tools, benches, tests). */
export function withMailer(base: Omit<AppContext, 'mailer'>): AppContext {
  return { ...base, mailer: createMailer(base) };
}
