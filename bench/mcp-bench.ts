// MCP endpoint throughput, measured in one run with autocannon on loopback (16 connections):
//   1. a raw node:http JSON echo (the ceiling of this machine's HTTP stack),
//   2. the SDK alone: createMcpHandler + toNodeHandler, one tool returning a constant,
//   2b. the same SDK server whose tool returns a constant snapshot-sized answer (docs/examples'
//      Cambridge snapshot as text and structured content): what the answer's size alone costs,
//   3. siteline /api/mcp, tools/call getServiceMcpGuide (static) with a user token (HTTP rules + token check + SDK),
//   4. siteline /api/mcp, tools/call getFeasibilitySnapshot over real Cambridge addresses with a user token,
//      as served (repeated addresses answered from the snapshot cache), and
//   5. the same with the cache off (SITELINE_SNAPSHOT_CACHE=0): every call runs the whole pipeline,
// and the answer's size (payload line): bytes of structured JSON, bytes of the tool result on the
// wire (structured content + the text block + framing) and a token estimate, for docs/examples'
// Cambridge address. `node --import tsx bench/mcp-bench.ts payload` runs the payload line alone.
// Each server runs in its own child process (this file, `serve <kind>`), so the load generator does not
// share its event loop. Target: (4) >= 90 % of (2). Speed is never asserted in a test; it is reported here.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

const CONNECTIONS = Number(process.env.BENCH_MCP_CONNECTIONS ?? 16);
const DURATION_S = Number(process.env.BENCH_MCP_SECONDS ?? 10);
const MODERN = '2026-07-28';

interface CannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}
interface CannonResult {
  requests: { average: number; total: number };
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
  const { snapshotSummary } = await import('../src/core/snapshot-summary.ts');
  const text = snapshotSummary(snapshot as never); // as the real tool: a summary beside the structured answer
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

async function serveSiteline(snapshotCacheEntries?: number): Promise<Served> {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { createPlacesDb, SHARED_DATA, ROOT } = await import('../test/support/harness.ts');
  const { getUserToken } = await import('../test/support/auth-flow.ts');
  const { loadConfig } = await import('../src/config.ts');
  const { startService } = await import('../src/service.ts');
  const { createLogger } = await import('../src/logger.ts');
  const testDb = await createPlacesDb(['cambridge-ma']);
  const dataDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'bench-'));
  process.on('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig(
    { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    { port: 0, host: '127.0.0.1', sourceDir: SHARED_DATA, autoImport: false, dataDir, ...(snapshotCacheEntries === undefined ? {} : { snapshotCacheEntries }) },
  );
  const svc = await startService(config, { db: testDb.db, logger: createLogger('silent') });
  const token = await getUserToken(svc.url, `bench-${process.pid}@example.com`);
  const rows = await svc.ctx.db.query<{ full_address: string }>(
    `SELECT full_address FROM addresses WHERE place_id = 'US-MA:cambridge' AND parcel_ext_id IS NOT NULL AND unit = '' AND row_no % 41 = 0 ORDER BY row_no LIMIT 400`,
  );
  const { snapshotCacheStats } = await import('../src/core/snapshot-cache.ts');
  onStop = () => {
    const st = snapshotCacheStats(svc.ctx.db);
    return `${st.hits.toLocaleString('en-US')} hits, ${st.misses.toLocaleString('en-US')} misses`;
  };
  return { url: svc.url, path: '/api/mcp', token, addresses: rows.map((r) => `${r.full_address}, Cambridge, MA`) };
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

async function startChild(kind: string): Promise<{ child: ChildProcess; served: Served }> {
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, 'serve', kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  let buf = '';
  childOutput.set(child, () => buf);
  const served = await new Promise<Served>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      const line = buf.split('\n').find((l) => l.startsWith('SERVED '));
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
async function check(url: string, req: CannonRequest, expect: (body: string) => boolean, label: string): Promise<void> {
  const res = await fetch(url, { method: req.method, headers: req.headers, body: req.body });
  const text = await res.text();
  if (res.status !== 200 || !expect(text)) throw new Error(`${label}: unexpected answer ${res.status} ${text.slice(0, 300)}`);
}

async function load(url: string, requests: CannonRequest[]): Promise<CannonResult> {
  const target = new URL(url);
  const opts = { url: target.origin, connections: CONNECTIONS, pipelining: 1, requests: requests.map((r) => ({ ...r, path: target.pathname })) };
  await autocannon({ ...opts, duration: 2 }); // warm-up: JIT, pools, caches
  return autocannon({ ...opts, duration: DURATION_S });
}

const rps = (r: CannonResult) => r.requests.average;
const line = (label: string, r: CannonResult) =>
  `  ${label.padEnd(46)} ${Math.round(rps(r)).toLocaleString('en-US').padStart(7)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(4)} ms` +
  (r.non2xx || r.errors || r.timeouts ? `   (non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts})` : '');
const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)} %`;

export async function runMcpBench(): Promise<string[]> {
  const out: string[] = [`MCP endpoint, autocannon on loopback, ${CONNECTIONS} connections, ${DURATION_S} s per target (2 s warm-up), each server in its own process`];

  const echo = await startChild('echo');
  let echoR: CannonResult;
  try {
    const req = modernCall('getFeasibilitySnapshot', { address: '57 Inman St, Cambridge, MA', source: 'full' }, 1);
    await check(echo.served.url, req, (b) => b.includes('57 Inman'), 'echo');
    echoR = await load(echo.served.url, [req]);
  } finally {
    await stopChild(echo.child);
  }

  const sdk = await startChild('sdk-constant');
  let sdkR: CannonResult;
  try {
    const url = `${sdk.served.url}/`;
    const req = modernCall('getFeasibilitySnapshot', { address: '57 Inman St, Cambridge, MA', source: 'full' }, 1);
    await check(url, req, (b) => b.includes('constant') && !b.includes('isError'), 'sdk-constant');
    sdkR = await load(url, [req]);
  } finally {
    await stopChild(sdk.child);
  }

  const sdkPayload = await startChild('sdk-payload');
  let payloadR: CannonResult;
  try {
    const url = `${sdkPayload.served.url}/`;
    const req = modernCall('getFeasibilitySnapshot', { address: '57 Inman St, Cambridge, MA', source: 'full' }, 1);
    await check(url, req, (b) => b.includes('structuredContent') && b.includes('envelope'), 'sdk-payload');
    payloadR = await load(url, [req]);
  } finally {
    await stopChild(sdkPayload.child);
  }

  const site = await startChild('siteline');
  let guideR: CannonResult;
  let snapR: CannonResult;
  let coldR: CannonResult;
  let sampled = 0;
  let answered = 0;
  let cacheStats = '';
  let payload: string[] = [];
  try {
    const url = `${site.served.url}/api/mcp`;
    const token = site.served.token!;
    const guide = modernCall('getServiceMcpGuide', { role: 'developer' }, 1, token);
    await check(url, guide, (b) => b.includes('"advice"'), 'siteline guide');
    guideR = await load(url, [guide]);
    const addresses = site.served.addresses!;
    const reqs = addresses.map((a, i) => modernCall('getFeasibilitySnapshot', { address: a, source: 'full' }, i + 1, token));
    for (const r of reqs.slice(0, 40)) {
      const res = await fetch(url, { method: 'POST', headers: r.headers, body: r.body });
      const body = await res.text();
      if (res.status !== 200 || body.includes('"isError":true')) throw new Error(`snapshot check failed: ${res.status} ${body.slice(0, 300)}`);
      sampled++;
      if (body.includes('"answered":true')) answered++;
    }
    payload = await measurePayload(url, token);
    snapR = await load(url, reqs);
  } finally {
    cacheStats = await stopChild(site.child);
  }

  const cold = await startChild('siteline-cold');
  try {
    const url = `${cold.served.url}/api/mcp`;
    const reqs = cold.served.addresses!.map((a, i) => modernCall('getFeasibilitySnapshot', { address: a, source: 'full' }, i + 1, cold.served.token!));
    coldR = await load(url, reqs);
  } finally {
    await stopChild(cold.child);
  }

  out.push(line('raw node:http JSON echo', echoR));
  out.push(line('SDK alone, one constant tool', sdkR));
  out.push(line('SDK alone, constant snapshot-sized answer', payloadR));
  out.push(line('siteline, getServiceMcpGuide (static, with token)', guideR));
  out.push(line(`siteline, getFeasibilitySnapshot (${site.served.addresses!.length} Cambridge addresses)`, snapR));
  out.push(line('  same, snapshot cache off (whole pipeline per call)', coldR));
  out.push(`  snapshot / SDK-constant = ${pct(rps(snapR), rps(sdkR))} [>= 90 %]   snapshot / echo = ${pct(rps(snapR), rps(echoR))}   SDK-constant / echo = ${pct(rps(sdkR), rps(echoR))}`);
  out.push(`  snapshot / SDK with the same-sized constant answer = ${pct(rps(snapR), rps(payloadR))} (the rest of the gap to the constant tool is the answer's size)`);
  out.push(`  cache off: snapshot / SDK-constant = ${pct(rps(coldR), rps(sdkR))}${cacheStats ? `   (cache during the cached run: ${cacheStats})` : ''}`);
  out.push(`  static tool through siteline / SDK-constant = ${pct(rps(guideR), rps(sdkR))} (HTTP rules, token check, our server build)`);
  out.push(`  ${answered}/${sampled} checked addresses answered before the run`);
  out.push(...payload);
  return out;
}

/** Where the bytes of an agent's context go; the estimator is a plain bytes / 4 (about 4 bytes per token of English or JSON). */
const PAYLOAD_ADDRESS = '11 Acorn St, Cambridge, MA';
async function measurePayload(url: string, token: string): Promise<string[]> {
  const req = modernCall('getFeasibilitySnapshot', { address: PAYLOAD_ADDRESS, source: 'full' }, 1, token);
  const res = await fetch(url, { method: 'POST', headers: req.headers, body: req.body });
  const raw = await res.text();
  const data = raw.split('\n').find((l) => l.startsWith('data:'));
  const result = (JSON.parse(data ? data.slice(5) : raw) as { result: { structuredContent: unknown; content: { text: string }[] } }).result;
  const structured = Buffer.byteLength(JSON.stringify(result.structuredContent));
  const text = Buffer.byteLength(result.content.map((c) => c.text).join(''));
  const wire = Buffer.byteLength(raw);
  const kb = (b: number) => `${(b / 1024).toFixed(1)} KiB`;
  return [
    `  payload, ${PAYLOAD_ADDRESS} (answered): structured JSON ${structured.toLocaleString('en-US')} B (${kb(structured)}) [<= 5 KB goal]   text block ${text.toLocaleString('en-US')} B   ` +
      `MCP result on the wire ${wire.toLocaleString('en-US')} B (${kb(wire)}) [<= 10 KB]   ~${Math.round(wire / 4).toLocaleString('en-US')} tokens (bytes / 4)`,
  ];
}

/** The payload line alone: one siteline server, one call. */
export async function runPayloadBench(): Promise<string[]> {
  const site = await startChild('siteline');
  try {
    return await measurePayload(`${site.served.url}/api/mcp`, site.served.token!);
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
