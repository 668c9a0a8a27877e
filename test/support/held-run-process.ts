// A siteline process whose analysis runs stay in hand until they are handed back: the real service
// process (`serve`, as src/main.ts runs it) or the real `siteline worker` process (`worker`), started
// with the workers' run step injected (WorkerOptions.analyse), for tests that stop or kill a process
// in the middle of a run. `worker-stray-handle`: the worker process with a listening socket it did not
// open and never closes (a handle left behind), for the test that a stopped worker still exits.
// `serve-sigterm-at-listening`: the service process sends itself SIGTERM as it writes its 'listening'
// line, the moment an operator's script or a supervisor watching the log may send it.
// Usage: node --import tsx test/support/held-run-process.ts serve|serve-sigterm-at-listening|worker|worker-stray-handle
import { runServiceProcess } from '../../src/service-process.ts';
import { runWorkerProcess } from '../../src/cli/worker-command.ts';
import { palette } from '../../src/cli/output.ts';
import net from 'node:net';
import type { RunAnalysis } from '../../src/analysis/analysis-workers.ts';
import { createLogger } from '../../src/logger.ts';

/** Never finishes on its own; rejects when the run is handed back (a bounded stop). */
const holdUntilHandedBack: RunAnalysis = (_inputs, signal) =>
  new Promise<string>((_resolve, reject) => {
    const handedBack = () => reject(new Error('stopped: the run was handed back'));
    if (signal.aborted) return handedBack();
    signal.addEventListener('abort', handedBack, { once: true });
  });

const mode = process.argv[2];
if (mode === 'serve' || mode === 'serve-sigterm-at-listening') {
  const logger = createLogger(process.env.LOG_LEVEL || 'info');
  if (mode === 'serve-sigterm-at-listening') {
    const info = logger.info.bind(logger) as (...args: unknown[]) => void;
    (logger as unknown as { info: (...args: unknown[]) => void }).info = (...args: unknown[]) => {
      info(...args);
      if (args[1] === 'listening') process.kill(process.pid, 'SIGTERM');
    };
  }
  runServiceProcess({ logger, analysisWorkers: { analyse: holdUntilHandedBack } }).catch((err) => {
    process.stderr.write(`siteline failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
} else if (mode === 'worker' || mode === 'worker-stray-handle') {
  if (mode === 'worker-stray-handle') net.createServer().listen(0, '127.0.0.1');
  const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, colour: palette(false), errColour: palette(false) };
  process.exitCode = await runWorkerProcess(io, { concurrency: 1, analyse: holdUntilHandedBack });
} else {
  process.stderr.write('usage: held-run-process.ts serve|serve-sigterm-at-listening|worker|worker-stray-handle\n');
  process.exit(2);
}
