// The mail queue on /metrics (docs/deploy.md): messages by status and the age of the oldest message
// waiting, read from the database at scrape time, so every instance reports the same queue.
import { Gauge } from 'prom-client';
import type { Metrics } from '../ops/metrics.ts';

const STATUSES = ['queued', 'sending', 'sent', 'failed'] as const;

export function registerMailMetrics(metrics: Metrics): void {
  const depth = new Gauge({
    name: 'siteline_mail_queue_messages',
    help: 'Messages in the mail queue by status (queued: waiting to be sent or retried; failed: permanently, see /staff/mail).',
    labelNames: ['status'] as const,
    registers: [metrics.registry],
  });
  const oldest = new Gauge({
    name: 'siteline_mail_oldest_waiting_age_seconds',
    help: 'Age of the oldest message not yet sent (queued or being sent); 0 when none waits.',
    registers: [metrics.registry],
  });
  metrics.addCollector(async (db) => {
    const rows = await db.query<{ status: string; n: number; oldest: Date | string | null }>(
      'SELECT status, count(*)::int AS n, min(created_at) AS oldest FROM mail_queue GROUP BY status',
    );
    for (const s of STATUSES) depth.set({ status: s }, rows.find((r) => r.status === s)?.n ?? 0);
    const waiting = rows.filter((r) => (r.status === 'queued' || r.status === 'sending') && r.oldest).map((r) => new Date(r.oldest!).getTime());
    oldest.set(waiting.length ? Math.max(0, (Date.now() - Math.min(...waiting)) / 1000) : 0);
  });
}
