// GET /api/v1/usage over the real HTTP server: the caller's own balance and ledger, the refusals, and
// that one account never sees another's (src/rest/usage.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test/support/harness.ts';
import { getUserToken } from '../../test/support/auth-flow.ts';
import { accountIdOf, api, createKey, grant } from '../../test/rest-support.ts';

let svc: TestServer;
let keyA: string;
let keyB: string;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'] });
  keyA = (await createKey(svc.url, await getUserToken(svc.url, 'route-usage-a@example.com'), 'a')).key;
  keyB = (await createKey(svc.url, await getUserToken(svc.url, 'route-usage-b@example.com'), 'b')).key;
  await grant(svc.ctx, await accountIdOf(svc.ctx, 'route-usage-a@example.com'), 7);
});
after(async () => {
  await svc?.close();
});

test('happy: the balance and the grant on the ledger, with how to buy more', async () => {
  const r = await api(svc.url, '/api/v1/usage', { token: keyA });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.balance, 7);
  assert.equal(r.headers.get('siteline-credits-remaining'), '7');
  assert.equal(typeof r.json.purchasing.how, 'string');
  assert.equal(r.json.reportExports.meter, 'records.exports');
});

test('error: another method is a 405 that names the allowed one', async () => {
  const r = await api(svc.url, '/api/v1/usage', { token: keyA, method: 'DELETE' });
  assert.equal(r.status, 405);
  assert.equal(r.headers.get('allow'), 'GET');
});

test('security: an account sees its own usage only; no credential is a 401', async () => {
  const b = await api(svc.url, '/api/v1/usage', { token: keyB });
  assert.equal(b.status, 200, b.text);
  assert.equal(b.json.balance, 0, "B does not see A's grant");
  assert.equal((await api(svc.url, '/api/v1/usage')).status, 401);
});
