// A real PostgreSQL primary and a real streaming replica, made by the test itself with the machine's own
// PostgreSQL binaries (/usr/lib/postgresql/<version>/bin): initdb, pg_basebackup -R, pg_ctl. The server
// refuses to run as root, so under root every command runs as the `postgres` OS user (runuser), in a temp
// directory it owns, on free ports. Missing binaries are an error, never a skip: CI's machine has them.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './haproxy.ts';

/** The newest PostgreSQL's bin directory on this machine; throws, naming what is missing, when there is none. */
export function postgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v) && fs.existsSync(path.join(root, v, 'bin', 'pg_basebackup'))) : [];
  if (versions.length === 0)
    throw new Error(
      `no PostgreSQL server binaries under ${root}/<version>/bin (initdb, pg_ctl, pg_basebackup): install the postgresql package; this test does not skip`,
    );
  return path.join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, 'bin');
}

const asRoot = process.getuid?.() === 0;

/** Runs one of the binaries, as the postgres OS user when this process is root. */
function run(bin: string, tool: string, args: string[]): string {
  const file = asRoot ? 'runuser' : path.join(bin, tool);
  const argv = asRoot ? ['-u', 'postgres', '--', path.join(bin, tool), ...args] : args;
  try {
    return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  } catch (err) {
    const e = err as { stderr?: string; stdout?: string };
    throw new Error(`${tool} ${args.join(' ')} failed: ${e.stderr ?? ''}${e.stdout ?? ''}`);
  }
}

export interface Cluster {
  port: number;
  dir: string;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  start(): void;
  /** Stops the server: 'immediate' is a crash (no checkpoint), 'fast' a clean stop. */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Stops it as a crash would, without blocking this process's event loop (requests in flight keep going). */
  crash(): Promise<void>;
  running(): boolean;
}

export interface PrimaryWithReplica {
  primary: Cluster;
  replica: Cluster;
  /** Waits until the replica has replayed everything the primary has written (replay must not be paused). */
  caughtUp(timeoutMs?: number): Promise<void>;
  /** pg_wal_replay_pause() / pg_wal_replay_resume() on the replica. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops both servers and removes every file. */
  destroy(): void;
}

function cluster(bin: string, dir: string, port: number, socketDir: string): Cluster {
  const log = path.join(path.dirname(dir), `${path.basename(dir)}.log`);
  const c: Cluster = {
    port,
    dir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => void run(bin, 'pg_ctl', ['-D', dir, '-l', log, '-w', '-t', '60', '-o', `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1`, 'start']),
    stop: (mode = 'fast') => void run(bin, 'pg_ctl', ['-D', dir, '-m', mode, '-w', '-t', '60', 'stop']),
    crash: async () => {
      const args = ['-D', dir, '-m', 'immediate', '-w', '-t', '60', 'stop'];
      await promisify(execFile)(asRoot ? 'runuser' : path.join(bin, 'pg_ctl'), asRoot ? ['-u', 'postgres', '--', path.join(bin, 'pg_ctl'), ...args] : args);
    },
    running: () => {
      try {
        run(bin, 'pg_ctl', ['-D', dir, 'status']);
        return true;
      } catch {
        return false;
      }
    },
  };
  return c;
}

async function one<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows[0];
  } finally {
    await client.end();
  }
}

/** A primary (initdb) and a streaming replica of it (pg_basebackup -R), both running, in a temp directory. */
export async function startPrimaryWithReplica(): Promise<PrimaryWithReplica> {
  const bin = postgresBinaries();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-replica-'));
  fs.chmodSync(work, 0o755);
  if (asRoot) execFileSync('chown', ['postgres:postgres', work]);
  const [p1, p2] = [await freePort(), await freePort()];
  const primary = cluster(bin, path.join(work, 'primary'), p1, work);
  const replica = cluster(bin, path.join(work, 'replica'), p2 === p1 ? await freePort() : p2, work);
  const destroy = () => {
    for (const c of [replica, primary]) {
      if (fs.existsSync(path.join(c.dir, 'postmaster.pid'))) {
        try {
          c.stop('immediate');
        } catch {
          /* already stopped */
        }
      }
    }
    fs.rmSync(work, { recursive: true, force: true });
  };
  try {
    run(bin, 'initdb', ['-D', primary.dir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    // replication connections from 127.0.0.1 are trusted by initdb's pg_hba.conf (--auth=trust)
    fs.appendFileSync(path.join(primary.dir, 'postgresql.conf'), '\nfsync = off\nshared_buffers = 32MB\nmax_wal_senders = 4\nwal_level = replica\n');
    primary.start();
    run(bin, 'pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', replica.dir, '-R', '-X', 'stream', '--no-sync']);
    replica.start();
  } catch (err) {
    destroy();
    throw err;
  }
  const caughtUp = async (timeoutMs = 60_000) => {
    const target = (await one<{ lsn: string }>(primary.url(), 'SELECT pg_current_wal_lsn()::text AS lsn'))!.lsn;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await one<{ behind: boolean }>(replica.url(), `SELECT pg_last_wal_replay_lsn() < '${target}'::pg_lsn AS behind`);
      if (r && !r.behind) return;
      if (Date.now() > deadline) throw new Error(`the replica did not replay up to ${target} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    primary,
    replica,
    caughtUp,
    pauseReplay: async () => void (await one(replica.url(), 'SELECT pg_wal_replay_pause()')),
    resumeReplay: async () => void (await one(replica.url(), 'SELECT pg_wal_replay_resume()')),
    destroy,
  };
}
