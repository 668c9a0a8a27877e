// A rolling restart of two instances under load, behind the haproxy configuration docs/deploy.md ships,
// counting the requests that failed (issue 45: it must be 0). Run by .ci/run; by hand:
//   node --import tsx scripts/rolling-restart.ts        (DATABASE_URL: an admin URL of a PostgreSQL server)
// Two `npm start` instances on a database created for the run (PGlite serves one process), one small
// place (Paradise, TX), haproxy from Debian in front over TLS, ROLLING_CLIENTS (8) kept-alive clients
// sending pages (one reads the database), MCP tool calls (POST) and probes back to back. Once both are up in
// haproxy's view, each instance in turn gets SIGTERM on its `npm start` process (as systemd or an
// operator's kill sends it), exits, is started again and waited for (UP in haproxy), then the next.
// Prints what it measured and exits 0 when no request failed and both instances stopped with exit 0;
// 1 otherwise; 2 when haproxy or PostgreSQL is missing. Bounded: ROLLING_TIMEOUT_S (240) in all.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import pg from 'pg';
import { freePort, haproxyInstalled, startHaproxy, type LocalHaproxy } from '../test/support/haproxy.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const ADMIN_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const CLIENTS = Number(process.env.ROLLING_CLIENTS ?? 8);
const TIMEOUT_S = Number(process.env.ROLLING_TIMEOUT_S ?? 240);
const HOST = 'siteline.example.com';
const SOURCE_DIR = process.env.SITELINE_SOURCE_DIR || path.resolve(ROOT, '../shared/data');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const t00 = Date.now();
const say = (msg: string) => process.stdout.write(`rolling-restart: ${msg}\n`);

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

interface Instance {
  n: number;
  port: number;
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

function startInstance(n: number, port: number, env: Record<string, string>, work: string): Instance {
  const child = spawn(npm, ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), SITELINE_DATA_DIR: path.join(work, `data-${n}`) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, for the clean-up; signals go to the npm process alone
  });
  const lines: Array<Record<string, unknown>> = [];
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    partial += d.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop()!;
    for (const p of parts) {
      try {
        lines.push(JSON.parse(p) as Record<string, unknown>);
      } catch {
        if (p.trim()) lines.push({ msg: p });
      }
    }
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const exited = new Promise<number | null>((r) =>
    child.once('exit', (code) => {
      if (code) say(`instance ${n} exited ${code}: ${stderr.slice(-1500)}`);
      r(code);
    }),
  );
  return { n, port, child, lines, exited };
}

interface Tally {
  sent: number;
  ok: number;
  failures: Map<string, number>;
}

/** One kept-alive client (one TLS connection, reused) sending the mix back to back until told to stop. */
async function client(base: string, stopAt: () => boolean, t: Tally): Promise<void> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false, servername: HOST });
  const mcp = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'getServiceMcpGuide',
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'rolling-restart', version: '1' },
      },
    },
  });
  const mix: Array<{ method: string; path: string; body?: string; headers?: Record<string, string> }> = [
    { method: 'GET', path: '/' },
    {
      method: 'POST',
      path: '/api/mcp',
      body: mcp,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'getServiceMcpGuide',
      },
    },
    { method: 'GET', path: '/map' }, // reads the database (the public listings)
    { method: 'GET', path: '/healthz' },
  ];
  for (let i = 0; !stopAt(); i++) {
    const r = mix[i % mix.length]!;
    t.sent++;
    const outcome = await new Promise<string>((resolve) => {
      const req = https.request(
        `${base}${r.path}`,
        { method: r.method, agent, headers: { host: HOST, ...(r.headers ?? {}), ...(r.body ? { 'content-length': String(Buffer.byteLength(r.body)) } : {}) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200 ? 'ok' : `${r.method} ${r.path.split('?')[0]} -> ${res.statusCode}`));
          res.on('error', (err) => resolve(`${r.method} ${r.path.split('?')[0]} response ${(err as NodeJS.ErrnoException).code ?? err.message}`));
        },
      );
      req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
      req.on('error', (err: NodeJS.ErrnoException) => resolve(`${r.method} ${r.path.split('?')[0]} ${err.code ?? err.message}`));
      req.end(r.body);
    });
    if (outcome === 'ok') t.ok++;
    else t.failures.set(outcome, (t.failures.get(outcome) ?? 0) + 1);
  }
  agent.destroy();
}

async function main(): Promise<number> {
  if (!haproxyInstalled()) {
    say('haproxy is not installed (apt-get install haproxy)');
    return 2;
  }
  try {
    await admin('SELECT 1');
  } catch (err) {
    say(`no PostgreSQL server at DATABASE_URL (${(err as Error).message})`);
    return 2;
  }
  // The instances run `npm start`, whose prestart builds dist/ when stale: built once here, not by both at once.
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) return 1;
  const started = Date.now();
  const name = `siteline_rolling_${crypto.randomBytes(5).toString('hex')}`;
  const work = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'rolling-'));
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${name}`;
  fs.cpSync(path.join(ROOT, 'places', 'paradise-tx'), path.join(work, 'places', 'paradise-tx'), { recursive: true });
  await admin(`CREATE DATABASE ${name}`);
  const env = {
    DATABASE_URL: dbUrl.toString(),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SITELINE_BASE_URL: `https://${HOST}`,
    SITELINE_TRUSTED_PROXIES: 'loopback',
    SITELINE_MAIL_OUTBOX: '1',
    SITELINE_PLACES_DIR: path.join(work, 'places'),
    SITELINE_SOURCE_DIR: SOURCE_DIR,
  };
  const ports: [number, number] = [await freePort(), await freePort()];
  const instances: Instance[] = [];
  let proxy: LocalHaproxy | undefined;
  let stopLoad = false;
  const bound = setTimeout(() => {
    say(`gave up after ${TIMEOUT_S} s`);
    stopLoad = true;
    for (const i of instances) {
      try {
        process.kill(-i.child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    void proxy?.stop();
    process.exit(1);
  }, TIMEOUT_S * 1000);
  try {
    instances.push(startInstance(1, ports[0], env, work), startInstance(2, ports[1], env, work));
    proxy = await startHaproxy(path.join(work, 'haproxy'), ports);
    await proxy.waitForServers({ web1: 'UP', web2: 'UP' });
    say(`both instances UP behind haproxy after ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const tally: Tally = { sent: 0, ok: 0, failures: new Map() };
    const load = Promise.all(Array.from({ length: CLIENTS }, () => client(proxy!.url, () => stopLoad, tally)));
    await new Promise((r) => setTimeout(r, 3000));
    const restarts: string[] = [];
    for (const [i, inst] of instances.entries()) {
      const t0 = Date.now();
      const before = tally.sent;
      inst.child.kill('SIGTERM'); // the npm process the operator started
      const code = await inst.exited;
      const tDown = Date.now();
      const again = startInstance(inst.n, inst.port, env, work);
      instances[i] = again;
      await proxy.waitForServers({ [`web${inst.n}`]: 'UP' });
      const stopped = inst.lines.some((l) => l.msg === 'stopped');
      restarts.push(
        `instance ${inst.n}: npm start exited ${code} ${((tDown - t0) / 1000).toFixed(1)} s after SIGTERM (${stopped ? 'stopped itself' : 'NO stop line'}), UP again ${((Date.now() - tDown) / 1000).toFixed(1)} s later; ${tally.sent - before} requests meanwhile`,
      );
      if (code !== 0 || !stopped) tally.failures.set(`instance ${inst.n} did not stop cleanly (exit ${code})`, 1);
    }
    await new Promise((r) => setTimeout(r, 2000));
    stopLoad = true;
    await load;
    const seconds = (Date.now() - started) / 1000;
    for (const r of restarts) say(r);
    const failed = [...tally.failures.values()].reduce((a, b) => a + b, 0);
    const answeredByProxy = proxy.lines.filter((l) => / (GET|POST) \//.test(l));
    const proxy5xx = answeredByProxy.filter((l) => / 5\d\d \d+ /.test(l)).length;
    say(
      `${tally.sent} requests through haproxy on ${CLIENTS} kept-alive connections, ${tally.ok} answered 200, ${failed} failed${failed ? `: ${JSON.stringify(Object.fromEntries(tally.failures))}` : ''}; haproxy logged ${answeredByProxy.length} requests, ${proxy5xx} with a 5xx; ${seconds.toFixed(1)} s in all`,
    );
    return failed === 0 && proxy5xx === 0 ? 0 : 1;
  } finally {
    clearTimeout(bound);
    stopLoad = true;
    await Promise.all(
      instances.map(async (i) => {
        if (i.child.exitCode === null && i.child.signalCode === null) i.child.kill('SIGTERM');
        await Promise.race([i.exited, new Promise((r) => setTimeout(r, 40_000).unref())]);
        try {
          process.kill(-i.child.pid!, 'SIGKILL');
        } catch {
          /* gone */
        }
      }),
    );
    await proxy?.stop();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    fs.rmSync(work, { recursive: true, force: true });
    say(`cleaned up; ${((Date.now() - t00) / 1000).toFixed(1)} s from the script's start`);
  }
}

process.exitCode = await main();
