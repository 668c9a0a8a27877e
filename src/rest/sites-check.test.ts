// GET|POST /api/v1/sites/check over the real HTTP server: the answer and its bill, the free refusals, and
// who may call it (src/rest/sites-check.ts; the wider suite is test/rest-api.test.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test/support/harness.ts';
import { getUserToken } from '../../test/support/auth-flow.ts';
import { COVERED, OUTSIDE, accountIdOf, api, checkPath, corsHeaders, createKey, grant } from '../../test/rest-support.ts';

let svc: TestServer;
let key: string;
let accountId: string;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'] });
  const jwt = await getUserToken(svc.url, 'route-sites-check@example.com');
  accountId = await accountIdOf(svc.ctx, 'route-sites-check@example.com');
  key = (await createKey(svc.url, jwt, 'route test')).key;
});
after(async () => {
  await svc?.close();
});

test('happy: an answered snapshot costs one credit, by GET and by POST; an address outside coverage is free', async () => {
  await grant(svc.ctx, accountId, 2);
  const got = await api(svc.url, checkPath(COVERED), { token: key });
  assert.equal(got.status, 200, got.text);
  assert.equal(got.json.answered, true);
  assert.equal(got.headers.get('siteline-credits-charged'), '1');
  assert.equal(got.headers.get('siteline-credits-remaining'), '1');
  const posted = await api(svc.url, '/api/v1/sites/check', { token: key, body: { address: COVERED } });
  assert.equal(posted.status, 200, posted.text);
  assert.equal(posted.headers.get('siteline-credits-remaining'), '0');
  const outside = await api(svc.url, checkPath(OUTSIDE), { token: key });
  assert.equal(outside.status, 200);
  assert.equal(outside.json.answered, false);
  assert.equal(outside.headers.get('siteline-credits-charged'), '0');
});

test('error: no address, a body that is not JSON, and an empty balance are refused and charge nothing', async () => {
  const missing = await api(svc.url, '/api/v1/sites/check', { token: key });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.code, 'bad_request');
  assert.equal(missing.headers.get('siteline-credits-charged'), '0');
  const notJson = await api(svc.url, '/api/v1/sites/check', { token: key, body: '{ address', headers: { 'content-type': 'application/json' } });
  assert.equal(notJson.status, 400);
  const broke = await api(svc.url, checkPath(COVERED), { token: key, headers: { 'idempotency-key': 'route-test-1' } });
  assert.equal(broke.status, 402, broke.text);
  assert.equal(broke.json.code, 'out_of_credit');
  assert.equal(broke.headers.get('siteline-credits-charged'), '0');
});

test('security: no credential is a 401 that says how to authenticate; a preflight is refused with no CORS header', async () => {
  const anonymous = await api(svc.url, checkPath(COVERED));
  assert.equal(anonymous.status, 401);
  assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Bearer /);
  const preflight = await api(svc.url, '/api/v1/sites/check', {
    method: 'OPTIONS',
    headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
  });
  assert.equal(preflight.status, 405);
  assert.deepEqual(corsHeaders(preflight.headers), []);
  assert.deepEqual(corsHeaders(anonymous.headers), []);
});
