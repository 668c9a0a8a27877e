// GET /connect: how an agent engineer connects a client. Client configurations for the remote URL
// (OAuth is discovered from the 401), the agent registration flow with curl against the real
// endpoints and grant URNs, the token rules from src/auth/lifetimes.ts, and the tools as the
// registry declares them (names, titles, descriptions, access, inputs): nothing here is written per tool.
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { htmlPage } from '../http/page.ts';
import { CLAIM_GRANT, JWT_BEARER_GRANT, PATHS, SCOPE_MCP, SCOPE_PUBLIC, mcpResource, url } from '../auth/endpoints.ts';
import {
  ANONYMOUS_ASSERTION_TTL_S,
  CEREMONY_TTL_S,
  CLAIM_POLL_INTERVAL_S,
  CLAIM_TTL_S,
  CLAIMED_ASSERTION_TTL_S,
  DAY_S,
  HOUR_S,
  MAX_WRONG_CODES,
  OAUTH_ACCESS_TTL_S,
  OAUTH_REFRESH_TTL_S,
  PRE_CLAIM_TOKEN_TTL_S,
  SLOW_DOWN_STEP_S,
} from '../auth/lifetimes.ts';
import { USER_JWT_TTL_S } from '../auth/user-jwt.ts';
import { MCP_TOOLS } from './registry.ts';
import type { McpToolDefinition } from './tool-definition.ts';
import { html, type Html } from '../http/html.ts';
import { page } from '../http/page.ts';
import { accountForWebSession } from '../auth/web-sessions.ts';
import { SESSION_COOKIE, readCookie } from '../http/cookies.ts';
import { PAGE_HEADERS } from '../http/page.ts';

export const CONNECT_PATH = '/connect';

function duration(s: number): string {
  if (s % DAY_S === 0) return `${s / DAY_S} day${s === DAY_S ? '' : 's'}`;
  if (s % HOUR_S === 0) return `${s / HOUR_S} hour${s === HOUR_S ? '' : 's'}`;
  if (s % 60 === 0) return `${s / 60} minutes`;
  return `${s} seconds`;
}

/** The input parameters of a tool, from its zod schema: name, required, description. */
function toolInputs(tool: McpToolDefinition): Array<{ name: string; required: boolean; description: string }> {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { description?: string }>;
    required?: string[];
  };
  return Object.entries(schema.properties ?? {}).map(([name, p]) => ({
    name,
    required: (schema.required ?? []).includes(name),
    description: p.description ?? '',
  }));
}

function toolSection(tool: McpToolDefinition): Html {
  const a = tool.annotations;
  const hints = [
    a.readOnlyHint ? 'read-only' : 'writes',
    a.destructiveHint ? 'destructive' : '',
    a.idempotentHint ? 'idempotent' : '',
    a.openWorldHint ? 'open world' : '',
  ]
    .filter(Boolean)
    .join(', ');
  const inputs = toolInputs(tool);
  return html`<section class="tool" id="tool-${tool.name}">
<h3><code>${tool.name}</code> · ${tool.title}</h3>
<p><strong>${tool.access === 'gated' ? `Needs sign-in (a token with scope ${SCOPE_MCP})` : 'Public: no token needed'}</strong> · ${hints}</p>
<p>${tool.description}</p>
${inputs.length ? html`<ul>${inputs.map((i) => html`<li><code>${i.name}</code>${i.required ? '' : ' (optional)'}${i.description ? html`: ${i.description}` : ''}</li>`)}</ul>` : html`<p>No arguments.</p>`}
</section>`;
}

/** The shell commands of the agent registration flow, with <placeholders> for values from earlier steps. */
export function agentCurlSteps(
  baseUrl: string,
): Record<'registerAnonymous' | 'exchangeAnonymous' | 'registerServiceAuth' | 'pollClaim' | 'exchangeClaimed' | 'callTool' | 'revoke', string> {
  const mcp = `${baseUrl}/api/mcp`;
  return {
    registerAnonymous: `curl -s -X POST ${baseUrl}${PATHS.identity} -H 'content-type: application/json' -d '{"type":"anonymous"}'`,
    exchangeAnonymous: `curl -s -X POST ${baseUrl}${PATHS.token} -d grant_type=${JWT_BEARER_GRANT} -d assertion=<identity_assertion>`,
    registerServiceAuth: `curl -s -X POST ${baseUrl}${PATHS.identity} -H 'content-type: application/json' -d '{"type":"service_auth","login_hint":"you@example.com"}'`,
    pollClaim: `curl -s -X POST ${baseUrl}${PATHS.token} -d grant_type=${CLAIM_GRANT} -d claim_token=<claim_token>`,
    exchangeClaimed: `curl -s -X POST ${baseUrl}${PATHS.token} -d grant_type=${JWT_BEARER_GRANT} -d assertion=<identity_assertion>`,
    callTool:
      `curl -s -X POST ${mcp} -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -H 'authorization: Bearer <access_token>' ` +
      `-d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"previewSiteCoverage","arguments":{"address":"57 Inman St, Cambridge, MA"}}}'`,
    revoke: `curl -s -X POST ${baseUrl}${PATHS.agentRevoke} -d token=<identity_assertion>`,
  };
}

export function connectPage(ctx: AppContext, tools: readonly McpToolDefinition[] = MCP_TOOLS): Html {
  const base = ctx.config.baseUrl;
  const mcp = mcpResource(ctx.config);
  const steps = agentCurlSteps(base);
  const gated = tools.filter((t) => t.access === 'gated').map((t) => t.name);
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return html`<p>siteline's MCP endpoint is <code id="mcp-url">${mcp}</code> (Streamable HTTP; protocol 2026-07-28 and the stateless 2025 leg).
${gated.length ? html`Listing tools and the public tools need no token; ${gated.map((n, i) => html`${i ? ', ' : ''}<code>${n}</code>`)} ${gated.length === 1 ? 'needs' : 'need'} you to sign in.` : 'Every tool is public.'}
Clients discover OAuth from the 401 answer: point them at the URL, and they open a browser for you to sign in and allow access (a new account confirms its e-mail address first, through the link it is sent).</p>

<h2 id="clients">Connect a client</h2>
<h3>Claude Code</h3>
<pre id="config-claude-code">claude mcp add --transport http siteline ${mcp}</pre>
<p>Then run <code>/mcp</code> in Claude Code and choose siteline to sign in.</p>
<h3>Claude Desktop and claude.ai</h3>
<p>Settings › Connectors › Add custom connector, URL <code>${mcp}</code>. Anthropic's servers connect to it, so the service needs a public https base URL (<code>SITELINE_BASE_URL</code>).</p>
<h3>Cursor (<code>~/.cursor/mcp.json</code> or <code>.cursor/mcp.json</code>)</h3>
<pre id="config-cursor">${json({ mcpServers: { siteline: { url: mcp } } })}</pre>
<h3>VS Code (<code>.vscode/mcp.json</code>)</h3>
<pre id="config-vscode">${json({ servers: { siteline: { type: 'http', url: mcp } } })}</pre>
<h3>MCP Inspector</h3>
<pre id="config-inspector">npx @modelcontextprotocol/inspector</pre>
<p>Transport type <em>Streamable HTTP</em>, URL <code>${mcp}</code>, then <em>Open Auth Settings</em> › <em>Quick OAuth Flow</em> (or just call a gated tool and follow the sign-in).</p>
<h3>What a client does (OAuth 2.1, all discoverable)</h3>
<ul>
<li>A gated call without a token answers 401 with <code>WWW-Authenticate: Bearer resource_metadata="${url(ctx.config, PATHS.protectedResourceMcp)}"</code>.</li>
<li>Authorization server metadata: <code>${url(ctx.config, PATHS.authorizationServer)}</code>. Dynamic Client Registration: <code>${url(ctx.config, PATHS.register)}</code> (public clients, no secret); Client ID Metadata Documents are accepted too.</li>
<li>Authorization code with PKCE S256 at <code>${url(ctx.config, PATHS.authorize)}</code>, <code>resource=${mcp}</code>, scope <code>${SCOPE_MCP}</code>; redirect URIs: https, a private-use scheme, or http on a loopback address (any port).</li>
<li>Token endpoint <code>${url(ctx.config, PATHS.token)}</code> (authorization_code and refresh_token); revocation <code>${url(ctx.config, PATHS.oauthRevoke)}</code>.</li>
</ul>

<h2 id="agents">Agents without a browser: registration with curl</h2>
<p>An agent registers itself, a person links it to their account by typing a code, and the agent gets tokens.
Answers are JSON; errors are OAuth bodies <code>{error, error_description}</code>.</p>
<ol>
<li><p>Register, naming the person who will link it (or <code>{"type":"anonymous"}</code> for public tools only, see below):</p>
<pre id="curl-register-service-auth">${steps.registerServiceAuth}</pre>
<p>The answer (201) holds <code>claim_token</code> (shown once: keep it) and <code>claim: {user_code, verification_uri, interval, expires_in}</code>.</p></li>
<li><p>Show the person <code>verification_uri</code> and <code>user_code</code>. They open the link, sign in or sign up (a new account confirms its e-mail address first), and type the code.</p></li>
<li><p>Poll every <code>interval</code> seconds:</p>
<pre id="curl-poll-claim">${steps.pollClaim}</pre>
<p><code>authorization_pending</code>: keep polling; <code>slow_down</code>: add ${SLOW_DOWN_STEP_S} s to the interval; <code>expired_token</code>: call <code>${url(ctx.config, PATHS.claim)}</code> with the same claim token for a new code; 410 <code>claim_expired</code>: register again.
When the person confirms, the answer is <code>{access_token, expires_in, scope: "${SCOPE_MCP}", identity_assertion}</code>.</p></li>
<li><p>Call the endpoint with the token (the 2025 leg shown; each POST stands alone):</p>
<pre id="curl-call-tool">${steps.callTool}</pre></li>
<li><p>When the access token expires, exchange the identity assertion for a new one:</p>
<pre id="curl-exchange-claimed">${steps.exchangeClaimed}</pre></li>
<li><p>To stop, revoke the assertion:</p>
<pre id="curl-revoke">${steps.revoke}</pre></li>
</ol>
<p>Public tools only, with nobody to link: register anonymously and exchange its assertion for a <code>${SCOPE_PUBLIC}</code> token.</p>
<pre id="curl-register-anonymous">${steps.registerAnonymous}</pre>
<pre id="curl-exchange-anonymous">${steps.exchangeAnonymous}</pre>

<h2 id="tokens">Token rules</h2>
<ul>
<li>Every token is sent as <code>Authorization: Bearer …</code>. A token that is present but invalid or expired is refused (401) on every method, never treated as anonymous.</li>
<li><code>${SCOPE_PUBLIC}</code> opens the public tools; <code>${SCOPE_MCP}</code> opens every tool and covers <code>${SCOPE_PUBLIC}</code>. A public-only token on a gated tool: 403 <code>insufficient_scope</code>.</li>
<li>Access tokens last ${duration(USER_JWT_TTL_S)} (browser OAuth: ${duration(OAUTH_ACCESS_TTL_S)}; anonymous <code>${SCOPE_PUBLIC}</code> tokens: ${duration(PRE_CLAIM_TOKEN_TTL_S)}).</li>
<li>Browser OAuth refresh tokens last ${duration(OAUTH_REFRESH_TTL_S)} and rotate on every use: the old one stops working.</li>
<li>Identity assertions: ${duration(CLAIMED_ASSERTION_TTL_S)} once linked to a person, ${duration(ANONYMOUS_ASSERTION_TTL_S)} while anonymous.</li>
<li>A registration can be linked for ${duration(CLAIM_TTL_S)}; one code lasts ${duration(CEREMONY_TTL_S)} and allows ${MAX_WRONG_CODES} wrong tries; poll every ${CLAIM_POLL_INTERVAL_S} s.</li>
</ul>

<h2 id="tools">Tools</h2>
<p>From the tool registry, as <code>tools/list</code> serves them.</p>
${tools.map(toolSection)}
<p>Implementer notes (transport rules, limits, caching): <a href="/docs/mcp">/docs/mcp</a> (markdown).</p>`;
}

export function registerConnectPage(app: HttpApp, ctx: AppContext): void {
  app.pages.get(CONNECT_PATH, async (c) => {
    const account = await accountForWebSession(ctx, readCookie(c, SESSION_COOKIE));
    return htmlPage(c, 200, page('Connect an agent or MCP client', connectPage(ctx), { signedInAs: account?.email ?? null, wide: true }), PAGE_HEADERS);
  });
}
