// Public REST API throughput, measured in one run with autocannon on loopback:
//   1. a raw node:http JSON echo answering GET (the ceiling of this machine's HTTP stack),
//   2. siteline GET /api/v1/openapi.json (a static answer through our server: routing, logging),
//   3. siteline paid GET /api/v1/sites/check over real Cambridge addresses, charging on
//      (48 keys of two accounts holding ample credit, so the per-key limit of 6,000 a minute is never
//      reached at this machine's rate; key check, per-key rate limit, snapshot, spend),
//   4. the MCP snapshot tool over the same addresses on the same server (user token).
// Then where the time goes: the server's CPU by category in a short paid run under the profiler, the
// database statements of the measured run, and, in the server process, the mean time of each step of
// a paid call run alone. Target: (3) >= 15 % of (1) (issue 30, goal 5; it was 10 % before). Speed is never asserted in a test; it is reported here.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { verdict } from './targets.ts';

const CONNECTIONS = Number(process.env.BENCH_REST_CONNECTIONS ?? 16);
const DURATION_S = Number(process.env.BENCH_REST_SECONDS ?? 10);
/** Keys per account (at most MAX_ACTIVE_KEYS), over ACCOUNTS accounts. */
const KEYS_PER_ACCOUNT = 24;
const ACCOUNTS = 2;
const KEYS = KEYS_PER_ACCOUNT * ACCOUNTS;
/** BENCH_REST_PROFILE=<dir>: a CPU profile of the siteline server during the paid run, written there. */
const PROFILE_DIR = process.env.BENCH_REST_PROFILE;
/** Seconds of a separate, CPU-profiled paid run after the measured one: it says where the server's time goes. */
const BREAKDOWN_S = 3;
const MODERN = '2026-07-28';

interface CannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Promise<CannonResult>;

interface Served {
  url: string;
  keys?: string[];
  token?: string;
  addresses?: string[];
}

// ---- the servers (child side) -------------------------------------------------------------------

async function serveEcho(): Promise<Served> {
  const server = http.createServer((req, res) => {
    const out = JSON.stringify({ echo: req.url });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
    res.end(out);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

let steps: (() => Promise<string>) | undefined;
/** Drops the server's database (on PostgreSQL, a database made for the run) when the child is stopped. */
let closeDb: (() => Promise<void>) | undefined;
const statements = new Map<string, { n: number; ms: number; items: number }>();

async function serveSiteline(): Promise<Served> {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { createPlacesDb, SHARED_DATA, ROOT } = await import('../test/support/harness.ts');
  const { getUserToken } = await import('../test/support/auth-flow.ts');
  const { loadConfig } = await import('../src/config.ts');
  const { startService } = await import('../src/service.ts');
  const { createLogger } = await import('../src/logger.ts');
  const { addCredit, spendCredit } = await import('../src/billing/credit-ledger.ts');
  const { lookupApiKey } = await import('../src/billing/api-keys.ts');
  const { takeRateLimit } = await import('../src/ops/rate-limit.ts');
  const { cachedSnapshot } = await import('../src/snapshot/answer-cache.ts');
  const { getFeasibilitySnapshot } = await import('../src/snapshot/snapshot.ts');
  const { API_RATE_LIMIT } = await import('../src/rest/kit.ts');
  const testDb = await createPlacesDb(['cambridge-ma']);
  closeDb = () => testDb.close();
  const dataDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'bench-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig(
    { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    { port: 0, host: '127.0.0.1', sourceDir: SHARED_DATA, autoImport: false, dataDir },
  );
  const svc = await startService(config, { db: testDb.db, logger: createLogger('silent') });
  // Every statement the server runs is counted (by its first words) with its time and batch size, so
  // the bench can say what the paid run cost the database (reset before the run, read after it).
  const record = (sql: string, params: readonly unknown[] | undefined, t0: bigint) => {
    const k = sql.replace(/\s+/g, ' ').replace(/\(.*$/, '').slice(0, 48);
    const e = statements.get(k) ?? { n: 0, ms: 0, items: 0 };
    e.n++;
    e.ms += Number(process.hrtime.bigint() - t0) / 1e6;
    e.items += Array.isArray(params?.[0]) ? (params[0] as unknown[]).length : Array.isArray(params?.[4]) ? (params[4] as unknown[]).length : 1;
    statements.set(k, e);
  };
  const db = svc.ctx.db as { query: typeof svc.ctx.db.query; prepared: typeof svc.ctx.db.prepared };
  const dbQuery = db.query.bind(db);
  db.query = async <T>(sql: string, params?: readonly unknown[]): Promise<T[]> => {
    const t0 = process.hrtime.bigint();
    try {
      return await dbQuery<T>(sql, params);
    } finally {
      record(sql, params, t0);
    }
  };
  const dbPrepared = db.prepared.bind(db);
  db.prepared = <T>(sql: string) => {
    const run = dbPrepared<T>(sql);
    return async (params: readonly unknown[]): Promise<T[]> => {
      const t0 = process.hrtime.bigint();
      try {
        return await run(params);
      } finally {
        record(`${sql} (prepared)`, params, t0);
      }
    };
  };
  const keys: string[] = [];
  let token = '';
  let accountId = '';
  for (let a = 0; a < ACCOUNTS; a++) {
    const email = `rest-bench-${process.pid}-${a}@example.com`;
    const t = await getUserToken(svc.url, email);
    if (a === 0) token = t;
    for (let i = 0; i < KEYS_PER_ACCOUNT; i++) {
      const res = await fetch(`${svc.url}/api/v1/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `bench ${i}` }),
      });
      keys.push(((await res.json()) as { key: string }).key);
    }
    accountId = (await svc.ctx.db.query<{ account_id: string }>('SELECT account_id FROM accounts WHERE email = $1', [email]))[0]!.account_id;
    await addCredit(svc.ctx, { accountId, kind: 'grant', credits: 10_000_000, reference: 'bench' });
  }
  const rows = await svc.ctx.db.query<{ full_address: string }>(
    `SELECT full_address FROM addresses WHERE place_id = 'US-MA:cambridge' AND parcel_ext_id IS NOT NULL AND unit = '' AND row_no % 41 = 0 ORDER BY row_no LIMIT 400`,
  );
  const addresses = rows.map((r) => `${r.full_address}, Cambridge, MA`);
  // Each step of a paid call alone, sequentially, after the load (warm caches), in microseconds.
  steps = async () => {
    const ctx = svc.ctx;
    const time = async (n: number, fn: (i: number) => Promise<unknown>) => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await fn(i);
      return Number(process.hrtime.bigint() - t0) / 1e3 / n;
    };
    const n = 2000;
    const r = {
      selectOne: await time(n, () => ctx.db.query('SELECT 1')),
      keyLookup: await time(n, (i) => lookupApiKey(ctx, keys[i % KEYS]!)),
      keyLookupCounted: await time(n, (i) => lookupApiKey(ctx, keys[i % KEYS]!, { ...API_RATE_LIMIT, bucket: 'bench_steps', limit: 1e9 })),
      keyLookupCharged: await time(n, (i) =>
        lookupApiKey(ctx, keys[i % KEYS]!, { ...API_RATE_LIMIT, bucket: 'bench_steps3', limit: 1e9 }, { charge: true, reference: 'bench step' }),
      ),
      rateLimit: await time(n, (i) => takeRateLimit(ctx, { ...API_RATE_LIMIT, bucket: 'bench_steps2' }, `key:${i % KEYS}`)),
      snapshotCached: await time(n, () => cachedSnapshot(ctx, addresses[0]!)),
      snapshotPipeline: await time(100, (i) => getFeasibilitySnapshot(ctx, addresses[i % addresses.length]!)),
      spend: await time(n, () => spendCredit(ctx, { accountId, keyId: null, reference: 'bench step' })),
    };
    return JSON.stringify(r);
  };
  return { url: svc.url, keys, token, addresses };
}

// ---- the load generator (parent side) -----------------------------------------------------------

const childOutput = new WeakMap<ChildProcess, () => string>();

/** `databaseUrl`: the siteline server's database on that PostgreSQL server (a database made for it); PGlite otherwise. */
async function startChild(kind: string, databaseUrl?: string): Promise<{ child: ChildProcess; served: Served }> {
  const env = { ...process.env, DATABASE_URL: databaseUrl ?? '' };
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'serve', kind], { stdio: ['pipe', 'pipe', 'inherit'], env });
  let buf = '';
  childOutput.set(child, () => buf);
  const served = await new Promise<Served>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      const l = buf.split('\n').find((x) => x.startsWith('SERVED '));
      if (l) resolve(JSON.parse(l.slice(7)) as Served);
    });
    child.once('exit', (code) => reject(new Error(`bench server "${kind}" exited (${code}) before serving`)));
  });
  return { child, served };
}

/** Asks the server child for its step timings (a line on stdin), then stops it. */
async function stopChild(child: ChildProcess, askSteps = false): Promise<Record<string, number> | undefined> {
  let result: Record<string, number> | undefined;
  if (askSteps && child.exitCode === null) {
    child.stdin!.write('steps\n');
    result = await new Promise((resolve) => {
      const poll = setInterval(() => {
        const l = (childOutput.get(child)?.() ?? '').split('\n').find((x) => x.startsWith('STEPS '));
        if (l) {
          clearInterval(poll);
          resolve(JSON.parse(l.slice(6)) as Record<string, number>);
        }
      }, 100);
    });
  }
  if (child.exitCode === null) {
    await new Promise<void>((r) => {
      child.once('exit', () => r());
      child.kill('SIGTERM');
    });
  }
  return result;
}

/** Sends a line to the server child and waits for its answer line starting with `answer`. */
async function childCommand(child: ChildProcess, line: string, answer: string): Promise<string> {
  const seen = (childOutput.get(child)?.() ?? '').length;
  child.stdin!.write(`${line}\n`);
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      const l = (childOutput.get(child)?.() ?? '')
        .slice(seen)
        .split('\n')
        .find((x) => x.startsWith(`${answer} `));
      if (l) {
        clearInterval(poll);
        resolve(l.slice(answer.length + 1));
      }
    }, 50);
  });
}

/** Every request once (16 at a time), so the run measures answers from the snapshot cache (kept 60 s). */
async function warm(origin: string, requests: CannonRequest[]): Promise<void> {
  for (let i = 0; i < requests.length; i += CONNECTIONS) {
    await Promise.all(
      requests
        .slice(i, i + CONNECTIONS)
        .map(async (r) => (await fetch(`${origin}${r.path}`, { method: r.method, headers: r.headers, ...(r.body ? { body: r.body } : {}) })).arrayBuffer()),
    );
  }
}

async function load(origin: string, requests: CannonRequest[]): Promise<CannonResult> {
  const opts = { url: origin, connections: CONNECTIONS, pipelining: 1, requests };
  await autocannon({ ...opts, duration: 2 }); // warm-up: JIT, pools, caches
  return autocannon({ ...opts, duration: DURATION_S });
}

/**
 * load(), also reading the server process's CPU time (user + system) over the measured part: CPU
 * per request does not depend on how many cores other processes leave to the run, unlike req/s.
 */
async function loadWithCpu(child: ChildProcess, origin: string, requests: CannonRequest[]): Promise<CannonResult & { cpuUsPerRequest: number }> {
  const opts = { url: origin, connections: CONNECTIONS, pipelining: 1, requests };
  await autocannon({ ...opts, duration: 2 });
  const cpu = async () => {
    const u = JSON.parse(await childCommand(child, 'cpu', 'CPU')) as { user: number; system: number };
    return u.user + u.system;
  };
  const before = await cpu();
  const r = await autocannon({ ...opts, duration: DURATION_S });
  return { ...r, cpuUsPerRequest: ((await cpu()) - before) / r.requests.total };
}

async function check(origin: string, req: CannonRequest, expect: (status: number, body: string, headers: Headers) => boolean, label: string): Promise<void> {
  const res = await fetch(`${origin}${req.path}`, { method: req.method, headers: req.headers, ...(req.body ? { body: req.body } : {}) });
  const text = await res.text();
  if (!expect(res.status, text, res.headers)) throw new Error(`${label}: unexpected answer ${res.status} ${text.slice(0, 300)}`);
}

const rps = (r: CannonResult) => r.requests.average;
const line = (label: string, r: CannonResult) =>
  `  ${label.padEnd(52)} ${Math.round(rps(r)).toLocaleString('en-US').padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(4)} ms` +
  (r.non2xx || r.errors || r.timeouts ? `   (non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts})` : '');
const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)} %`;
/** The database statements of a run, by their first words: count, total ms, requests served. */
type StatementStats = [string, { n: number; ms: number; items: number }][];
const checkPath = (a: string) => `/api/v1/sites/check?${new URLSearchParams({ address: a })}`;
/** One paid check per address, the keys taken in turn. */
const paidRequests = ({ keys, addresses }: Required<Served>): CannonRequest[] =>
  addresses.map((a, i) => ({ method: 'GET', path: checkPath(a), headers: { authorization: `Bearer ${keys[i % keys.length]}` } }));
/** A paid answer: charged, or free because the address is not answered. */
const paidOk = (status: number, body: string, headers: Headers) =>
  status === 200 && (body.includes('"answered":false') || headers.get('siteline-credits-charged') === '1');

/**
 * `pgUrl` (BENCH_PG_URL in bench/run.ts): the paid run once more with the server's database on
 * PostgreSQL, as a public deployment runs it (docs/deploy.md), against the same echo run.
 */
export async function runRestBench(opts: { pgUrl?: string | undefined } = {}): Promise<string[]> {
  const out: string[] = [
    `REST API /api/v1, autocannon on loopback, ${CONNECTIONS} connections, ${DURATION_S} s per target (2 s warm-up), each server in its own process`,
  ];

  const echo = await startChild('echo');
  let echoR: CannonResult & { cpuUsPerRequest: number };
  try {
    const req = { method: 'GET', path: checkPath('57 Inman St, Cambridge, MA'), headers: {} };
    await check(echo.served.url, req, (s, b) => s === 200 && b.includes('Inman'), 'echo');
    echoR = await loadWithCpu(echo.child, echo.served.url, [req]);
  } finally {
    await stopChild(echo.child);
  }

  const site = await startChild('siteline');
  let staticR: CannonResult;
  let paidR: CannonResult & { cpuUsPerRequest: number };
  let mcpR: CannonResult;
  let stepTimes: Record<string, number> | undefined;
  let charged = 0;
  let paidStatements: StatementStats = [];
  let breakdown: (Profiled & { requests: number }) | undefined;
  try {
    const origin = site.served.url;
    const { keys, addresses, token } = site.served as Required<Served>;
    const openapi = { method: 'GET', path: '/api/v1/openapi.json', headers: {} };
    await check(origin, openapi, (s) => s === 200, 'openapi.json');
    staticR = await load(origin, [openapi]);

    const paid = paidRequests(site.served as Required<Served>);
    for (const r of paid.slice(0, 20)) {
      await check(origin, r, paidOk, 'paid check');
    }
    await warm(origin, paid);
    // One key of each account: what the accounts' balances lost is what the run charged.
    const payers = Array.from({ length: ACCOUNTS }, (_, a) => keys[a * KEYS_PER_ACCOUNT]!);
    const balances = async () => (await Promise.all(payers.map((k) => usage(origin, k)))).reduce((t, b) => t + b, 0);
    const before = await balances();
    if (PROFILE_DIR) await childCommand(site.child, 'profile-start', 'PROFILING');
    await childCommand(site.child, 'statements-reset', 'STATEMENTS');
    paidR = await loadWithCpu(site.child, origin, paid);
    paidStatements = JSON.parse(await childCommand(site.child, 'statements', 'STATEMENTS')) as typeof paidStatements;
    if (PROFILE_DIR)
      out.push(`  CPU profile of the server during the paid run: ${(JSON.parse(await childCommand(site.child, 'profile-stop', 'PROFILED')) as Profiled).file}`);
    charged = before - (await balances());
    // Where the time goes: the same load again for a few seconds under the CPU profiler (which slows it).
    await childCommand(site.child, 'profile-start', 'PROFILING');
    const profiledR = await autocannon({ url: origin, connections: CONNECTIONS, pipelining: 1, requests: paid, duration: BREAKDOWN_S });
    breakdown = { ...(JSON.parse(await childCommand(site.child, 'profile-stop', 'PROFILED')) as Profiled), requests: profiledR.requests.total };

    const mcp = addresses.map((a, i) => ({
      method: 'POST',
      path: '/api/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'getFeasibilitySnapshot',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: {
          name: 'getFeasibilitySnapshot',
          arguments: { address: a, source: 'full' },
          _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      }),
    }));
    await check(origin, mcp[0]!, (s, b) => s === 200 && !b.includes('"isError":true'), 'mcp snapshot');
    await warm(origin, mcp);
    mcpR = await load(origin, mcp);
  } finally {
    stepTimes = await stopChild(site.child, true);
  }

  // The paid run on PostgreSQL: the same keys, addresses and load, nothing else.
  let pgPaid: { r: CannonResult & { cpuUsPerRequest: number }; statements: StatementStats } | undefined;
  if (opts.pgUrl) {
    const pgSite = await startChild('siteline', opts.pgUrl);
    try {
      const paid = paidRequests(pgSite.served as Required<Served>);
      await check(pgSite.served.url, paid[0]!, paidOk, 'paid check (PostgreSQL)');
      await warm(pgSite.served.url, paid);
      await childCommand(pgSite.child, 'statements-reset', 'STATEMENTS');
      const r = await loadWithCpu(pgSite.child, pgSite.served.url, paid);
      pgPaid = { r, statements: JSON.parse(await childCommand(pgSite.child, 'statements', 'STATEMENTS')) as StatementStats };
    } finally {
      await stopChild(pgSite.child);
    }
  }

  out.push(line('raw node:http JSON echo (GET)', echoR));
  out.push(line('siteline GET /api/v1/openapi.json (static)', staticR));
  out.push(line(`siteline paid GET /api/v1/sites/check (${site.served.addresses!.length} addresses, ${KEYS} keys)`, paidR));
  out.push(line('siteline MCP getFeasibilitySnapshot, same addresses', mcpR));
  out.push(
    `  paid REST / echo = ${pct(rps(paidR), rps(echoR))} ${verdict('rest.paid', (100 * rps(paidR)) / rps(echoR))}   paid REST / MCP tool = ${(rps(paidR) / rps(mcpR)).toFixed(2)}x   static / echo = ${pct(rps(staticR), rps(echoR))}`,
  );
  out.push(
    `  server CPU per request over the measured runs: echo ${echoR.cpuUsPerRequest.toFixed(0)} µs, paid REST ${paidR.cpuUsPerRequest.toFixed(0)} µs ` +
      `(echo / paid = ${pct(echoR.cpuUsPerRequest, paidR.cpuUsPerRequest)}: the throughput ratio if each server had a core to itself, whatever the machine's load)`,
  );
  out.push(
    `  credits charged during the paid run (incl. autocannon's warm-up): ${charged.toLocaleString('en-US')} (answered:false addresses are free); snapshots served from the cache (warmed first)`,
  );
  const top = paidStatements.sort((a, b) => b[1].ms - a[1].ms).slice(0, 4);
  out.push(
    `  database statements during the paid run (incl. warm-up), by total time: ` +
      top
        .map(([k, v]) => `${k.trim()}: ${v.n.toLocaleString('en-US')} x ${(v.ms / v.n).toFixed(2)} ms, ${(v.items / v.n).toFixed(1)} requests each`)
        .join('; '),
  );
  if (pgPaid) {
    const [name, st] = pgPaid.statements.sort((a, b) => b[1].ms - a[1].ms)[0] ?? ['(none)', { n: 1, ms: 0, items: 0 }];
    out.push(
      `  on PostgreSQL (the public deployment's database), the same paid run: ${Math.round(rps(pgPaid.r)).toLocaleString('en-US')} req/s, p50 ${pgPaid.r.latency.p50} ms, p99 ${pgPaid.r.latency.p99} ms = ${pct(rps(pgPaid.r), rps(echoR))} of the echo ${verdict('rest.paid.postgres', (100 * rps(pgPaid.r)) / rps(echoR))}; ` +
        `server CPU ${pgPaid.r.cpuUsPerRequest.toFixed(0)} µs a request (echo / paid = ${pct(echoR.cpuUsPerRequest, pgPaid.r.cpuUsPerRequest)}; the database server's CPU is not in it); ` +
        `${name.trim()}: ${st.n.toLocaleString('en-US')} x ${(st.ms / st.n).toFixed(2)} ms, ${(st.items / st.n).toFixed(1)} requests each (one batch in flight at a time)`,
    );
  }
  if (breakdown) {
    const b = breakdown;
    const busy = b.totalMs - (b.categories['idle'] ?? 0);
    out.push(
      `  where the server's CPU goes (a separate ${BREAKDOWN_S} s paid run under the CPU profiler, ${Math.round((1000 * busy) / b.requests)} µs of busy CPU per request): ` +
        Object.entries(b.categories)
          .filter(([k]) => k !== 'idle')
          .sort((x, y) => y[1] - x[1])
          .map(([k, ms]) => `${k} ${((100 * ms) / busy).toFixed(0)} %`)
          .join(', ') +
        `; the process was idle ${((100 * (b.categories['idle'] ?? 0)) / b.totalMs).toFixed(0)} % of the run`,
    );
  }
  if (stepTimes) {
    const f = (k: string) => `${stepTimes![k]!.toFixed(0)} µs`;
    out.push(
      `  one paid call's steps alone (PGlite, warm; measured in the server process after the runs): key lookup + per-key count + guarded spend + ledger entry in one statement (the cached-answer path) ${f('keyLookupCharged')}; ` +
        `on a cache miss: key lookup with the per-key count ${f('keyLookupCounted')} (lookup alone ${f('keyLookup')}, a separate count ${f('rateLimit')}), the whole snapshot pipeline ${f('snapshotPipeline')}, ` +
        `guarded spend + ledger entry ${f('spend')}; snapshot from cache ${f('snapshotCached')}; an empty SELECT 1 through query() is ${f('selectOne')}`,
    );
  }
  return out;
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}
interface Profiled {
  file?: string;
  totalMs: number;
  categories: Record<string, number>;
}

/**
 * A CPU profile's time by what it was spent on, each sample by its stack: the database (PGlite's
 * engine, its protocol and our Db wrapper), socket writes (the writev syscall, which on loopback also
 * delivers to the client), node:http's request parsing and response framing, siteline's own code
 * (routing, token check, rate and charge bookkeeping, headers), garbage collection, and the event
 * loop's own work (promises, timers, immediates).
 */
function cpuBreakdown(profile: CpuProfile): { totalMs: number; categories: Record<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const cache = new Map<number, string>();
  const classify = (id: number): string => {
    const leaf = byId.get(id)!.callFrame;
    if (leaf.functionName === '(idle)') return 'idle';
    if (leaf.functionName === '(garbage collector)') return 'garbage collection';
    const stack: { functionName: string; url: string }[] = [];
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) stack.push(byId.get(x)!.callFrame);
    if (stack.some((f) => f.url === 'node:inspector')) return 'profiler'; // starting and stopping the profile itself
    if (stack.some((f) => f.url.includes('@electric-sql') || f.url.includes('/src/db/') || f.functionName.startsWith('wasm-') || f.url.startsWith('wasm:')))
      return 'database (PGlite)';
    if (
      stack.some(
        (f) =>
          f.functionName === 'writev' ||
          f.functionName === 'writevGeneric' ||
          f.functionName === 'writeGeneric' ||
          f.functionName === 'writeUtf8String' ||
          f.functionName === 'writeBuffer',
      )
    )
      return 'socket writes';
    for (const f of stack) {
      if (f.url.startsWith('node:_http') || f.url === 'node:_http_common' || (f.url === '' && f.functionName === 'parse'))
        return 'node:http parsing and framing';
      if (f.url.includes('/src/')) return 'siteline code (routing, token check, headers)';
    }
    return 'event loop, promises, timers';
  };
  const categories: Record<string, number> = {};
  let total = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    let c = cache.get(id);
    if (!c) cache.set(id, (c = classify(id)));
    if (c === 'profiler') return;
    total += ms;
    categories[c] = (categories[c] ?? 0) + ms;
  });
  return { totalMs: total, categories };
}

async function usage(origin: string, key: string): Promise<number> {
  const res = await fetch(`${origin}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
  return ((await res.json()) as { balance: number }).balance;
}

// Child mode: start one server and report where it listens; "steps" on stdin prints step timings.
if (process.argv[2] === 'serve') {
  const kind = process.argv[3];
  const served = kind === 'echo' ? await serveEcho() : kind === 'siteline' ? await serveSiteline() : null;
  if (!served) throw new Error(`unknown bench server ${kind}`);
  process.stdout.write(`SERVED ${JSON.stringify(served)}\n`);
  let session: import('node:inspector/promises').Session | undefined;
  process.stdin.on('data', (d: Buffer) => {
    const cmd = d.toString().trim();
    if (cmd === 'steps' && steps) void steps().then((s) => process.stdout.write(`STEPS ${s}\n`));
    if (cmd === 'cpu') process.stdout.write(`CPU ${JSON.stringify(process.cpuUsage())}\n`);
    if (cmd === 'statements-reset') {
      statements.clear();
      process.stdout.write('STATEMENTS []\n');
    }
    if (cmd === 'statements') process.stdout.write(`STATEMENTS ${JSON.stringify([...statements])}\n`);
    if (cmd === 'profile-start')
      void (async () => {
        const { Session } = await import('node:inspector/promises');
        session = new Session();
        session.connect();
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
        process.stdout.write('PROFILING on\n');
      })();
    if (cmd === 'profile-stop' && session)
      void (async () => {
        const { profile } = await session!.post('Profiler.stop');
        session!.disconnect();
        let file: string | undefined;
        if (PROFILE_DIR) {
          const fs = await import('node:fs');
          const path = await import('node:path');
          fs.mkdirSync(PROFILE_DIR, { recursive: true });
          file = path.join(PROFILE_DIR, `rest-paid-${process.pid}-${Date.now()}.cpuprofile`);
          fs.writeFileSync(file, JSON.stringify(profile));
        }
        process.stdout.write(`PROFILED ${JSON.stringify({ file, ...cpuBreakdown(profile as CpuProfile) })}\n`);
      })();
  });
  process.once('SIGTERM', () => {
    setTimeout(() => process.exit(0), 10_000).unref();
    void (closeDb?.() ?? Promise.resolve()).catch(() => undefined).finally(() => process.exit(0));
  });
} else if (import.meta.filename === process.argv[1]) {
  for (const l of await runRestBench({ pgUrl: process.env.BENCH_PG_URL })) console.log(l);
}
