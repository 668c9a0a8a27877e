// /api/v1/keys and /api/v1/keys/:id over the real HTTP server: create, list and revoke with a user
// token; the refusals; a key cannot manage keys and one account cannot touch another's (src/rest/keys.ts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test/support/harness.ts';
import { getUserToken } from '../../test/support/auth-flow.ts';
import { api, checkPath, OUTSIDE } from '../../test/rest-support.ts';

let svc: TestServer;
let jwtA: string;
let jwtB: string;

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'] });
  jwtA = await getUserToken(svc.url, 'route-keys-a@example.com');
  jwtB = await getUserToken(svc.url, 'route-keys-b@example.com');
});
after(async () => {
  await svc?.close();
});

test('happy: a key is created (shown once, with its location), listed without the key, and revoked at once', async () => {
  const created = await api(svc.url, '/api/v1/keys', { token: jwtA, body: { name: 'ci' } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers.get('location'), `/api/v1/keys/${created.json.id}`);
  const list = await api(svc.url, '/api/v1/keys', { token: jwtA });
  assert.ok(list.json.keys.some((k: { id: string }) => k.id === created.json.id));
  assert.ok(!list.text.includes(created.json.key));
  assert.equal((await api(svc.url, checkPath(OUTSIDE), { token: created.json.key })).status, 200);
  assert.equal((await api(svc.url, `/api/v1/keys/${created.json.id}`, { token: jwtA, method: 'DELETE' })).status, 204);
  assert.equal((await api(svc.url, checkPath(OUTSIDE), { token: created.json.key })).status, 401);
});

test('error: an empty name, a body that is not JSON and an unknown id are refused', async () => {
  assert.equal((await api(svc.url, '/api/v1/keys', { token: jwtA, body: { name: '' } })).status, 400);
  const plain = await api(svc.url, '/api/v1/keys', { token: jwtA, body: 'name=x', headers: { 'content-type': 'text/plain' } });
  assert.equal(plain.status, 415);
  assert.equal((await api(svc.url, '/api/v1/keys/key_unknown', { token: jwtA, method: 'DELETE' })).status, 404);
});

test("security: a key cannot manage keys; one account cannot revoke another's key", async () => {
  const a = await api(svc.url, '/api/v1/keys', { token: jwtA, body: { name: 'mine' } });
  assert.equal((await api(svc.url, '/api/v1/keys', { token: a.json.key })).status, 403);
  assert.equal((await api(svc.url, '/api/v1/keys', { token: a.json.key, body: { name: 'child' } })).status, 403);
  const foreign = await api(svc.url, `/api/v1/keys/${a.json.id}`, { token: jwtB, method: 'DELETE' });
  assert.equal(foreign.status, 404, "another account's key is not there for B");
  assert.equal((await api(svc.url, checkPath(OUTSIDE), { token: a.json.key })).status, 200, "A's key still works");
});
