// Reads from streaming replicas (DATABASE_READ_URL; docs/scaling.md, "Read replicas"). The lookup path's
// reads (snapshot, preview, coverage, tiles, inventory) run on one replica per operation: every statement of
// the operation, the place catalogue included, on the same one, so a replica that lags answers from the
// previous import consistently and never from a mix (its catalogue's imported_at and its rows agree).
// Writes, credit and every read after a write stay on the primary (ctx.db); nothing here writes.
//
// A replica that cannot be reached (refused, reset, shut down, no connection within the pool's timeout, or a
// statement cancelled by a conflict with recovery) is skipped: the operation runs again, whole, on the next
// replica, and on the primary when none is left. It is tried again RETRY_DOWN_MS later. The operations are
// pure reads, so running one again is safe.
import { openReplicaDatabase, type Db } from './database.ts';

/** How long a replica that failed is left out before a read tries it again. */
export const RETRY_DOWN_MS = 5_000;

interface Replica {
  /** replica 1, 2, ... in DATABASE_READ_URL's order (never the URL: it may hold a password). */
  readonly name: string;
  readonly db: Db;
  /** Date.now() before which the replica is skipped; 0: up. */
  downUntil: number;
  reads: number;
  failures: number;
}

export interface ReadReplicaStats {
  /** Operations answered by each replica, by name, and by the primary (none up, or all failed). */
  replicas: { name: string; reads: number; failures: number; up: boolean }[];
  primaryReads: number;
}

/** A read that failed because the database is not there (or cancelled the read to replay), not because of the read. */
export function databaseUnreachable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e) return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EPIPE|ECONNABORTED)$/.test(code)) return true;
  // 08: connection exception; 57P01-03: admin shutdown, crash shutdown, cannot connect now; 40001 on a replica: conflict with recovery
  if (/^(08...|57P0[123]|40001)$/.test(code)) return true;
  return (
    typeof e.message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|connection (is )?closed|Client has encountered a connection error|Connection ended/i.test(
      e.message,
    )
  );
}

export class ReadReplicas {
  readonly #replicas: Replica[];
  #next = 0;
  #primaryReads = 0;

  constructor(urls: readonly string[], open: (url: string) => Db = (url) => openReplicaDatabase(url)) {
    this.#replicas = urls.map((url, i) => ({ name: `replica ${i + 1}`, db: open(url), downUntil: 0, reads: 0, failures: 0 }));
  }

  /** The replicas to try, in turn from the next one (round robin), those marked down left out. */
  #order(now: number): Replica[] {
    const n = this.#replicas.length;
    const start = this.#next++ % Math.max(1, n);
    const out: Replica[] = [];
    for (let k = 0; k < n; k++) {
      const r = this.#replicas[(start + k) % n]!;
      if (r.downUntil <= now) out.push(r);
    }
    return out;
  }

  /**
   * Runs a read-only operation on one replica (every statement of it on that one), moving to the next when
   * a replica cannot be reached, and to the primary when no replica can. `onReplica(db, name)` and
   * `onPrimary()` are the operation on that database.
   */
  async run<T>(onReplica: (db: Db, name: string) => Promise<T>, onPrimary: () => Promise<T>, onSkip?: (name: string, err: unknown) => void): Promise<T> {
    for (const r of this.#order(Date.now())) {
      try {
        const out = await onReplica(r.db, r.name);
        r.reads++;
        r.downUntil = 0;
        return out;
      } catch (err) {
        if (!databaseUnreachable(err)) throw err;
        r.failures++;
        r.downUntil = Date.now() + RETRY_DOWN_MS;
        onSkip?.(r.name, err);
      }
    }
    this.#primaryReads++;
    return onPrimary();
  }

  stats(): ReadReplicaStats {
    const now = Date.now();
    return {
      replicas: this.#replicas.map((r) => ({ name: r.name, reads: r.reads, failures: r.failures, up: r.downUntil <= now })),
      primaryReads: this.#primaryReads,
    };
  }

  /** Zeroes the counts (the bench measures one phase at a time). */
  resetStats(): void {
    this.#primaryReads = 0;
    for (const r of this.#replicas) r.reads = r.failures = 0;
  }

  async close(): Promise<void> {
    await Promise.all(this.#replicas.map((r) => r.db.close().catch(() => undefined)));
  }
}
