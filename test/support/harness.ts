// Test databases and servers. PGlite in memory by default; with DATABASE_URL set, a throwaway
// PostgreSQL database per test (created here, dropped on close). Every test database, empty or
// preloaded with places, is cloned from a template built once and cached (PGlite: a data-dir
// tarball; PostgreSQL: a template database), keyed by a digest of the migrations, importer code,
// manifests and sources.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, dumpPglite, type Db } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { testLogger } from './log-capture.ts';
import { withMailer, type AppContext } from '../../src/context.ts';
import { systemClock, type Clock } from '../../src/clock.ts';
import { startService, type RunningService, type StartOptions } from '../../src/service.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const SHARED_DATA = path.resolve(ROOT, '../shared/data');
const CACHE_DIR = path.join(ROOT, '.siteline-test');

export interface TestDb {
  db: Db;
  close(): Promise<void>;
}

function adminUrl(): string | undefined {
  return process.env.DATABASE_URL || undefined;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const rand = () => crypto.randomBytes(6).toString('hex');

/**
 * An empty, migrated database: a clone of the template that holds no place. Every startTestServer
 * without places starts here; cloning costs well under half of migrating a fresh database.
 */
export async function createTestDb(): Promise<TestDb> {
  return createPlacesDb([]);
}

function digestOf(paths: string[], extra: string): string {
  const h = crypto.createHash('sha256').update(extra);
  const visit = (p: string) => {
    if (!fs.existsSync(p)) return;
    const st = fs.statSync(p);
    if (st.isDirectory()) {
      for (const e of fs.readdirSync(p).sort()) visit(path.join(p, e));
    } else if (!p.endsWith('.test.ts')) {
      h.update(p).update(fs.readFileSync(p));
    }
  };
  for (const p of paths) visit(p);
  return h.digest('hex').slice(0, 16);
}

async function withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const lock = path.join(CACHE_DIR, `${name}.lock`);
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch {
      // A stale lock (a killed run) is older than ten minutes.
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > 600_000) fs.rmSync(lock, { recursive: true, force: true });
      } catch {
        /* gone already */
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Tests on a public base URL (https://siteline.example) keep mail in the development outbox (the
 * explicit opt-in), unless the environment says otherwise; SMTP tests pass SITELINE_SMTP_URL in env.
 */
const OUTBOX_OPT_IN = { SITELINE_MAIL_OUTBOX: process.env.SITELINE_MAIL_OUTBOX ?? '1' };

function testCtx(db: Db, overrides: Partial<Config> = {}, clock: Clock = systemClock): AppContext {
  const config = loadConfig(
    { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', ...OUTBOX_OPT_IN },
    { sourceDir: SHARED_DATA, autoImport: false, ...overrides },
  );
  const base = { config, db, clock, logger: testLogger() };
  return withMailer(base);
}

/** A migrated database holding the named places, cloned from a cached template. */
export async function createPlacesDb(slugs: string[]): Promise<TestDb> {
  return (await clonePlacesTemplate(slugs)).testDb;
}

/**
 * Environment for a child process (the CLI, `npm start`) whose database holds the named places:
 * a PGlite data directory written from the template, or a cloned PostgreSQL database.
 */
export async function createPlacesEnv(slugs: string[]): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const clone = await clonePlacesTemplate(slugs, true);
  return clone.env!;
}

async function clonePlacesTemplate(
  slugs: string[],
  forChild = false,
): Promise<{ testDb: TestDb; env?: { env: Record<string, string>; close(): Promise<void> } }> {
  // Templates are named <code digest>_<places digest>: when the code changes, the templates an older
  // version left behind (100 MB tarballs, 30-40 MB databases on a shared server) are dropped as the
  // first new one is built.
  const codeKey = digestOf(
    [path.join(ROOT, 'src/db'), path.join(ROOT, 'src/importer'), path.join(ROOT, 'src/geocoder'), path.join(ROOT, 'src/core/geo'), path.join(ROOT, 'places')],
    adminUrl() ? 'pg' : 'pglite',
  );
  const key = `${codeKey}_${crypto
    .createHash('sha256')
    .update([...slugs].sort().join(','))
    .digest('hex')
    .slice(0, 8)}`;
  const build = async (db: Db) => {
    const { importPlace } = await import('../../src/importer/import-place.ts');
    const ctx = testCtx(db);
    for (const slug of slugs) await importPlace(ctx, slug, { sourceDir: SHARED_DATA, quiet: true });
  };
  const url = adminUrl();
  if (!url) {
    const file = path.join(CACHE_DIR, `pglite-${key}.tar`);
    if (!fs.existsSync(file)) {
      await withLock(`pglite-${key}`, async () => {
        if (fs.existsSync(file)) return;
        for (const f of fs.readdirSync(CACHE_DIR)) {
          if (/^pglite-[0-9a-f]{16}(_[0-9a-f]{8})?\.tar$/.test(f) && !f.startsWith(`pglite-${codeKey}_`)) fs.rmSync(path.join(CACHE_DIR, f), { force: true });
        }
        const db = await openDatabase({ pgliteDir: 'memory://' });
        await migrate(db);
        await build(db);
        const blob = await dumpPglite(db);
        await db.close();
        fs.writeFileSync(file + '.tmp', Buffer.from(await blob.arrayBuffer()));
        fs.renameSync(file + '.tmp', file);
      });
    }
    if (forChild) {
      const dataDir = fs.mkdtempSync(path.join(CACHE_DIR, 'child-'));
      const db = await openDatabase({ pgliteDir: path.join(dataDir, 'pgdata'), loadDataDir: await fs.openAsBlob(file) });
      await migrate(db);
      await db.close();
      const close = async () => fs.rmSync(dataDir, { recursive: true, force: true });
      return {
        testDb: { db, close },
        env: { env: { SITELINE_DATA_DIR: dataDir, DATABASE_URL: '', SITELINE_SOURCE_DIR: SHARED_DATA, SITELINE_AUTO_IMPORT: '0', LOG_LEVEL: 'warn' }, close },
      };
    }
    const db = await openDatabase({ pgliteDir: 'memory://', loadDataDir: await fs.openAsBlob(file) });
    await migrate(db);
    return { testDb: { db, close: () => db.close() } };
  }
  const template = `siteline_tpl_${key}`;
  await withLock(`pg-${key}`, async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (exists.rowCount) return;
      const stale = await client.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname ~ '^siteline_tpl_[0-9a-f]{16}(_[0-9a-f]{8})?$' AND datname NOT LIKE $1`,
        [`siteline_tpl_${codeKey}_%`],
      );
      for (const { datname } of stale.rows) await client.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => undefined); // in use by another checkout's run: left for later
      const building = `${template}_b${rand()}`;
      await client.query(`CREATE DATABASE ${building}`);
      const db = await openDatabase({ databaseUrl: withDatabase(url, building) });
      await migrate(db);
      await build(db);
      await db.close();
      await client.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    } finally {
      await client.end();
    }
  });
  const name = `siteline_t_${rand()}`;
  // Two test files cloning the same template at once can collide ("being accessed by other users"): retry.
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      break;
    } catch (err) {
      if (attempt >= 20 || !/being accessed by other users/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 250 + Math.random() * 500));
    }
  }
  const db = await openDatabase({ databaseUrl: withDatabase(url, name) });
  await migrate(db);
  const testDb: TestDb = {
    db,
    async close() {
      await db.close().catch(() => undefined);
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
  if (forChild) {
    await db.close();
    return {
      testDb,
      env: {
        env: { DATABASE_URL: withDatabase(url, name), SITELINE_SOURCE_DIR: SHARED_DATA, SITELINE_AUTO_IMPORT: '0', LOG_LEVEL: 'warn' },
        close: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      },
    };
  }
  return { testDb };
}

export interface TestServer extends RunningService {
  testDb: TestDb;
}

/** The real HTTP server on a random loopback port over a test database. */
export async function startTestServer(
  opts: { places?: string[]; clock?: Clock; config?: Partial<Config>; analysisWorkers?: StartOptions['analysisWorkers']; env?: Record<string, string> } = {},
): Promise<TestServer> {
  const testDb = opts.places?.length ? await createPlacesDb(opts.places) : await createTestDb();
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const config = loadConfig(
    { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent', ...OUTBOX_OPT_IN, ...opts.env },
    { port: 0, host: '127.0.0.1', sourceDir: SHARED_DATA, autoImport: false, dataDir: fs.mkdtempSync(path.join(CACHE_DIR, 'data-')), ...opts.config },
  );
  const svc = await startService(config, { db: testDb.db, clock: opts.clock, logger: testLogger(), analysisWorkers: opts.analysisWorkers });
  return {
    ...svc,
    testDb,
    async close() {
      await svc.close();
      await testDb.close();
      fs.rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

export { testCtx };
