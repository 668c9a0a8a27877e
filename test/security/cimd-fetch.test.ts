// Client metadata document fetches go to public addresses only (resolved and checked before connecting,
// then connected to as checked), with size and time caps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer } from '../support/harness.ts';
import { isPublicAddress, safeFetch } from '../../src/auth/safe-fetch.ts';

/** A local server that counts connections and answers with `body` (or never, when null). */
async function listener(body: string | null): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = http.createServer((_req, res) => {
    if (body === null) return; // never answers
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

test('isPublicAddress: loopback, private, link-local, metadata and mapped addresses are not public', () => {
  for (const a of [
    '127.0.0.1',
    '10.1.2.3',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '224.0.0.1',
  ]) {
    assert.equal(isPublicAddress(a), false, a);
  }
  for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(a), true, a);
});

test('safeFetch refuses loopback targets before connecting, by address and by a name that resolves to one', async () => {
  const target = await listener('{}');
  try {
    const f = safeFetch();
    await assert.rejects(f(`http://127.0.0.1:${target.port}/client.json`), /non-public address/);
    await assert.rejects(f(`https://localhost:${target.port}/client.json`), /non-public address/);
    await assert.rejects(f(`http://[::1]:${target.port}/`), /non-public address/);
    assert.equal(target.connections(), 0, 'no connection was opened');
  } finally {
    await target.close();
  }
});

test('safeFetch caps the size and the time of a response', async () => {
  const big = await listener('x'.repeat(5000));
  const small = await listener('{"client_name":"ok"}');
  const silent = await listener(null);
  try {
    const local = { allowAddress: () => true, maxBytes: 1000, timeoutMs: 20_000 };
    await assert.rejects(safeFetch(local)(`http://127.0.0.1:${big.port}/`), /exceeds 1000 bytes/);
    const ok = await safeFetch(local)(`http://127.0.0.1:${small.port}/`);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { client_name: 'ok' });
    await assert.rejects(safeFetch({ ...local, timeoutMs: 500 })(`http://127.0.0.1:${silent.port}/`), /abort/i);
  } finally {
    await Promise.all([big.close(), small.close(), silent.close()]);
  }
});

test('the authorize endpoint does not connect to a loopback client_id metadata URL', async () => {
  const target = await listener('{}');
  const svc = await startTestServer();
  try {
    const clientId = `https://localhost:${target.port}/client.json`;
    const q = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:9/cb',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
      scope: 'mcp',
    });
    const res = await fetch(`${svc.url}/api/auth/oauth/authorize?${q}`, { redirect: 'manual' });
    assert.ok(res.status >= 400 && res.status < 500, String(res.status));
    assert.equal(target.connections(), 0, 'the provider did not connect to the loopback target');
  } finally {
    await svc.close();
    await target.close();
  }
});
