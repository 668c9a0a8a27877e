// Dynamic Client Registration: the shapes real MCP clients send are accepted (Claude, Claude Code,
// Cursor, VS Code, ChatGPT, MCP Inspector); plain-http non-loopback, CR/LF, oversized and script
// redirect URIs are refused; registrations are throttled; unused clients expire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/harness.ts';
import { DCR_PER_CLIENT_HOURLY } from '../../src/oauth/dcr-policy.ts';
import { CLIENT_UNUSED_TTL_S } from '../../src/auth/oidc-adapter.ts';

const CODE_FLOW = { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };

const REAL_CLIENTS: Record<string, Record<string, unknown>> = {
  'Claude (web)': { client_name: 'Claude', redirect_uris: ['https://claude.ai/api/mcp/auth_callback'], ...CODE_FLOW },
  'Claude Code': { client_name: 'Claude Code (siteline)', redirect_uris: ['http://localhost:54545/callback'], ...CODE_FLOW, scope: 'mcp' },
  Cursor: { client_name: 'Cursor', redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/user-siteline/callback'], ...CODE_FLOW },
  'Cursor (mcp)': { client_name: 'Cursor', redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'], ...CODE_FLOW },
  'VS Code': {
    client_name: 'Visual Studio Code',
    redirect_uris: [
      'https://insiders.vscode.dev/redirect',
      'https://vscode.dev/redirect',
      'http://localhost/',
      'http://127.0.0.1/',
      'http://localhost:33418/',
      'http://127.0.0.1:33418/',
    ],
    ...CODE_FLOW,
  },
  'VS Code (uri handler)': { client_name: 'Visual Studio Code', redirect_uris: ['vscode://vscode.github-authentication/did-authenticate'], ...CODE_FLOW },
  ChatGPT: { client_name: 'ChatGPT', redirect_uris: ['https://chatgpt.com/connector_platform_oauth_redirect'], ...CODE_FLOW },
  'MCP Inspector': {
    client_name: 'MCP Inspector',
    client_uri: 'https://github.com/modelcontextprotocol/inspector',
    redirect_uris: ['http://localhost:6274/oauth/callback', 'http://localhost:6274/oauth/callback/debug'],
    ...CODE_FLOW,
  },
  'explicit web + https': { client_name: 'A web app', application_type: 'web', redirect_uris: ['https://app.example.com/oauth/cb'], ...CODE_FLOW },
  'IPv6 loopback': { client_name: 'CLI', redirect_uris: ['http://[::1]:8123/cb'], ...CODE_FLOW },
};

const HOSTILE: Record<string, unknown[]> = {
  'plain http, not loopback': ['http://evil.example/cb'],
  'http on a private address': ['http://192.168.1.10/cb'],
  'CR/LF inside': ['https://app.example.com/cb\r\nSet-Cookie: x=1'],
  'a tab inside': ['https://app.example.com/c\tb'],
  '5,000 characters': [`https://app.example.com/${'a'.repeat(5_000)}`],
  javascript: ['javascript:alert(1)'],
  data: ['data:text/html,hi'],
  file: ['file:///etc/passwd'],
  'a fragment': ['https://app.example.com/cb#x'],
  'user info': ['https://user:pw@app.example.com/cb'],
  'not a URI': ['not a uri'],
  'too many': Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`),
};

async function register(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/auth/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any>, headers: res.headers };
}

test('the registrations real MCP clients send are accepted; hostile ones are refused with invalid_redirect_uri', async () => {
  const svc = await startTestServer({ config: { trustedProxies: ['loopback'] } });
  try {
    let n = 0;
    const from = () => ({ 'x-forwarded-for': `198.51.100.${++n}` });
    for (const [name, meta] of Object.entries(REAL_CLIENTS)) {
      const r = await register(svc.url, meta, from());
      assert.equal(r.status, 201, `${name}: ${JSON.stringify(r.json)}`);
      assert.ok(r.json.client_id, name);
      assert.deepEqual(r.json.redirect_uris, meta.redirect_uris, name);
    }
    for (const [name, uris] of Object.entries(HOSTILE)) {
      const r = await register(svc.url, { ...CODE_FLOW, client_name: 'x', redirect_uris: uris }, from());
      assert.equal(r.status, 400, `${name}: ${JSON.stringify(r.json).slice(0, 300)}`);
      assert.equal(r.json.error, 'invalid_redirect_uri', name);
    }
    const longName = await register(svc.url, { ...CODE_FLOW, client_name: 'n'.repeat(5000), redirect_uris: ['https://a.example/cb'] }, from());
    assert.equal(longName.status, 400);
    assert.equal(longName.json.error, 'invalid_client_metadata');
    const ctlName = await register(svc.url, { ...CODE_FLOW, client_name: 'Evil\r\nClient', redirect_uris: ['https://a.example/cb'] }, from());
    assert.equal(ctlName.status, 400);
    // A 20,000-character redirect URI (or any body over 16 KiB) is refused before it is parsed.
    const huge = await register(svc.url, { ...CODE_FLOW, client_name: 'x', redirect_uris: [`https://a.example/${'a'.repeat(20_000)}`] }, from());
    assert.equal(huge.status, 413);
  } finally {
    await svc.close();
  }
});

test('registrations are throttled per client (429 + Retry-After); unused clients expire', async () => {
  const svc = await startTestServer();
  try {
    const meta = REAL_CLIENTS['MCP Inspector']!;
    let first: string | undefined;
    for (let i = 0; i < DCR_PER_CLIENT_HOURLY; i++) {
      const r = await register(svc.url, meta);
      assert.equal(r.status, 201, `registration ${i + 1}`);
      first ??= r.json.client_id;
    }
    const limited = await register(svc.url, meta);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    const rows = await svc.ctx.db.query<{ expires_at: Date }>(`SELECT expires_at FROM oidc_models WHERE model = 'Client' AND id = $1`, [first]);
    const days = (new Date(rows[0]!.expires_at).getTime() - Date.now()) / 86_400_000;
    assert.ok(Math.abs(days - CLIENT_UNUSED_TTL_S / 86_400) < 0.1, `an unused client expires in ${days} days`);
  } finally {
    await svc.close();
  }
});
