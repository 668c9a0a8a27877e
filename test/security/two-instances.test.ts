// Two instances starting together on a fresh PostgreSQL database (issue 13): both start and answer,
// the migrations are applied once, exactly one active signing key exists (both publish it), and the
// default places are imported once and audited once (issue 45: both used to run the same first-start
// audit). Two real `siteline` processes (src/main.ts); one small place (Paradise, TX) and a generated
// one with 1,000 address points (its audit takes seconds) through SITELINE_PLACES_DIR. PostgreSQL
// only: PGlite serves one process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ROOT, SHARED_DATA } from '../support/harness.ts';
import { listening, placesLoaded, startSiteline, stop } from '../support/siteline-process.ts';
import { listMigrations } from '../../src/db/migrate.ts';
import { syntheticPlace } from '../support/synthetic-place.ts';

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

test('two instances start together on a fresh PostgreSQL database: both answer, one signing key, migrations and the place applied once', {
  skip: !adminUrl && 'PostgreSQL only',
}, async () => {
  const name = `siteline_t_two_${crypto.randomBytes(5).toString('hex')}`;
  const dbUrl = new URL(adminUrl!);
  dbUrl.pathname = `/${name}`;
  const work = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'two-'));
  fs.cpSync(path.join(ROOT, 'places', 'paradise-tx'), path.join(work, 'places', 'paradise-tx'), { recursive: true });
  const synthetic = syntheticPlace(work, 20); // work/places/synthetic-ma, work/data/synthetic-ma
  const paradiseFolder = (JSON.parse(fs.readFileSync(path.join(work, 'places', 'paradise-tx', 'manifest.json'), 'utf8')) as { sourceFolder: string })
    .sourceFolder;
  fs.symlinkSync(path.join(SHARED_DATA, paradiseFolder), path.join(synthetic.sourceDir, paradiseFolder));
  await admin(`CREATE DATABASE ${name}`);
  const envOf = (n: number): Record<string, string> => ({
    ...(process.env as Record<string, string>),
    DATABASE_URL: dbUrl.toString(),
    HOST: '127.0.0.1',
    PORT: '0',
    SITELINE_DATA_DIR: path.join(work, `data-${n}`),
    SITELINE_PLACES_DIR: path.join(work, 'places'),
    SITELINE_SOURCE_DIR: synthetic.sourceDir,
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
      const runs = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM import_runs r JOIN places p USING (place_id) WHERE p.slug = 'paradise-tx' AND r.changed`,
      );
      assert.equal(runs.rows[0]!.n, 1, 'the place was imported once');
      // Both instances finish the start's import of the generated place (one imports it, the other finds
      // it unchanged); one audits it, the other sees the claim and leaves it.
      const audited = await Promise.any(
        instances.map((s) => s.waitFor((l) => /^synthetic-ma: audit: /.test(String(l.msg)), 'the audit of the generated place', 180_000)),
      );
      assert.match(String(audited.msg), /of 1,000 addresses/);
      await new Promise((r) => setTimeout(r, 1000)); // a second audit, were one running, would be well under way
      const audits = instances.map((s) => s.lines.filter((l) => /^synthetic-ma: audit: /.test(String(l.msg))).length);
      const skipped = instances.map((s) => s.lines.filter((l) => l.place === 'synthetic-ma' && /another instance is auditing/.test(String(l.msg))).length);
      console.log(`# audits of the generated place per instance: ${audits.join(', ')}; skipped for another's claim: ${skipped.join(', ')}`);
      assert.equal(audits[0]! + audits[1]!, 1, 'one instance audited the place');
      const stored = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM place_audits WHERE place_id = $1`, [synthetic.placeId]);
      assert.equal(stored.rows[0]!.n, 1);
      const claims = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM background_claims`);
      assert.equal(claims.rows[0]!.n, 0, 'the claim is given up once the audit is done');
    } finally {
      await client.end();
    }
  } finally {
    await Promise.all(instances.map((s) => stop(s)));
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    fs.rmSync(work, { recursive: true, force: true });
  }
});
