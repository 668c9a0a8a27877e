// `npm start` as the README runs it: prestart compiles src/ to dist/ when stale, then the compiled
// JavaScript serves: migrations (SQL beside the code), page assets, the MCP guide (docs/), MCP tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPlacesEnv, ROOT } from './support/harness.ts';
import { bboxOf, offsetM, type MultiPolygonCoords, type Position } from '../src/core/geo/primitives.ts';
import { modernRequest, postRpc } from './mcp-support.ts';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

test('npm start builds dist/ when stale and runs the compiled service; a second build with nothing changed is skipped', { timeout: 600_000 }, async () => {
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  assert.ok(fs.existsSync(path.join(ROOT, 'dist/main.js')), 'dist/main.js built');
  assert.ok(fs.existsSync(path.join(ROOT, 'dist/db/migrations/001_core.sql')), 'the migrations are copied beside the compiled code');
  const again = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(again.status, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /compiling/, 'nothing changed: no second build');

  const dbEnv = await createPlacesEnv([]);
  const child = spawn(npm, ['start', '--silent'], {
    cwd: ROOT,
    env: { ...process.env, ...dbEnv.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', SITELINE_ANALYSIS_WORKERS: '0', SITELINE_PRESTOP_MS: '200' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: npm runs the service as a child, and the whole group is stopped at the end.
    detached: true,
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  // Closed once every process of the group that holds it (npm and the service it runs) has exited.
  const outputClosed = new Promise<void>((r) => child.stdout.once('close', () => r()));
  try {
    const line = await new Promise<Record<string, any>>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no listening line: ${err.slice(-2000)}`)), 300_000);
      child.stdout.on('data', (d) => {
        out += d;
        for (const l of out.split('\n')) {
          try {
            const j = JSON.parse(l);
            if (j.msg === 'listening') {
              clearTimeout(t);
              resolve(j);
            }
          } catch {
            /* a partial line */
          }
        }
      });
      void exited.then((code) => reject(new Error(`npm start exited (${code}): ${err.slice(-2000)}`)));
    });
    assert.equal(line.build, 'dist', 'the compiled JavaScript runs, not the TypeScript source');
    const url = line.url as string;
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    const ready = await fetch(`${url}/readyz`);
    assert.equal(((await ready.json()) as { database: string }).database, dbEnv.env.DATABASE_URL ? 'postgres' : 'pglite');
    const asset = await fetch(`${url}/assets/site-map.js`);
    assert.equal(asset.status, 200, 'page assets are found beside the compiled code');
    assert.ok((await asset.text()).length > 100);
    const guide = await postRpc(url, modernRequest('tools/call', { name: 'getServiceMcpGuide', arguments: {} }));
    assert.equal(guide.status, 200, guide.raw);
    assert.ok(guide.message?.result?.content?.[0]?.text?.length > 100, 'the guide (docs/mcp.md) is read from the compiled code');
    // SIGTERM to the npm process alone (an operator's `kill <pid>`, systemd's main process): the service
    // itself stops, exit 0, and nothing of the group keeps the output open (npm's shell used to die of
    // the signal and leave node serving, its port taken).
    child.kill('SIGTERM');
    const closed = await Promise.race([outputClosed.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 30_000).unref())]);
    assert.ok(closed, `the service still runs 30 s after SIGTERM to npm start:\n${out.slice(-1500)}`);
    assert.equal(await exited, 0, 'npm start exits 0 once the service stopped');
    assert.match(out, /"msg":"stopped"/, 'the service stopped itself');
    assert.equal(
      await fetch(`${url}/healthz`).then(
        () => 'answered',
        (e: Error) => (e.cause as NodeJS.ErrnoException | undefined)?.code ?? e.message,
      ),
      'ECONNREFUSED',
      'nothing listens on its port',
    );
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL'); // whatever is left of the group
    } catch {
      /* already gone */
    }
    await exited;
    await outputClosed;
    await dbEnv.close();
  }
});

test('the compiled importer (dist/) derives the same lot facts on its worker thread as on its own thread, over the copied migrations', {
  timeout: 300_000,
}, async () => {
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), '--if-stale'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  // Every module from dist/ (one copy of each class): the database, its migrations (the copied SQL), the importer.
  const fromDist = async <T>(file: string) => (await import(pathToFileURL(path.join(ROOT, 'dist', file)).href)) as T;
  const compiled = await fromDist<typeof import('../src/importer/load-lots.ts')>('importer/load-lots.js');
  const { openDatabase } = await fromDist<typeof import('../src/db/database.ts')>('db/database.js');
  const { migrate } = await fromDist<typeof import('../src/db/migrate.ts')>('db/migrate.js');
  const origin: Position = [-71.1, 42.37];
  const rect = (x: number, y: number, w: number, h: number): MultiPolygonCoords => {
    const [a, b, c, d] = [offsetM(origin, x, y), offsetM(origin, x + w, y), offsetM(origin, x + w, y + h), offsetM(origin, x, y + h)];
    return [[[a, b, c, d, a]]];
  };
  const lots = Array.from({ length: 6 }, (_, i) => {
    const geom = rect(i * 20, 10, 20, 30);
    const inside = offsetM(origin, i * 20 + 10, 25);
    return { parcelExtId: `L-${i}`, geom, bbox: bboxOf(geom), insideLon: inside[0], insideLat: inside[1], areaM2: 600, source: 't', vintage: 't' };
  });
  const zones = [
    { zoneId: 'z1', layer: 'base', code: 'R-1', name: 'Residence', geom: rect(-10, 0, 70, 60) },
    { zoneId: 'z2', layer: 'base', code: 'C-1', name: 'Business', geom: rect(60, 0, 200, 60) },
  ];
  const streets = [{ streetKey: 'SOUTH ST', geom: [offsetM(origin, -10, 5), offsetM(origin, 200, 5)] }];
  const db = await openDatabase({ pgliteDir: 'memory://' });
  const t = { db, close: () => db.close() };
  try {
    await migrate(db);
    const onThread = await compiled.insertLotsWithFacts(t.db, 'T:thread', { parcels: lots, zones, streets }, lots, { batchSize: 4, deriveIn: 'thread' });
    const onWorker = await compiled.insertLotsWithFacts(t.db, 'T:worker', { parcels: lots, zones, streets }, lots, { batchSize: 4, deriveIn: 'worker' });
    assert.equal(onWorker.parcels, 6);
    assert.deepEqual({ ...onWorker, derive: { ...onWorker.derive, ms: 0 } }, { ...onThread, derive: { ...onThread.derive, ms: 0 } });
    const rows = (placeId: string) =>
      t.db.query(`SELECT parcel_ext_id, facts::text AS facts, zones::text AS zones FROM parcels WHERE place_id = $1 ORDER BY parcel_ext_id`, [placeId]);
    assert.deepEqual(await rows('T:worker'), await rows('T:thread'));
  } finally {
    await t.close();
  }
});
