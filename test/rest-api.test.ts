// /api/v1 over the real HTTP server (PGlite): tokens, keys, the priced unit, idempotency, free
// lookups, problems, CORS off, and the MCP endpoint refusing keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './support/harness.ts';
import { getPublicToken, getUserToken } from './support/auth-flow.ts';
import { connectClient, modernRequest, postRpc } from './mcp-support.ts';
import { ledgerSum, creditBalance } from '../src/billing/credit-ledger.ts';
import { API_RATE_LIMIT } from '../src/rest/kit.ts';
import { COVERED, COVERED_2, OUTSIDE, accountIdOf, api, checkPath, corsHeaders, createKey, grant } from './rest-support.ts';

let svc: TestServer;
let jwt: string;
let accountId: string;
const EMAIL = 'rest-owner@example.com';

before(async () => {
  svc = await startTestServer({ places: ['cambridge-ma'] });
  jwt = await getUserToken(svc.url, EMAIL);
  accountId = await accountIdOf(svc.ctx, EMAIL);
});
after(async () => {
  await svc?.close();
});

function assertProblem(r: { status: number; headers: Headers; json: any }, status: number, code: string): void {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(r.headers.get('content-type'), 'application/problem+json');
  assert.equal(r.json.status, status);
  assert.equal(r.json.code, code);
  assert.equal(r.json.type, `${svc.ctx.config.baseUrl}/docs/api#problem-${code.replace(/_/g, '-')}`);
  assert.equal(typeof r.json.title, 'string');
  assert.equal(typeof r.json.detail, 'string');
  assert.ok(r.json.requestId);
  assert.doesNotMatch(JSON.stringify(r.json), /\n\s+at /, 'no stack trace');
}

test('keys: created with a user token, shown once, listed by prefix only; a key cannot manage keys', async () => {
  const created = await createKey(svc.url, jwt, 'production');
  assert.match(created.key, /^sl_live_[0-9A-Za-z]{38}$/);
  assert.ok(created.key.startsWith(created.prefix) && created.prefix.length < 16);
  const list = await api(svc.url, '/api/v1/keys', { token: jwt });
  assert.equal(list.status, 200);
  const mine = list.json.keys.find((k: any) => k.id === created.id);
  assert.deepEqual(Object.keys(mine).sort(), ['createdAt', 'id', 'lastUsedAt', 'name', 'prefix', 'revokedAt']);
  assert.ok(!list.text.includes(created.key), 'the key itself is never listed');
  const rows = await svc.ctx.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE key_id = $1', [created.id]);
  assert.ok(!JSON.stringify(rows).includes(created.key), 'the key is stored only as a hash');

  assertProblem(await api(svc.url, '/api/v1/keys', { token: created.key, body: { name: 'child' } }), 403, 'forbidden');
  assertProblem(await api(svc.url, '/api/v1/keys', { token: created.key }), 403, 'forbidden');
  assertProblem(await api(svc.url, `/api/v1/keys/${created.id}`, { token: created.key, method: 'DELETE' }), 403, 'forbidden');
  assertProblem(await api(svc.url, '/api/v1/keys', { token: jwt, body: { name: '' } }), 400, 'bad_request');
  assertProblem(await api(svc.url, '/api/v1/keys/key_nope', { token: jwt, method: 'DELETE' }), 404, 'not_found');
});

test('401 with WWW-Authenticate: no token, malformed, unknown, revoked key, pre-claim token; a key on /api/mcp', async () => {
  const key = await createKey(svc.url, jwt, 'to revoke');
  const flipped = key.key.slice(0, -1) + (key.key.endsWith('A') ? 'B' : 'A'); // checksum no longer matches
  const unknown = (await import('../src/billing/api-keys.ts')).newApiKey(); // well formed, never stored
  const preClaim = await getPublicToken(svc.url);
  assert.equal((await api(svc.url, checkPath(OUTSIDE), { token: key.key })).status, 200);
  assert.equal((await api(svc.url, `/api/v1/keys/${key.id}`, { token: jwt, method: 'DELETE' })).status, 204);
  const cases: [string, string | undefined, RegExp][] = [
    ['none', undefined, /No credential/],
    ['malformed', flipped, /malformed/],
    ['unknown', unknown, /unknown/],
    ['revoked', key.key, /revoked/],
    ['pre-claim', preClaim, /pre-claim token/],
    ['garbage', 'sl_live_short', /malformed/],
  ];
  for (const [name, token, reason] of cases) {
    for (const path of [checkPath(COVERED), '/api/v1/usage', '/api/v1/coverage?city=Cambridge']) {
      const r = await api(svc.url, path, token ? { token } : {});
      assertProblem(r, 401, 'unauthorized');
      assert.match(r.json.detail, reason, name);
      const www = r.headers.get('www-authenticate') ?? '';
      assert.match(www, /^Bearer realm="siteline-api", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource"/, name);
      if (token) assert.match(www, /error="invalid_token"/);
    }
  }
  // Keys open /api/v1 only: the MCP endpoint refuses them like any invalid bearer.
  const live = await createKey(svc.url, jwt, 'mcp attempt');
  const rpc = await postRpc(svc.url, modernRequest('tools/list'), { authorization: `Bearer ${live.key}` });
  assert.equal(rpc.status, 401);
  assert.match(JSON.stringify(rpc.message), /REST API under \/api\/v1 only/);
});

test('the priced unit: same JSON as the MCP tool, one credit per answered snapshot, free when not answered or bad input, 402 when out', async () => {
  const key = await createKey(svc.url, jwt, 'paid');
  const start = await creditBalance(svc.ctx.db, accountId);
  // Out of credit first (this account holds none yet unless an earlier test granted some).
  if (start === 0) {
    const r = await api(svc.url, checkPath(COVERED), { token: key.key });
    assertProblem(r, 402, 'out_of_credit');
    assert.match(r.json.detail, /has 0 credits/);
    assert.match(r.json.detail, /siteline credits grant|account\/api-keys/);
    assert.equal(r.json.balance, 0);
    assert.equal(r.headers.get('siteline-credits-charged'), '0');
    // Purchasing is not set up in this test: no buyUrl that would lead nowhere, and the detail says whom to ask.
    assert.equal(r.json.buyUrl, undefined);
    assert.match(r.json.detail, /ask its operator to grant credit/);
  }
  await grant(svc.ctx, accountId, 3);
  const before = await creditBalance(svc.ctx.db, accountId);

  const get = await api(svc.url, checkPath(COVERED), { token: key.key });
  assert.equal(get.status, 200, get.text);
  assert.equal(get.json.answered, true);
  assert.equal(get.headers.get('siteline-credits-charged'), '1');
  assert.equal(get.headers.get('siteline-credits-remaining'), String(before - 1));
  assert.ok(get.headers.get('ratelimit-policy'));

  // Same JSON as the MCP tool returns for the same address.
  const client = await connectClient(svc.url, 'modern', jwt);
  try {
    const tool = await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: COVERED, source: 'full' } });
    assert.equal(get.text, JSON.stringify(tool.structuredContent));
  } finally {
    await client.close();
  }

  const post = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: COVERED_2 } });
  assert.equal(post.status, 200, post.text);
  assert.equal(post.headers.get('siteline-credits-remaining'), String(before - 2));

  // answered:false and bad input are free.
  const outside = await api(svc.url, checkPath(OUTSIDE), { token: key.key });
  assert.equal(outside.status, 200);
  assert.equal(outside.json.answered, false);
  assert.equal(outside.headers.get('siteline-credits-charged'), '0');
  assertProblem(await api(svc.url, '/api/v1/sites/check', { token: key.key }), 400, 'bad_request');
  const bad = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: '' } });
  assertProblem(bad, 400, 'bad_request');
  assert.deepEqual(bad.json.errors, [{ path: 'address', message: 'address is empty' }]);
  // An over-long address is told in the same words as on MCP and the CLI.
  const long = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: 'x'.repeat(5000) } });
  assertProblem(long, 400, 'bad_request');
  assert.deepEqual(long.json.errors, [{ path: 'address', message: 'The address is 5000 characters long; the limit is 300.' }]);
  assertProblem(await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: COVERED, extra: 1 } }), 400, 'bad_request');
  assertProblem(await api(svc.url, '/api/v1/sites/check', { token: key.key, body: '{nope' }), 400, 'bad_request');
  assertProblem(
    await api(svc.url, '/api/v1/sites/check', { token: key.key, body: 'address=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
    415,
    'unsupported_media_type',
  );
  assertProblem(await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: 'x'.repeat(20_000) } }), 413, 'payload_too_large');
  // Input the core refuses (two street addresses): a free 400, and its Idempotency-Key stays usable.
  const two = { address: '10 Ware St, 57 Inman St, Cambridge, MA' };
  const refused = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: two, headers: { 'idempotency-key': 'two-addresses' } });
  assertProblem(refused, 400, 'bad_request');
  assert.match(refused.json.detail, /two street addresses/);
  assertProblem(await api(svc.url, '/api/v1/sites/check', { token: key.key, body: two, headers: { 'idempotency-key': 'two-addresses' } }), 400, 'bad_request');
  assert.equal(await creditBalance(svc.ctx.db, accountId), before - 2, 'only the two answered snapshots were charged');

  // The user JWT is accepted and bills the same account.
  const byJwt = await api(svc.url, checkPath(COVERED), { token: jwt });
  assert.equal(byJwt.status, 200);
  assert.equal(byJwt.headers.get('siteline-credits-remaining'), String(before - 3));
  const out = await api(svc.url, checkPath(COVERED), { token: key.key });
  assertProblem(out, 402, 'out_of_credit');
  assert.equal(await creditBalance(svc.ctx.db, accountId), 0);
  assert.equal(await ledgerSum(svc.ctx.db, accountId), 0, 'the ledger sums to the balance');
});

test('Idempotency-Key: a retry replays without a second charge, another body is 422, concurrent retries charge once', async () => {
  const key = await createKey(svc.url, jwt, 'idem');
  await grant(svc.ctx, accountId, 5);
  const before = await creditBalance(svc.ctx.db, accountId);
  const first = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: COVERED }, headers: { 'idempotency-key': 'order-1' } });
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('siteline-credits-charged'), '1');
  const again = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: COVERED }, headers: { 'idempotency-key': 'order-1' } });
  assert.equal(again.status, 200);
  assert.equal(again.text, first.text);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.headers.get('siteline-credits-charged'), '0');
  assert.equal(await creditBalance(svc.ctx.db, accountId), before - 1);
  const other = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: COVERED_2 }, headers: { 'idempotency-key': 'order-1' } });
  assertProblem(other, 422, 'idempotency_key_reused');
  assertProblem(
    await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: COVERED }, headers: { 'idempotency-key': 'bad key with spaces' } }),
    400,
    'bad_request',
  );

  // 20 concurrent requests with one new key: one charge, every answer the same snapshot.
  const burst = await Promise.all(
    Array.from({ length: 20 }, () =>
      api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: COVERED_2 }, headers: { 'idempotency-key': 'order-2' } }),
    ),
  );
  assert.deepEqual([...new Set(burst.map((r) => r.status))], [200]);
  assert.equal(new Set(burst.map((r) => r.text)).size, 1);
  assert.equal(burst.filter((r) => r.headers.get('siteline-credits-charged') === '1').length, 1);
  assert.equal(await creditBalance(svc.ctx.db, accountId), before - 2);

  // A 402 is not stored: after buying credit the same key is answered afresh.
  const spend = (await creditBalance(svc.ctx.db, accountId)) as number;
  for (let i = 0; i < spend; i++) assert.equal((await api(svc.url, checkPath(COVERED), { token: key.key })).status, 200);
  assertProblem(
    await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: COVERED }, headers: { 'idempotency-key': 'order-3' } }),
    402,
    'out_of_credit',
  );
  await grant(svc.ctx, accountId, 1);
  const paid = await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: COVERED }, headers: { 'idempotency-key': 'order-3' } });
  assert.equal(paid.status, 200);
  assert.equal(paid.headers.get('siteline-credits-charged'), '1');
  assert.equal(await ledgerSum(svc.ctx.db, accountId), await creditBalance(svc.ctx.db, accountId));
});

test('300 concurrent paid calls from 3 keys of an account holding 100 credits: exactly 100 charged (one instance)', async () => {
  const email = 'rest-burst@example.com';
  const userJwt = await getUserToken(svc.url, email);
  const id = await accountIdOf(svc.ctx, email);
  const keys = await Promise.all([1, 2, 3].map((i) => createKey(svc.url, userJwt, `burst ${i}`)));
  await grant(svc.ctx, id, 100);
  const replies = await Promise.all(Array.from({ length: 300 }, (_, i) => api(svc.url, checkPath(i % 2 ? COVERED : COVERED_2), { token: keys[i % 3]!.key })));
  assert.equal(replies.filter((r) => r.status === 200).length, 100);
  assert.equal(replies.filter((r) => r.status === 402).length, 200);
  assert.equal(await creditBalance(svc.ctx.db, id), 0);
  assert.equal(await ledgerSum(svc.ctx.db, id), 0);
  const spends = await svc.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'spend'`, [id]);
  assert.equal(spends[0]!.n, 100);
});

test('300 concurrent paid calls whose answers are cached (key, limit and charge in one statement): exactly 100 charged, free answers free, revoked refused', async () => {
  // Another account asks first, so every call of the burst finds its snapshot in the cache.
  const warmer = await createKey(svc.url, jwt, 'warmer');
  await grant(svc.ctx, accountId, 10);
  for (const a of [COVERED, COVERED_2, OUTSIDE]) assert.equal((await api(svc.url, checkPath(a), { token: warmer.key })).status, 200);
  const email = 'rest-burst-cached@example.com';
  const userJwt = await getUserToken(svc.url, email);
  const id = await accountIdOf(svc.ctx, email);
  const keys = await Promise.all([1, 2, 3].map((i) => createKey(svc.url, userJwt, `cached ${i}`)));
  const revoked = await createKey(svc.url, userJwt, 'revoked');
  assert.equal((await api(svc.url, `/api/v1/keys/${revoked.id}`, { token: userJwt, method: 'DELETE' })).status, 204);
  await grant(svc.ctx, id, 100);
  // 300 answered calls from 3 keys and the user token, 30 answered:false calls, 10 calls with the revoked key.
  const replies = await Promise.all([
    ...Array.from({ length: 300 }, (_, i) => api(svc.url, checkPath(i % 2 ? COVERED : COVERED_2), { token: i % 4 === 3 ? userJwt : keys[i % 4]!.key })),
    ...Array.from({ length: 30 }, (_, i) => api(svc.url, checkPath(OUTSIDE), { token: keys[i % 3]!.key })),
    ...Array.from({ length: 10 }, () => api(svc.url, checkPath(COVERED), { token: revoked.key })),
  ]);
  const paid = replies.slice(0, 300);
  assert.equal(paid.filter((r) => r.status === 200).length, 100);
  assert.equal(paid.filter((r) => r.status === 402).length, 200);
  assert.ok(paid.filter((r) => r.status === 200).every((r) => r.headers.get('siteline-credits-charged') === '1' && r.headers.get('ratelimit-limit') !== null));
  const remaining = paid.filter((r) => r.status === 200).map((r) => Number(r.headers.get('siteline-credits-remaining')));
  assert.deepEqual(
    [...remaining].sort((a, b) => a - b),
    Array.from({ length: 100 }, (_, i) => i),
    'each credit spent once: balances 99..0',
  );
  assert.ok(paid.filter((r) => r.status === 402).every((r) => r.json.code === 'out_of_credit' && r.headers.get('siteline-credits-charged') === '0'));
  const free = replies.slice(300, 330);
  assert.ok(free.every((r) => r.status === 200 && r.json.answered === false && r.headers.get('siteline-credits-charged') === '0'));
  assert.ok(free.every((r) => Number(r.headers.get('siteline-credits-remaining')) >= 0 && Number(r.headers.get('siteline-credits-remaining')) <= 100));
  assert.ok(replies.slice(330).every((r) => r.status === 401 && /revoked/.test(r.json.detail)));
  assert.equal(await creditBalance(svc.ctx.db, id), 0);
  assert.equal(await ledgerSum(svc.ctx.db, id), 0, 'the ledger sums to the balance');
  const spends = await svc.ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'spend'`, [id]);
  assert.equal(spends[0]!.n, 100);
  // A cached answer out of credit stays free, and the balance header says 0.
  const broke = await api(svc.url, checkPath(OUTSIDE), { token: keys[0]!.key });
  assert.equal(broke.status, 200);
  assert.equal(broke.headers.get('siteline-credits-remaining'), '0');
});

test('free lookups: coverage for an address, a city and a point; usage with recent charges and per-day counts', async () => {
  const key = await createKey(svc.url, jwt, 'free');
  const byAddress = await api(svc.url, `/api/v1/coverage?${new URLSearchParams({ address: COVERED })}`, { token: key.key });
  assert.equal(byAddress.status, 200, byAddress.text);
  assert.equal(byAddress.json.coverage.status, 'live');
  assert.equal(byAddress.json.placeStatus, 'live');
  assert.equal(byAddress.json.lot, undefined);
  assert.equal(byAddress.headers.get('siteline-credits-charged'), '0');
  const byCity = await api(svc.url, '/api/v1/coverage?city=Cambridge&region=MA', { token: key.key });
  assert.equal(byCity.json.coverage.geoDivisionId, 'US-MA:cambridge');
  const byPoint = await api(svc.url, '/api/v1/coverage?lat=42.3736&lng=-71.1097', { token: key.key });
  assert.equal(byPoint.status, 200, byPoint.text);
  assert.equal(byPoint.json.coverage.status, 'live');
  const outside = await api(svc.url, `/api/v1/coverage?${new URLSearchParams({ address: OUTSIDE })}`, { token: key.key });
  assert.notEqual(outside.json.coverage.status, 'live');
  assertProblem(await api(svc.url, '/api/v1/coverage?city=Cambridge&lat=1&lng=2', { token: key.key }), 400, 'bad_request');
  assertProblem(await api(svc.url, '/api/v1/coverage?lat=1', { token: key.key }), 400, 'bad_request');
  assertProblem(await api(svc.url, '/api/v1/coverage?lat=100&lng=2', { token: key.key }), 400, 'bad_request');
  // One spelling of a point (issue 25): latitude/longitude/lon are refused, naming lat and lng.
  for (const [q, right] of [
    ['latitude=42.3736&longitude=-71.1097', /latitude: .*"lat"/],
    ['lat=42.3736&lon=-71.1097', /lon: .*"lng"/],
  ] as const) {
    const wrong = await api(svc.url, `/api/v1/coverage?${q}`, { token: key.key });
    assertProblem(wrong, 400, 'bad_request');
    assert.match(wrong.json.detail, right);
  }
  const none = await api(svc.url, '/api/v1/coverage', { token: key.key });
  assertProblem(none, 400, 'bad_request');
  assert.match(none.json.detail, /^\(query\): give exactly one of/, 'a GET names its query, not a body');
  // An ambiguous city lists candidates and says to call again with one's geoDivisionId: that call works.
  const ambiguous = await api(svc.url, '/api/v1/coverage?city=Cambridge', { token: key.key });
  assert.equal(ambiguous.json.coverage.status, 'ambiguous');
  assert.match(ambiguous.json.coverage.message, /geoDivisionId/);
  const cambridge = ambiguous.json.candidates.find((c: { geoDivisionId: string }) => c.geoDivisionId === 'US-MA:cambridge');
  assert.ok(cambridge, JSON.stringify(ambiguous.json.candidates));
  const byId = await api(svc.url, `/api/v1/coverage?geoDivisionId=${encodeURIComponent(cambridge.geoDivisionId)}`, { token: key.key });
  assert.equal(byId.status, 200, JSON.stringify(byId.json));
  assert.deepEqual([byId.json.coverage.status, byId.json.coverage.geoDivisionId], ['live', 'US-MA:cambridge']);
  const unknownId = await api(svc.url, '/api/v1/coverage?geoDivisionId=US-ZZ:nowhere', { token: key.key });
  assert.equal(unknownId.json.coverage.status, 'geo_division_uncatalogued');
  assertProblem(await api(svc.url, '/api/v1/coverage?geoDivisionId=US-MA:cambridge&city=Cambridge', { token: key.key }), 400, 'bad_request');

  const before = await creditBalance(svc.ctx.db, accountId);
  await grant(svc.ctx, accountId, 2);
  assert.equal((await api(svc.url, checkPath(COVERED), { token: key.key })).status, 200);
  const usage = await api(svc.url, '/api/v1/usage', { token: key.key });
  assert.equal(usage.status, 200);
  assert.equal(usage.json.balance, before + 1);
  assert.equal(usage.json.recent[0].kind, 'spend');
  assert.equal(usage.json.recent[0].amount, -1);
  assert.equal(usage.json.recent[0].keyId, key.id);
  assert.equal(usage.json.recent[1].kind, 'grant');
  const today = new Date().toISOString().slice(0, 10);
  assert.ok(usage.json.perDay.find((d: any) => d.day === today)?.charges >= 1);
  assert.equal(usage.json.purchasing.enabled, false);
  assert.match(usage.json.purchasing.how, /siteline credits grant/);
});

test('429 with Retry-After and RateLimit headers once a key has used its window (nothing charged)', async () => {
  const key = await createKey(svc.url, jwt, 'limited');
  await grant(svc.ctx, accountId, 1);
  const before = await creditBalance(svc.ctx.db, accountId);
  // Fill this key's current window up to its last request (the counter the route reads).
  const windowMs = API_RATE_LIMIT.windowSeconds * 1000;
  const windowStart = new Date(Math.floor(Date.now() / windowMs) * windowMs).toISOString();
  await svc.ctx.db.query('INSERT INTO rate_limit_windows (bucket, subject, window_start, hits) VALUES ($1, $2, $3, $4)', [
    API_RATE_LIMIT.bucket,
    `key:${key.id}`,
    windowStart,
    API_RATE_LIMIT.limit - 1,
  ]);
  const last = await api(svc.url, '/api/v1/usage', { token: key.key });
  if (last.status === 200) {
    assert.equal(last.headers.get('ratelimit-remaining'), '0');
    const limited = await api(svc.url, checkPath(COVERED), { token: key.key });
    assertProblem(limited, 429, 'rate_limited');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(limited.headers.get('ratelimit-limit'), String(API_RATE_LIMIT.limit));
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
    assert.equal(await creditBalance(svc.ctx.db, accountId), before);
  } else {
    // The window rolled over between the insert and the call: the fresh window answered.
    assert.equal(last.status, 200, last.text);
  }
});

test('CORS is off: no Access-Control-* header on any /api/v1 response, preflights included; 404 and 405 are problems', async () => {
  const key = await createKey(svc.url, jwt, 'cors');
  const origin = { origin: 'https://evil.example' };
  const replies = [
    await api(svc.url, checkPath(OUTSIDE), { token: key.key, headers: origin }),
    await api(svc.url, '/api/v1/sites/check', { token: key.key, body: { address: OUTSIDE }, headers: origin }),
    await api(svc.url, '/api/v1/usage', { token: key.key, headers: origin }),
    await api(svc.url, '/api/v1/coverage?city=Cambridge', { token: key.key, headers: origin }),
    await api(svc.url, '/api/v1/keys', { token: jwt, headers: origin }),
    await api(svc.url, '/api/v1/openapi.json', { headers: origin }),
    await api(svc.url, '/api/v1/usage', { headers: origin }),
    await api(svc.url, '/api/v1/nothing-here', { headers: origin }),
  ];
  for (const path of ['/api/v1/sites/check', '/api/v1/usage', '/api/v1/coverage', '/api/v1/keys', '/api/v1/keys/x', '/api/v1/openapi.json', '/api/v1/other']) {
    const pre = await api(svc.url, path, {
      method: 'OPTIONS',
      headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    assert.ok(pre.status === 405 || pre.status === 404, `${path}: ${pre.status}`);
    assert.equal(pre.headers.get('content-type'), 'application/problem+json');
    replies.push(pre);
  }
  for (const r of replies) assert.deepEqual(corsHeaders(r.headers), []);
  assertProblem(await api(svc.url, '/api/v1/nothing-here'), 404, 'not_found');
  const put = await api(svc.url, '/api/v1/sites/check', { method: 'PUT', token: key.key });
  assertProblem(put, 405, 'method_not_allowed');
  assert.equal(put.headers.get('allow'), 'GET, POST');
  const head = await fetch(`${svc.url}${checkPath(COVERED)}`, { method: 'HEAD', headers: { authorization: `Bearer ${key.key}` } });
  assert.equal(head.status, 405, 'HEAD never runs (or charges) a paid call');
});

test("include=sources: the place's source catalogue inline, the same JSON as the MCP tool with includeSources", async () => {
  const key = await createKey(svc.url, jwt, 'sources');
  await grant(svc.ctx, accountId, 1);
  const r = await api(svc.url, `${checkPath(COVERED)}&include=sources`, { token: key.key });
  assert.equal(r.status, 200, r.text);
  const full = r.json.sourceCatalogue.sources;
  assert.equal(full.parcels.licence, 'ODC-PDDL-1.0');
  assert.match(full.rules.url, /^https:\/\//);
  assert.equal(r.json.sources.parcels, full.parcels.label, 'the labels stay as they are');
  const client = await connectClient(svc.url, 'modern', jwt);
  try {
    const tool = await client.callTool({ name: 'getFeasibilitySnapshot', arguments: { address: COVERED, source: 'full', includeSources: true } });
    assert.equal(r.text, JSON.stringify(tool.structuredContent));
  } finally {
    await client.close();
  }
  assertProblem(await api(svc.url, `${checkPath(COVERED)}&include=everything`, { token: key.key }), 400, 'bad_request');
});
