// The proxy docs/deploy.md ships (haproxy from Debian, its configuration read from the page), in front
// of a real `siteline` process (issue 45):
// - the access log keeps neither the tokens of verification, reset and e-mail-change links (path) nor a
//   signed link's signature (query string);
// - /metrics is refused in every spelling the instance would serve (the instance itself serves it to the
//   bearer of SITELINE_METRICS_TOKEN);
// - the request log names the client haproxy forwarded (SITELINE_TRUSTED_PROXIES = the proxy's address);
// - haproxy probes /readyz: on SIGTERM it takes the instance out while the instance still serves.
// .ci/run installs haproxy; without it this file says so and skips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { createPlacesEnv, ROOT } from './support/harness.ts';
import { listening, startSiteline, stop } from './support/siteline-process.ts';
import { freePort, haproxyInstalled, startHaproxy } from './support/haproxy.ts';

const HOST = 'siteline.example.com';
const METRICS_TOKEN = 'ops-proxy-metrics-token-0123456789';

function viaProxy(base: string, p: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = https.request(
      // From 127.0.0.2: the client address haproxy forwards differs from its own (127.0.0.1).
      {
        host: u.hostname,
        port: u.port,
        path: p,
        method: 'GET',
        servername: HOST,
        rejectUnauthorized: false,
        localAddress: '127.0.0.2',
        agent: false,
        headers: { host: HOST, ...headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('behind the documented haproxy: no token in its log, /metrics refused in every spelling, the client address forwarded, /readyz probed (out while still serving on SIGTERM)', {
  skip: !haproxyInstalled() && 'haproxy is not installed (apt-get install haproxy; .ci/run does)',
  timeout: 300_000,
}, async () => {
  const dbEnv = await createPlacesEnv([]);
  const work = fs.mkdtempSync(path.join(ROOT, '.siteline-test', 'proxy-'));
  const port = await freePort();
  fs.mkdirSync(path.join(work, 'places'));
  const s = startSiteline(
    {
      ...(process.env as Record<string, string>),
      ...dbEnv.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      SITELINE_BASE_URL: `https://${HOST}`,
      SITELINE_MAIL_OUTBOX: '1',
      SITELINE_TRUSTED_PROXIES: '127.0.0.1/32', // haproxy's address, not the client's 127.0.0.2
      SITELINE_METRICS_TOKEN: METRICS_TOKEN,
      SITELINE_ANALYSIS_WORKERS: '0',
      SITELINE_PRESTOP_MS: '4000',
      SITELINE_PLACES_DIR: path.join(work, 'places'), // no place: /readyz is 200 once the database answers
    },
    work,
  );
  // web2: nothing listens there (down from the first probe).
  const proxy = await startHaproxy(path.join(work, 'haproxy'), [port, await freePort()]);
  try {
    const url = await listening(s);
    await proxy.waitForServers({ web1: 'UP', web2: 'DOWN' });

    // Tokens: links as the mail carries them (the tokens are made up: the instance answers what it answers).
    const secrets = ['vt_SECRETVERIFYTOKEN1234567890', 'rt_SECRETRESETTOKEN1234567890', 'ec_SECRETCHANGETOKEN123456789', 'SECRETSIGNATURE0123456789abcdef'];
    await viaProxy(proxy.url, `/verify-email/${secrets[0]}`);
    await viaProxy(proxy.url, `/reset-password/${secrets[1]}?from=mail`);
    await viaProxy(proxy.url, `/confirm-email-change/${secrets[2]}`);
    await viaProxy(proxy.url, `/reports/exports/00000000-0000-0000-0000-000000000000.pdf?expires=9999999999&sig=${secrets[3]}`);
    await viaProxy(proxy.url, '/healthz', { 'x-request-id': 'via-proxy-1' });
    await new Promise((r) => setTimeout(r, 300)); // haproxy writes a request's line when it ends
    const access = proxy.lines.filter((l) => / GET \//.test(l));
    assert.ok(
      access.some((l) => l.endsWith(' GET /verify-email/...')),
      `the verification link is logged without its token:\n${access.join('\n')}`,
    );
    assert.ok(
      access.some((l) => l.endsWith(' GET /reports/exports/00000000-0000-0000-0000-000000000000.pdf')),
      'the signed link is logged without its query string',
    );
    for (const secret of secrets) assert.ok(!proxy.lines.some((l) => l.includes(secret)), `haproxy's log holds ${secret}`);
    for (const secret of secrets) assert.ok(!s.lines.some((l) => JSON.stringify(l).includes(secret)), `siteline's log holds ${secret}`);

    // The client address: haproxy's X-Forwarded-For, believed because haproxy is a trusted proxy.
    const proxied = await s.waitFor((l) => l.msg === 'request' && l.requestId === 'via-proxy-1', 'the proxied request line');
    assert.equal(proxied.client, '127.0.0.2');

    // /metrics: served by the instance to the token's bearer, refused by the proxy in every spelling.
    const auth = { authorization: `Bearer ${METRICS_TOKEN}` };
    const direct = await fetch(`${url}/metrics`, { headers: auth });
    assert.equal(direct.status, 200, 'the instance serves /metrics on its own address');
    for (const p of ['/metrics', '/metrics/', '/Metrics', '//metrics', '/./metrics', '/x/../metrics', '/metrics?x=1']) {
      const r = await viaProxy(proxy.url, p, auth);
      assert.equal(r.status, 404, `${p} through the proxy`);
      assert.doesNotMatch(r.body, /# TYPE siteline_/, `${p} through the proxy is not metrics`);
    }

    // SIGTERM: haproxy sees /readyz 503 and takes the instance out while it still serves.
    const t0 = Date.now();
    s.child.kill('SIGTERM');
    await proxy.waitForServers({ web1: 'DOWN' }, 20_000);
    const outAfter = Date.now() - t0;
    const stillServing = await fetch(`${url}/healthz`).then(
      (r) => r.status,
      (e: Error) => e.message,
    );
    console.log(`# haproxy took the instance out ${outAfter} ms after SIGTERM; the instance then answered ${stillServing}`);
    assert.equal(stillServing, 200, 'out of rotation before the listener closed');
    assert.ok(!s.lines.some((l) => l.msg === 'stopped'));
    const { code } = await s.exited;
    assert.equal(code, 0);
  } finally {
    await proxy.stop();
    if (s.child.exitCode === null && s.child.signalCode === null) await stop(s);
    fs.rmSync(work, { recursive: true, force: true });
    await dbEnv.close();
  }
});
