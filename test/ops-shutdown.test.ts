// SIGTERM on the real `siteline` process (src/main.ts, as `npm start` runs it): it stops accepting,
// every request it had accepted gets its full answer, an analysis run still working when the grace
// period ends is handed back to the queue (not counted as an attempt), the process exits 0, and a
// restart on the same data serves again and finishes that run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createPlacesEnv, ROOT, testCtx } from './support/harness.ts';
import { listening, startSiteline, stop } from './support/siteline-process.ts';
import { modernRequest, parseRpcBody } from './mcp-support.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { saveToProject } from '../src/projects/save-to-project.ts';
import { runFeasibilityAnalysis } from '../src/analysis/run-feasibility-analysis.ts';
import { REPO_PLACES_DIR } from '../src/config.ts';

const HELD_RUN_PROCESS = path.join(ROOT, 'test/support/held-run-process.ts');

async function openEnvDb(env: Record<string, string>) {
  const db = env.DATABASE_URL
    ? await openDatabase({ databaseUrl: env.DATABASE_URL })
    : await openDatabase({ pgliteDir: path.join(env.SITELINE_DATA_DIR!, 'pgdata') });
  await migrate(db);
  return db;
}

interface Pending {
  /** Resolves once the server has accepted the request (its 100 Continue arrived). */
  accepted: Promise<void>;
  /** Sends the body; resolves with the full answer. */
  finish(): Promise<{ status: number; body: string; connection: string | undefined }>;
}

/** A tools/call whose body is held back behind Expect: 100-continue: accepted by the server, not yet answerable. */
function heldRequest(url: string): Pending {
  const { body, headers } = modernRequest('tools/call', { name: 'getServiceMcpGuide', arguments: {} });
  const text = JSON.stringify(body);
  let answer!: Promise<{ status: number; body: string; connection: string | undefined }>;
  let req!: http.ClientRequest;
  const accepted = new Promise<void>((resolve, reject) => {
    req = http.request(`${url}/api/mcp`, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(text)), expect: '100-continue' },
    });
    answer = new Promise((res2, rej2) => {
      req.on('response', (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (data += d));
        res.on('end', () => res2({ status: res.statusCode ?? 0, body: data, connection: res.headers.connection }));
        res.on('error', rej2);
      });
      req.on('error', rej2);
    });
    req.on('continue', () => resolve());
    req.on('error', reject);
    req.flushHeaders();
  });
  return {
    accepted,
    finish() {
      req.end(text);
      return answer;
    },
  };
}

/**
 * A held request the server has accepted (its 100 Continue arrived). A connection closed before that
 * was never accepted, so what is promised of accepted requests does not cover it: it is sent again
 * (at most three times, each said in the test's output).
 */
async function acceptedRequest(url: string): Promise<Pending> {
  for (let attempt = 1; ; attempt++) {
    const h = heldRequest(url);
    try {
      await h.accepted;
      return h;
    } catch (err) {
      if (attempt >= 3) throw err;
      console.log(`# a held request was closed before the server accepted it (${(err as Error).message}); sent again`);
    }
  }
}

/**
 * Whether a new connection made now is served. Once draining, it is not: refused, or (when the kernel
 * had already queued it as the listening socket closed) reset without an answer.
 */
function newConnectionServed(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${url}/healthz`, { agent: false }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
    req.setTimeout(5000, () => {
      req.destroy();
      resolve(false);
    });
  });
}

test('SIGTERM: accepted requests all get full answers, new connections are refused, an unfinished analysis run is handed back, exit 0; a restart serves and finishes it', {
  timeout: 600_000,
}, async () => {
  const placesEnv = await createPlacesEnv(['cambridge-ma']);
  // The catalogue holds Cambridge alone, the one place this database holds, so that the instance is
  // ready (/readyz 200) before SIGTERM: every live default place must be loaded, and Somerville is one.
  const placesDir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-shutdown-places-'));
  fs.cpSync(path.join(REPO_PLACES_DIR, 'cambridge-ma'), path.join(placesDir, 'cambridge-ma'), { recursive: true });
  try {
    let db = await openEnvDb(placesEnv.env);
    let runId: string;
    try {
      const ctx = testCtx(db);
      const created = await saveToProject(ctx, 'acct-term', { action: 'create', name: 'Term Test', address: '11 Acorn St, Cambridge, MA', preview: false });
      assert.equal(created.kind, 'written');
      const projectId = (created as unknown as { result: { project: { projectId: string } } }).result.project.projectId;
      const q = await runFeasibilityAnalysis(ctx, 'acct-term', { projectId });
      assert.equal(q.kind, 'queued');
      runId = (q as unknown as { result: { runId: string } }).result.runId;
    } finally {
      await db.close();
    }

    const env = {
      ...(process.env as Record<string, string>),
      ...placesEnv.env,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      SITELINE_PLACES_DIR: placesDir,
      SITELINE_ANALYSIS_WORKERS: '1',
      SITELINE_ANALYSIS_POLL_MS: '50',
      // The bound on shutdown; the first process's run is held until handed back, so the bound is what ends it.
      SITELINE_SHUTDOWN_GRACE_MS: '8000',
    };
    const first = startSiteline(env, ROOT, [HELD_RUN_PROCESS, 'serve']);
    let url: string;
    try {
      url = await listening(first);
      await first.waitFor((l) => l.msg === 'analysis run started' && l.runId === runId, 'the run to start');
      const ready = await fetch(`${url}/readyz`);
      assert.equal(ready.status, 200, await ready.text());

      const held = await Promise.all([acceptedRequest(url), acceptedRequest(url), acceptedRequest(url)]);
      first.child.kill('SIGTERM');
      await first.waitFor((l) => l.msg === 'shutting down', 'the shutting-down line');
      assert.equal(await newConnectionServed(url), false, 'no new connection is served once draining');

      const answers = await Promise.all(held.map((h) => h.finish()));
      for (const a of answers) {
        assert.equal(a.status, 200, a.body);
        const msg = parseRpcBody(a.body, a.body.trimStart().startsWith('{') ? 'application/json' : 'text/event-stream');
        assert.ok(msg?.result?.content?.length, `a full tool answer: ${a.body.slice(0, 200)}`);
        assert.equal(a.connection, 'close', 'the last answer on its connection');
      }
      const { code, signal } = await first.exited;
      assert.deepEqual([code, signal], [0, null], 'exit 0');
      assert.ok(first.lines.some((l) => l.msg === 'stopped'));
      // The workers' own line (the interrupted run logs "handed back" too, and may log first).
      const handedBack = first.lines.find((l) => /stopped before their runs finished/.test(String(l.msg)));
      assert.equal(handedBack?.released, 1, 'the running analysis run was handed back at the bound');
    } finally {
      if (first.child.exitCode === null && first.child.signalCode === null) await stop(first);
    }

    db = await openEnvDb(placesEnv.env);
    try {
      const [row] = await db.query<{ status: string; attempts: number; worker_id: string | null }>(
        'SELECT status, attempts, worker_id FROM analysis_runs WHERE run_id = $1',
        [runId],
      );
      assert.deepEqual([row!.status, row!.attempts, row!.worker_id], ['queued', 0, null], 'queued again, the interrupted attempt not counted');
    } finally {
      await db.close();
    }

    const second = startSiteline(env, ROOT);
    try {
      const url2 = await listening(second);
      assert.equal((await fetch(`${url2}/healthz`)).status, 200);
      const again = heldRequest(url2);
      await again.accepted;
      assert.equal((await again.finish()).status, 200, 'the restarted service answers');
      await second.waitFor((l) => l.msg === 'analysis run started' && l.runId === runId, 'the run to start again');
    } finally {
      await stop(second);
    }
    db = await openEnvDb(placesEnv.env);
    try {
      const [row] = await db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM analysis_runs WHERE run_id = $1', [runId]);
      assert.deepEqual([row!.status, row!.attempts], ['succeeded', 1], 'finished after the restart, on its first counted attempt');
    } finally {
      await db.close();
    }
  } finally {
    await placesEnv.close();
    fs.rmSync(placesDir, { recursive: true, force: true });
  }
});
