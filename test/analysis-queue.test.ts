// The analysis queue: bounded attempts end in failed with the reason; two server instances on one
// PostgreSQL database drain 200 queued runs with each run executed once (PostgreSQL only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPlacesEnv, createTestDb, testCtx, SHARED_DATA } from './support/harness.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { startService } from '../src/service.ts';
import { openDatabase } from '../src/db/database.ts';
import { saveToProject } from '../src/projects/save-to-project.ts';
import { runFeasibilityAnalysis } from '../src/analysis/run-feasibility-analysis.ts';
import { claimRun, failExhausted, insertRun } from '../src/analysis/run-queue.ts';
import { agentStatusOf } from '../src/analysis/agent-status.ts';
import { analysisResultText } from '../src/analysis/feasibility-analysis.ts';
import type { RunAnalysis } from '../src/analysis/analysis-workers.ts';

test('a run whose worker dies on every attempt ends failed with the reason after max_attempts; agentStatus failed', async () => {
  const tdb = await createTestDb();
  try {
    const ctx = testCtx(tdb.db);
    const created = await saveToProject(ctx, 'acct-q', { action: 'create', name: 'Lease Test', lat: 42.3, lng: -71.1, preview: false });
    const projectId = (created as unknown as { result: { project: { projectId: string } } }).result.project.projectId;
    // This database has no places, so no lot lies under the point: a build lot row stands in (the analysis
    // refuses a project without one; this test is about the queue's leases, and no run here is executed).
    await tdb.db.query(
      `INSERT INTO project_lots (project_id, place_id, parcel_ext_id, role, snapshot, attached_at) VALUES ($1, 'XX-AA:test', 'L-1', 'build', '{}', now())`,
      [projectId],
    );
    const q = await runFeasibilityAnalysis(ctx, 'acct-q', { projectId });
    const runId = (q as unknown as { result: { runId: string } }).result.runId;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const claimed = await claimRun(ctx, `dying-${attempt}`, 60_000);
      assert.equal(claimed?.run_id, runId, `attempt ${attempt} claims the run again`);
      assert.equal(claimed?.attempts, attempt);
      assert.equal(await claimRun(ctx, 'other', 60_000), null, 'a leased run is not claimed twice');
      assert.equal(await failExhausted(ctx), 0, 'a live lease is not failed');
      // The claimer "dies": its lease passes (moved into the past instead of waiting for it).
      await tdb.db.query(`UPDATE analysis_runs SET lease_until = now() - interval '1 second' WHERE run_id = $1`, [runId]);
    }
    assert.equal(await claimRun(ctx, 'fourth', 60_000), null, 'no fourth attempt');
    assert.equal(await failExhausted(ctx), 1);
    const [row] = await tdb.db.query<{ status: string; error: string }>('SELECT status, error FROM analysis_runs WHERE run_id = $1', [runId]);
    assert.equal(row!.status, 'failed');
    assert.match(row!.error, /lease expired\) on each of 3 attempts/);
    const s = await agentStatusOf(ctx, projectId);
    assert.equal(s.status, 'failed');
    assert.match(s.error!, /3 attempts/);
  } finally {
    await tdb.close();
  }
});

test('two server instances on one PostgreSQL database drain 200 queued runs: each runs once', {
  skip: !process.env.DATABASE_URL,
  timeout: 300_000,
}, async () => {
  const placesEnv = await createPlacesEnv(['cambridge-ma']);
  const dirs: string[] = [];
  const services: Awaited<ReturnType<typeof startService>>[] = [];
  try {
    const url = placesEnv.env.DATABASE_URL!;
    const setupDb = await openDatabase({ databaseUrl: url });
    const ctx = testCtx(setupDb);
    const projectIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await saveToProject(ctx, 'acct-pg', { action: 'create', name: `Drain ${i}`, address: '11 Acorn St, Cambridge, MA', preview: false });
      projectIds.push((c as unknown as { result: { project: { projectId: string } } }).result.project.projectId);
    }
    // Queued before any worker runs, so both instances start on a full queue.
    for (let i = 0; i < 200; i++)
      await insertRun(ctx, setupDb, { projectId: projectIds[i % 4]!, accountId: 'acct-pg', receiptId: '00000000-0000-4000-8000-000000000000' });
    await setupDb.close();
    // Each instance's run step counts the runs it was handed. The first instance's runs wait until the
    // second has begun one, so both take part whatever their start times; the 200th run begun is the
    // awaited end (a run executed twice would leave another one unrun).
    let begun = 0;
    let allBegun!: () => void;
    const allHanded = new Promise<void>((r) => (allBegun = r));
    let secondBegan!: () => void;
    const secondBusy = new Promise<void>((r) => (secondBegan = r));
    const stepOf =
      (instance: number): RunAnalysis =>
      async (inputs) => {
        if (instance === 1) secondBegan();
        else await secondBusy;
        if (++begun === 200) allBegun();
        return analysisResultText(inputs);
      };
    for (let i = 0; i < 2; i++) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-drain-'));
      dirs.push(dataDir);
      const config = loadConfig(
        { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' },
        { port: 0, host: '127.0.0.1', sourceDir: SHARED_DATA, autoImport: false, dataDir },
      );
      services.push(
        await startService(config, { logger: createLogger('silent'), analysisWorkers: { concurrency: 2, pollMs: 20, leaseMs: 30_000, analyse: stepOf(i) } }),
      );
    }
    await allHanded;
    // Closing waits for the runs in hand to be stored.
    for (const s of services.splice(0)) await s.close();
    const db = await openDatabase({ databaseUrl: url });
    const rows = await db.query<{ status: string; attempts: number; worker_id: string }>('SELECT status, attempts, worker_id FROM analysis_runs');
    assert.equal(rows.length, 200);
    assert.ok(
      rows.every((r) => r.status === 'succeeded'),
      'all succeeded',
    );
    assert.ok(
      rows.every((r) => r.attempts === 1),
      'each run was claimed (and executed) exactly once',
    );
    const perWorker = new Map<string, number>();
    for (const r of rows) perWorker.set(r.worker_id, (perWorker.get(r.worker_id) ?? 0) + 1);
    assert.equal(perWorker.size, 2, `both instances drained runs: ${JSON.stringify([...perWorker])}`);
    await db.close();
  } finally {
    for (const s of services) await s.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    await placesEnv.close();
  }
});
