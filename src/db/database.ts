// One SQL dialect (PostgreSQL) over two backends: embedded PGlite by default, a PostgreSQL server
// when DATABASE_URL is set. Callers see only this interface, so every query runs on both.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite, parse as pgliteParse, protocol as pgliteProtocol } from '@electric-sql/pglite';
import pg from 'pg';
import { SitelineError } from '../core/errors.ts';
import { copyFromBuffer } from './pg-copy.ts';
import { scrubSecrets } from '../logger.ts';

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * Bulk-loads rows with COPY (PGlite: from an in-memory blob, about twice as fast as INSERT ...
   * unnest; PostgreSQL: COPY FROM STDIN, src/db/pg-copy.ts). Absent on other Queryables: callers use INSERT.
   * Values: null -> NULL; everything else is written as its string form. A row may also come
   * already encoded as one COPY text line (copyTextLine), so a loader need not keep value arrays, or
   * the whole batch as CopyLines (already UTF-8), which copyRows empties.
   */
  copyRows?(table: string, columns: readonly string[], rows: readonly (readonly unknown[] | string)[] | CopyLines): Promise<number>;
}

/**
 * A batch of COPY text lines, encoded to UTF-8 as each is added. A large load (a million parcels)
 * would otherwise keep every line of a batch as a string on the heap until the COPY, where each
 * young-generation collection copies them again, then join them and encode the result once more.
 * The buffer is reused from batch to batch: take() copies its bytes out and empties it; detach() hands
 * the buffer to a batch of its own and takes a new one.
 */
export class CopyLines {
  private buf: Buffer<ArrayBuffer>;
  constructor(initialBytes = 1 << 20) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }
  private end = 0;
  private count = 0;
  /**
   * Adds one row from its values, written field by field in copyTextLine's format (the same bytes):
   * no line string is made per row, which for a million parcels was that many short-lived strings
   * of several hundred bytes for the collector.
   */
  addRow(values: readonly unknown[]): void {
    for (let i = 0; i < values.length; i++) {
      const text = copyField(values[i]);
      const need = this.end + 3 * text.length + 1; // UTF-8: at most 3 bytes per UTF-16 code unit; then a tab or newline
      if (need > this.buf.length) this.grow(need);
      this.end += this.buf.write(text, this.end, 'utf8');
      this.buf[this.end++] = i === values.length - 1 ? 0x0a : 0x09;
    }
    if (values.length === 0) {
      if (this.end + 1 > this.buf.length) this.grow(this.end + 1);
      this.buf[this.end++] = 0x0a;
    }
    this.count++;
  }
  private grow(need: number): void {
    const next = Buffer.allocUnsafe(Math.max(need, 2 * this.buf.length));
    this.buf.copy(next, 0, 0, this.end);
    this.buf = next;
  }
  get rows(): number {
    return this.count;
  }
  /**
   * The lines so far as lines of their own, leaving these empty for the next batch (on a buffer of the
   * same size): a batch handed to a COPY that starts later keeps its rows while the next is written.
   */
  detach(): CopyLines {
    const out = new CopyLines(0);
    out.buf = this.buf;
    out.end = this.end;
    out.count = this.count;
    this.buf = Buffer.allocUnsafe(this.buf.length);
    this.end = 0;
    this.count = 0;
    return out;
  }
  /** The lines so far as one buffer (a copy); the buffer is then empty. */
  takeBuffer(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.end));
    this.end = 0;
    this.count = 0;
    return out;
  }
  /** The lines so far as one blob; the buffer is then empty. */
  take(): Blob {
    const blob = new Blob([this.buf.subarray(0, this.end)]);
    this.end = 0;
    this.count = 0;
    return blob;
  }
}

/** One row in COPY's text format (tab-separated, backslash escapes, \N for NULL). */
export function copyTextLine(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += i > 0 ? `\t${copyField(values[i])}` : copyField(values[i]);
  return line;
}

/** One value in COPY's text format. */
function copyField(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'number') return String(v); // digits, sign, point, exponent, NaN, Infinity: never a character COPY escapes
  const text = String(v);
  return COPY_SPECIAL.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : text;
}

const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

async function pgliteCopy(
  run: (sql: string, params: unknown[], opts: { blob: Blob }) => Promise<unknown>,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[] | string)[] | CopyLines,
): Promise<number> {
  const ident = /^[a-z_][a-z0-9_]*$/;
  if (!ident.test(table) || !columns.every((c) => ident.test(c))) throw new Error(`copyRows: bad identifier in ${table}(${columns.join(', ')})`);
  const count = rows instanceof CopyLines ? rows.rows : rows.length;
  if (count === 0) return 0;
  let blob: Blob;
  if (rows instanceof CopyLines) {
    blob = rows.take();
  } else {
    const lines = rows.every((r) => typeof r === 'string') ? rows : rows.map((r) => (typeof r === 'string' ? r : copyTextLine(r)));
    // The final newline as a second part: appending it to the joined text would copy the whole batch again.
    blob = new Blob([lines.join('\n'), '\n']);
  }
  await run(`COPY ${table} (${columns.join(', ')}) FROM '/dev/blob'`, [], { blob });
  return count;
}

/** COPY FROM STDIN on PostgreSQL (src/db/pg-copy.ts): the same lines PGlite reads from its blob. */
async function pgCopy(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[] | string)[] | CopyLines,
): Promise<number> {
  const ident = /^[a-z_][a-z0-9_]*$/;
  if (!ident.test(table) || !columns.every((c) => ident.test(c))) throw new Error(`copyRows: bad identifier in ${table}(${columns.join(', ')})`);
  const count = rows instanceof CopyLines ? rows.rows : rows.length;
  if (count === 0) return 0;
  const data =
    rows instanceof CopyLines ? rows.takeBuffer() : Buffer.from(`${rows.map((r) => (typeof r === 'string' ? r : copyTextLine(r))).join('\n')}\n`, 'utf8');
  await copyFromBuffer(client, `COPY ${table} (${columns.join(', ')}) FROM STDIN`, data);
  return count;
}

/** A statement prepared once per database session and then run by its parameters alone. */
export type PreparedStatement<T> = (params: readonly unknown[]) => Promise<T[]>;

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * The statement, prepared once and run many times (the hot path of a paid call). PGlite's query()
   * parses, describes, binds and executes in six calls into the engine; a prepared statement is one
   * call (bind, execute, sync) with no parse or plan, about a quarter of the cost. On PostgreSQL it is
   * a named statement, prepared by the driver once per connection. The same text gives the same
   * statement (kept for the Db's life: only for a few fixed texts). Not for use inside transaction().
   */
  prepared<T = Row>(sql: string): PreparedStatement<T>;
  /** Runs a script of several statements with no parameters (migrations). */
  exec(sql: string): Promise<void>;
  /** Runs fn inside one transaction; a throw rolls it back. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * A failed statement, as it may be logged: the SQLSTATE and the statement's name (verb and table),
 * never its parameters, the driver's `detail` ("Key (email)=(...)") or a data error's message (which
 * quotes the offending value). The driver's error stays reachable as a non-enumerable `original`, so
 * no serializer writes it out.
 */
export class DbQueryError extends Error {
  override readonly name = 'DbQueryError';
  constructor(
    readonly code: string,
    readonly statement: string,
    message: string,
    original: unknown,
  ) {
    super(message);
    Object.defineProperty(this, 'original', { value: original, enumerable: false });
  }
}

/** "INSERT accounts", "SELECT sign_in_failures", "UPDATE oidc_models": what a statement does, to what. */
export function statementName(sql: string): string {
  const s = sql.replace(/\s+/g, ' ').trim();
  const verb = (/^\w+/.exec(s)?.[0] ?? 'SQL').toUpperCase();
  const table =
    /^INSERT INTO ([\w.]+)/i.exec(s)?.[1] ??
    /^UPDATE ([\w.]+)/i.exec(s)?.[1] ??
    /^DELETE FROM ([\w.]+)/i.exec(s)?.[1] ??
    /^COPY ([\w.]+)/i.exec(s)?.[1] ??
    /\bFROM ([\w.]+)/i.exec(s)?.[1];
  return table ? `${verb} ${table}` : verb;
}

// SQLSTATE classes whose messages may quote a parameter's value: 22 (data exception), 23 (integrity:
// messages name constraints, but keep them out too), XX/P0 (internal, raised by functions).
const VALUE_BEARING = /^(22|23|P0|XX)/;

/** Rethrows a driver error as a DbQueryError (errors that are not from the database pass through). */
function cleanDbError(err: unknown, sql: string): never {
  const e = err as { code?: unknown; message?: unknown; where?: unknown } | null;
  if (!e || typeof e.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code)) throw err;
  const statement = statementName(sql);
  const param = typeof e.where === 'string' ? /parameter \$\d+/.exec(e.where)?.[0] : undefined;
  const text = VALUE_BEARING.test(e.code) ? `rejected the data${param ? ` (${param})` : ''}` : String(e.message ?? 'failed');
  throw new DbQueryError(e.code, statement, `${statement}: ${text} (SQLSTATE ${e.code})`, err);
}

function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function guarded<T>(sql: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    cleanDbError(err, sql);
  }
}

// int8 and numeric come back as JS numbers on both backends (counts, sums): the values we store fit.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

let preparedNo = 0;

/** One prepared statement per text, kept for the Db's life (only the paid call's few fixed texts). */
function statementFor<T>(
  statements: Map<string, PreparedStatement<unknown>>,
  sql: string,
  prepare: (sql: string) => PreparedStatement<unknown>,
): PreparedStatement<T> {
  let p = statements.get(sql);
  if (!p) statements.set(sql, (p = prepare(sql)));
  return p as PreparedStatement<T>;
}

class PgliteDb implements Db {
  readonly kind = 'pglite' as const;
  constructor(
    private readonly pg: PGlite,
    private readonly release: () => void = () => undefined,
  ) {}
  private readonly statements = new Map<string, PreparedStatement<unknown>>();
  prepared<T>(sql: string): PreparedStatement<T> {
    return statementFor<T>(this.statements, sql, (text) => this.prepare(text));
  }
  private prepare<T>(sql: string): PreparedStatement<T> {
    const pg = this.pg;
    const { serialize } = pgliteProtocol;
    const name = `siteline_prepared_${++preparedNo}`;
    let shape: { paramTypes: number[]; rowDescription: Awaited<ReturnType<PGlite['execProtocol']>>['messages'][number] | undefined } | undefined;
    // Under both of PGlite's locks, as query() runs: never between the statements of a transaction.
    const exclusive = <R>(fn: () => Promise<R>) => pg._runExclusiveTransaction(() => pg._runExclusiveQuery(fn));
    return (params) =>
      guarded(sql, () =>
        exclusive(async () => {
          if (!shape) {
            const described = await pg.execProtocol(
              concatBytes([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()]),
            );
            shape = {
              paramTypes: pgliteParse.parseDescribeStatementResults(described.messages),
              rowDescription: described.messages.find((m) => m.name === 'rowDescription'),
            };
          }
          const types = shape.paramTypes;
          // Parameters are serialised as query() does: by the parameter's type, or as text.
          const values = params.map((v, i) => (v === null || v === undefined ? null : (pg.serializers[types[i]!] ?? String)(v)));
          const { messages } = await pg.execProtocol(concatBytes([serialize.bind({ statement: name, values }), serialize.execute({}), serialize.sync()]));
          const results = pgliteParse.parseResults(shape.rowDescription ? [shape.rowDescription, ...messages] : messages, pg.parsers);
          return (results[0]?.rows ?? []) as T[];
        }),
      );
  }
  async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return guarded(sql, async () => (await this.pg.query<T>(sql, params as unknown[])).rows);
  }
  copyRows(table: string, columns: readonly string[], rows: readonly (readonly unknown[] | string)[] | CopyLines): Promise<number> {
    return guarded(`COPY ${table}`, () => pgliteCopy((sql, params, opts) => this.pg.query(sql, params, opts), table, columns, rows));
  }
  async exec(sql: string): Promise<void> {
    await this.pg.exec(sql);
  }
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.pg.transaction(async (tx) =>
      fn({
        query: <R>(sql: string, params: readonly unknown[] = []) => guarded(sql, async () => (await tx.query<R>(sql, params as unknown[])).rows),
        copyRows: (table, columns, rows) =>
          guarded(`COPY ${table}`, () => pgliteCopy((sql, params, opts) => tx.query(sql, params, opts), table, columns, rows)),
      }),
    );
  }
  async close(): Promise<void> {
    try {
      await this.pg.close();
    } finally {
      this.release();
    }
  }
}

/**
 * PGlite serves one process: a second process opening the same data directory (a CLI run while the
 * server runs) can corrupt it. A lock file beside the directory, holding the owner's pid, turns that
 * into a clear error; a lock left by a process that no longer runs is taken over.
 */
function lockDataDir(dir: string): () => void {
  const lockPath = `${path.resolve(dir)}.lock`;
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(lockPath, 'utf8') === String(process.pid)) fs.rmSync(lockPath, { force: true });
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(fs.readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && processRuns(owner)) {
        throw new SitelineError(
          'unavailable',
          `The embedded database at ${dir} is in use by another siteline process (pid ${owner}), such as a running server. ` +
            'PGlite serves one process at a time: stop that process first, or run both on PostgreSQL with DATABASE_URL.',
        );
      }
      fs.rmSync(lockPath, { force: true }); // left by a process that is gone
    }
  }
  throw new SitelineError('unavailable', `Could not lock the embedded database at ${dir}.`);
}

/** The pid of the live process holding the embedded database at dir (a running server), if any; takes no lock. */
export function embeddedDatabaseHolder(dir: string): number | undefined {
  try {
    const owner = Number(fs.readFileSync(`${path.resolve(dir)}.lock`, 'utf8').trim());
    return Number.isInteger(owner) && owner > 0 && owner !== process.pid && processRuns(owner) ? owner : undefined;
  } catch {
    return undefined; // no lock file: no process holds the database
  }
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

class PostgresDb implements Db {
  readonly kind = 'postgres' as const;
  constructor(private readonly pool: pg.Pool) {}
  private readonly statements = new Map<string, PreparedStatement<unknown>>();
  prepared<T>(sql: string): PreparedStatement<T> {
    return statementFor<T>(this.statements, sql, (text) => this.prepare(text));
  }
  private prepare<T>(sql: string): PreparedStatement<T> {
    const name = `siteline_prepared_${++preparedNo}`;
    return (params) => guarded(sql, async () => (await this.pool.query({ name, text: sql, values: params as unknown[] })).rows as T[]);
  }
  async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return guarded(sql, async () => (await this.pool.query(sql, params as unknown[])).rows as T[]);
  }
  async copyRows(table: string, columns: readonly string[], rows: readonly (readonly unknown[] | string)[] | CopyLines): Promise<number> {
    const client = await this.pool.connect();
    try {
      return await guarded(`COPY ${table}`, () => pgCopy(client, table, columns, rows));
    } finally {
      client.release();
    }
  }
  async exec(sql: string): Promise<void> {
    await this.pool.query(sql);
  }
  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn({
        query: <R>(sql: string, params: readonly unknown[] = []) => guarded(sql, async () => (await client.query(sql, params as unknown[])).rows as R[]),
        copyRows: (table, columns, rows) => guarded(`COPY ${table}`, () => pgCopy(client, table, columns, rows)),
      });
      await client.query('COMMIT');
      return result;
    } catch (err) {
      // The transaction's own error is what the caller hears. A connection that cannot even roll back
      // is broken: it is dropped from the pool (release with an error) rather than handed out again.
      await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken = rollbackErr));
      throw err;
    } finally {
      client.release(broken);
    }
  }
  async close(): Promise<void> {
    await this.pool.end();
  }
}

export interface OpenOptions {
  /** postgres://... selects PostgreSQL; otherwise PGlite. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; 'memory://' keeps it in memory. */
  pgliteDir?: string;
  /** A PGlite data-dir tarball to start from (test templates). */
  loadDataDir?: Blob;
}

/**
 * PGlite's start: its own parameters, with shared buffers of 32 MB instead of its default 128 MB.
 * They live in PGlite's WebAssembly memory, which grows to the most it has ever held and never
 * gives it back, and a bulk import dirties every buffer: measured on the 1,000,000-parcel synthetic
 * import (three runs each), a peak RSS of 1,042-1,079 MB with 128 MB and 910-959 MB with 32 MB.
 * Most reads are answered from the hot index in process (src/geocoder/place-index.ts), and a page
 * that is not in the buffers is one read from the operating system's file cache.
 */
export const PGLITE_SHARED_BUFFERS = '32MB';
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];

/**
 * The PostgreSQL server named by DATABASE_URL could not be reached, or refused the connection, at
 * open: says where (host and port, never the user's password) and why, in one line. The service
 * process logs it and exits 5 (docs/deploy.md).
 */
export class DatabaseUnreachableError extends Error {
  override readonly name = 'DatabaseUnreachableError';
  readonly variable = 'DATABASE_URL';
  constructor(
    readonly host: string,
    readonly port: number,
    readonly database: string,
    readonly reason: string,
  ) {
    super(`cannot connect to the PostgreSQL database "${database}" at ${host}:${port} (DATABASE_URL): ${reason}`);
  }
}

/** How long opening waits for the server's first connection before saying it cannot be reached. */
const CONNECT_TIMEOUT_MS = 10_000;

/** One connection first, with a bound (the pool waits forever on a host that drops packets): a clear error when it fails. */
async function probePostgres(databaseUrl: string): Promise<void> {
  let where: { host: string; port: number; database: string };
  try {
    const u = new URL(databaseUrl);
    where = { host: u.hostname || 'localhost', port: Number(u.port || 5432), database: decodeURIComponent(u.pathname.replace(/^\//, '')) || 'postgres' };
  } catch {
    where = { host: 'unknown', port: 5432, database: 'unknown' };
  }
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    const e = err as { code?: string; message?: string };
    const reason =
      e.code && /^[A-Z]+$/.test(e.code)
        ? `${e.code} (${e.message ?? ''})`
        : e.code
          ? `${e.message ?? 'refused'} (SQLSTATE ${e.code})`
          : (e.message ?? String(err));
    throw new DatabaseUnreachableError(where.host, where.port, where.database, scrubSecrets(reason));
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function openDatabase(opts: OpenOptions): Promise<Db> {
  if (opts.databaseUrl) {
    await probePostgres(opts.databaseUrl);
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    pool.on('error', () => undefined); // an idle client dropping is retried by the pool on next use
    await pool.query('SELECT 1');
    return new PostgresDb(pool);
  }
  const dir = opts.pgliteDir ?? 'memory://';
  const start = { startParams: PGLITE_START_PARAMS, ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}) };
  if (dir.startsWith('memory://')) return new PgliteDb(await PGlite.create(undefined, start));
  const release = lockDataDir(dir);
  try {
    const db = await PGlite.create(dir, start);
    return new PgliteDb(db, release);
  } catch (err) {
    release();
    throw err;
  }
}

/** How long a replica's pool waits for a connection before the read moves on (src/db/read-replicas.ts). */
const REPLICA_CONNECT_TIMEOUT_MS = 2_000;

/**
 * A streaming replica (DATABASE_READ_URL): a pool, without the start's probe. A replica that is down at
 * start is not a reason to refuse to start: its reads fail fast (connect timeout) and go elsewhere.
 */
export function openReplicaDatabase(url: string, max = 10): Db {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: REPLICA_CONNECT_TIMEOUT_MS });
  pool.on('error', () => undefined); // a replica going away drops idle clients: the next read notices
  return new PostgresDb(pool);
}

/** The PGlite instance behind a Db, for dumping test templates. */
export async function dumpPglite(db: Db): Promise<Blob> {
  if (!(db instanceof PgliteDb)) throw new Error('dumpPglite needs a PGlite database');
  return (db as unknown as { pg: PGlite }).pg.dumpDataDir('none');
}
