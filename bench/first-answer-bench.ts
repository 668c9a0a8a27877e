// First answer in seconds (issue 30, goal 2): src/ is compiled as `npm start`'s prestart does on a fresh
// clone (timed), then the compiled service (`npm start`'s command, node dist/main.js) is spawned on a clean data directory with the place data beside it, and timed from the
// spawn to: listening, the first Cambridge address answered (the MCP tool, signed in over HTTP as an
// agent would be), every default place loaded, and the background audit done. Then the answer latency
// while the audit runs against after it: the same distinct Cambridge addresses, snapshot cache off,
// one request at a time (a warm-up pass, then up to PASSES measured passes, during the audit; as many
// measured passes again after it: a few seconds of each side, so that one passing pause of the process
// does not decide the median). Targets: first answer <= 20 s on an idle 2-core machine; answers during the audit
// no more than 10 % slower (median). `node --import tsx bench/first-answer-bench.ts` prints one block
// and, last, one JSON line.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT, SHARED_DATA } from '../test/support/harness.ts';
import { getUserToken } from '../test/support/auth-flow.ts';
import { connectClient } from '../test/mcp-support.ts';
import { readCsvRows } from '../src/importer/readers/csv.ts';
import { measurements, verdict } from './targets.ts';

/** Distinct addresses per pass. */
const PASS = Number(process.env.BENCH_FIRST_PASS ?? 150);
/** Measured passes on each side of the audit's end (fewer during it when the audit ends first). */
const PASSES = Number(process.env.BENCH_FIRST_PASSES ?? 10);
const FIRST = '11 Acorn St, Cambridge, MA';

function cambridgeAddresses(n: number): string[] {
  const columns = [
    'address_id',
    'street_number',
    'street_number_suffix',
    'street_name',
    'street_suffix',
    'dir_suffix',
    'full_address',
    'poi_name',
    'poi_type_desc',
    'MapLot',
    'BldgID',
  ];
  const file = path.join(SHARED_DATA, 'cambridge-ma/Address/Address_Points/Master_Address_Database_with_MapLot_and_BldgID.csv');
  const all = [...new Set([...readCsvRows(fs.readFileSync(file, 'utf8'), { header: false, columns })].map((r) => r.values['full_address']!).filter(Boolean))];
  const step = Math.max(1, Math.floor(all.length / n));
  return Array.from({ length: n }, (_, i) => `${all[(i * step) % all.length]}, Cambridge, MA`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const sec = (ms: number | undefined) => (ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(1)} s`);

async function main(): Promise<void> {
  // A fresh clone has no dist/: `npm start`'s prestart compiles it first, so the build is timed too.
  const b0 = performance.now();
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed: ${build.stderr}`);
  const buildMs = performance.now() - b0;
  const addresses = cambridgeAddresses(PASS);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-first-answer-'));
  const marks: Record<string, number> = {};
  const t0 = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/main.js')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: '',
      PORT: '0',
      HOST: '127.0.0.1',
      SITELINE_DATA_DIR: dataDir,
      SITELINE_SOURCE_DIR: SHARED_DATA,
      SITELINE_AUTO_IMPORT: '1',
      SITELINE_SNAPSHOT_CACHE: '0',
      SITELINE_ANALYSIS_WORKERS: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let url: string | undefined;
  let buffered = '';
  const waiters: Array<() => void> = [];
  const logFile = process.env.BENCH_FIRST_LOG; // the server's log lines, kept there
  child.stdout!.on('data', (chunk: Buffer) => {
    if (logFile) fs.appendFileSync(logFile, chunk);
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const p of parts) {
      let l: Record<string, any>;
      try {
        l = JSON.parse(p);
      } catch {
        continue;
      }
      const at = performance.now() - t0;
      if (l.msg === 'listening') {
        url = l.url;
        marks.listening = at;
      }
      if (l.msg === 'importing default place') marks[`import ${l.place}`] ??= at;
      if (typeof l.msg === 'string' && l.place && l.report) marks[`loaded ${l.place}`] = at;
      if (l.msg === 'default places loaded') marks.allLoaded = at;
      if (l.msg === 'place audits finished') marks.auditDone = at;
    }
    for (const w of waiters.splice(0)) w();
  });
  const until = (cond: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const check = () => (cond() ? resolve() : child.exitCode !== null ? reject(new Error('the server exited')) : waiters.push(check));
      check();
    });
  try {
    await until(() => url !== undefined);
    const token = await getUserToken(url!, 'bench-first@example.com');
    marks.signedIn = performance.now() - t0;
    const client = await connectClient(url!, 'modern', token);
    const ask = async (address: string) => {
      const t = performance.now();
      const r = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address, source: 'full' } })).structuredContent as Record<string, any>;
      return { answered: r.answered === true, ms: performance.now() - t, status: r.coverage?.status as string | undefined };
    };
    let refusedWhileLoading = 0;
    for (;;) {
      const r = await ask(FIRST);
      if (r.answered) break;
      refusedWhileLoading++;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    marks.firstAnswer = performance.now() - t0;
    await until(() => marks.allLoaded !== undefined);
    // During the audit: a warm-up pass, then the measured pass (if the audit is still running).
    const during: number[] = [];
    for (const a of addresses) await ask(a);
    const auditRunningAtStart = marks.auditDone === undefined;
    let passesDuring = 0;
    for (let p = 0; p < PASSES && marks.auditDone === undefined; p++, passesDuring++) {
      for (const a of addresses) {
        if (marks.auditDone !== undefined) break;
        during.push((await ask(a)).ms);
      }
    }
    await until(() => marks.auditDone !== undefined);
    // After it: a warm-up pass too (each side measured after at least one pass over the same addresses).
    const after: number[] = [];
    for (const a of addresses) await ask(a);
    for (let p = 0; p < Math.max(1, passesDuring); p++) for (const a of addresses) after.push((await ask(a)).ms);
    after.splice(during.length || after.length);
    await client.close();

    const ratio = during.length ? median(during) / median(after) : NaN;
    console.log(
      `First start on a clean data directory (node dist/main.js, PGlite, all default places, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}):`,
    );
    console.log(
      `  npm start on a fresh clone: the build (prestart) ${sec(buildMs)}, then from the spawn: listening ${sec(marks.listening)}; Cambridge imported ${sec(marks['loaded cambridge-ma'])}; first Cambridge answer ${sec(marks.firstAnswer)} (${sec(buildMs + marks.firstAnswer!)} with the build) ${verdict('first.answer', (buildMs + marks.firstAnswer!) / 1000)} (${refusedWhileLoading} asks told "still loading" before it); every place loaded ${sec(marks.allLoaded)}; audit done ${sec(marks.auditDone)}`,
    );
    console.log(
      during.length
        ? `  answer latency during the background audit: median ${median(during).toFixed(1)} ms, mean ${mean(during).toFixed(1)} ms over ${during.length} answers (${passesDuring} passes of ${addresses.length} addresses); after it: median ${median(after).toFixed(1)} ms, mean ${mean(after).toFixed(1)} ms; ratio ${ratio.toFixed(2)} ${verdict('first.auditLatency', ratio)}`
        : `  the audit finished before the measured pass began (${auditRunningAtStart ? 'during the pass' : 'during the warm-up'}): nothing to compare`,
    );
    console.log(JSON.stringify({ targets: measurements() }));
    console.log(
      JSON.stringify({
        buildMs,
        marks,
        refusedWhileLoading,
        during: during.length ? { median: median(during), mean: mean(during), n: during.length } : null,
        after: { median: median(after), mean: mean(after), n: after.length },
        ratio,
      }),
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
