// Two instances starting together on a fresh PostgreSQL database (issue 13): both start and answer,
// the migrations are applied once, exactly one active signing key exists (both publish it), and the
// default place is imported once. Two real `siteline` processes (src/main.ts); one small place
// (Paradise, TX) through SITELINE_PLACES_DIR. PostgreSQL only: PGlite serves one process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ROOT, SHARED_DATA } from '../support/harness.ts';
import { listening, placesLoaded, startSiteline, stop } from '../support/siteline-process.ts';
import { listMigrations } from '../../src/db/migrate.ts';

const adminUrl = process.env.DATABASE_URL;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

test('two instances start together on a fresh PostgreSQL database: both answer, one signing key, migrations and the place applied once', { skip: !adminUrl && 'PostgreSQL only' }, async () => {
  const name = `siteline_t_two_${crypto.randomBytes(5).toString('hex')}`;
  const dbUrl = new URL(adminUrl!);
  dbUrl.pathname = `/${name}`;
  const work = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'two-'));
  fs.cpSync(path.join(ROOT, 'places', 'paradise-tx'), path.join(work, 'places', 'paradise-tx'), { recursive: true });
  await admin(`CREATE DATABASE ${name}`);
  const envOf = (n: number): Record<string, string> => ({
    ...(process.env as Record<string, string>),
    DATABASE_URL: dbUrl.toString(),
    HOST: '127.0.0.1',
    PORT: '0',
    SITELINE_DATA_DIR: path.join(work, `data-${n}`),
    SITELINE_PLACES_DIR: path.join(work, 'places'),
    SITELINE_SOURCE_DIR: SHARED_DATA,
    SITELINE_AUTO_IMPORT: '1',
    SITELINE_ANALYSIS_WORKERS: '0',
    LOG_LEVEL: 'info',
  });
  const instances = [startSiteline(envOf(1), work), startSiteline(envOf(2), work)];
  try {
    const urls = await Promise.all(instances.map((s) => listening(s)));
    await Promise.all(instances.map((s) => placesLoaded(s)));
    const kids: string[][] = [];
    for (const url of urls) {
      const health = await fetch(`${url}/healthz`);
      assert.equal(health.status, 200, await health.clone().text());
      const jwks = (await (await fetch(`${url}/api/auth/jwks`)).json()) as { keys: Array<{ kid: string }> };
      kids.push(jwks.keys.map((k) => k.kid));
    }
    assert.equal(kids[0]!.length, 1, `one published key: ${JSON.stringify(kids)}`);
    assert.deepEqual(kids[0], kids[1], 'both instances publish the same key');

    const client = new pg.Client({ connectionString: dbUrl.toString() });
    await client.connect();
    try {
      const active = await client.query('SELECT kid FROM auth_signing_keys WHERE retired_at IS NULL');
      assert.equal(active.rowCount, 1, 'exactly one active signing key');
      const migrations = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      assert.equal(migrations.rows[0]!.n, listMigrations().length);
      const runs = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM import_runs r JOIN places p USING (place_id) WHERE p.slug = 'paradise-tx' AND r.changed`);
      assert.equal(runs.rows[0]!.n, 1, 'the place was imported once');
    } finally {
      await client.end();
    }
  } finally {
    await Promise.all(instances.map((s) => stop(s)));
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    fs.rmSync(work, { recursive: true, force: true });
  }
});
