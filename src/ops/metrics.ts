// Prometheus metrics for one service instance: request and MCP tool latencies counted in this
// process, and the shared state (analysis queue, places, credit) read from the database at scrape
// time, so every instance reports the same totals. One registry per context (no module singletons).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Queryable } from '../db/database.ts';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Extra gauges read at scrape time (the mail queue registers one here). */
export type ScrapeCollector = (db: Queryable, registry: Registry) => Promise<void>;

export interface Metrics {
  readonly registry: Registry;
  /** One finished HTTP request: its route pattern (never the raw path), method and status. */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  /** One MCP tool call: outcome ok | tool_error | failure. */
  observeTool(tool: string, outcome: 'ok' | 'tool_error' | 'failure', seconds: number): void;
  /** Renders the text exposition, reading the database-backed gauges first. */
  render(db: Queryable): Promise<{ contentType: string; body: string }>;
  /** Adds a gauge family read at each scrape (e.g. mail queue depth). */
  addCollector(collect: ScrapeCollector): void;
}

// Long because: every metric declared in one place, in the order /metrics lists them.
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'siteline_' });
  const requests = new Histogram({
    name: 'siteline_http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status, with their latency.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const tools = new Histogram({
    name: 'siteline_mcp_tool_duration_seconds',
    help: 'MCP tool calls by tool and outcome (ok, tool_error: an isError answer, failure: -32603), with their latency.',
    labelNames: ['tool', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const scrapeErrors = new Counter({
    name: 'siteline_metrics_scrape_errors_total',
    help: 'Scrapes whose database-backed gauges could not be read.',
    registers: [registry],
  });
  const queue = new Gauge({
    name: 'siteline_analysis_runs',
    help: 'Analysis runs by status (queued, running), across all instances.',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const queueAge = new Gauge({
    name: 'siteline_analysis_oldest_queued_age_seconds',
    help: 'Age of the oldest queued analysis run (0 when none waits).',
    registers: [registry],
  });
  const placeLoaded = new Gauge({
    name: 'siteline_place_loaded',
    help: 'Whether a place is imported (1) or not (0), by slug and coverage status.',
    labelNames: ['place', 'status'] as const,
    registers: [registry],
  });
  const placeImported = new Gauge({
    name: 'siteline_place_imported_timestamp_seconds',
    help: 'When the place was last imported (Unix time).',
    labelNames: ['place'] as const,
    registers: [registry],
  });
  const placeLastRun = new Gauge({
    name: 'siteline_place_last_import_ok',
    help: 'Whether the last import run of the place finished (1) or is unfinished or failed (0).',
    labelNames: ['place'] as const,
    registers: [registry],
  });
  const ledger = new Gauge({
    name: 'siteline_credit_ledger_credits',
    help: 'Credits moved by ledger entry kind (spend, grant, purchase, refund), all time, absolute values.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const collectors: ScrapeCollector[] = [];

  const readShared = async (db: Queryable) => {
    const runs = await db.query<{ status: string; n: number; oldest: number | null }>(
      `SELECT status, count(*)::int AS n, extract(epoch FROM now() - min(enqueued_at))::float8 AS oldest
         FROM analysis_runs WHERE status IN ('queued', 'running') GROUP BY status`,
    );
    queue.reset();
    queue.set({ status: 'queued' }, 0);
    queue.set({ status: 'running' }, 0);
    queueAge.set(0);
    for (const r of runs) {
      queue.set({ status: r.status }, r.n);
      if (r.status === 'queued') queueAge.set(Math.max(0, Number(r.oldest ?? 0)));
    }
    const places = await db.query<{ slug: string; status: string; imported: number | null; last_ok: boolean | null }>(
      `SELECT p.slug, p.status, extract(epoch FROM p.imported_at)::float8 AS imported,
              (SELECT r.finished_at IS NOT NULL FROM import_runs r WHERE r.place_id = p.place_id ORDER BY r.run_id DESC LIMIT 1) AS last_ok
         FROM places p`,
    );
    placeLoaded.reset();
    placeImported.reset();
    placeLastRun.reset();
    for (const p of places) {
      placeLoaded.set({ place: p.slug, status: p.status }, p.imported === null ? 0 : 1);
      if (p.imported !== null) placeImported.set({ place: p.slug }, Number(p.imported));
      if (p.last_ok !== null) placeLastRun.set({ place: p.slug }, p.last_ok ? 1 : 0);
    }
    const kinds = await db.query<{ kind: string; credits: string }>(
      `SELECT kind, coalesce(sum(abs(amount)), 0)::text AS credits FROM credit_ledger GROUP BY kind`,
    );
    ledger.reset();
    for (const k of ['spend', 'grant', 'purchase', 'refund']) ledger.set({ kind: k }, 0);
    for (const k of kinds) ledger.set({ kind: k.kind }, Number(k.credits));
    for (const c of collectors) await c(db, registry);
  };

  return {
    registry,
    observeRequest(route, method, status, seconds) {
      requests.observe({ route, method, status: String(status) }, seconds);
    },
    observeTool(tool, outcome, seconds) {
      tools.observe({ tool, outcome }, seconds);
    },
    async render(db) {
      try {
        await readShared(db);
      } catch {
        scrapeErrors.inc();
      }
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    addCollector(collect) {
      collectors.push(collect);
    },
  };
}
