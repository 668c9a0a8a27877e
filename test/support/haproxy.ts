// Debian's haproxy running the configuration docs/deploy.md ships (its ```haproxy block), on this
// machine: the only changes are where it listens and logs, the instances' addresses, and a self-signed
// certificate made here. Each of those lines must be found in the document as written, so the document
// cannot drift from what the tests and scripts/rolling-restart.ts run. .ci/run installs haproxy.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The haproxy configuration in docs/deploy.md, as written. */
export function documentedHaproxyConfig(): string {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
  const m = /```haproxy\n([\s\S]*?)```/.exec(doc);
  if (!m) throw new Error('docs/deploy.md has no ```haproxy block');
  return m[1]!;
}

export function haproxyInstalled(): boolean {
  return spawnSync('haproxy', ['-v'], { encoding: 'utf8' }).status === 0;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface LocalHaproxy {
  /** https://127.0.0.1:<port> (the certificate names siteline.example.com: send that Host and SNI). */
  url: string;
  /** The plain-HTTP listener (redirects to https). */
  httpUrl: string;
  /** Every line haproxy wrote (its access log, one line per request, and its own notices). */
  lines: string[];
  /** Server name (web1, web2) -> haproxy's view: UP, DOWN, MAINT, ... from its stats page. */
  servers(): Promise<Record<string, string>>;
  /** Resolves once haproxy shows each named server in the state given. */
  waitForServers(want: Record<string, string>, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
  child: ChildProcess;
}

/** The documented routing by place (docs/deploy.md's second ```haproxy block: the frontend's lines and a backend per instance). */
export function documentedRoutingConfig(): { frontend: string[]; backends: string } {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8');
  const block = [...doc.matchAll(/```haproxy\n([\s\S]*?)```/g)][1]?.[1];
  if (!block) throw new Error('docs/deploy.md has no second ```haproxy block (routing by place)');
  const at = block.indexOf('\nbackend web1');
  if (at < 0) throw new Error("docs/deploy.md's routing block has no backend web1");
  const frontend = block
    .slice(0, at)
    .split('\n')
    .filter((l) => /^\s+(http-request set-var\(txn\.place\)|use_backend)/.test(l));
  return { frontend, backends: block.slice(at + 1) };
}

/** The documented configuration, made local: instance web1 at backends[0], web2 at backends[1]; with `placeMap`, routing by place through that map file. */
export function localConfig(dir: string, backends: [number, number], ports: { https: number; http: number; stats: number }, placeMap?: string): string {
  const pem = path.join(dir, 'siteline.pem');
  if (!fs.existsSync(pem)) {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    const r = spawnSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=siteline.example.com'],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`openssl: ${r.stderr}`);
    fs.writeFileSync(pem, fs.readFileSync(cert, 'utf8') + fs.readFileSync(key, 'utf8'));
  }
  let cfg = documentedHaproxyConfig();
  const swap = (from: string, to: string) => {
    if (!cfg.includes(from)) throw new Error(`docs/deploy.md's haproxy configuration no longer has "${from}"`);
    cfg = cfg.replace(from, to);
  };
  swap('log /dev/log local0', 'log stdout format raw local0');
  swap('bind :443 ssl crt /etc/haproxy/certs/siteline.pem', `bind 127.0.0.1:${ports.https} ssl crt ${pem}`);
  swap('bind :80\n', `bind 127.0.0.1:${ports.http}\n`);
  swap('server web1 10.0.0.11:8080', `server web1 127.0.0.1:${backends[0]}`);
  swap('server web2 10.0.0.12:8080', `server web2 127.0.0.1:${backends[1]}`);
  swap('bind 127.0.0.1:8404', `bind 127.0.0.1:${ports.stats}`);
  if (placeMap) {
    const routing = documentedRoutingConfig();
    if (routing.frontend.length === 0) throw new Error("docs/deploy.md's routing block has no frontend lines");
    swap('  default_backend siteline\n', `${routing.frontend.join('\n')}\n  default_backend siteline\n`);
    let extra = routing.backends;
    for (const [from, to] of [
      ['10.0.0.11:8080', `127.0.0.1:${backends[0]}`],
      ['10.0.0.12:8080', `127.0.0.1:${backends[1]}`],
    ] as const) {
      if (!extra.includes(from)) throw new Error(`docs/deploy.md's routing block no longer has "${from}"`);
      extra = extra.replaceAll(from, to);
    }
    cfg = `${cfg.replaceAll('/etc/haproxy/place-owners.map', placeMap)}\n${extra}`;
    if (!cfg.includes(placeMap)) throw new Error("docs/deploy.md's routing block no longer reads /etc/haproxy/place-owners.map");
  }
  // Dropping privileges needs root; as another user haproxy runs as that user.
  if (process.getuid?.() !== 0) {
    swap('  user haproxy\n', '');
    swap('  group haproxy\n', '');
  }
  return cfg;
}

export async function startHaproxy(dir: string, backends: [number, number], placeMap?: string): Promise<LocalHaproxy> {
  fs.mkdirSync(dir, { recursive: true });
  const ports = { https: await freePort(), http: await freePort(), stats: await freePort() };
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, localConfig(dir, backends, ports, placeMap));
  const check = spawnSync('haproxy', ['-c', '-q', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c: ${check.stdout}${check.stderr}`);
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  const onData = (d: Buffer) => {
    partial += d.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop()!;
    lines.push(...parts.filter(Boolean));
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const statsUrl = `http://127.0.0.1:${ports.stats}/stats;csv`;
  const servers = async (): Promise<Record<string, string>> => {
    const text = await (await fetch(statsUrl)).text();
    const out: Record<string, string> = {};
    const [head, ...rows] = text.replace(/^# /, '').trim().split('\n');
    const cols = head!.split(',');
    const [px, sv, st] = ['pxname', 'svname', 'status'].map((c) => cols.indexOf(c));
    for (const r of rows) {
      const f = r.split(',');
      if (f[px!] === 'siteline' && /^web\d$/.test(f[sv!]!)) out[f[sv!]!] = f[st!]!;
    }
    return out;
  };
  // Up once its stats page answers.
  for (let i = 0; ; i++) {
    try {
      await servers();
      break;
    } catch (err) {
      if (i > 100 || child.exitCode !== null) throw new Error(`haproxy did not start: ${lines.join('\n')} ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url: `https://127.0.0.1:${ports.https}`,
    httpUrl: `http://127.0.0.1:${ports.http}`,
    lines,
    child,
    servers,
    async waitForServers(want, timeoutMs = 120_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const now = await servers();
        if (Object.entries(want).every(([k, v]) => now[k] === v)) return;
        if (Date.now() > until) throw new Error(`haproxy never showed ${JSON.stringify(want)}: ${JSON.stringify(now)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
