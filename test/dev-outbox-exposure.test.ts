// The development outbox holds claim notices (e-mails, verification links): it is shown only to
// requests from this machine, never through a proxy, even on a loopback base URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from './support/harness.ts';

test('the dev outbox answers a local request and refuses a proxied one', async () => {
  const svc = await startTestServer();
  try {
    assert.equal((await fetch(`${svc.url}/dev/outbox`)).status, 200);
    const proxied = await fetch(`${svc.url}/dev/outbox`, { headers: { 'x-forwarded-for': '203.0.113.50' } });
    assert.equal(proxied.status, 404);
    assert.match(await proxied.text(), /requests from this machine/);
  } finally {
    await svc.close();
  }
});
