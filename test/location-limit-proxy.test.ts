// The LOCATION limit counts each client behind a reverse proxy separately (X-Forwarded-For from a
// loopback/private peer), and a client cannot escape it by sending its own X-Forwarded-For.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from './support/harness.ts';

test('behind a proxy, one client exhausting the LOCATION limit does not block another', async () => {
  const svc = await startTestServer();
  try {
    const probe = (xff?: string) =>
      fetch(`${svc.url}/api/geo/coverage-status?city=Cambridge&region=MA`, { headers: xff ? { 'x-forwarded-for': xff } : {} });
    for (let i = 0; i < 30; i++) assert.equal((await probe('198.51.100.7')).status, 200);
    const limited = await probe('198.51.100.7');
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal((await probe('198.51.100.8')).status, 200, 'another client behind the same proxy has its own budget');
    // A chain: only the hop the proxy added counts (the client-supplied first hop is ignored).
    assert.equal((await probe('10.9.9.9, 198.51.100.7')).status, 429);
  } finally {
    await svc.close();
  }
});
