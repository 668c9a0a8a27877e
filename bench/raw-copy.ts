// The yardstick of an import (issue 30, goal 4): a raw COPY of the very rows an import wrote, into
// bare tables of the same columns (no index, no key) in the same database, in the same run. The
// import's time over this one is the ratio the bench reports (target <= 3x): the machine's speed of
// the day divides out. On PGlite the rows go through an in-memory blob (COPY ... TO/FROM '/dev/blob');
// on PostgreSQL through a server-side file (the bench's server runs on this machine), so the figure
// is the database's own COPY, with no client in it.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Db } from '../src/db/database.ts';

/** The tables an import writes the bulk of a place into. */
export const PLACE_TABLES = ['parcels', 'addresses', 'zones', 'street_segments'] as const;

export interface RawCopy {
  /** Wall time of the COPY statements alone (export and table creation not counted). */
  ms: number;
  /** This process's CPU over them (all of it on PGlite, which runs in-process; little on PostgreSQL, whose server does the work). */
  cpuMs: number;
  rows: Record<string, number>;
  /** Bytes of COPY text moved. */
  bytes: number;
}

interface PgliteLike {
  query(sql: string, params?: unknown[], opts?: { blob?: Blob }): Promise<{ blob?: Blob; affectedRows?: number }>;
}

/**
 * `indexed`: the bare tables get the real tables' indexes first (LIKE ... INCLUDING INDEXES), so the
 * COPY also maintains them row by row: the naive way to reach the import's end state (rows and indexes).
 */
export async function rawCopyBaseline(db: Db, placeId: string, opts: { indexed?: boolean } = {}): Promise<RawCopy> {
  const out: RawCopy = { ms: 0, cpuMs: 0, rows: {}, bytes: 0 };
  const tag = crypto.randomBytes(4).toString('hex');
  for (const table of PLACE_TABLES) {
    const raw = `bench_raw_${table}_${tag}`;
    await db.query(`CREATE TABLE ${raw} (LIKE ${table}${opts.indexed ? ' INCLUDING DEFAULTS INCLUDING INDEXES' : ''})`);
    const select = `SELECT * FROM ${table} WHERE place_id = '${placeId.replace(/'/g, "''")}'`;
    try {
      if (db.kind === 'pglite') {
        const pg = (db as unknown as { pg: PgliteLike }).pg;
        const exported = await pg.query(`COPY (${select}) TO '/dev/blob'`);
        const blob = exported.blob!;
        out.bytes += blob.size;
        const t = performance.now();
        const c = process.cpuUsage();
        const r = await pg.query(`COPY ${raw} FROM '/dev/blob'`, [], { blob });
        out.ms += performance.now() - t;
        const dc = process.cpuUsage(c);
        out.cpuMs += (dc.user + dc.system) / 1000;
        out.rows[table] = r.affectedRows ?? 0;
      } else {
        const file = path.join(os.tmpdir(), `siteline-${raw}.copy`);
        await db.query(`COPY (${select}) TO '${file}'`);
        out.bytes += fs.statSync(file).size;
        const t = performance.now();
        const c = process.cpuUsage();
        await db.query(`COPY ${raw} FROM '${file}'`);
        out.ms += performance.now() - t;
        const dc = process.cpuUsage(c);
        out.cpuMs += (dc.user + dc.system) / 1000;
        out.rows[table] = Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${raw}`))[0]!.n);
        fs.rmSync(file, { force: true });
      }
    } finally {
      await db.query(`DROP TABLE ${raw}`);
    }
  }
  return out;
}
