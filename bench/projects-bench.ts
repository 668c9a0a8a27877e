// Projects and the analysis queue on idle embedded PGlite (in memory, Cambridge imported):
//   1. enqueue -> current for one run (runFeasibilityAnalysis, then the workers of this process) [p50 <= 250 ms]
//   2. draining 1,000 queued runs with the default two worker loops [>= 50 runs/s]
//   3. getProjectContext on a project with a current analysis [p50 <= 5 ms]
// Baseline in the same run: SELECT 1 p50. Speed is never asserted in a test; it is reported here.
import { withMailer } from '../src/context.ts';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { systemClock } from '../src/clock.ts';
import type { AppContext } from '../src/context.ts';
import { saveToProject } from '../src/projects/save-to-project.ts';
import { runFeasibilityAnalysis } from '../src/analysis/run-feasibility-analysis.ts';
import { getProjectContext } from '../src/reports/project-context.ts';
import { insertRun, latestRun, notifyEnqueued } from '../src/analysis/run-queue.ts';
import { startAnalysisWorkers, workerOptions } from '../src/analysis/analysis-workers.ts';
import { fmtMs, percentile, timeEach } from './measure.ts';
import { verdict } from './targets.ts';

const ACCOUNT = 'bench-account';

export async function runProjectsBench(): Promise<string[]> {
  const sourceDir = path.resolve(import.meta.dirname, '../../shared/data');
  const db = await openDatabase({ pgliteDir: 'memory://' });
  await migrate(db);
  const config = loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { sourceDir, autoImport: false });
  const ctx: AppContext = withMailer({ config, db, clock: systemClock, logger: createLogger('silent') });
  const { importPlace } = await import('../src/importer/import-place.ts');
  await importPlace(ctx, 'cambridge-ma', { sourceDir, quiet: true });
  const addresses = [
    '11 Acorn St, Cambridge, MA',
    '13 Acorn St, Cambridge, MA',
    '17 Acorn St, Cambridge, MA',
    '21 Acorn St, Cambridge, MA',
    '23 Acorn St, Cambridge, MA',
  ];
  const projectIds: string[] = [];
  for (const [i, address] of addresses.entries()) {
    const out = await saveToProject(ctx, ACCOUNT, { action: 'create', name: `Bench ${i}`, address, preview: false });
    projectIds.push((out as unknown as { result: { project: { projectId: string } } }).result.project.projectId);
  }
  const select1 = await timeEach(
    Array.from({ length: 500 }, (_, i) => i),
    () => db.query('SELECT 1'),
  );
  const opts = workerOptions(ctx.config, { concurrency: 2, pollMs: 500 });

  // 1. enqueue -> current, one run at a time on an idle service.
  let workers = startAnalysisWorkers(ctx, opts);
  const lat: number[] = [];
  for (let i = 0; i < 40; i++) {
    const projectId = projectIds[i % projectIds.length]!;
    const t = process.hrtime.bigint();
    const q = await runFeasibilityAnalysis(ctx, ACCOUNT, { projectId });
    const runId = (q as unknown as { result: { runId: string } }).result.runId;
    for (;;) {
      const r = await latestRun(db, projectId);
      if (r?.run_id === runId && (r.status === 'succeeded' || r.status === 'failed')) break;
      await new Promise((res) => setTimeout(res, 1));
    }
    lat.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  lat.sort((a, b) => a - b);
  await workers.stop();

  // 2. drain 1,000 queued runs.
  for (let i = 0; i < 1000; i++)
    await insertRun(ctx, db, { projectId: projectIds[i % projectIds.length]!, accountId: ACCOUNT, receiptId: '00000000-0000-4000-8000-000000000000' });
  const t0 = process.hrtime.bigint();
  workers = startAnalysisWorkers(ctx, opts);
  notifyEnqueued(ctx);
  for (;;) {
    const [r] = await db.query<{ open: number }>(`SELECT count(*)::int AS open FROM analysis_runs WHERE status IN ('queued', 'running')`);
    if (r!.open === 0) break;
    await new Promise((res) => setTimeout(res, 20));
  }
  const drainS = Number(process.hrtime.bigint() - t0) / 1e9;
  await workers.stop();
  const [failed] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM analysis_runs WHERE status = 'failed'`);

  // 3. getProjectContext on a project whose analysis is current (no run in the re-check interval).
  await db.query(`UPDATE analysis_runs SET enqueued_at = enqueued_at - interval '1 minute'`);
  const ctxTimes = await timeEach(
    Array.from({ length: 300 }, (_, i) => i),
    (i) => getProjectContext(ctx, ACCOUNT, { projectId: projectIds[i % projectIds.length]!, documentsLimit: 10, evidenceLimit: 20 }),
  );
  await db.close();
  const p50 = percentile(lat, 50);
  return [
    `Projects and the analysis queue (PGlite in memory, Cambridge, two worker loops in-process; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores):`,
    `  enqueue -> current p50 ${fmtMs(p50)} ${verdict('projects.enqueue.p50', p50)}  p99 ${fmtMs(percentile(lat, 99))}  (${lat.length} runs, one at a time)`,
    `  drain 1,000 queued runs: ${drainS.toFixed(2)} s = ${(1000 / drainS).toFixed(0)} runs/s ${verdict('projects.drain', 1000 / drainS)}  (${failed!.n} failed)`,
    `  getProjectContext p50 ${fmtMs(ctxTimes.p50)} ${verdict('projects.context.p50', ctxTimes.p50)}  p99 ${fmtMs(ctxTimes.p99)}`,
    `  baseline SELECT 1 p50 ${fmtMs(select1.p50)}: enqueue->current = ${(p50 / select1.p50).toFixed(0)}x, getProjectContext = ${(ctxTimes.p50 / select1.p50).toFixed(1)}x one empty query`,
    '',
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const l of await runProjectsBench()) console.log(l);
}
