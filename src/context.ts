// What every component receives: no module-level singletons, so a test can build a fresh app.
import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import type { Db } from './db/database.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './ops/metrics.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';

export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** The one way to send mail (src/mail/): queued in the database, sent by the mail worker or written to the dev outbox. */
  mailer: Mailer;
  /** Prometheus metrics of this instance (absent in contexts built by CLI commands and unit tests). */
  metrics?: Metrics;
  /** Set once SIGTERM (or close) starts draining: /readyz answers 503, responses close their connection. */
  lifecycle?: Lifecycle;
}

/** The instance's shutdown state: set draining, then call each onDrain hook once (src/service.ts). */
export interface Lifecycle {
  draining: boolean;
  onDrain: Array<() => void>;
  /** performance.now() when a request last started or ended (src/http/server.ts): background work gives way (src/importer/background-pace.ts). */
  lastRequestAt?: number;
}

/** A context from its parts, with the mailer its configuration asks for (tools, benches, tests). */
export function withMailer(base: Omit<AppContext, 'mailer'>): AppContext {
  return { ...base, mailer: createMailer(base) };
}
