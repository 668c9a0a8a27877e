// GET /api/v1/coverage over the real HTTP server: the verdict, the refusals, and who may ask
// (src/rest/coverage.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test/support/harness.ts';
import { getUserToken } from '../../test/support/auth-flow.ts';
import { COVERED, api, corsHeaders, createKey } from '../../test/rest-support.ts';

let svc: TestServer;
let key: string;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'] });
  key = (await createKey(svc.url, await getUserToken(svc.url, 'route-coverage@example.com'), 'route test')).key;
});
after(async () => {
  await svc?.close();
});

test('happy: an address, a city and a point each get a verdict, free', async () => {
  const byAddress = await api(svc.url, `/api/v1/coverage?address=${encodeURIComponent(COVERED)}`, { token: key });
  assert.equal(byAddress.status, 200, byAddress.text);
  assert.equal(byAddress.json.coverage.status, 'live');
  assert.equal(byAddress.headers.get('siteline-credits-charged'), '0');
  const byCity = await api(svc.url, '/api/v1/coverage?city=Cambridge&region=MA', { token: key });
  assert.equal(byCity.status, 200, byCity.text);
  assert.equal(byCity.json.coverage.place.name, 'Cambridge');
  const byPoint = await api(svc.url, '/api/v1/coverage?lat=42.3736&lng=-71.1097', { token: key });
  assert.equal(byPoint.status, 200, byPoint.text);
  assert.equal(byPoint.json.coverage.status, 'live');
});

test('error: a point spelled latitude/longitude is refused by name; two forms at once are refused', async () => {
  const misspelt = await api(svc.url, '/api/v1/coverage?latitude=42.37&longitude=-71.11', { token: key });
  assert.equal(misspelt.status, 400);
  assert.deepEqual(misspelt.json.errors.map((e: { path: string }) => e.path).sort(), ['latitude', 'longitude']);
  assert.match(misspelt.json.detail, /"latitude" is spelled "lat"/);
  const both = await api(svc.url, `/api/v1/coverage?city=Cambridge&address=${encodeURIComponent(COVERED)}`, { token: key });
  assert.equal(both.status, 400);
  assert.equal(both.json.code, 'bad_request');
});

test('security: no credential is a 401; answers carry no CORS header', async () => {
  const anonymous = await api(svc.url, '/api/v1/coverage?city=Cambridge');
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.json.code, 'unauthorized');
  const answered = await api(svc.url, '/api/v1/coverage?city=Cambridge', { token: key, headers: { origin: 'https://elsewhere.example' } });
  assert.deepEqual(corsHeaders(answered.headers), []);
});
