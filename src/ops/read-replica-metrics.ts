// The streaming replicas on /metrics (docs/deploy.md, "Read replicas"): the lookup operations each replica
// answered and those the primary answered (no replica up, or each failed), the replicas' failures, and
// whether each is in use now (0 while skipped after a failure). Read from the context's replicas at scrape time.
import { Counter, Gauge } from 'prom-client';
import type { Metrics } from './metrics.ts';
import type { ReadReplicas } from '../db/read-replicas.ts';

export function registerReadReplicaMetrics(metrics: Metrics, reads: ReadReplicas): void {
  const registers = [metrics.registry];
  new Counter({
    name: 'siteline_read_operations_total',
    help: "The lookup path's read operations by the database that answered them: a replica (by its place in DATABASE_READ_URL) or the primary.",
    labelNames: ['target'] as const,
    registers,
    collect() {
      const s = reads.stats();
      this.reset();
      for (const r of s.replicas) this.inc({ target: r.name }, r.reads);
      this.inc({ target: 'primary' }, s.primaryReads);
    },
  });
  new Counter({
    name: 'siteline_read_replica_failures_total',
    help: 'Operations a replica could not answer (unreachable, shut down, cancelled by replay): each was run again elsewhere.',
    labelNames: ['replica'] as const,
    registers,
    collect() {
      this.reset();
      for (const r of reads.stats().replicas) this.inc({ replica: r.name }, r.failures);
    },
  });
  new Gauge({
    name: 'siteline_read_replica_up',
    help: 'Whether the replica is in use (0: skipped for a few seconds after a failure).',
    labelNames: ['replica'] as const,
    registers,
    collect() {
      for (const r of reads.stats().replicas) this.set({ replica: r.name }, r.up ? 1 : 0);
    },
  });
}
