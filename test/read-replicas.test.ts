// Reads from streaming replicas (issue 51, item 2; docs/scaling.md, "Read replicas"), against a real
// PostgreSQL primary and a real streaming replica that this test makes (test/support/pg-replica.ts:
// initdb, pg_basebackup -R, the machine's own binaries; no skip when they are missing). The service runs
// with DATABASE_URL on the primary and DATABASE_READ_URL on the replica and is asked through HTTP (the
// official MCP client, the tiles route). It shows: the lookup path reads from the replica, with answers
// byte-identical to the primary's; a re-import while the replica's replay is paused is answered from the
// previous import, consistently (the catalogue and the rows of the same replica), until the replica catches
// up; a replica stopped while requests are in flight is skipped, every request answered from the primary
// with the same bytes, and used again once it is back. Everything is torn down at the end.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { startPrimaryWithReplica, type PrimaryWithReplica } from './support/pg-replica.ts';
import { syntheticPlace } from './support/synthetic-place.ts';
import { connectClient } from './mcp-support.ts';
import { getUserToken } from './support/auth-flow.ts';
import { testLogger } from './support/log-capture.ts';
import { loadConfig } from '../src/config.ts';
import { openContext, withMailer, type AppContext } from '../src/context.ts';
import { systemClock } from '../src/clock.ts';
import { startService, type RunningService } from '../src/service.ts';
import { importPlace } from '../src/importer/import-place.ts';
import { getFeasibilitySnapshot } from '../src/snapshot/snapshot.ts';
import { previewSiteCoverage } from '../src/snapshot/preview.ts';
import { CATALOGUE_CACHE_TTL_MS, getPlace } from '../src/places/catalogue.ts';
import { canonicalJson } from '../src/core/canonical-json.ts';
import { RETRY_DOWN_MS } from '../src/db/read-replicas.ts';

const SLUG = 'synthetic-ma';
const PLACE_ID = 'US-MA:synthetic';
/** In the first import (4 streets) and the second (6 streets); "1 ROW 6 ST" only in the second. */
const ADDRESSES = ['1 ROW 1 ST, Synthetic, MA', '13 ROW 3 ST, Synthetic, MA', '1 ROW 6 ST, Synthetic, MA', '99 ROW 4 ST, Synthetic, MA'];

let pgs: PrimaryWithReplica;
let work: string;
let v1: ReturnType<typeof syntheticPlace>;
let v2: ReturnType<typeof syntheticPlace>;
/** The importer's context on the primary (another process, as an import worker is). */
let importer: AppContext;
let svc: RunningService;
let client: Client;

before(async () => {
  pgs = await startPrimaryWithReplica();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'siteline-replica-places-'));
  v1 = syntheticPlace(path.join(work, 'v1'), 4, SLUG);
  v2 = syntheticPlace(path.join(work, 'v2'), 6, SLUG);
  const primaryUrl = pgs.primary.url();
  importer = await openContext(
    loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: primaryUrl }, { placesDir: v1.placesDir, sourceDir: v1.sourceDir, autoImport: false }),
    { logger: testLogger() },
  );
  await importPlace(importer, SLUG, { sourceDir: v1.sourceDir, quiet: true });
  await pgs.caughtUp();
  const config = loadConfig(
    { LOG_LEVEL: 'silent', DATABASE_URL: primaryUrl, DATABASE_READ_URL: pgs.replica.url(), SITELINE_SNAPSHOT_CACHE: '0', SITELINE_MAIL_OUTBOX: '1' },
    { port: 0, host: '127.0.0.1', placesDir: v1.placesDir, sourceDir: v1.sourceDir, autoImport: false, dataDir: path.join(work, 'data') },
  );
  svc = await startService(config, { logger: testLogger(), analysisWorkers: { concurrency: 0 } });
  client = await connectClient(svc.url, 'modern', await getUserToken(svc.url, 'replica-reader@example.com'));
});

after(async () => {
  await client?.close().catch(() => undefined);
  await svc?.close().catch(() => undefined);
  await importer?.db.close().catch(() => undefined);
  pgs?.destroy();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const withoutTime = (v: unknown): string => {
  const s = structuredClone(v) as Record<string, unknown>;
  delete s['generatedAt'];
  return canonicalJson(s);
};

/** What the service answers over MCP: the snapshot and the preview of each address, and the place's inventory. */
async function served(): Promise<string[]> {
  const out: string[] = [];
  for (const address of ADDRESSES) {
    const snap = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address, source: 'full' } })) as {
      structuredContent?: Record<string, unknown>;
    };
    const preview = (await client.callTool({ name: 'previewSiteCoverage', arguments: { address } })) as { structuredContent?: Record<string, unknown> };
    assert.ok(snap.structuredContent && preview.structuredContent, address);
    out.push(withoutTime(snap.structuredContent), withoutTime(preview.structuredContent));
  }
  return out;
}

/** The same answers computed on the primary directly (the truth at the primary's import), in a context of its own (no cache from before). */
async function onPrimary(): Promise<string[]> {
  const ctx = withMailer({ config: { ...importer.config, hotIndex: false }, db: importer.db, clock: systemClock, logger: testLogger() });
  const out: string[] = [];
  for (const address of ADDRESSES) out.push(withoutTime(await getFeasibilitySnapshot(ctx, address)), withoutTime(await previewSiteCoverage(ctx, address)));
  return out;
}

/** The import version the service's inventory of the place says it answers from. */
async function servedImportedAt(): Promise<string> {
  const r = (await client.callTool({ name: 'cityInventory', arguments: { geoDivisionId: PLACE_ID } })) as {
    structuredContent?: { place?: { importedAt?: string } };
  };
  return r.structuredContent!.place!.importedAt!;
}

const reads = () => svc.ctx.reads!.stats();

/** The tile over the synthetic place at zoom 16. */
function tilePath(): string {
  const z = 16;
  const lon = -71.499;
  const lat = 42.5005;
  const n = 2 ** z;
  const x = Math.floor(((lon + 180) / 360) * n);
  const r = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
  return `/tiles/${z}/${x}/${y}.pbf`;
}

let firstImport: { importedAt: string; answers: string[] };

test("the lookup path reads from the replica; the answers are the primary's, byte for byte", async () => {
  svc.ctx.reads!.resetStats();
  const answers = await served();
  assert.deepEqual(answers, await onPrimary(), 'the same bytes as the primary computes');
  const importedAt = await servedImportedAt();
  assert.equal(importedAt, (await getPlace(importer, PLACE_ID))!.importedAt);
  const tile = await fetch(`${svc.url}${tilePath()}`);
  assert.equal(tile.status, 200, 'a tile over the place');
  assert.ok((await tile.arrayBuffer()).byteLength > 0);
  const s = reads();
  // 4 snapshots + 4 previews + 1 inventory + 1 tile, each one operation on the replica
  assert.equal(s.replicas[0]!.reads, 2 * ADDRESSES.length + 2, JSON.stringify(s));
  assert.equal(s.primaryReads, 0);
  assert.equal(s.replicas[0]!.failures, 0);
  firstImport = { importedAt, answers };
  assert.match(answers[4]!, /"lotFound":false|"status":"geocode_failed"/, 'ROW 6 is not in the first import');
});

test('a re-import while the replica lags: the previous import, whole, until the replica catches up', async () => {
  await pgs.pauseReplay();
  const reimport = await openContext(
    loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: pgs.primary.url() }, { placesDir: v2.placesDir, sourceDir: v2.sourceDir, autoImport: false }),
    {
      logger: testLogger(),
      db: importer.db,
    },
  );
  await importPlace(reimport, SLUG, { sourceDir: v2.sourceDir, quiet: true });
  const second = (await getPlace(importer, PLACE_ID))!.importedAt!;
  assert.notEqual(second, firstImport.importedAt, 'the primary holds the second import');
  const primaryNow = await onPrimary();
  assert.notDeepEqual(primaryNow, firstImport.answers, 'the second import answers differently (ROW 6 exists)');
  // past the catalogue's 5 s cache: whatever the service answers now is read afresh from the replica
  await new Promise((r) => setTimeout(r, 5_500));
  for (let round = 0; round < 2; round++) {
    assert.deepEqual(await served(), firstImport.answers, `round ${round}: every answer is the first import's, byte for byte`);
    assert.equal(await servedImportedAt(), firstImport.importedAt, "the catalogue the answers came with is the first import's");
  }
  await pgs.resumeReplay();
  await pgs.caughtUp();
  // the replica now holds the second import; the service sees it once its catalogue caches turn over (the
  // name lookups' 5 s, then the place candidates' 5 s computed from them: CATALOGUE_CACHE_TTL_MS twice)
  await new Promise((r) => setTimeout(r, 2 * CATALOGUE_CACHE_TTL_MS + 500));
  assert.equal(await servedImportedAt(), second);
  assert.deepEqual(await served(), primaryNow, 'caught up: the second import, byte for byte');
  assert.equal(reads().primaryReads, 0, 'all of it from the replica');
});

test('a replica stopped while requests are in flight is skipped: the primary answers them, the same bytes; it is used again once back', async () => {
  const truth = await onPrimary();
  svc.ctx.reads!.resetStats();
  const ask = async (address: string) => {
    const r = (await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address, source: 'full' } })) as {
      structuredContent?: Record<string, unknown>;
    };
    return withoutTime(r.structuredContent);
  };
  const want = new Map(ADDRESSES.map((a, i) => [a, truth[2 * i]!]));
  // Requests keep going while the replica crashes under them, until the service has noticed (an answer whose
  // reads are all cached, the catalogue's 5 s and the hot index, touches no database) and a few rounds more.
  let crashed = false;
  const deadline = Date.now() + 60_000;
  const load = (async () => {
    let after = 0;
    let n = 0;
    while (!crashed || after < 3) {
      const noticed = crashed && reads().primaryReads > 0;
      await Promise.all(ADDRESSES.map(async (a) => assert.equal(await ask(a), want.get(a), `${a}: the same answer whoever served it`)));
      n++;
      if (noticed) after++;
      assert.ok(Date.now() < deadline, `the replica's crash was not noticed within a minute: ${JSON.stringify(reads())}`);
    }
    return n;
  })();
  await new Promise((r) => setTimeout(r, 300));
  await pgs.replica.crash();
  crashed = true;
  assert.ok((await load) >= 4);
  const s = reads();
  assert.ok(s.replicas[0]!.failures >= 1, `the replica's failure was seen: ${JSON.stringify(s)}`);
  assert.ok(s.primaryReads >= ADDRESSES.length, `the primary answered while the replica was down: ${JSON.stringify(s)}`);
  assert.deepEqual(await served(), truth, 'every lookup answered by the primary, the same bytes');
  // back: after RETRY_DOWN_MS the replica is tried again and serves
  pgs.replica.start();
  await pgs.caughtUp();
  await new Promise((r) => setTimeout(r, RETRY_DOWN_MS + 200));
  svc.ctx.reads!.resetStats();
  assert.deepEqual(await served(), truth);
  const back = reads();
  assert.equal(back.replicas[0]!.reads, 2 * ADDRESSES.length, `the replica serves again: ${JSON.stringify(back)}`);
  assert.equal(back.primaryReads, 0);
  // on /metrics (loopback base URL: this machine may read it without a token)
  const metrics = await (await fetch(`${svc.url}/metrics`)).text();
  assert.match(metrics, /^siteline_read_operations_total\{target="replica 1"\} [1-9]/m);
  assert.match(metrics, /^siteline_read_replica_up\{replica="replica 1"\} 1$/m);
  assert.ok(!metrics.includes(pgs.replica.url()), 'never the replica URL');
});
