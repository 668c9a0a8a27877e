// One migration set for both backends: numbered .sql files applied in order, each once, at start.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Db } from './database.ts';
import { movePlacesOutOfDefault } from './place-partitions.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export function listMigrations(dir = MIGRATIONS_DIR): { name: string; sql: string }[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ name, sql: fs.readFileSync(path.join(dir, name), 'utf8') }));
}

/** A migration that failed: names its file; nothing of it was applied (its transaction rolled back). */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(
      `migration ${file} failed: ${cause instanceof Error ? cause.message : String(cause)}; nothing of it was applied (its transaction rolled back), and the migrations after it were not run`,
    );
  }
}

/** Where migrate() says what it applied (the service's logger); silent when absent (tests, templates). */
export interface MigrationLog {
  info(fields: Record<string, unknown>, msg: string): void;
}

export interface MigrateOptions {
  /** Apply only the migrations named before this one (a test makes a database as an earlier version left it). */
  before?: string;
}

export async function migrate(db: Db, log?: MigrationLog, opts: MigrateOptions = {}): Promise<string[]> {
  // Under the same lock as the migrations: two instances' CREATE TABLE IF NOT EXISTS at once on a fresh
  // PostgreSQL database collide in the catalogue (duplicate pg_type row), and one would fail to start.
  await db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(746395)');
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  });
  const applied: string[] = [];
  for (const m of listMigrations().filter((x) => opts.before === undefined || x.name < opts.before)) {
    const started = performance.now();
    let done: boolean;
    try {
      done = await db.transaction(async (tx) => {
        // Several app instances may start at once on PostgreSQL: one applies, the others wait and skip.
        if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock(746395)');
        const seen = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [m.name]);
        if (seen.length > 0) return false;
        for (const stmt of splitStatements(m.sql)) await tx.query(stmt);
        await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [m.name]);
        return true;
      });
    } catch (err) {
      throw new MigrationError(m.name, err);
    }
    if (done) {
      applied.push(m.name);
      log?.info({ migration: m.name, ms: Math.round(performance.now() - started) }, `migration ${m.name} applied`);
    }
  }
  // The rows of places without a partition (a database from before migration 250, whose tables became
  // their default partitions) move into partitions; a few quick reads when there are none.
  if (opts.before !== undefined) return applied;
  const started = performance.now();
  const moved = await movePlacesOutOfDefault(db);
  if (moved.length) log?.info({ places: moved.length, ms: Math.round(performance.now() - started) }, `${moved.length} place(s) moved into partitions`);
  return applied;
}

/** Splits a migration on semicolons at line ends; migrations keep one statement per `;\n`. */
function splitStatements(sql: string): string[] {
  return sql
    .replace(/--[^\n]*\n/g, '\n')
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter(Boolean);
}
