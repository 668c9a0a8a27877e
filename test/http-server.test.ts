import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from './support/harness.ts';
import { loadAllManifests, PLACES_DIR } from '../src/places/manifest.ts';

test('the real server answers /healthz (alive), /readyz, 404 and 405 with the error envelope', async () => {
  const svc = await startTestServer();
  try {
    // Alive, whatever the database holds: liveness never depends on data.
    const alive = await fetch(`${svc.url}/healthz`);
    assert.equal(alive.status, 200);
    assert.equal(((await alive.json()) as { status: string }).status, 'alive');
    // An empty database: up, but not ready (503) until the live place is imported (src/importer/default-places.test.ts).
    const ok = await fetch(`${svc.url}/readyz`);
    assert.equal(ok.status, 503);
    const body = (await ok.json()) as { status: string; reason: string; database: string; missing: string[] };
    assert.equal(body.status, 'unavailable');
    assert.equal(body.reason, 'places_missing');
    // Every live default place is missing (derived from the manifests: a new place does not break this test).
    assert.deepEqual(
      body.missing,
      loadAllManifests(PLACES_DIR)
        .filter((m) => m.status === 'live' && m.defaultImport)
        .map((m) => m.slug),
    );
    assert.ok(body.missing.includes('cambridge-ma'));
    assert.ok(['pglite', 'postgres'].includes(body.database));
    assert.ok(ok.headers.get('x-request-id'));

    const missing = await fetch(`${svc.url}/nope`);
    assert.equal(missing.status, 404);
    const err = (await missing.json()) as { error: { code: string; requestId: string } };
    assert.equal(err.error.code, 'not_found');
    assert.equal(err.error.requestId, missing.headers.get('x-request-id'));

    const wrong = await fetch(`${svc.url}/healthz`, { method: 'DELETE' });
    assert.equal(wrong.status, 405);
    assert.match(wrong.headers.get('allow') ?? '', /GET/);
  } finally {
    await svc.close();
  }
});
