// Forwarding headers are believed only from proxies the operator names (SITELINE_TRUSTED_PROXIES):
// behind a trusted proxy each client has its own LOCATION budget (the right-most untrusted hop counts);
// without one, a client cannot escape the limit or pick its address by sending X-Forwarded-For.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from './support/harness.ts';
import { loadConfig, ConfigError } from '../src/config.ts';
import { ManualClock } from '../src/clock.ts';

// The limit counts per fixed window of the clock: a clock that stands still mid-window keeps a test's
// 31 requests in one window (with the real clock, a run that crossed a minute boundary saw a fresh budget).
const midWindow = () => new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 20));

const probeOf = (url: string) => (xff?: string) =>
  fetch(`${url}/api/geo/coverage-status?city=Cambridge&region=MA`, { headers: xff ? { 'x-forwarded-for': xff } : {} });

test('behind a trusted proxy, one client exhausting the LOCATION limit does not block another', async () => {
  const svc = await startTestServer({ config: { trustedProxies: ['loopback', '10.0.0.0/8'] }, clock: midWindow() });
  try {
    const probe = probeOf(svc.url);
    for (let i = 0; i < 30; i++) assert.equal((await probe('198.51.100.7')).status, 200);
    const limited = await probe('198.51.100.7');
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.equal((await probe('198.51.100.8')).status, 200, 'another client behind the same proxy has its own budget');
    // A chain: the right-most address that is not a trusted proxy counts; what the client put first does not.
    assert.equal((await probe('203.0.113.1, 198.51.100.7')).status, 429);
    assert.equal((await probe('203.0.113.1, 198.51.100.7, 10.1.2.3')).status, 429, 'a trusted inner proxy hop is skipped');
    assert.equal((await probe('198.51.100.7, 203.0.113.9')).status, 200, 'the right-most untrusted hop is a new client');
  } finally {
    await svc.close();
  }
});

test('without trusted proxies (the default) a forged X-Forwarded-For does not escape the limit', async () => {
  const svc = await startTestServer({ clock: midWindow() });
  try {
    assert.deepEqual(svc.ctx.config.trustedProxies, []);
    const probe = probeOf(svc.url);
    for (let i = 0; i < 30; i++) assert.equal((await probe(`198.51.100.${i + 1}`)).status, 200);
    assert.equal((await probe('198.51.100.200')).status, 429, 'every forged address counts against the real peer');
    assert.equal((await probe()).status, 429);
  } finally {
    await svc.close();
  }
});

test('SITELINE_TRUSTED_PROXIES: CIDRs, single addresses and names parse; anything else stops the start', () => {
  const c = loadConfig({ SITELINE_TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1 ::1 loopback' });
  assert.deepEqual(c.trustedProxies, ['10.0.0.0/8', '192.0.2.1/32', '::1/128', '127.0.0.0/8', '::1/128']);
  assert.deepEqual(loadConfig({}).trustedProxies, []);
  for (const bad of ['10.0.0.0/33', 'evil.example', '10.0.0.0/8/1', '::1/129']) {
    assert.throws(() => loadConfig({ SITELINE_TRUSTED_PROXIES: bad }), ConfigError, bad);
  }
});

test('oidc-provider sees the public origin: a forged X-Forwarded-Host is ignored unless a trusted proxy sent it', async () => {
  const register = (url: string, headers: Record<string, string>) =>
    fetch(`${url}/api/auth/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], client_name: 'proxy test', token_endpoint_auth_method: 'none' }),
    });
  const direct = await startTestServer({ config: { baseUrl: 'https://siteline.example' } });
  try {
    const res = await register(direct.url, { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http', 'x-forwarded-for': '203.0.113.4' });
    const body = (await res.json()) as Record<string, string>;
    assert.equal(res.status, 201, JSON.stringify(body));
    assert.match(body.registration_client_uri!, /^https:\/\/siteline\.example\//);
  } finally {
    await direct.close();
  }
  const proxied = await startTestServer({ config: { baseUrl: 'https://siteline.example', trustedProxies: ['loopback'] } });
  try {
    // (The host must still be this service's: the Host check refuses any other name on every route.)
    const res = await register(proxied.url, { 'x-forwarded-host': 'siteline.example:8443', 'x-forwarded-proto': 'https' });
    const body = (await res.json()) as Record<string, string>;
    assert.equal(res.status, 201, JSON.stringify(body));
    assert.match(body.registration_client_uri!, /^https:\/\/siteline\.example:8443\//, 'a trusted proxy names the host and port');
  } finally {
    await proxied.close();
  }
});
