// Starting and what the operator reads (issue 45), on the real `siteline` process:
// - a fresh database: each migration applied is one log line naming its file; a migration that fails
//   (here: one whose record was removed by hand, so its ALTER runs again) is one line naming the file,
//   exit 1, no stack trace;
// - a PostgreSQL server that cannot be reached: one line naming its host and DATABASE_URL, exit 5, no
//   stack trace, never the password;
// - request logs carry the client address, taken through the trusted proxies;
// - /metrics/ and //metrics are not metrics (a proxy rule for /metrics would miss them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { ROOT } from './support/harness.ts';
import { listening, startSiteline, stop } from './support/siteline-process.ts';
import { listMigrations } from '../src/db/migrate.ts';
import { openDatabase } from '../src/db/database.ts';

const adminUrl = process.env.DATABASE_URL || undefined;

/** An empty database of its own: a new PostgreSQL database when DATABASE_URL is set, else a new PGlite data directory. */
async function freshDatabase(work: string): Promise<{ env: Record<string, string>; open(): ReturnType<typeof openDatabase>; drop(): Promise<void> }> {
  if (!adminUrl) {
    const dir = path.join(work, 'data');
    return {
      env: { SITELINE_DATA_DIR: dir, DATABASE_URL: '' },
      open: () => openDatabase({ pgliteDir: path.join(dir, 'pgdata') }),
      drop: async () => undefined,
    };
  }
  const name = `siteline_t_ops_${crypto.randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return {
    env: { SITELINE_DATA_DIR: path.join(work, 'data'), DATABASE_URL: u.toString() },
    open: () => openDatabase({ databaseUrl: u.toString() }),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

test('a fresh database: each migration applied is logged by file; requests log the client address through trusted proxies; /metrics/ is not served; a failing migration is one line naming its file, exit 1', {
  timeout: 300_000,
}, async () => {
  const work = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'start-'));
  const fresh = await freshDatabase(work);
  const env = {
    ...(process.env as Record<string, string>),
    ...fresh.env,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    SITELINE_AUTO_IMPORT: '0',
    SITELINE_ANALYSIS_WORKERS: '0',
    SITELINE_PLACES_DIR: path.join(work, 'places'), // no place: nothing to import or warn about beyond the start
    SITELINE_TRUSTED_PROXIES: 'loopback',
  };
  fs.mkdirSync(env.SITELINE_PLACES_DIR, { recursive: true });
  try {
    const s = startSiteline(env, work);
    try {
      const url = await listening(s);
      const applied = s.lines.filter((l) => l.msg === `migration ${l.migration} applied`).map((l) => l.migration as string);
      assert.deepEqual(
        applied,
        listMigrations().map((m) => m.name),
        'one line per migration file, in order',
      );

      // The client address in the request log: the peer, or behind a trusted proxy the forwarded client.
      assert.equal((await get(`${url}/healthz`, { 'x-request-id': 'direct-1' })).status, 200);
      assert.equal((await get(`${url}/healthz`, { 'x-request-id': 'proxied-1', 'x-forwarded-for': '203.0.113.7, 127.0.0.1' })).status, 200);
      const direct = await s.waitFor((l) => l.msg === 'request' && l.requestId === 'direct-1', 'the direct request line');
      const proxied = await s.waitFor((l) => l.msg === 'request' && l.requestId === 'proxied-1', 'the proxied request line');
      assert.equal(direct.client, '127.0.0.1');
      assert.equal(proxied.client, '203.0.113.7', 'the right-most untrusted hop of X-Forwarded-For');

      // Metrics at /metrics only (loopback base URL, from this machine): the spellings a proxy rule can miss are 404.
      const metrics = await get(`${url}/metrics`);
      assert.equal(metrics.status, 200);
      assert.match(metrics.body, /# TYPE siteline_http_request_duration_seconds/);
      for (const p of ['/metrics/', '/metrics//', '//metrics', '/./metrics/'])
        assert.doesNotMatch((await get(`${url}${p}`)).body, /# TYPE siteline_/, `${p} is not metrics`);
      assert.equal((await get(`${url}/metrics/`)).status, 404);
    } finally {
      await stop(s);
    }

    // The record of 011 removed by hand: its ALTER TABLE runs again and fails (the column exists).
    const db = await fresh.open();
    try {
      await db.query(`DELETE FROM schema_migrations WHERE name = '011_place_name_keys.sql'`);
    } finally {
      await db.close();
    }
    const failing = startSiteline(env, work);
    const { code } = await failing.exited;
    const fatal = failing.lines.filter((l) => l.level >= 50);
    assert.equal(fatal.length, 1, `one line says why: ${JSON.stringify(failing.lines.slice(-3))}`);
    assert.equal(fatal[0]!.migration, '011_place_name_keys.sql');
    assert.match(String(fatal[0]!.msg), /migration 011_place_name_keys\.sql failed: .*name_keys.*already exists.*SQLSTATE 42701/);
    assert.equal(code, 1);
    assert.ok(!failing.lines.some((l) => l.msg === 'listening'), 'it does not listen');
  } finally {
    await fresh.drop();
    fs.rmSync(work, { recursive: true, force: true });
  }
});

test('a PostgreSQL server that cannot be reached at start: one log line naming its host and DATABASE_URL, exit 5, no stack trace, no password', {
  timeout: 120_000,
}, async () => {
  // A port nothing listens on: taken, then freed.
  const port = await new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: `postgres://siteline:hunter2-secret@127.0.0.1:${port}/siteline`, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  const lines = out.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, `one line: ${out}`);
  const line = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.equal(line.variable, 'DATABASE_URL');
  assert.equal(line.host, '127.0.0.1');
  assert.equal(line.port, port);
  assert.match(
    String(line.msg),
    new RegExp(`cannot connect to the PostgreSQL database "siteline" at 127\\.0\\.0\\.1:${port} \\(DATABASE_URL\\): ECONNREFUSED`),
  );
  assert.equal(err, '', 'nothing on stderr (no stack trace)');
  assert.doesNotMatch(out, /hunter2|\n\s+at /, 'no password, no stack');
  assert.equal(code, 5);
});
