// The real `siteline` server as its own process (src/main.ts, as `npm start` runs it), with its JSON log
// lines kept: for tests that kill it, start two at once, or restart it on the same data.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './harness.ts';

export interface Siteline {
  child: ChildProcess;
  lines: Array<Record<string, any>>;
  /** Resolves with the first log line (past or future) that matches; rejects if the process exits first. */
  waitFor(match: (line: Record<string, any>) => boolean, what: string, timeoutMs?: number): Promise<Record<string, any>>;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

/** `entry`: the script and its arguments (default src/main.ts; held-run-process.ts serve holds its analysis runs). */
export function startSiteline(env: Record<string, string>, cwd: string, entry: string[] = [path.join(ROOT, 'src/main.ts')]): Siteline {
  // No pre-stop period unless a test asks for one (SIGTERM would otherwise wait SITELINE_PRESTOP_MS, 5 s, before closing).
  const child = spawn(process.execPath, ['--import', 'tsx', ...entry], { cwd, env: { SITELINE_PRESTOP_MS: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, any>> = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const p of parts) {
      if (!p.trim()) continue;
      try {
        lines.push(JSON.parse(p));
      } catch {
        lines.push({ msg: p });
      }
    }
    for (const w of waiters) w();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const waitFor = (match: (line: Record<string, any>) => boolean, what: string, timeoutMs = 120_000) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      const check = () => {
        const hit = lines.find(match);
        if (hit) {
          cleanup();
          resolve(hit);
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${what}; stderr: ${stderr.slice(-2000)}`));
      }, timeoutMs);
      void exited.then(({ code, signal }) => {
        if (waiters.has(check)) {
          cleanup();
          reject(
            new Error(`siteline exited (${code ?? signal}) before ${what}; stderr: ${stderr.slice(-2000)}; last lines: ${JSON.stringify(lines.slice(-5))}`),
          );
        }
      });
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return { child, lines, waitFor, exited };
}

export async function kill9(s: Siteline): Promise<void> {
  s.child.kill('SIGKILL');
  const { signal } = await s.exited;
  assert.equal(signal, 'SIGKILL');
}

export async function listening(s: Siteline): Promise<string> {
  const line = await s.waitFor((l) => l.msg === 'listening', 'the listening line');
  return line.url as string;
}

/** The start-up load of the default places is over (the server listens before it imports: src/service.ts). */
export async function placesLoaded(s: Siteline, timeoutMs = 300_000): Promise<void> {
  await s.waitFor((l) => l.msg === 'default places loaded', 'the default places to be loaded', timeoutMs);
}

export async function stop(s: Siteline): Promise<void> {
  s.child.kill('SIGTERM');
  await s.exited;
}
