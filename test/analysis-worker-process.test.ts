// `siteline worker` as a separate process: a worker killed with SIGKILL in the middle of a run leaves
// the run to be claimed again after its lease, and it completes. Runs on PGlite (the data directory
// is handed from process to process) and on PostgreSQL when DATABASE_URL is set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createPlacesEnv, ROOT, testCtx } from './support/harness.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { saveToProject } from '../src/projects/save-to-project.ts';
import { runFeasibilityAnalysis } from '../src/analysis/run-feasibility-analysis.ts';
import { executeRun, workerOptions } from '../src/analysis/analysis-workers.ts';
import { claimRun } from '../src/analysis/run-queue.ts';

const HELD_RUN_PROCESS = path.join(ROOT, 'test/support/held-run-process.ts');

async function openEnvDb(env: Record<string, string>) {
  const db = env.DATABASE_URL
    ? await openDatabase({ databaseUrl: env.DATABASE_URL })
    : await openDatabase({ pgliteDir: path.join(env.SITELINE_DATA_DIR!, 'pgdata') });
  await migrate(db);
  return db;
}

test('a worker killed with SIGKILL mid-run: the run is claimed again after the lease and completes', { timeout: 180_000 }, async () => {
  const placesEnv = await createPlacesEnv(['cambridge-ma']);
  try {
    // Set up a project with a queued run through the domain calls.
    let db = await openEnvDb(placesEnv.env);
    let runId: string;
    try {
      const ctx = testCtx(db);
      const created = await saveToProject(ctx, 'acct-kill', { action: 'create', name: 'Kill Test', address: '11 Acorn St, Cambridge, MA', preview: false });
      assert.equal(created.kind, 'written');
      const projectId = (created as unknown as { result: { project: { projectId: string } } }).result.project.projectId;
      const q = await runFeasibilityAnalysis(ctx, 'acct-kill', { projectId });
      assert.equal(q.kind, 'queued');
      runId = (q as unknown as { result: { runId: string } }).result.runId;
    } finally {
      await db.close();
    }

    // The worker process claims the run and holds it (its run step waits to be handed back).
    const child = spawn(process.execPath, ['--import', 'tsx', HELD_RUN_PROCESS, 'worker'], {
      cwd: ROOT,
      env: { ...process.env, ...placesEnv.env, LOG_LEVEL: 'info', SITELINE_ANALYSIS_LEASE_MS: '600000', SITELINE_ANALYSIS_POLL_MS: '50' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stderr.on('data', (d) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`the worker never started the run:\n${out}`)), 90_000);
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('analysis run started') && out.includes(runId)) {
          clearTimeout(t);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`worker exited ${code}:\n${out}`)));
    });
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;

    db = await openEnvDb(placesEnv.env);
    try {
      const [claimed] = await db.query<{ status: string; attempts: number; worker_id: string }>(
        'SELECT status, attempts, worker_id FROM analysis_runs WHERE run_id = $1',
        [runId],
      );
      assert.deepEqual([claimed!.status, claimed!.attempts], ['running', 1], 'the killed worker had claimed the run');
      const ctx = testCtx(db);
      // The killed worker's lease passes (moved into the past rather than waited for); until then no
      // other worker may take the run.
      const w = workerOptions(ctx.config, { concurrency: 1 });
      assert.equal(await claimRun(ctx, w.workerId, w.leaseMs), null, 'a live lease is not claimed');
      await db.query(`UPDATE analysis_runs SET lease_until = now() - interval '1 second' WHERE run_id = $1`, [runId]);
      const again = await claimRun(ctx, w.workerId, w.leaseMs);
      assert.equal(again?.run_id, runId, 'claimed again after the lease');
      await executeRun(ctx, again!, w);
      const [row] = await db.query<{ status: string; attempts: number; worker_id: string; result: string | null }>(
        'SELECT status, attempts, worker_id, result FROM analysis_runs WHERE run_id = $1',
        [runId],
      );
      assert.equal(row!.status, 'succeeded', 'completed after the lease');
      assert.equal(row!.attempts, 2);
      assert.equal(row!.worker_id, w.workerId);
      assert.notEqual(row!.worker_id, claimed!.worker_id);
      assert.ok(JSON.parse(row!.result!).combinedLotArea.value > 0);
    } finally {
      await db.close();
    }
  } finally {
    await placesEnv.close();
  }
});

test('a worker stopped with SIGTERM mid-run hands the run back at SITELINE_SHUTDOWN_GRACE_MS and exits 0; the attempt is not counted', {
  timeout: 300_000,
}, async () => {
  const placesEnv = await createPlacesEnv(['cambridge-ma']);
  try {
    let db = await openEnvDb(placesEnv.env);
    let runId: string;
    try {
      const ctx = testCtx(db);
      const created = await saveToProject(ctx, 'acct-term', { action: 'create', name: 'Term Test', address: '11 Acorn St, Cambridge, MA', preview: false });
      const projectId = (created as unknown as { result: { project: { projectId: string } } }).result.project.projectId;
      const q = await runFeasibilityAnalysis(ctx, 'acct-term', { projectId });
      runId = (q as unknown as { result: { runId: string } }).result.runId;
    } finally {
      await db.close();
    }
    // The run is held until handed back: the grace period's bound is what ends it.
    const child = spawn(process.execPath, ['--import', 'tsx', HELD_RUN_PROCESS, 'worker'], {
      cwd: ROOT,
      env: { ...process.env, ...placesEnv.env, LOG_LEVEL: 'info', SITELINE_ANALYSIS_POLL_MS: '50', SITELINE_SHUTDOWN_GRACE_MS: '500' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`the worker never started the run:\n${out}`)), 120_000);
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('analysis run started') && out.includes(runId)) {
          clearTimeout(t);
          resolve();
        }
      });
    });
    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    assert.match(out, /handed back to the queue/);
    db = await openEnvDb(placesEnv.env);
    try {
      const [row] = await db.query<{ status: string; attempts: number; worker_id: string | null }>(
        'SELECT status, attempts, worker_id FROM analysis_runs WHERE run_id = $1',
        [runId],
      );
      assert.deepEqual([row!.status, row!.attempts, row!.worker_id], ['queued', 0, null]);
    } finally {
      await db.close();
    }
  } finally {
    await placesEnv.close();
  }
});
