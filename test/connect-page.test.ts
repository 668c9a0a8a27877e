// The /connect page over real HTTP: the configurations name this server's MCP URL, every registry
// tool is described from its declaration, and the curl commands it shows work when run as shown
// (a real shell and curl against the real server; only the person's step goes through the claim page).
// The server card's authentication note follows the tools' access flags.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from './support/harness.ts';
import { signUpOrIn, confirmClaimOnPage } from './support/auth-flow.ts';
import { parseRpcBody } from './mcp-support.ts';
import { MCP_TOOLS } from '../src/mcp/registry.ts';
import { authenticationSummary, serverCard } from '../src/mcp/discovery-documents.ts';

let svc: TestServer;
let pageHtml: string;
before(async () => {
  svc = await startTestServer();
  const res = await fetch(`${svc.url}/connect`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  pageHtml = await res.text();
});
after(async () => {
  await svc?.close();
});

const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
function pre(id: string): string {
  const m = new RegExp(`<pre id="${id}">([\\s\\S]*?)</pre>`).exec(pageHtml);
  assert.ok(m, `the page has #${id}`);
  return unescapeHtml(m[1]!);
}
/** Runs a command from the page in bash, with <placeholders> filled in (async: the server shares this process). */
async function run(command: string, values: Record<string, string> = {}): Promise<string> {
  let cmd = command;
  for (const [k, v] of Object.entries(values)) cmd = cmd.replaceAll(`<${k}>`, v);
  assert.doesNotMatch(cmd, /<[a-z_]+>/, `every placeholder filled: ${cmd}`);
  return (await promisify(execFile)('bash', ['-c', cmd], { encoding: 'utf8', timeout: 30_000 })).stdout;
}

test('/connect: client configurations for this server, every registry tool, linked from the home page and the api-catalog', async () => {
  const mcp = `${svc.ctx.config.baseUrl}/api/mcp`;
  assert.match(pageHtml, new RegExp(`<code id="mcp-url">${mcp}</code>`));
  assert.equal(pre('config-claude-code'), `claude mcp add --transport http siteline ${mcp}`);
  assert.deepEqual(JSON.parse(pre('config-cursor')), { mcpServers: { siteline: { url: mcp } } });
  assert.deepEqual(JSON.parse(pre('config-vscode')), { servers: { siteline: { type: 'http', url: mcp } } });
  for (const tool of MCP_TOOLS) {
    const section = new RegExp(`<section class="tool" id="tool-${tool.name}">([\\s\\S]*?)</section>`).exec(pageHtml);
    assert.ok(section, `${tool.name} is described`);
    assert.ok(unescapeHtml(section[1]!).includes(tool.description), `${tool.name}: its registry description`);
    assert.ok(unescapeHtml(section[1]!).includes(tool.title));
    assert.match(section[1]!, tool.access === 'gated' ? /Needs sign-in/ : /Public: no token needed/);
  }
  const home = await (await fetch(`${svc.url}/`)).text();
  assert.match(home, /<a href="\/connect" id="connect-link">/);
  const catalog = (await (await fetch(`${svc.url}/.well-known/api-catalog`)).json()) as {
    linkset: Array<Record<string, Array<{ href: string; type: string }>>>;
  };
  assert.ok(catalog.linkset[0]!['service-doc']!.some((l) => l.href === `${svc.ctx.config.baseUrl}/connect` && l.type === 'text/html'));
  assert.match(await (await fetch(`${svc.url}/docs/mcp`)).text(), /\{base_url\}\/connect/);
});

test('/connect: the anonymous curl flow works as shown: register, exchange, call a public tool', async () => {
  const reg = JSON.parse(await run(pre('curl-register-anonymous')));
  assert.ok(reg.identity_assertion, JSON.stringify(reg));
  const tok = JSON.parse(await run(pre('curl-exchange-anonymous'), { identity_assertion: reg.identity_assertion }));
  assert.equal(tok.scope, 'mcp.public', JSON.stringify(tok));
  const out = await run(pre('curl-call-tool'), { access_token: tok.access_token });
  const msg = parseRpcBody(out, out.startsWith('{') ? 'application/json' : 'text/event-stream');
  assert.ok(msg?.result, out.slice(0, 300));
  assert.equal(msg.error, undefined);
});

test('/connect: the service_auth curl flow works as shown: register, the person confirms, poll, exchange, revoke', async () => {
  const reg = JSON.parse(await run(pre('curl-register-service-auth')));
  assert.ok(reg.claim_token && reg.claim?.user_code, JSON.stringify(reg));
  const jar = await signUpOrIn(svc.url, 'you@example.com');
  const pending = JSON.parse(await run(pre('curl-poll-claim'), { claim_token: reg.claim_token }));
  assert.equal(pending.error, 'authorization_pending');
  assert.equal((await confirmClaimOnPage(svc.url, reg.claim.verification_uri, reg.claim.user_code, jar)).status, 200);
  await new Promise((r) => setTimeout(r, reg.claim.interval * 1000)); // the page says: poll every interval seconds
  const done = JSON.parse(await run(pre('curl-poll-claim'), { claim_token: reg.claim_token }));
  assert.equal(done.scope, 'mcp', JSON.stringify(done));
  const renewed = JSON.parse(await run(pre('curl-exchange-claimed'), { identity_assertion: done.identity_assertion }));
  assert.equal(renewed.scope, 'mcp', JSON.stringify(renewed));
  const revoked = JSON.parse(await run(pre('curl-revoke'), { identity_assertion: done.identity_assertion }));
  assert.equal(revoked.revoked, true, JSON.stringify(revoked));
});

test('server card: the authentication note and "required" come from the tools access flags', async () => {
  const tools = [
    { name: 'alpha', access: 'public' as const },
    { name: 'beta', access: 'gated' as const },
  ];
  assert.deepEqual(authenticationSummary(tools), {
    required: false,
    note: 'tools/list and the public tools (alpha) are open; beta needs a bearer token with scope mcp (a 401 starts OAuth).',
  });
  const allGated = authenticationSummary(tools.map((t) => ({ ...t, access: 'gated' as const })));
  assert.equal(allGated.required, true);
  assert.match(allGated.note, /alpha, beta need a bearer token/);
  assert.match(authenticationSummary(tools.map((t) => ({ ...t, access: 'public' as const }))).note, /no tool needs a token/);
  // A tool whose flag changes changes the card.
  const flipped = MCP_TOOLS.map((t) => (t.name === 'previewSiteCoverage' ? { ...t, access: 'gated' as const } : t));
  const flippedNote = String((serverCard(svc.ctx.config, flipped).authentication as { note: string }).note);
  assert.match(flippedNote, /; previewSiteCoverage, getFeasibilitySnapshot(, \w+)* need a bearer token/);
  assert.doesNotMatch(flippedNote.split(';')[0]!, /previewSiteCoverage/);

  const card = (await (await fetch(`${svc.url}/.well-known/mcp/server-card.json`)).json()) as { authentication: { note: string; required: boolean } };
  assert.equal(card.authentication.note, authenticationSummary(MCP_TOOLS).note);
  for (const t of MCP_TOOLS) assert.ok(card.authentication.note.includes(t.name), `${t.name} is in the note`);
  assert.equal(card.authentication.required, false);
});
