// MCP endpoint throughput, measured in one run with autocannon on loopback (16 connections; every
// target warmed with the same 3,000 requests first, BENCH_MCP_WARMUP):
//   1. a raw node:http JSON echo (the ceiling of this machine's HTTP stack),
//   2. the SDK alone: createMcpHandler + toNodeHandler, one tool returning a constant,
//   2b. the same SDK server whose tool returns a constant snapshot-sized answer (docs/examples'
//      Cambridge snapshot as text and structured content): what the answer's size alone costs,
//   3. siteline /api/mcp, tools/call getServiceMcpGuide (static) with a user token (HTTP rules + token check + SDK),
//   4. siteline /api/mcp, tools/call getFeasibilitySnapshot over real Cambridge addresses with a user token,
//      as served (repeated addresses answered from the snapshot cache), and
//   5. the same with the cache off (SITELINE_SNAPSHOT_CACHE=0): every call runs the whole pipeline,
//      measured in rounds interleaved with a second SDK server whose tool returns a constant answer of
//      the same size (2b's: the size is the protocol's cost, not ours; BENCH_MCP_ROUNDS rounds of
//      BENCH_MCP_ROUND_REQUESTS requests to each, default 3 x 5,000; the ratio is the median round's),
//   6. previewSiteCoverage (no cache): both over every distinct Cambridge address with a lot (22,000+),
//      each request the next address, so no address repeats within a run (the line says how many did);
//   6b. the compiled build (node dist/main.js, `npm start`) against the source under tsx (`npm run dev`):
//      the same snapshot load in interleaved rounds (part 'build'), and
//   7. scale-out on PostgreSQL (BENCH_PG_URL, an admin URL): one siteline process, then two on the same
//      database behind a round-robin TCP proxy (a bench child, not a component), cache off.
// The answer's size (payload line, part 'payload'): bytes of structured JSON, bytes of the tool result on the
// wire (structured content + the text block + framing) and a token estimate, for docs/examples' Cambridge
// address. `node --import tsx bench/mcp-bench.ts payload` runs the payload line alone.
// BENCH_MCP_PARTS picks targets (comma list: echo,sdk,payload,guide,cached,cold,preview,build,scaleout; the
// SDK constant is always run, as the baseline of every ratio).
// Each server runs in its own child process (this file, `serve <kind>`), so the load generator does not
// share its event loop. Beside req/s each line gives the server process's own CPU per request (Linux
// /proc: user + system, every thread), and the cold/preview ratios are given by it too: on a shared
// machine req/s swings with other processes' load. BENCH_CHILD_NODE_ARGS passes node flags to the
// server children (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile them under load). Target: (4) >= 90 % of (2). Speed is never asserted in a test; it is reported here.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { verdict } from './targets.ts';

const CONNECTIONS = Number(process.env.BENCH_MCP_CONNECTIONS ?? 16);
const DURATION_S = Number(process.env.BENCH_MCP_SECONDS ?? 10);
const WARMUP_REQUESTS = Number(process.env.BENCH_MCP_WARMUP ?? 3000);
const MODERN = '2026-07-28';

interface CannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}
interface CannonResult {
  requests: { average: number; total: number };
  /** Seconds the run took. */
  duration: number;
  /** The server process's CPU time (user + system, /proc) per request over the measured run, when known. */
  cpuMsPerRequest?: number;
  threadMsPerRequest?: Map<string, number>;
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Promise<CannonResult>;

// ---- the servers (child side) -------------------------------------------------------------------

interface Served {
  url: string;
  path: string;
  token?: string;
  addresses?: string[];
}

async function serveEcho(): Promise<Served> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; params?: unknown };
      const out = JSON.stringify({ jsonrpc: '2.0', id: msg.id ?? null, result: { echo: msg.params ?? null } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, path: '/' };
}

async function serveSdkConstant(payload = false): Promise<Served> {
  const fs = await import('node:fs');
  const snapshot = JSON.parse(fs.readFileSync(new URL('../docs/examples/cambridge-snapshot.json', import.meta.url), 'utf8')) as Record<string, unknown>;
  const text = JSON.stringify(snapshot);
  const { McpServer, createMcpHandler } = await import('@modelcontextprotocol/server');
  const { toNodeHandler } = await import('@modelcontextprotocol/node');
  const handler = createMcpHandler(
    () => {
      const s = new McpServer({ name: 'constant', version: '1.0.0' });
      s.registerTool(
        'getFeasibilitySnapshot',
        { description: 'Returns a constant.', inputSchema: z.object({ address: z.string(), source: z.string() }) },
        async () => (payload ? { content: [{ type: 'text', text }], structuredContent: snapshot } : { content: [{ type: 'text', text: 'constant' }] }),
      );
      return s;
    },
    { legacy: 'stateless' },
  );
  const node = toNodeHandler(handler);
  const server = http.createServer((req, res) => void node(req, res));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, path: '/' };
}

/** What a server child prints when it is stopped. */
let onStop: (() => string) | undefined;

async function serveSiteline(snapshotCacheEntries?: number, databaseUrl?: string): Promise<Served> {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { createPlacesDb, SHARED_DATA, ROOT } = await import('../test/support/harness.ts');
  const { getUserToken } = await import('../test/support/auth-flow.ts');
  const { loadConfig } = await import('../src/config.ts');
  const { startService } = await import('../src/service.ts');
  const { createLogger } = await import('../src/logger.ts');
  const testDb = databaseUrl ? null : await createPlacesDb(['cambridge-ma']);
  const dataDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'bench-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig(
    { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    {
      port: Number(process.env.BENCH_PORT ?? 0),
      host: '127.0.0.1',
      // behind the round-robin proxy every instance names the proxy's address (token issuer and audience)
      ...(process.env.BENCH_BASE_URL ? { baseUrl: process.env.BENCH_BASE_URL } : {}),
      sourceDir: SHARED_DATA,
      autoImport: false,
      dataDir,
      databaseUrl,
      ...(snapshotCacheEntries === undefined ? {} : { snapshotCacheEntries }),
    },
  );
  const svc = await startService(config, { ...(testDb ? { db: testDb.db } : {}), logger: createLogger('silent') });
  const own = `http://127.0.0.1:${(svc.server.address() as AddressInfo).port}`;
  const token = process.env.BENCH_BASE_URL ? '' : await getUserToken(svc.url, `bench-${process.pid}@example.com`);
  // Every distinct address with a lot, in the table's order: requests take them in turn (see distinctRequests).
  const rows = await svc.ctx.db.query<{ full_address: string }>(
    `SELECT full_address FROM addresses WHERE place_id = 'US-MA:cambridge' AND parcel_ext_id IS NOT NULL AND unit = '' GROUP BY full_address ORDER BY min(row_no)`,
  );
  const { snapshotCacheStats } = await import('../src/snapshot/answer-cache.ts');
  onStop = () => {
    const st = snapshotCacheStats(svc.ctx);
    return `${st.hits.toLocaleString('en-US')} hits, ${st.misses.toLocaleString('en-US')} misses`;
  };
  return { url: process.env.BENCH_BASE_URL ? own : svc.url, path: '/api/mcp', token, addresses: rows.map((r) => `${r.full_address}, Cambridge, MA`) };
}

// ---- the load generator (parent side) -----------------------------------------------------------

function modernCall(name: string, args: Record<string, unknown>, id: number, token?: string): CannonRequest {
  return {
    method: 'POST',
    path: '',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    }),
  };
}

const childOutput = new WeakMap<ChildProcess, () => string>();

async function startChild(kind: string, env?: Record<string, string>): Promise<{ child: ChildProcess; served: Served }> {
  // BENCH_CHILD_NODE_ARGS: extra node flags for the server children, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', import.meta.filename, 'serve', kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
    ...(env ? { env: { ...process.env, ...env } } : {}),
  });
  let buf = '';
  childOutput.set(child, () => buf);
  const served = await new Promise<Served>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      // BENCH_CHILD_LOG_DIR: keep each server child's stdout (e.g. with BENCH_CHILD_NODE_ARGS=--trace-gc)
      if (process.env.BENCH_CHILD_LOG_DIR) appendFileSync(`${process.env.BENCH_CHILD_LOG_DIR}/${kind}-${child.pid}.log`, c);
      const line = buf
        .split('\n')
        .slice(0, -1)
        .find((l) => l.startsWith('SERVED ')); // complete lines only: the address list is long
      if (line) resolve(JSON.parse(line.slice(7)) as Served);
    });
    child.once('exit', (code) => reject(new Error(`bench server "${kind}" exited (${code}) before serving`)));
  });
  return { child, served };
}

/** Stops a server child and returns what it printed on its way out (its STATS line, if any). */
async function stopChild(child: ChildProcess): Promise<string> {
  if (child.exitCode === null) {
    await new Promise<void>((r) => {
      child.once('exit', () => r());
      child.kill('SIGTERM');
    });
  }
  const stats = (childOutput.get(child)?.() ?? '').split('\n').find((l) => l.startsWith('STATS '));
  return stats ? stats.slice(6) : '';
}

/** One request first, to prove the target answers correctly before it is loaded. */
async function check(url: string, req: CannonRequest, expect: (body: string) => boolean, label: string): Promise<string> {
  const res = await fetch(url, { method: req.method, headers: req.headers, body: req.body });
  const text = await res.text();
  if (res.status !== 200 || !expect(text)) throw new Error(`${label}: unexpected answer ${res.status} ${text.slice(0, 300)}`);
  return text;
}

/**
 * One request template whose body names the next address of the list on every request (autocannon's
 * setupRequest), across connections, warm-up and run: no address repeats until the list is used up.
 */
function distinctRequests(tool: string, addresses: string[], token: string | undefined, args: Record<string, unknown> = {}) {
  let next = 0;
  const base = modernCall(tool, { address: addresses[0]!, ...args }, 1, token);
  return {
    requests: [
      {
        ...base,
        setupRequest: (req: CannonRequest) => ({
          ...req,
          body: modernCall(tool, { address: addresses[next % addresses.length]!, ...args }, ++next, token).body,
        }),
      },
    ],
    used: () => ({ requests: next, distinct: Math.min(next, addresses.length) }),
  };
}

type Requests = (CannonRequest & { setupRequest?: unknown })[];

/** autocannon's options for these requests against url. */
function cannonOf(url: string, requests: Requests, connections: number) {
  const target = new URL(url);
  return { url: target.origin, connections, pipelining: 1, requests: requests.map((r) => ({ ...r, path: target.pathname })) };
}

/**
 * The warm-up, by request count, not by time: JIT tiering, the place's hot index (loaded in the
 * background from the first read, which SQL answers meanwhile) and the garbage its load leaves behind must be past before the measured window on a loaded
 * machine too (a 2 s warm-up covered ~400 snapshot requests under load, and the measured window then
 * held the compiler threads and the major GC: 3.6 ms of server CPU a call against 1.9 in a second
 * window of the same process).
 */
async function warm(url: string, requests: Requests, connections = CONNECTIONS): Promise<void> {
  await autocannon({ ...cannonOf(url, requests, connections), amount: WARMUP_REQUESTS });
}

/** A measured run (after the warm-up unless warmup is false): DURATION_S seconds, or `amount` requests. */
async function load(
  url: string,
  requests: Requests,
  connections = CONNECTIONS,
  serverPid?: number,
  opts: { warmup?: boolean; amount?: number } = {},
): Promise<CannonResult> {
  if (opts.warmup !== false) await warm(url, requests, connections);
  const cannon = cannonOf(url, requests, connections);
  const cpu0 = serverPid ? cpuMs(serverPid) : undefined;
  const th0 = serverPid ? threadCpuMs(serverPid) : undefined;
  // A run of a set number of requests ends on autocannon's next sample tick (1 s by default, which
  // made a 4-5 s run's rate a multiple of a fifth): ticks of 20 ms, and the rate over the run's length.
  const r = await autocannon(opts.amount ? { ...cannon, amount: opts.amount, sampleInt: 20 } : { ...cannon, duration: DURATION_S });
  if (opts.amount && r.duration > 0) r.requests.average = r.requests.total / r.duration;
  const cpu1 = serverPid ? cpuMs(serverPid) : undefined;
  const th1 = serverPid ? threadCpuMs(serverPid) : undefined;
  if (cpu0 !== undefined && cpu1 !== undefined && r.requests.total > 0) r.cpuMsPerRequest = (cpu1 - cpu0) / r.requests.total;
  if (th0 && th1 && r.requests.total > 0) {
    // main thread against the rest (V8's GC and compiler helpers, libuv's pool): where the server's CPU goes
    const per = new Map<string, number>();
    for (const [tid, t] of th1) per.set(t.name, (per.get(t.name) ?? 0) + (t.ms - (th0.get(tid)?.ms ?? 0)) / r.requests.total);
    r.threadMsPerRequest = per;
  }
  return r;
}

/** CPU time so far (ms) of each thread of a process, by thread id, with its name (Linux; undefined elsewhere). */
function threadCpuMs(pid: number): Map<string, { name: string; ms: number }> | undefined {
  try {
    const out = new Map<string, { name: string; ms: number }>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name =
        tid === String(pid)
          ? 'main'
          : process.env.BENCH_THREAD_IDS
            ? `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}#${tid}`
            : stat
                .slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                .replace(/[0-9]+$/, '')
                .trim();
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, { name, ms: ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS });
    }
    return out;
  } catch {
    return undefined;
  }
}

/**
 * A process's CPU time so far (user + system, ms) from /proc (Linux; undefined elsewhere). On a shared
 * machine req/s swings with the other processes' load; the server's own CPU per request barely does.
 */
function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = 100; // USER_HZ: 100 on every Linux this runs on

const rps = (r: CannonResult) => r.requests.average;
const line = (label: string, r: CannonResult) =>
  `  ${label.padEnd(46)} ${Math.round(rps(r)).toLocaleString('en-US').padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(4)} ms` +
  (r.cpuMsPerRequest !== undefined ? `   server CPU ${r.cpuMsPerRequest.toFixed(3)} ms/req` : '') +
  (r.threadMsPerRequest
    ? ` (${[...r.threadMsPerRequest]
        .filter(([, ms]) => ms >= 0.005)
        .sort((a, b) => b[1] - a[1])
        .map(([n, ms]) => `${n} ${ms.toFixed(3)}`)
        .join(', ')})`
    : '') +
  (r.non2xx || r.errors || r.timeouts ? `   (non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts})` : '');
const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)} %`;

const PARTS = new Set((process.env.BENCH_MCP_PARTS ?? 'echo,sdk,payload,guide,cached,cold,preview,build,scaleout').split(',').map((x) => x.trim()));

async function withChild<T>(
  kind: string,
  fn: (served: Served, child: ChildProcess) => Promise<T>,
  env?: Record<string, string>,
): Promise<{ r: T; stats: string }> {
  const c = await startChild(kind, env);
  try {
    const r = await fn(c.served, c.child);
    return { r, stats: await stopChild(c.child) };
  } catch (err) {
    await stopChild(c.child);
    throw err;
  }
}

/** A server to measure against, already started: the SDK constant tool (its URL, process and request). */
interface Baseline {
  url: string;
  pid: number;
  request: CannonRequest;
}

/** One round: the baseline, then the snapshot, back to back (the same minute of the machine). */
interface Round {
  sdk: CannonResult;
  snap: CannonResult;
}

/**
 * Snapshot (cache off) and preview over distinct addresses against one siteline URL. With a baseline,
 * the snapshot is measured in ROUNDS rounds of ROUND_REQUESTS requests, each right after as many
 * requests to the baseline: on a shared machine the rate drifts by 10 % and more between minutes, and a ratio of
 * two runs minutes apart carried that drift (one morning, same code: 76-96 % in four plain runs, 67-85 % in nine more with a profiler or GC flags). The
 * snapshot's addresses continue across rounds, so none repeats while the list lasts.
 */
async function pipelineLoads(url: string, served: Served, connections = CONNECTIONS, serverPid?: number, baseline?: Baseline) {
  const addresses = served.addresses!;
  const snap = distinctRequests('getFeasibilitySnapshot', addresses, served.token, { source: 'full' });
  const first = modernCall('getFeasibilitySnapshot', { address: addresses[0]!, source: 'full' }, 1, served.token);
  await check(url, first, (b) => b.includes('"answered":true'), 'siteline snapshot');
  const rounds: Round[] = [];
  let snapR: CannonResult;
  if (baseline) {
    await warm(baseline.url, [baseline.request], connections);
    await warm(url, snap.requests, connections);
    for (let i = 0; i < ROUNDS; i++) {
      const sdk = await load(baseline.url, [baseline.request], connections, baseline.pid, { warmup: false, amount: ROUND_REQUESTS });
      rounds.push({ sdk, snap: await load(url, snap.requests, connections, serverPid, { warmup: false, amount: ROUND_REQUESTS }) });
    }
    snapR = medianRound(rounds).snap;
  } else snapR = await load(url, snap.requests, connections, serverPid);
  const prev = distinctRequests('previewSiteCoverage', [...addresses].reverse(), undefined);
  await check(url, modernCall('previewSiteCoverage', { address: addresses[0]! }, 1), (b) => b.includes('"covered":true'), 'siteline preview');
  const prevR = await load(url, prev.requests, connections, serverPid);
  return { snapR, rounds, snapUsed: snap.used(), prevR, prevUsed: prev.used(), addresses: addresses.length, addressList: addresses };
}

const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 3);
/**
 * Requests per round and server (a count, not a time: the warm-up and the rounds then use a known
 * share of the ~22,000 Cambridge addresses, however fast the server is).
 */
const ROUND_REQUESTS = Number(process.env.BENCH_MCP_ROUND_REQUESTS ?? 5000);
const roundRatio = (r: Round) => rps(r.snap) / rps(r.sdk);
/** The round whose ratio is the median (by default the snapshot / baseline ratio). */
function medianRound<R = Round>(rounds: readonly R[], ratio: (r: R) => number = roundRatio as unknown as (r: R) => number): R {
  return [...rounds].sort((a, b) => ratio(a) - ratio(b))[Math.floor(rounds.length / 2)]!;
}

const usedNote = (u: { requests: number; distinct: number }, of: number) =>
  u.requests <= of
    ? `${u.requests.toLocaleString('en-US')} requests, no address repeated`
    : `${u.requests.toLocaleString('en-US')} requests over ${of.toLocaleString('en-US')} distinct addresses (repeats: the list ran out)`;

export async function runMcpBench(): Promise<string[]> {
  const out: string[] = [
    `MCP endpoint, autocannon on loopback, ${CONNECTIONS} connections, ${DURATION_S} s per target after ${WARMUP_REQUESTS.toLocaleString('en-US')} warm-up requests, each server in its own process`,
  ];
  const constantReq = modernCall('getFeasibilitySnapshot', { address: '57 Inman St, Cambridge, MA', source: 'full' }, 1);
  const results: string[] = [];

  let echoR: CannonResult | undefined;
  if (PARTS.has('echo')) {
    echoR = (
      await withChild('echo', async (served) => {
        await check(served.url, constantReq, (b) => b.includes('57 Inman'), 'echo');
        return load(served.url, [constantReq]);
      })
    ).r;
  }
  const sdkR = (
    await withChild('sdk-constant', async (served, child) => {
      const url = `${served.url}/`;
      await check(url, constantReq, (b) => b.includes('constant') && !b.includes('isError'), 'sdk-constant');
      return load(url, [constantReq], CONNECTIONS, child.pid);
    })
  ).r;
  let payloadR: CannonResult | undefined;
  if (PARTS.has('payload')) {
    payloadR = (
      await withChild('sdk-payload', async (served, child) => {
        const url = `${served.url}/`;
        await check(url, constantReq, (b) => b.includes('structuredContent') && b.includes('envelope'), 'sdk-payload');
        return load(url, [constantReq], CONNECTIONS, child.pid);
      })
    ).r;
  }

  let guideR: CannonResult | undefined;
  let snapR: CannonResult | undefined;
  let cacheStats = '';
  let sampled = 0;
  let answered = 0;
  if (PARTS.has('guide') || PARTS.has('cached')) {
    const site = await withChild('siteline', async (served) => {
      const url = `${served.url}/api/mcp`;
      const token = served.token!;
      let g: CannonResult | undefined;
      if (PARTS.has('guide')) {
        const guide = modernCall('getServiceMcpGuide', { role: 'developer' }, 1, token);
        await check(url, guide, (b) => b.includes('"advice"'), 'siteline guide');
        g = await load(url, [guide]);
      }
      let sn: CannonResult | undefined;
      if (PARTS.has('cached')) {
        // as served: a working set of 400 addresses, repeated, answered from the snapshot cache
        const addresses = served.addresses!.filter((_, i) => i % 41 === 0).slice(0, 400);
        const reqs = addresses.map((a, i) => modernCall('getFeasibilitySnapshot', { address: a, source: 'full' }, i + 1, token));
        for (const r of reqs.slice(0, 40)) {
          const res = await fetch(url, { method: 'POST', headers: r.headers, body: r.body });
          const body = await res.text();
          if (res.status !== 200 || body.includes('"isError":true')) throw new Error(`snapshot check failed: ${res.status} ${body.slice(0, 300)}`);
          sampled++;
          if (body.includes('"answered":true')) answered++;
        }
        sn = await load(url, reqs);
      }
      return { g, sn };
    });
    guideR = site.r.g;
    snapR = site.r.sn;
    cacheStats = site.stats;
  }

  let cold: Awaited<ReturnType<typeof pipelineLoads>> | undefined;
  /** Bytes on the wire of the same-sized constant answer (the rounds' baseline). */
  let baselineWire = 0;
  if (PARTS.has('cold') || PARTS.has('preview')) {
    // The rounds' baseline, alive beside siteline: the SDK tool returning a constant answer of the
    // snapshot's size, full JSON in the text block and as structured content (issue 30, goal 3: the
    // size is the protocol's cost, not ours). The tiny constant tool's ratio is given beside it.
    const sdk = await startChild('sdk-payload');
    try {
      const url = `${sdk.served.url}/`;
      baselineWire = Buffer.byteLength(await check(url, constantReq, (b) => b.includes('structuredContent') && b.includes('envelope'), 'sdk-payload'));
      const baseline = { url, pid: sdk.child.pid!, request: constantReq };
      cold = (await withChild('siteline-cold', (served, child) => pipelineLoads(`${served.url}/api/mcp`, served, CONNECTIONS, child.pid, baseline))).r;
    } finally {
      await stopChild(sdk.child);
    }
  }
  const build = PARTS.has('build') && cold ? await compiledAgainstTsx(cold.addressList) : undefined;

  let scale: { one: Awaited<ReturnType<typeof pipelineLoads>>; two: Awaited<ReturnType<typeof pipelineLoads>> } | undefined;
  let scaleNote = '';
  if (PARTS.has('scaleout')) {
    const admin = process.env.BENCH_PG_URL;
    if (!admin) scaleNote = '  scale-out on PostgreSQL: skipped (set BENCH_PG_URL to an admin URL, e.g. postgres://postgres@127.0.0.1:5432/postgres)';
    else {
      const saved = process.env.DATABASE_URL;
      process.env.DATABASE_URL = admin; // the harness clones its Cambridge template database on that server
      const { createPlacesEnv } = await import('../test/support/harness.ts');
      const pgEnv = await createPlacesEnv(['cambridge-ma']);
      try {
        const childEnv = { BENCH_CHILD_DB: pgEnv.env.DATABASE_URL!, DATABASE_URL: '' };
        const one = (await withChild('siteline-pg', (served) => pipelineLoads(`${served.url}/api/mcp`, served), childEnv)).r;
        // Fixed ports, so that both instances can name the proxy as their public address before it runs.
        const [pp, pa, pb] = await freePorts(3);
        const front = `http://127.0.0.1:${pp}`;
        const proxy = await startChild('round-robin', { BENCH_RR_PORT: String(pp), BENCH_RR_UPSTREAMS: `http://127.0.0.1:${pa},http://127.0.0.1:${pb}` });
        const a = await startChild('siteline-pg', { ...childEnv, BENCH_PORT: String(pa), BENCH_BASE_URL: front });
        const b = await startChild('siteline-pg', { ...childEnv, BENCH_PORT: String(pb), BENCH_BASE_URL: front });
        try {
          const { getUserToken } = await import('../test/support/auth-flow.ts');
          const token = await getUserToken(front, `bench-rr-${process.pid}@example.com`);
          scale = { one, two: await pipelineLoads(`${front}/api/mcp`, { ...a.served, url: front, token }) };
        } finally {
          await stopChild(a.child);
          await stopChild(b.child);
          await stopChild(proxy.child);
        }
      } finally {
        await pgEnv.close(); // drops the clone through the admin URL, so DATABASE_URL is restored after
        if (saved === undefined) delete process.env.DATABASE_URL;
        else process.env.DATABASE_URL = saved;
      }
    }
  }

  if (echoR) results.push(line('raw node:http JSON echo', echoR));
  results.push(line('SDK alone, one constant tool', sdkR));
  if (payloadR) results.push(line('SDK alone, constant snapshot-sized answer', payloadR));
  if (guideR) results.push(line('siteline, getServiceMcpGuide (static, with token)', guideR));
  if (snapR) results.push(line('siteline, getFeasibilitySnapshot (400 Cambridge addresses, cached)', snapR));
  if (cold) {
    if (cold.rounds.length) results.push(line('SDK alone, same-sized constant answer (median round)', medianRound(cold.rounds).sdk));
    results.push(line(`siteline, getFeasibilitySnapshot, cache off, distinct addresses${cold.rounds.length ? ' (median round)' : ''}`, cold.snapR));
    results.push(line(`siteline, previewSiteCoverage, distinct addresses`, cold.prevR));
  }
  if (snapR) {
    results.push(
      `  snapshot / SDK-constant = ${pct(rps(snapR), rps(sdkR))} ${verdict('mcp.cached', (100 * rps(snapR)) / rps(sdkR))}${echoR ? `   snapshot / echo = ${pct(rps(snapR), rps(echoR))}   SDK-constant / echo = ${pct(rps(sdkR), rps(echoR))}` : ''}`,
    );
    if (payloadR)
      results.push(
        `  snapshot / SDK with the same-sized constant answer = ${pct(rps(snapR), rps(payloadR))} (the rest of the gap to the constant tool is the answer's size)`,
      );
    results.push(`  (cache during the cached run: ${cacheStats || 'no stats'})   ${answered}/${sampled} checked addresses answered before the run`);
  }
  if (cold) {
    const rounds = cold.rounds;
    if (rounds.length) {
      const mid = medianRound(rounds);
      const each = rounds.map((r) => pct(rps(r.snap), rps(r.sdk))).join(', ');
      results.push(
        `  cache off: getFeasibilitySnapshot / SDK constant answer of the same size = ${pct(rps(mid.snap), rps(mid.sdk))} ${verdict('mcp.cacheOff', (100 * rps(mid.snap)) / rps(mid.sdk))}, the median of ${rounds.length} interleaved rounds (${each}; ` +
          `${ROUND_REQUESTS.toLocaleString('en-US')} requests to the SDK tool answering the docs/examples snapshot, ${baselineWire.toLocaleString('en-US')} B on the wire, then as many snapshots, each round)   (${usedNote(cold.snapUsed, cold.addresses)})`,
      );
      results.push(
        `    against the tiny constant tool's ${DURATION_S} s run above (minutes earlier; the rest of that gap is the answer's size): ${pct(rps(cold.snapR), rps(sdkR))}` +
          (payloadR ? `; the same-sized constant's ${DURATION_S} s run above / the tiny one's = ${pct(rps(payloadR), rps(sdkR))}` : ''),
      );
    } else
      results.push(
        `  cache off: getFeasibilitySnapshot / SDK-constant = ${pct(rps(cold.snapR), rps(sdkR))} ${verdict('mcp.cacheOff', (100 * rps(cold.snapR)) / rps(sdkR))}   (${usedNote(cold.snapUsed, cold.addresses)})`,
      );
    results.push(
      `  previewSiteCoverage / SDK-constant = ${pct(rps(cold.prevR), rps(sdkR))} ${verdict('mcp.preview', (100 * rps(cold.prevR)) / rps(sdkR))}   (${usedNote(cold.prevUsed, cold.addresses)})`,
    );
    const c = sdkR.cpuMsPerRequest;
    const cpuRatios = rounds.filter((r) => r.sdk.cpuMsPerRequest && r.snap.cpuMsPerRequest).map((r) => r.sdk.cpuMsPerRequest! / r.snap.cpuMsPerRequest!);
    if (c && cold.snapR.cpuMsPerRequest && cold.prevR.cpuMsPerRequest) {
      // the same ratios from the server's own CPU time per request (the rate a core would serve), steady under others' load
      const snapCpu = cpuRatios.length
        ? `${pct(cpuRatios.sort((a, b) => a - b)[Math.floor(cpuRatios.length / 2)]!, 1)} (median of the rounds)`
        : pct(c, cold.snapR.cpuMsPerRequest);
      results.push(
        `  by server CPU per request: snapshot / same-sized SDK constant = ${snapCpu}   preview / SDK-constant = ${pct(c, cold.prevR.cpuMsPerRequest)}`,
      );
    }
  }
  if (build) results.push(...build);
  if (guideR) results.push(`  static tool through siteline / SDK-constant = ${pct(rps(guideR), rps(sdkR))} (HTTP rules, token check, our server build)`);
  if (scale) {
    results.push(`  scale-out on PostgreSQL (cache off, distinct addresses, ${CONNECTIONS} connections in all):`);
    results.push(line('  one process, getFeasibilitySnapshot', scale.one.snapR));
    results.push(line('  one process, previewSiteCoverage', scale.one.prevR));
    results.push(line('  two processes + round-robin, getFeasibilitySnapshot', scale.two.snapR));
    results.push(line('  two processes + round-robin, previewSiteCoverage', scale.two.prevR));
    results.push(
      `  two processes / one: snapshot ${(rps(scale.two.snapR) / rps(scale.one.snapR)).toFixed(2)}x, preview ${(rps(scale.two.prevR) / rps(scale.one.prevR)).toFixed(2)}x (this machine has ${os.cpus().length} cores, shared with the load generator, the proxy and PostgreSQL)`,
    );
  } else if (scaleNote) results.push(scaleNote);
  if (PARTS.has('payload')) results.push(...(await runPayloadBench()));
  out.push(...results);
  return out;
}

/**
 * The compiled build against the TypeScript source (issue 30, goal 3): the same service process twice
 * on its own copy of the Cambridge database, once as `npm start` runs it (node dist/main.js, built by
 * scripts/build.mjs) and once as `npm run dev` does (node --import tsx src/main.ts); cache off, each
 * request the next distinct address, measured in interleaved rounds (tsx, then compiled, each round).
 */
async function compiledAgainstTsx(addresses: string[]): Promise<string[]> {
  const { spawnSync } = await import('node:child_process');
  const path = await import('node:path');
  const root = path.resolve(import.meta.dirname, '..');
  const built = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs'), '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`the build failed: ${built.stderr}`);
  const { createPlacesEnv } = await import('../test/support/harness.ts');
  const { getUserToken } = await import('../test/support/auth-flow.ts');
  const start = async (label: string, args: string[]) => {
    const places = await createPlacesEnv(['cambridge-ma']);
    const [port] = await freePorts(1);
    const t0 = performance.now();
    const env = {
      ...process.env,
      ...places.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SITELINE_SNAPSHOT_CACHE: '0',
      SITELINE_ANALYSIS_WORKERS: '0',
      LOG_LEVEL: 'warn',
    };
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
    const base = `http://127.0.0.1:${port}`;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`siteline (${label}) exited (${child.exitCode}) before listening`);
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const listeningMs = performance.now() - t0;
    const token = await getUserToken(base, `bench-build-${label}-${process.pid}@example.com`);
    return {
      label,
      child,
      url: `${base}/api/mcp`,
      token,
      listeningMs,
      places,
      snap: distinctRequests('getFeasibilitySnapshot', addresses, token, { source: 'full' }),
    };
  };
  const stop = async (s: Awaited<ReturnType<typeof start>>) => {
    await stopChild(s.child);
    await s.places.close();
  };
  const tsx = await start('tsx', ['--import', 'tsx', path.join(root, 'src/main.ts')]);
  try {
    const dist = await start('dist', ['--enable-source-maps', path.join(root, 'dist/main.js')]);
    try {
      const both = [tsx, dist];
      for (const s of both) {
        await check(
          s.url,
          modernCall('getFeasibilitySnapshot', { address: addresses[0]!, source: 'full' }, 1, s.token),
          (b) => b.includes('"answered":true'),
          `siteline ${s.label}`,
        );
        await warm(s.url, s.snap.requests);
      }
      const rounds: { tsx: CannonResult; dist: CannonResult }[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const t = await load(tsx.url, tsx.snap.requests, CONNECTIONS, tsx.child.pid, { warmup: false, amount: ROUND_REQUESTS });
        rounds.push({ tsx: t, dist: await load(dist.url, dist.snap.requests, CONNECTIONS, dist.child.pid, { warmup: false, amount: ROUND_REQUESTS }) });
      }
      const ratio = (r: { tsx: CannonResult; dist: CannonResult }) => rps(r.dist) / rps(r.tsx);
      const mid = medianRound(rounds, ratio);
      const cpu = (r: CannonResult) => (r.cpuMsPerRequest === undefined ? 'n/a' : `${r.cpuMsPerRequest.toFixed(3)} ms`);
      return [
        `  compiled build against tsx (getFeasibilitySnapshot, cache off, distinct addresses, ${rounds.length} interleaved rounds of ${ROUND_REQUESTS.toLocaleString('en-US')} requests each):`,
        line('  node --import tsx src/main.ts (median round)', mid.tsx),
        line('  node dist/main.js, npm start (median round)', mid.dist),
        `    compiled / tsx = ${(ratio(mid)).toFixed(2)}x by req/s (rounds ${rounds.map((r) => ratio(r).toFixed(2)).join(', ')}); server CPU per request ${cpu(mid.dist)} against ${cpu(mid.tsx)}; listening ${(dist.listeningMs / 1000).toFixed(1)} s after spawn against ${(tsx.listeningMs / 1000).toFixed(1)} s (tsx compiles each module as it loads)`,
      ];
    } finally {
      await stop(dist);
    }
  } finally {
    await stop(tsx);
  }
}

/** A round-robin TCP proxy: each new connection goes to the next upstream (bench only). */
async function serveRoundRobin(): Promise<Served> {
  const net = await import('node:net');
  const ups = (process.env.BENCH_RR_UPSTREAMS ?? '').split(',').map((u) => new URL(u));
  let i = 0;
  const server = net.createServer((client) => {
    const u = ups[i++ % ups.length]!;
    const up = net.connect(Number(u.port), u.hostname);
    client.pipe(up).pipe(client);
    const end = () => {
      client.destroy();
      up.destroy();
    };
    client.on('error', end);
    up.on('error', end);
  });
  await new Promise<void>((r) => server.listen(Number(process.env.BENCH_RR_PORT ?? 0), '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, path: '/' };
}

/** n free loopback ports (listened on and released). */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<http.Server>((r) => {
          const s = http.createServer();
          s.listen(0, '127.0.0.1', () => r(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

/** Where the bytes of an agent's context go; the estimator is a plain bytes / 4 (about 4 bytes per token of English or JSON). */
const PAYLOAD_ADDRESS = '11 Acorn St, Cambridge, MA';
/** How many distinct Cambridge addresses the payload line samples (every n-th of the address table). */
const PAYLOAD_SAMPLE = Number(process.env.BENCH_PAYLOAD_SAMPLE ?? 300);

async function snapshotBytes(
  url: string,
  token: string,
  args: Record<string, unknown>,
): Promise<{ answered: boolean; structured: number; text: number; wire: number }> {
  const req = modernCall('getFeasibilitySnapshot', { source: 'full', ...args }, 1, token);
  const res = await fetch(url, { method: 'POST', headers: req.headers, body: req.body });
  const raw = await res.text();
  const data = raw.split('\n').find((l) => l.startsWith('data:'));
  const result = (JSON.parse(data ? data.slice(5) : raw) as { result: { structuredContent: { answered: boolean }; content: { text: string }[] } }).result;
  return {
    answered: result.structuredContent.answered,
    structured: Buffer.byteLength(JSON.stringify(result.structuredContent)),
    text: Buffer.byteLength(result.content.map((c) => c.text).join('')),
    wire: Buffer.byteLength(raw),
  };
}

async function measurePayload(url: string, token: string, addresses: string[]): Promise<string[]> {
  const kb = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  const one = await snapshotBytes(url, token, { address: PAYLOAD_ADDRESS });
  const inline = await snapshotBytes(url, token, { address: PAYLOAD_ADDRESS, includeSources: true });
  // The typical answer: median and p90 over distinct answered addresses, one call each, over the wire.
  const step = Math.max(1, Math.floor(addresses.length / PAYLOAD_SAMPLE));
  const structured: number[] = [];
  const wire: number[] = [];
  for (let i = 0; i < addresses.length && structured.length < PAYLOAD_SAMPLE; i += step) {
    const b = await snapshotBytes(url, token, { address: addresses[i]! });
    if (!b.answered) continue;
    structured.push(b.structured);
    wire.push(b.wire);
  }
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;
  const n = (b: number) => b.toLocaleString('en-US');
  return [
    `  payload, ${PAYLOAD_ADDRESS} (answered): structured JSON ${n(one.structured)} B (${kb(one.structured)}) ${verdict('payload.example.structured', one.structured / 1024)}   text block ${n(one.text)} B   ` +
      `MCP result on the wire ${n(one.wire)} B (${kb(one.wire)}) ${verdict('payload.example.wire', one.wire / 1024)}   ~${n(Math.round(one.wire / 4))} tokens (bytes / 4)   with includeSources ${n(inline.structured)} B structured`,
    `  payload over ${structured.length} answered Cambridge addresses: structured JSON median ${n(q(structured, 0.5))} B, p90 ${n(q(structured, 0.9))} B, max ${n(Math.max(...structured))} B ${verdict('payload.structured.median', q(structured, 0.5) / 1024)}   ` +
      `on the wire median ${n(q(wire, 0.5))} B, p90 ${n(q(wire, 0.9))} B ${verdict('payload.wire.p90', q(wire, 0.9) / 1024)}   ~${n(Math.round(q(wire, 0.5) / 4))} tokens median`,
  ];
}

/** The payload lines alone: one siteline server, one call for the example and one per sampled address. */
export async function runPayloadBench(): Promise<string[]> {
  const site = await startChild('siteline');
  try {
    return await measurePayload(`${site.served.url}/api/mcp`, site.served.token!, site.served.addresses ?? []);
  } finally {
    await stopChild(site.child);
  }
}

// Child mode: start one server and report where it listens.
if (process.argv[2] === 'serve') {
  const kind = process.argv[3];
  const served =
    kind === 'echo'
      ? await serveEcho()
      : kind === 'sdk-constant'
        ? await serveSdkConstant()
        : kind === 'sdk-payload'
          ? await serveSdkConstant(true)
          : kind === 'siteline'
            ? await serveSiteline()
            : kind === 'siteline-cold'
              ? await serveSiteline(0)
              : kind === 'siteline-pg'
                ? await serveSiteline(0, process.env.BENCH_CHILD_DB)
                : kind === 'round-robin'
                  ? await serveRoundRobin()
                  : null;
  if (!served) throw new Error(`unknown bench server ${kind}`);
  process.stdout.write(`SERVED ${JSON.stringify(served)}\n`);
  process.once('SIGTERM', () => {
    const stats = onStop?.();
    if (stats) process.stdout.write(`STATS ${stats}\n`, () => process.exit(0));
    else process.exit(0);
  });
} else if (import.meta.filename === process.argv[1]) {
  for (const l of await (process.argv[2] === 'payload' ? runPayloadBench() : runMcpBench())) console.log(l);
}
