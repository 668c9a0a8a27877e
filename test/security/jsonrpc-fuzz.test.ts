// Keep-it-from-coming-back: a seeded mutator over JSON-RPC bodies (valid requests of both protocol legs,
// then deleted keys, swapped types, NUL and odd Unicode, deep nesting, batches, broken bytes). For every
// body: no 5xx except a bare -32603 without detail; afterwards /readyz answers and no secret is in the
// log (the harness's log guard checks every line at the end). FUZZ_SEED / FUZZ_CASES change the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/harness.ts';
import { logLines, secretsInLog } from '../support/log-capture.ts';
import { getPublicToken } from '../support/auth-flow.ts';
import { ACCEPT_BOTH, MODERN, legacyRequest, modernRequest } from '../mcp-support.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const CASES = Number(process.env.FUZZ_CASES ?? 3000);
/** A budget, not an assertion: on a loaded machine fewer cases run (the count is reported). */
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 90_000);

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOOLS = ['cityInventory', 'explainFeasibilityStatus', 'getFeasibilitySnapshot', 'getServiceMcpGuide', 'previewSiteCoverage', 'noSuchTool'];
const METHODS = [
  'initialize',
  'tools/list',
  'tools/call',
  'ping',
  'resources/list',
  'prompts/list',
  'notifications/initialized',
  'server/discover',
  'completion/complete',
  '',
  'x'.repeat(300),
];
const STRINGS = [
  '',
  '\u0000',
  'a\u0000b',
  '\u202e',
  '\ud800',
  '🐢'.repeat(50),
  '15 Acorn St, Cambridge, MA',
  'x'.repeat(5000),
  '<script>',
  "' OR 1=1 --",
  '%00',
  '../../etc/passwd',
  '\r\n',
  '1e309',
];

function seeds(): { body: any; headers: Record<string, string> }[] {
  const out = [];
  for (const name of TOOLS) {
    out.push(modernRequest('tools/call', { name, arguments: { address: '15 Acorn St, Cambridge, MA', city: 'Cambridge', region: 'MA', status: 'cited' } }));
    out.push(legacyRequest('tools/call', { name, arguments: { address: '1 Main St', city: 'Chicago' } }));
  }
  out.push(modernRequest('tools/list'), legacyRequest('tools/list'), modernRequest('server/discover'));
  out.push(legacyRequest('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } }));
  return out.map((r) => ({ body: r.body, headers: { ...r.headers } }));
}

function randomValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * 9);
  if (depth > 3) return STRINGS[Math.floor(r() * STRINGS.length)];
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return [0, -1, 1e308, -0, 2 ** 53 + 1, 0.5, NaN][Math.floor(r() * 7)];
    case 3:
    case 4:
      return STRINGS[Math.floor(r() * STRINGS.length)];
    case 5:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    case 6:
      return Object.fromEntries(
        Array.from({ length: Math.floor(r() * 4) }, (_, i) => [
          [`k${i}`, '__proto__', 'constructor', '_meta', 'name'][Math.floor(r() * 5)]!,
          randomValue(r, depth + 1),
        ]),
      );
    case 7: {
      let v: unknown = 1;
      for (let i = 0, n = Math.floor(r() * 200); i < n; i++) v = [v];
      return v;
    }
    default:
      return METHODS[Math.floor(r() * METHODS.length)];
  }
}

/** Every path to a value inside the body. */
function paths(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (v && typeof v === 'object') {
    for (const [k, c] of Object.entries(v)) {
      const p = [...prefix, Array.isArray(v) ? Number(k) : k];
      out.push(p);
      paths(c, p, out);
    }
  }
  return out;
}

function mutate(r: () => number, seed: { body: any; headers: Record<string, string> }): { text: string; headers: Record<string, string> } {
  const body = structuredClone(seed.body);
  const headers = { ...seed.headers };
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i++) {
    const all = paths(body);
    const p = all[Math.floor(r() * all.length)];
    if (!p) break;
    let parent: any = body;
    for (const k of p.slice(0, -1)) parent = parent[k];
    const last = p[p.length - 1]!;
    const op = r();
    if (op < 0.3) delete parent[last];
    else parent[last] = randomValue(r);
  }
  let payload: unknown = body;
  if (r() < 0.08) payload = [body, structuredClone(seed.body)];
  if (r() < 0.05) payload = randomValue(r);
  if (r() < 0.1) headers['mcp-method'] = String(METHODS[Math.floor(r() * METHODS.length)]);
  if (r() < 0.05) headers['mcp-protocol-version'] = ['2025-06-18', MODERN, 'bogus', ''][Math.floor(r() * 4)]!;
  if (r() < 0.05) headers.accept = ['application/json', '*/*', ACCEPT_BOTH][Math.floor(r() * 3)]!;
  let text = JSON.stringify(payload) ?? 'null';
  if (r() < 0.1) {
    // Byte-level damage: truncate, or overwrite one character.
    const at = Math.floor(r() * text.length);
    text = r() < 0.5 ? text.slice(0, at) : text.slice(0, at) + '{}[]",:\u0000\\'[Math.floor(r() * 10)] + text.slice(at + 1);
  }
  return { text, headers };
}

test(`fuzzed JSON-RPC bodies (seed ${SEED}, up to ${CASES} cases): no 5xx but a bare -32603, the service keeps answering`, { timeout: 600_000 }, async (t) => {
  const svc = await startTestServer();
  try {
    const token = await getPublicToken(svc.url);
    const r = prng(SEED);
    const base = seeds();
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const stopAt = Date.now() + BUDGET_MS;
    const worker = async () => {
      while (next < CASES && Date.now() < stopAt) {
        const i = next++;
        const { text, headers } = mutate(r, base[Math.floor(r() * base.length)]!);
        if (r() < 0.3) headers.authorization = `Bearer ${token}`;
        const res = await fetch(`${svc.url}/api/mcp`, { method: 'POST', headers, body: text });
        const raw = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) {
          let bare = false;
          try {
            const m = JSON.parse(
              raw.includes('data:')
                ? raw
                    .split('\n')
                    .find((l) => l.startsWith('data:'))!
                    .slice(5)
                : raw,
            );
            bare = m?.error?.code === -32603 && String(m.error.message).length < 60 && !/[[{]/.test(String(m.error.message));
          } catch {
            bare = false;
          }
          if (!bare) failures.push(`case ${i} (seed ${SEED}): ${res.status} ${raw.slice(0, 200)} for ${text.slice(0, 200)}`);
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    t.diagnostic(`${next} fuzzed bodies sent (seed ${SEED}); statuses ${JSON.stringify([...statuses])}`);
    assert.deepEqual(failures.slice(0, 10), [], `${failures.length} bodies got a 5xx with detail`);
    // No places are loaded in this server, so /readyz is 503 "unavailable" with its JSON body: it still answers.
    const health = await fetch(`${svc.url}/readyz`);
    assert.equal(health.status, 503, 'the service still answers');
    assert.equal(((await health.json()) as { status: string }).status, 'unavailable');
    assert.deepEqual(secretsInLog(logLines, [token]), []);
    assert.ok((statuses.get(200) ?? 0) > 0 && [...statuses.keys()].some((s) => s >= 400 && s < 500), `a mix of answers: ${JSON.stringify([...statuses])}`);
  } finally {
    await svc.close();
  }
});
