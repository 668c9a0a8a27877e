// `npm test`: every *.test.ts under src/ and test/, each file in its own node:test process, a pool of
// TEST_CONCURRENCY at a time (default: twice the cores, since most test time is spent waiting on servers,
// child processes and the database), longest files first (durations from test/durations.json,
// refreshed with `npm test -- --write-durations`), and a table of the slowest files at the end.
// Arguments filter by path substring: `npm test -- geocoder`.
// Test processes run V8 with `--liftoff-only` (why, and what keeps V8's defaults: docs/architecture.md,
// "What the test run spends its time on").
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function walk(dir: string, out: string[]): string[] {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const args = process.argv.slice(2);
const writeDurations = args.includes('--write-durations');
const filters = args.filter((a) => !a.startsWith('--'));
const files = [...walk('src', []), ...walk('test', [])].sort().filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

// With DATABASE_URL set (the second, PostgreSQL run), files whose first line says `// @engine-independent:
// <why>` are skipped: what they test does not touch the database engine, and they ran on PGlite already.
const skipped: string[] = [];
if (process.env.DATABASE_URL) {
  for (const f of [...files]) {
    if (fs.readFileSync(f, 'utf8').startsWith('// @engine-independent:')) {
      skipped.push(f);
      files.splice(files.indexOf(f), 1);
    }
  }
  if (skipped.length) console.log(`== on PostgreSQL, skipping ${skipped.length} engine-independent file(s): ${skipped.join(', ')}`);
}

const DURATIONS_FILE = 'test/durations.json';
const known: Record<string, number> = fs.existsSync(DURATIONS_FILE) ? JSON.parse(fs.readFileSync(DURATIONS_FILE, 'utf8')) : {};
// Unknown (new) files go first: they are the likeliest to be slow or to fail.
const order = [...files].sort((a, b) => (known[b] ?? Infinity) - (known[a] ?? Infinity) || a.localeCompare(b));

const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 2 * os.availableParallelism()));
const FILE_TIMEOUT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 600_000);
const started = Date.now();
const results: { file: string; ms: number; code: number | null; signal: string | null }[] = [];

function runFile(file: string): Promise<void> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const chunks: Buffer[] = [];
    const child = spawn(process.execPath, ['--liftoff-only', '--import', 'tsx', '--test', '--test-timeout=300000', '--test-reporter=spec', file], {
      env: { ...process.env, NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    const timer = setTimeout(() => {
      chunks.push(Buffer.from(`\n!! ${file}: no end after ${FILE_TIMEOUT_MS / 1000} s, killed\n`));
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - t0;
      results.push({ file, ms, code, signal });
      const ok = code === 0;
      process.stdout.write(`\n${ok ? '✔' : '✖'} ${file} (${(ms / 1000).toFixed(1)} s)\n${Buffer.concat(chunks).toString('utf8')}`);
      resolve();
    });
  });
}

// The CLI (bin/siteline.mjs) runs the compiled dist/, built when stale: built once here, before the
// files that spawn it start at once (they would wait on one build anyway; this keeps its time out of theirs).
const prebuild = spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { stdio: 'inherit' });
if (prebuild.status !== 0) console.log('== dist/ could not be built (above): the tests that run the CLI will fail');

const queue = [...order];
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    for (let f = queue.shift(); f; f = queue.shift()) await runFile(f);
  }),
);

const failed = results.filter((r) => r.code !== 0);
const wall = (Date.now() - started) / 1000;
console.log(`\n== ${results.length} test files in ${wall.toFixed(0)} s (concurrency ${concurrency}); slowest:`);
for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 12)) console.log(`   ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.file}`);
if (writeDurations) {
  const out = Object.fromEntries([...results].sort((a, b) => a.file.localeCompare(b.file)).map((r) => [r.file, Math.round(r.ms)]));
  fs.writeFileSync(DURATIONS_FILE, JSON.stringify({ ...known, ...out }, null, 1) + '\n');
}
if (failed.length > 0) {
  console.log(`\n== ${failed.length} test file(s) failed:`);
  for (const r of failed) console.log(`   ✖ ${r.file}${r.signal ? ` (${r.signal})` : ` (exit ${r.code})`}`);
  process.exit(1);
}
console.log('== all test files passed');
