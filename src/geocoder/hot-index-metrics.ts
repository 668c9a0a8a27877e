// The bounded hot index on /metrics (docs/scaling.md): this process's reads answered from memory (hit)
// or through SQL while the place was cold or loading (miss), its loads and evictions, and the places and
// estimated bytes it holds against its budget. Read from the context's index's counters at scrape time.
import { Counter, Gauge } from 'prom-client';
import type { AppContext } from '../context.ts';
import { hotIndexOf } from './place-index.ts';

/** The context's hot index on its metrics registry (the service's context has one). */
export function registerHotIndexMetrics(ctx: Pick<AppContext, 'metrics' | 'caches'>): void {
  if (!ctx.metrics) return;
  const index = hotIndexOf(ctx);
  const hotIndexStats = () => index.stats();
  const registers = [ctx.metrics.registry];
  new Counter({
    name: 'siteline_hot_index_reads_total',
    help: "Place reads by whether the place's hot index was loaded (hit) or the read went to SQL while it was cold or loading (miss) or because this instance does not own the place (unowned).",
    labelNames: ['result'] as const,
    registers,
    collect() {
      const s = hotIndexStats();
      this.reset();
      this.inc({ result: 'hit' }, s.hits);
      this.inc({ result: 'miss' }, s.misses);
      this.inc({ result: 'unowned' }, s.unowned);
    },
  });
  new Counter({
    name: 'siteline_hot_index_events_total',
    help: 'Hot index loads, evictions (least recently used, over the byte budget), indexes not kept for being larger than the budget, and failed loads.',
    labelNames: ['event'] as const,
    registers,
    collect() {
      const s = hotIndexStats();
      this.reset();
      this.inc({ event: 'load' }, s.loads);
      this.inc({ event: 'eviction' }, s.evictions);
      this.inc({ event: 'oversize' }, s.oversize);
      this.inc({ event: 'failure' }, s.failures);
    },
  });
  new Gauge({
    name: 'siteline_hot_index_bytes',
    help: "Estimated bytes of the places' hot indexes held in this process (held) and the budget they share (budget).",
    labelNames: ['kind'] as const,
    registers,
    collect() {
      const s = hotIndexStats();
      this.set({ kind: 'held' }, s.bytes);
      this.set({ kind: 'budget' }, s.budgetBytes);
    },
  });
  new Gauge({
    name: 'siteline_hot_index_places',
    help: 'Places whose hot index this process holds.',
    registers,
    collect() {
      this.set(hotIndexStats().places);
    },
  });
}
