// What every component receives: no module-level singletons, so a test can build a fresh app. The
// context holds the caches too (src/caches.ts): two contexts never share a cache of data that can change.
import path from 'node:path';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './clock.ts';
import { openDatabase, type Db } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { createLogger, type Logger } from './logger.ts';
import type { Metrics } from './ops/metrics.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';
import { Caches } from './caches.ts';
import { ReadReplicas } from './db/read-replicas.ts';

export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  /** The one way to send mail (src/mail/): queued in the database, sent by the mail worker or written to the dev outbox. */
  mailer: Mailer;
  /** This context's caches, with one door per kind of change (src/caches.ts). Spreading a context shares them. */
  caches: Caches;
  /** On a replica's context (onReadReplica): the primary's database, for state kept per database object of this process (the start's place loading). */
  primaryDb?: Db;
  /** The streaming replicas the lookup path reads from (DATABASE_READ_URL); absent: every read on db. See onReadReplica. */
  reads?: ReadReplicas;
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

/** A context from its parts, with the mailer its configuration asks for and caches of its own (tools, benches, tests). */
export function withMailer(base: Omit<AppContext, 'mailer' | 'caches'>): AppContext {
  return { ...base, mailer: createMailer(base), caches: new Caches(base.config) };
}

export interface ContextOptions {
  clock?: Clock;
  logger?: Logger;
  /** An already opened database (tests); otherwise opened from config. */
  db?: Db;
  /**
   * false: reads about a place go to SQL and no place's hot index is loaded in this context. For a
   * process that answers one address and exits (`siteline check --local`): loading the place's index
   * would cost more than the one answer it speeds up, and the answer is the same.
   */
  hotIndex?: boolean;
}

/** Opens the database (migrated) and builds a context on it: the service, CLI commands and tests. */
export async function openContext(config: Config, opts: ContextOptions = {}): Promise<AppContext> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const db = opts.db ?? (await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: path.join(config.dataDir, 'pgdata') }));
  await migrate(db, logger);
  // The one-answer context's own configuration turns its hot index off; the caller's object is left as it is.
  const ctx = withMailer({ config: opts.hotIndex === false ? { ...config, hotIndex: false } : config, db, clock: opts.clock ?? systemClock, logger });
  if (config.databaseReadUrls.length > 0) ctx.reads = new ReadReplicas(config.databaseReadUrls);
  return ctx;
}

/** Each replica's context, per primary context: the replica's database, a view of the context's caches. */
const replicaContexts = new WeakMap<AppContext, Map<string, AppContext>>();

function replicaContext(ctx: AppContext, db: Db, name: string): AppContext {
  let byName = replicaContexts.get(ctx);
  if (!byName) replicaContexts.set(ctx, (byName = new Map()));
  let r = byName.get(name);
  if (!r) byName.set(name, (r = { ...ctx, db, primaryDb: ctx.db, caches: ctx.caches.view(name) }));
  return r;
}

/**
 * Runs a read-only operation of the lookup path (snapshot, preview, coverage, tiles, inventory) on a
 * streaming replica when the context has some: `fn` receives a context whose db is one replica (all of
 * the operation's reads, the place catalogue's included, on that one) and whose caches are that replica's
 * view; a replica that cannot be reached is skipped, and with none left `fn` runs on this context (the
 * primary). Without replicas, `fn(ctx)`. Never for an operation that writes or reads its own writes.
 */
export function onReadReplica<T>(ctx: AppContext, fn: (readCtx: AppContext) => Promise<T>): Promise<T> {
  const reads = ctx.reads;
  if (!reads) return fn(ctx);
  return reads.run(
    (db, name) => fn(replicaContext(ctx, db, name)),
    () => fn(ctx),
    (name, err) => ctx.logger.warn({ replica: name, err: err instanceof Error ? err.message : String(err) }, 'read replica unreachable: skipped'),
  );
}
