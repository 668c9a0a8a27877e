// `npm start` on an empty database imports the default places first; with no source directory the
// service still starts and the live place is honestly live_unavailable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDb, SHARED_DATA, ROOT } from '../../test/support/harness.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { startService } from '../service.ts';
import { listPlaces } from '../places/catalogue.ts';
import { ensureDefaultPlaces } from './default-places.ts';

function config(sourceDir: string | undefined, dataDir: string) {
  return loadConfig({ ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' }, { port: 0, host: '127.0.0.1', sourceDir, autoImport: true, dataDir });
}

test('start on an empty database imports every default place, once', async () => {
  const t = await createTestDb();
  const dataDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test-start-'));
  try {
    const svc = await startService(config(SHARED_DATA, dataDir), { db: t.db, logger: createLogger('silent') });
    try {
      const places = await listPlaces(svc.ctx);
      assert.deepEqual(
        places.map((p) => [p.slug, p.status, p.importedAt !== null]),
        [
          ['saanich-bc', 'planned_not_live', true],
          ['chicago-il', 'planned_not_live', true],
          ['cambridge-ma', 'live', true],
          ['paradise-tx', 'planned_not_live', true],
        ],
      );
      const res = await fetch(`${svc.url}/healthz`).catch(() => null);
      assert.ok(res === null || res.status < 500, 'server answers');
      // Places are imported already: a second start imports nothing.
      assert.deepEqual(await ensureDefaultPlaces(svc.ctx), []);
    } finally {
      await svc.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await t.close();
  }
});

test('start without source data: the catalogue is there, Cambridge is live_unavailable, nothing crashes', async () => {
  const t = await createTestDb();
  const dataDir = fs.mkdtempSync(path.join(ROOT, '.siteline-test-start-'));
  try {
    const svc = await startService(config(path.join(dataDir, 'no-such-dir'), dataDir), { db: t.db, logger: createLogger('silent') });
    try {
      const places = await listPlaces(svc.ctx);
      assert.equal(places.length, 4);
      assert.equal(places.find((p) => p.slug === 'cambridge-ma')?.status, 'live_unavailable');
      assert.ok(places.every((p) => p.importedAt === null));
    } finally {
      await svc.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await t.close();
  }
});
