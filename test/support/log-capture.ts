// Every logger the test harness creates writes here (at debug level), and a guard fails the test file
// when any captured line holds a secret: a value a test noted (a password, a token it was handed) or
// anything shaped like one of the service's secrets (argon2 hashes, session ids, opaque tokens).
// Installed only under `npm test` (NODE_ENV=test); benchmarks keep a silent logger.
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { after } from 'node:test';
import { createLogger, type Logger } from '../../src/logger.ts';

const MAX_LINES = 200_000;
export const logLines: string[] = [];
let dropped = 0;
const noted = new Set<string>();

/** The shapes of secrets the service mints or stores; none may ever reach a log line. */
export const SECRET_SHAPES: ReadonlyArray<readonly [string, RegExp]> = [
  ['an argon2 password hash', /\$argon2(?:id|i|d)\$v=\d+\$/],
  ['a web session id', /\bsls_[A-Za-z0-9_-]{43}\b/],
  ['a claim token', /\bclm_[A-Za-z0-9_-]{43}\b/],
  ['an identity assertion', /\bslia_[A-Za-z0-9_-]{43}\b/],
  ['an opaque access token', /\bslpt_[A-Za-z0-9_-]{43}\b/],
  ['a password reset token', /\bslpr_[A-Za-z0-9_-]{43}\b/],
  ['an e-mail change token', /\bslec_[A-Za-z0-9_-]{43}\b/],
];

/** Remember a secret value a test handled, so the guard looks for it in every line. */
export function noteSecret(...values: (string | undefined | null)[]): void {
  for (const v of values) if (typeof v === 'string' && v.length >= 6) noted.add(v);
}

const lineEvents = new EventEmitter();

/**
 * The first captured line from index `from` on that matches, as soon as it is logged (a line logged
 * after the response, e.g. by an error listener, is awaited rather than slept for).
 */
export function logLine(matches: (line: string) => boolean, from = 0): Promise<string> {
  const seen = logLines.slice(from).find(matches);
  if (seen !== undefined) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const onLine = (line: string) => {
      if (!matches(line)) return;
      lineEvents.off('line', onLine);
      resolve(line);
    };
    lineEvents.on('line', onLine);
  });
}

const sink = new Writable({
  write(chunk, _enc, cb) {
    for (const line of String(chunk).split('\n')) {
      if (!line) continue;
      logLines.push(line);
      lineEvents.emit('line', line);
      if (logLines.length > MAX_LINES) {
        logLines.shift();
        dropped++;
      }
    }
    cb();
  },
});

/** Where each leak is, described without repeating the secret. */
export function secretsInLog(lines: readonly string[] = logLines, extra: readonly string[] = []): string[] {
  const found: string[] = [];
  const values = [...noted, ...extra];
  lines.forEach((line, i) => {
    for (const [what, shape] of SECRET_SHAPES) if (shape.test(line)) found.push(`line ${i + 1}: ${what}`);
    for (const v of values) if (line.includes(v)) found.push(`line ${i + 1}: a noted secret (${v.slice(0, 4)}...)`);
  });
  return found;
}

export const capturing = process.env.NODE_ENV === 'test';

// Registered when the harness is first imported (top level of a test file): runs after all its tests.
if (capturing) {
  after(() => {
    const leaks = secretsInLog();
    if (leaks.length > 0) throw new Error(`secrets reached the log (${leaks.length}; ${dropped} early lines not kept):\n  ${leaks.slice(0, 20).join('\n  ')}`);
  });
}

/** The logger for a test server or context: captured and guarded under `npm test`, silent otherwise. */
export function testLogger(): Logger {
  if (!capturing) return createLogger('silent');
  return createLogger('debug', sink);
}
