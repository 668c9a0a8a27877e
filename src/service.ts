// Starts the whole service: database, migrations, default places, HTTP. Used by `npm start` and
// by tests (port 0 = a random port).
import type { AddressInfo } from 'node:net';
import type http from 'node:http';
import { assertMailConfigured, type Config } from './config.ts';
import { openContext, type AppContext, type ContextOptions } from './context.ts';
import { buildApp } from './app.ts';
import { createHttpServer, drainHttpServer } from './http/server.ts';
import { createMetrics } from './ops/metrics.ts';
import { registerMailMetrics } from './mail/mail-metrics.ts';
import { registerHotIndexMetrics } from './geocoder/hot-index-metrics.ts';
import { registerReadReplicaMetrics } from './ops/read-replica-metrics.ts';
import { scheduleAuthSweep } from './auth/sweep.ts';
import { writeOperatorCredential } from './staff/operator-credential.ts';
import { startAnalysisWorkers, workerOptions as workerOptionsOf, type WorkerOptions } from './analysis/analysis-workers.ts';
import type { ImportReport } from './places/import-report.ts';
import { startupLoadOf } from './places/place-loading.ts';
import { startStartupAudits, type AuditPlace, type StartupAudits } from './ops/startup-audits.ts';
import { performance } from 'node:perf_hooks';

/** The accuracy audit of a place the start imported, loaded only when a start imported one (it pulls the snapshot in). */
const auditOnePlace: AuditPlace<AppContext> = async (ctx, slug, onProgress) => {
  const { auditInBackground } = await import('./importer/audit-place.ts');
  await auditInBackground(ctx, [slug], onProgress);
};

export interface StartOptions extends ContextOptions {
  /** Skip importing default places even when some are missing or stale. */
  skipAutoImport?: boolean;
  /** Analysis workers in this process (default: the configuration's, SITELINE_ANALYSIS_* variables). */
  analysisWorkers?: Partial<WorkerOptions>;
  /**
   * Called once the server listens, just before the 'listening' line: the service process takes
   * SIGTERM and SIGINT from here on (a signal sent on that line must stop it gracefully, not kill it).
   */
  onListening?: () => void;
}

export interface RunningService {
  ctx: AppContext;
  server: http.Server;
  url: string;
  /**
   * Stops the service. With graceMs (SIGTERM in src/service-process.ts): /readyz 503 at once, the
   * listener still serving for prestopMs; then stop accepting, answer every request that arrived with
   * Connection: close, close idle connections, let in-flight requests and analysis runs finish until
   * prestopMs + graceMs, then cut what is left and hand unfinished runs back. Without: at once (tests).
   */
  close(opts?: { graceMs?: number; prestopMs?: number }): Promise<void>;
  /** Settles when the start-up load of the default places is over (each place imported or failed); the imports made. */
  placesLoaded: Promise<ImportReport[]>;
}

export async function startService(config: Config, opts: StartOptions = {}): Promise<RunningService> {
  const workerOptions = workerOptionsOf(config, opts.analysisWorkers);
  assertMailConfigured(config);
  const ctx = await openContext(config, opts);
  const { planDefaultPlaces, warnIfPlacesMissing } = await import('./importer/default-places.ts');
  const autoImport = config.autoImport && !opts.skipAutoImport;
  // Before listening: the catalogue (an address in a place not loaded yet is told so, not "unknown
  // place") and this start's queue of places to import (/readyz and the snapshot say "loading" at once).
  let importPlaces: () => Promise<ImportReport[]> = async () => [];
  if (autoImport) importPlaces = await planDefaultPlaces(ctx);
  else await warnIfPlacesMissing(ctx);
  ctx.metrics = createMetrics();
  registerMailMetrics(ctx.metrics);
  registerHotIndexMetrics(ctx);
  if (ctx.reads) registerReadReplicaMetrics(ctx.metrics, ctx.reads);
  ctx.lifecycle = { draining: false, onDrain: [] };
  const app = await buildApp(ctx);
  const server = createHttpServer(ctx, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  if (config.port === 0) {
    // A random port: the public URL follows it unless one was given explicitly.
    if (/^http:\/\/(localhost|127\.0\.0\.1):0$/.test(config.baseUrl)) config.baseUrl = `http://localhost:${port}`;
  }
  const url = `http://127.0.0.1:${port}`;
  // The machine's operator may act as staff through this process (`siteline staff add` on a fresh install): src/staff/operator-credential.ts.
  writeOperatorCredential(ctx, port);
  opts.onListening?.();
  // build: the compiled dist/ (`npm start`) or the TypeScript source under tsx (tests, `npm run dev`).
  ctx.logger.info(
    { url, baseUrl: config.baseUrl, database: ctx.db.kind, build: import.meta.url.endsWith('.js') ? 'dist' : 'source', node: process.version },
    'listening',
  );
  // Every start, once listening: default places missing (a first start that died half-way) or stale
  // are imported one at a time, each answering as soon as it is loaded (/readyz lists them); then the
  // accuracy audits of the places just imported (a minute or more for Cambridge) run in the
  // background (docs/architecture.md, "Start-up and readiness"; docs/audit.md).
  const placesLoaded: Promise<ImportReport[]> = importPlaces().catch((err: unknown) => {
    ctx.logger.error({ err: err instanceof Error ? err.message : String(err) }, 'loading the default places stopped');
    return [] as ImportReport[];
  });
  // The first start's audits: one instance audits a place for all (a claimed row, src/ops/startup-audits.ts).
  let audits: StartupAudits | undefined;
  void placesLoaded.then((imported) => {
    if (autoImport) ctx.logger.info({ imported: imported.map((r) => r.slug) }, 'default places loaded');
    if (imported.length && !ctx.lifecycle!.draining)
      audits = startStartupAudits(
        ctx,
        imported.map((r) => r.slug),
        auditOnePlace,
      );
  });
  const stopSweep = await scheduleAuthSweep(ctx);
  const workers = startAnalysisWorkers(ctx, workerOptions);
  // Mail is not a reason to refuse requests: an unreachable server is logged, the worker keeps retrying.
  void ctx.mailer.checkServer();
  ctx.mailer.startWorker();
  return {
    ctx,
    server,
    url,
    placesLoaded,
    async close({ graceMs, prestopMs = 0 }: { graceMs?: number; prestopMs?: number } = {}) {
      const started = performance.now();
      // /readyz answers 503 shutting_down from now on (src/http/health-routes.ts).
      ctx.lifecycle!.draining = true;
      // No further place starts importing; the one importing now finishes (or fails) before the database closes.
      const load = startupLoadOf(ctx.db);
      if (load) load.stopping = true;
      for (const hook of ctx.lifecycle!.onDrain.splice(0)) hook();
      stopSweep();
      // The background work stops now, each within the same bound as the requests: the audit at its next
      // step (it sees draining), the workers and mail with the run or message in hand.
      const bound = graceMs === undefined ? undefined : prestopMs + graceMs;
      const background = Promise.all([
        workers.stop(bound),
        ctx.mailer.stop(bound), // a message cut off stays claimed; its lease runs out and it is sent again
        placesLoaded.then(() => audits?.stop()),
      ]);
      if (graceMs === undefined) {
        // At once (tests): every connection cut.
        await drainHttpServer(server, started);
      } else {
        // The pre-stop period: the listener still serves while the proxy sees /readyz 503 and stops routing here.
        if (prestopMs > 0) {
          ctx.logger.info({ prestopMs }, 'pre-stop: /readyz answers 503 shutting_down; still serving until the proxy stops routing here');
          await new Promise((r) => setTimeout(r, prestopMs));
        }
        const drained = await drainHttpServer(server, started + prestopMs + graceMs);
        if (!drained) ctx.logger.warn({ graceMs }, 'requests still in flight after the shutdown grace period; their connections are closed');
      }
      await background;
      await ctx.reads?.close(); // the replicas' pools are the context's own, whoever opened the primary
      if (!opts.db) await ctx.db.close();
    },
  };
}
