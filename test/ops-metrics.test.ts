// GET /metrics on the real server: Prometheus text with requests by route pattern, MCP tool calls by
// tool, the analysis queue, the places' import status and credit moved; a bearer token from
// SITELINE_METRICS_TOKEN guards it, and without one it is served only on a loopback base URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestServer } from './support/harness.ts';
import { modernRequest, postRpc } from './mcp-support.ts';

const TOKEN = 'metrics-secret-0123456789abcdef';

test('/metrics: refused without the token, Prometheus text with it (routes, tools, queue, places, credit)', async () => {
  const svc = await startTestServer({ places: ['paradise-tx'], config: { metricsToken: TOKEN } });
  try {
    assert.equal((await fetch(`${svc.url}/metrics`)).status, 401, 'no token');
    const wrong = await fetch(`${svc.url}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all' } });
    assert.equal(wrong.status, 401, 'a wrong token');
    assert.match(wrong.headers.get('www-authenticate') ?? '', /Bearer/);

    assert.equal((await fetch(`${svc.url}/healthz`)).status, 200);
    assert.equal((await fetch(`${svc.url}/api/v1/keys/some-key-id`, { method: 'DELETE' })).status, 401);
    const guide = await postRpc(svc.url, modernRequest('tools/call', { name: 'getServiceMcpGuide', arguments: {} }));
    assert.equal(guide.status, 200, guide.raw);

    const res = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^siteline_http_request_duration_seconds_count\{route="\/healthz",method="GET",status="200"\} 1$/m);
    // The route pattern, not the raw path: ids never become label values.
    assert.match(text, /^siteline_http_request_duration_seconds_count\{route="\/api\/v1\/keys\/:id",method="DELETE",status="401"\} 1$/m);
    assert.doesNotMatch(text, /some-key-id/);
    assert.match(text, /^siteline_mcp_tool_duration_seconds_count\{tool="getServiceMcpGuide",outcome="ok"\} 1$/m);
    assert.match(text, /^siteline_mcp_tool_duration_seconds_bucket\{le="0\.005",tool="getServiceMcpGuide",outcome="ok"\} \d+$/m);
    assert.match(text, /^siteline_analysis_runs\{status="queued"\} 0$/m);
    assert.match(text, /^siteline_analysis_oldest_queued_age_seconds 0$/m);
    assert.match(text, /^siteline_place_loaded\{place="paradise-tx",status="[a-z_]+"\} 1$/m);
    assert.match(text, /^siteline_place_imported_timestamp_seconds\{place="paradise-tx"\} \d+/m);
    assert.match(text, /^siteline_credit_ledger_credits\{kind="spend"\} 0$/m);
    assert.match(text, /^siteline_process_resident_memory_bytes \d+/m);
    // the bounded hot index: this process's reads, loads and evictions, and its bytes against the default budget (640 MB)
    assert.match(text, /^siteline_hot_index_reads_total\{result="hit"\} \d+$/m);
    assert.match(text, /^siteline_hot_index_reads_total\{result="miss"\} \d+$/m);
    assert.match(text, /^siteline_hot_index_events_total\{event="eviction"\} \d+$/m);
    assert.match(text, /^siteline_hot_index_bytes\{kind="budget"\} 671088640$/m);
    assert.match(text, /^siteline_hot_index_places \d+$/m);

    // Credit granted shows up at the next scrape (read from the ledger, the same on every instance).
    const [row] = await svc.ctx.db.query<{ account_id: string }>(
      `INSERT INTO accounts (account_id, email, password_hash, created_at) VALUES ('acct-metrics', 'm@example.com', 'x', now()) RETURNING account_id`,
    );
    const { addCredit } = await import('../src/billing/credit-ledger.ts');
    await addCredit(svc.ctx, { accountId: row!.account_id, kind: 'grant', credits: 25, reference: 'metrics test' });
    const again = await (await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    assert.match(again, /^siteline_credit_ledger_credits\{kind="grant"\} 25$/m);
  } finally {
    await svc.close();
  }
});

/** GET with a chosen Host header (fetch does not allow setting it). */
function get(url: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(new URL(path, url), { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
}

test('/metrics without a token: served on a loopback base URL to this machine, 404 on a public base URL or through a proxy', async () => {
  const local = await startTestServer({ config: { metricsToken: undefined } });
  try {
    assert.equal(await get(local.url, '/metrics'), 200);
    assert.equal(await get(local.url, '/metrics', { 'x-forwarded-for': '203.0.113.9' }), 404, 'a proxied request is not this machine');
  } finally {
    await local.close();
  }
  const pub = await startTestServer({ config: { metricsToken: undefined, baseUrl: 'https://siteline.example' } });
  try {
    assert.equal(await get(pub.url, '/metrics', { host: 'siteline.example' }), 404);
  } finally {
    await pub.close();
  }
});
