// A stop that drops nothing (issue 45), on the real `siteline` process and real signals:
// - SIGTERM with kept-alive clients sending all the while: /readyz answers 503 shutting_down while the
//   listener still serves (SITELINE_PRESTOP_MS); then every request that reached the server is answered
//   (the last on each connection with Connection: close), none is reset, a connection left idle is closed
//   by a FIN; the background audit of the place this start imported stops at its next step before the
//   database closes (no "Cannot use a pool after calling end on the pool"); exit 0.
// - `npx siteline worker`: SIGTERM to the npx process the operator started stops the worker (npm's
//   shell died of it and left node running before).
// - Under a launcher that dies without passing SIGTERM on, with a shell between that ignores it, the
//   worker stops too (it watches the shell's parent as well as its own).
// - A stopped worker exits even when a handle is left open (it names the handle in the log).
// - The service process takes SIGTERM from its 'listening' line on: one sent on that line (the start
//   still had a database step to finish) stops it gracefully, exit 0, where it used to kill it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { createPlacesEnv, ROOT } from './support/harness.ts';
import { listening, placesLoaded, startSiteline, stop } from './support/siteline-process.ts';
import { syntheticPlace } from './support/synthetic-place.ts';

const PRESTOP_MS = 1500;
const CLIENTS = 6;

interface ClientTally {
  answered: number;
  answeredAfterSigterm: number;
  lastConnection: string | undefined;
  /** Failures other than a refused connection (a request that never left): resets, hang-ups. */
  failures: string[];
  refused: boolean;
}

/** A kept-alive client (one socket, reused) asking /healthz back to back until its connection is refused. */
async function keptAliveClient(url: string, sigtermAt: () => number | undefined): Promise<ClientTally> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const t: ClientTally = { answered: 0, answeredAfterSigterm: 0, lastConnection: undefined, failures: [], refused: false };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const outcome = await new Promise<'ok' | 'refused' | 'failed'>((resolve) => {
      const req = http.get(`${url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => {
          t.answered++;
          if (sigtermAt() !== undefined) t.answeredAfterSigterm++;
          t.lastConnection = res.headers.connection;
          resolve('ok');
        });
        res.on('error', (err) => {
          t.failures.push(`response: ${(err as NodeJS.ErrnoException).code ?? err.message}`);
          resolve('failed');
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNREFUSED') return resolve('refused');
        t.failures.push(`${err.code ?? ''} ${err.message}`);
        resolve('failed');
      });
    });
    if (outcome === 'refused') {
      t.refused = true;
      break;
    }
    if (outcome === 'failed') break;
  }
  agent.destroy();
  return t;
}

/** test/support/held-run-process.ts in the given mode, its stdout and stderr gathered, info logs. */
function heldRunProcess(mode: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/support/held-run-process.ts'), mode], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((r) => child.once('exit', (code, signal) => r([code, signal])));
  return { child, exited, out: () => out };
}

/** The JSON log lines of a process's output (the CLI's plain lines left out). */
const logLines = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('SIGTERM with kept-alive clients: /readyz 503 while still serving, then every request answered (Connection: close), none reset, idle connections closed by FIN, the audit stopped cleanly, exit 0', {
  timeout: 300_000,
}, async () => {
  const dbEnv = await createPlacesEnv([]);
  const work = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'stop-'));
  try {
    // 1,000 addresses: its audit takes seconds, longer under load (it gives way to requests).
    const place = syntheticPlace(work, 20);
    const s = startSiteline(
      {
        ...(process.env as Record<string, string>),
        ...dbEnv.env,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'info',
        SITELINE_PLACES_DIR: place.placesDir,
        SITELINE_SOURCE_DIR: place.sourceDir,
        SITELINE_AUTO_IMPORT: '1',
        SITELINE_ANALYSIS_WORKERS: '1',
        SITELINE_PRESTOP_MS: String(PRESTOP_MS),
      },
      work,
    );
    try {
      const url = await listening(s);
      await placesLoaded(s);
      const port = Number(new URL(url).port);

      // A connection that asks once and then stays idle: it must be closed by the server's FIN, not reset.
      const idle = net.connect(port, '127.0.0.1');
      const idleEnded = new Promise<string>((resolve) => {
        let got = '';
        idle.on('data', (d) => (got += d));
        idle.on('end', () => resolve(`fin after ${got.length} bytes`));
        idle.on('error', (err: NodeJS.ErrnoException) => resolve(`error ${err.code}`));
      });
      idle.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);

      let sigtermAt: number | undefined;
      const clients = Array.from({ length: CLIENTS }, () => keptAliveClient(url, () => sigtermAt));
      // /readyz on a new connection every 50 ms: what a proxy's health check sees.
      const probes: Array<{ at: number; status: number | string }> = [];
      const probing = (async () => {
        for (;;) {
          const status = await new Promise<number | string>((resolve) => {
            const req = http.get(`${url}/readyz`, { agent: false }, (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            });
            req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
          });
          probes.push({ at: Date.now(), status });
          if (typeof status === 'string') return; // the listener is closed
          await new Promise((r) => setTimeout(r, 50));
        }
      })();

      await new Promise((r) => setTimeout(r, 500));
      assert.ok(!s.lines.some((l) => /: audit: /.test(String(l.msg))), 'the audit is still running when SIGTERM comes');
      sigtermAt = Date.now();
      s.child.kill('SIGTERM');
      const tallies = await Promise.all(clients);
      await probing;
      const { code, signal } = await s.exited;
      const idleOutcome = await idleEnded;
      idle.destroy();

      const failures = tallies.flatMap((t) => t.failures);
      const answered = tallies.reduce((n, t) => n + t.answered, 0);
      const afterSigterm = tallies.reduce((n, t) => n + t.answeredAfterSigterm, 0);
      const shuttingDown = probes.filter((p) => p.status === 503);
      console.log(
        `# ${answered} requests answered on ${CLIENTS} kept-alive connections (${afterSigterm} after SIGTERM), ${failures.length} reset or cut; /readyz: ${probes.length} probes, ${shuttingDown.length} answered 503 while the listener served, then ${String(probes.at(-1)?.status)}; idle connection: ${idleOutcome}`,
      );
      assert.deepEqual(failures, [], 'no request reset or cut');
      assert.ok(
        tallies.every((t) => t.refused),
        'each client ends on a refused connection (the listener closed), not a failure',
      );
      assert.ok(
        tallies.every((t) => t.lastConnection === 'close'),
        `the last answer on each connection said Connection: close: ${tallies.map((t) => t.lastConnection).join(', ')}`,
      );
      assert.ok(afterSigterm > CLIENTS, 'the listener kept serving after SIGTERM');
      assert.ok(shuttingDown.length >= 3, `/readyz answered 503 while the listener still served: ${JSON.stringify(probes.slice(-8))}`);
      assert.ok(shuttingDown[0]!.at - sigtermAt! < PRESTOP_MS, '503 from the start of the pre-stop period');
      assert.match(idleOutcome, /^fin after \d+ bytes$/, 'the idle kept-alive connection was closed by a FIN');
      assert.deepEqual([code, signal], [0, null], 'exit 0');

      // The log after SIGTERM: the audit stopped at its next step, and nothing else complained.
      const from = s.lines.findIndex((l) => l.msg === 'shutting down');
      const after = s.lines.slice(from);
      const stopped = after.find((l) => /place audit stopped/.test(String(l.msg)));
      assert.equal(stopped?.err, 'the service is stopping', `the audit stopped for the shutdown: ${JSON.stringify(stopped)}`);
      const complaints = after.filter((l) => l !== stopped && (l.level >= 40 || /pool|closed/i.test(JSON.stringify(l.err ?? ''))));
      assert.deepEqual(complaints, [], 'no warning or error while stopping');
      assert.ok(after.some((l) => l.msg === 'stopped'));
    } finally {
      if (s.child.exitCode === null && s.child.signalCode === null) await stop(s);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
    await dbEnv.close();
  }
});

test('npx siteline worker: SIGTERM to the npx process stops the worker (exit 0, its stop logged), leaving no node behind', { timeout: 180_000 }, async () => {
  const dbEnv = await createPlacesEnv([]);
  const child = spawn('npx', ['--no-install', 'siteline', 'worker', '--concurrency', '1'], {
    cwd: ROOT,
    env: { ...process.env, ...dbEnv.env, LOG_LEVEL: 'info', SITELINE_ANALYSIS_POLL_MS: '50' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so the test can clean up whatever is left; the signal goes to npx alone.
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  // Closed once every process holding the pipe (npm, its shell, the worker) has exited.
  const outputClosed = new Promise<void>((r) => child.stdout.once('close', () => r()));
  const npmExited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`the worker never started: ${out.slice(-2000)} ${err.slice(-2000)}`)), 120_000);
      const check = () => {
        if (/loop\(s\) on/.test(out)) {
          clearTimeout(t);
          resolve();
        }
      };
      child.stdout.on('data', check);
      void npmExited.then((code) => reject(new Error(`npx exited (${code}) before the worker started: ${err.slice(-2000)}`)));
    });
    child.kill('SIGTERM'); // the npx process only, as an operator's `kill <pid>` or systemd's main-process signal
    const closed = await Promise.race([outputClosed.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 30_000).unref())]);
    // What is still running in the worker's process group, should it not have stopped.
    const left = closed ? '' : spawnSync('ps', ['-o', 'pid,ppid,stat,etime,args', '-g', String(child.pid)], { encoding: 'utf8' }).stdout;
    assert.ok(closed, `the worker still runs 30 s after SIGTERM to npx:\n${left}\nstdout:\n${out.slice(-1500)}\nstderr:\n${err.slice(-1500)}`);
    const lines = logLines(out);
    assert.ok(
      lines.some((l) => l.msg === 'shutting down'),
      `the worker logged its stop:\n${out.slice(-1500)}`,
    );
    assert.ok(
      lines.some((l) => l.msg === 'stopped'),
      `the worker stopped:\n${out.slice(-1500)}`,
    );
    // An ordinary stop leaves nothing open: the process ends by itself, not by the exit after the stop.
    assert.ok(!lines.some((l) => /handles still open/.test(String(l.msg))), `nothing left open:\n${out.slice(-1500)}`);
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await npmExited;
    await dbEnv.close();
  }
});

test('a launcher that dies without passing SIGTERM on, a shell between that ignores it: the worker stops anyway, naming the launcher', {
  timeout: 180_000,
}, async () => {
  const dbEnv = await createPlacesEnv([]);
  // The launcher stands in for npm: it runs the worker's command line through sh, as npx does, and is
  // then killed outright. The shell ignores SIGTERM and has a second command, so it stays the worker's
  // parent: only the launcher's loss says the worker should stop.
  const line = `trap "" TERM; "${process.execPath}" "${path.join(ROOT, 'bin/siteline.mjs')}" worker --concurrency 1; true`;
  const launcher = spawn(
    process.execPath,
    ['-e', `require('node:child_process').spawn('sh', ['-c', ${JSON.stringify(line)}], { stdio: 'inherit' }); setInterval(() => {}, 1000);`],
    {
      cwd: ROOT,
      env: { ...process.env, ...dbEnv.env, npm_lifecycle_event: 'npx', LOG_LEVEL: 'info', SITELINE_ANALYSIS_POLL_MS: '50' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  let out = '';
  launcher.stdout.on('data', (d) => (out += d));
  launcher.stderr.on('data', (d) => (out += d));
  const outputClosed = new Promise<void>((r) => launcher.stdout.once('close', () => r()));
  const launcherExited = new Promise<void>((r) => launcher.once('exit', () => r()));
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`the worker never started: ${out.slice(-2000)}`)), 120_000);
      launcher.stdout.on('data', () => /loop\(s\) on/.test(out) && (clearTimeout(t), resolve()));
    });
    launcher.kill('SIGKILL');
    await launcherExited;
    const closed = await Promise.race([outputClosed.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 30_000).unref())]);
    const left = closed ? '' : spawnSync('ps', ['-o', 'pid,ppid,stat,etime,args', '-g', String(launcher.pid)], { encoding: 'utf8' }).stdout;
    assert.ok(closed, `the worker still runs 30 s after its launcher died:\n${left}\n${out.slice(-1500)}`);
    const lines = logLines(out);
    const stopping = lines.find((l) => l.msg === 'shutting down');
    assert.equal(stopping?.signal, `the launching process ${launcher.pid} exited`, `the worker stopped for its launcher: ${JSON.stringify(stopping)}`);
    assert.ok(
      lines.some((l) => l.msg === 'stopped'),
      `the worker stopped:\n${out.slice(-1500)}`,
    );
  } finally {
    try {
      process.kill(-launcher.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await dbEnv.close();
  }
});

test('a stopped worker exits even when a handle is left open: the handle is named in the log, exit 0', { timeout: 120_000 }, async () => {
  const dbEnv = await createPlacesEnv([]);
  const held = heldRunProcess('worker-stray-handle', { ...dbEnv.env, SITELINE_ANALYSIS_POLL_MS: '50' });
  const { child, exited } = held;
  try {
    await new Promise<void>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`the worker never started: ${held.out().slice(-2000)}`)), 90_000);
      child.stdout.on('data', () => /loop\(s\) on/.test(held.out()) && (clearTimeout(t), resolve()));
      void exited.then(() => reject(new Error(`the worker exited before it started: ${held.out().slice(-2000)}`)));
    });
    child.kill('SIGTERM');
    const ended = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 15_000).unref())]);
    assert.notEqual(ended, 'running', `the stopped worker still runs 15 s after SIGTERM:\n${held.out().slice(-1500)}`);
    assert.deepEqual(ended, [0, null], 'exit 0');
    const lines = logLines(held.out());
    assert.ok(
      lines.some((l) => l.msg === 'stopped'),
      'the worker stopped first',
    );
    const named = lines.find((l) => /handles still open after the worker stopped/.test(String(l.msg)));
    assert.ok(named && Array.isArray(named.open) && named.open.includes('TCPServerWrap'), `the open handle is named: ${JSON.stringify(named)}`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await dbEnv.close();
  }
});

test("the service process takes SIGTERM sent on its 'listening' line: it stops gracefully, exit 0", { timeout: 120_000 }, async () => {
  const dbEnv = await createPlacesEnv([]);
  const held = heldRunProcess('serve-sigterm-at-listening', {
    ...dbEnv.env,
    HOST: '127.0.0.1',
    PORT: '0',
    SITELINE_PRESTOP_MS: '0',
    SITELINE_AUTO_IMPORT: '0',
  });
  const { child, exited } = held;
  try {
    const ended = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 90_000).unref())]);
    const out = held.out();
    assert.notEqual(ended, 'running', `the service still runs 90 s after its start:\n${out.slice(-1500)}`);
    assert.deepEqual(ended, [0, null], `exit 0, not killed by the signal:\n${out.slice(-1500)}`);
    const msgs = logLines(out).map((l) => l.msg);
    assert.deepEqual(
      msgs.filter((m) => ['listening', 'shutting down', 'stopped'].includes(String(m))),
      ['listening', 'shutting down', 'stopped'],
      out.slice(-1500),
    );
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await dbEnv.close();
  }
});
