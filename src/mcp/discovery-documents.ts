// Discovery documents for agents: the MCP server card (two paths, one document), the RFC 9727
// api-catalog linkset, and the MCP guide it points at. Built from the config at request time
// (the base URL is final only once the server listens).
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import type { Config } from '../config.ts';
import type { HttpApp, HttpContext } from '../http/http-app.ts';
import { jsonReply } from '../http/reply.ts';
import { serverIdentity, MODERN_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSION } from './server-identity.ts';
import { MCP_TOOLS } from './registry.ts';
import type { McpToolDefinition } from './tool-definition.ts';
import { DISCOVERY_PATHS } from '../http/discovery-paths.ts';

const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
const LINKSET_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

/** The card's authentication block, from the tools' access flags: which tools are open, which need a token. */
export function authenticationSummary(tools: readonly Pick<McpToolDefinition, 'name' | 'access'>[]): { required: boolean; note: string } {
  const open = tools.filter((t) => t.access === 'public').map((t) => t.name);
  const gated = tools.filter((t) => t.access === 'gated').map((t) => t.name);
  const list = (names: string[]) => names.join(', ');
  const openPart = open.length ? `tools/list and the public tools (${list(open)}) are open` : 'tools/list is open';
  const gatedPart = gated.length
    ? `${list(gated)} ${gated.length === 1 ? 'needs' : 'need'} a bearer token with scope mcp (a 401 starts OAuth)`
    : 'no tool needs a token';
  return { required: open.length === 0 && gated.length > 0, note: `${openPart}; ${gatedPart}.` };
}

export function serverCard(config: Config, tools: readonly McpToolDefinition[] = MCP_TOOLS): Record<string, unknown> {
  const id = serverIdentity();
  const endpoint = `${config.baseUrl}/api/mcp`;
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: id.name,
    version: id.version,
    title: id.title,
    description: id.description,
    websiteUrl: config.baseUrl,
    protocolVersion: MODERN_PROTOCOL_VERSION,
    serverInfo: { name: id.name, title: id.title, version: id.version },
    remotes: [{ type: 'streamable-http', url: endpoint, supportedProtocolVersions: [MODERN_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSION] }],
    transport: { type: 'streamable-http', endpoint },
    capabilities: { tools: { listChanged: false } },
    // The catalogue is served by tools/list at run time; it is the authority.
    tools: 'dynamic',
    authentication: {
      ...authenticationSummary(tools),
      schemes: ['oauth2'],
      protectedResourceMetadata: `${config.baseUrl}/.well-known/oauth-protected-resource/api/mcp`,
    },
    documentation: `${config.baseUrl}${DISCOVERY_PATHS.connect}`,
  };
}

export function apiCatalog(config: Config): Record<string, unknown> {
  const base = config.baseUrl;
  return {
    linkset: [
      {
        anchor: `${base}/api/mcp`,
        'service-desc': [{ href: `${base}${DISCOVERY_PATHS.serverCard}`, type: 'application/json', title: 'MCP server card' }],
        'service-doc': [
          { href: `${base}${DISCOVERY_PATHS.connect}`, type: 'text/html', title: 'Connect an agent or MCP client' },
          { href: `${base}${DISCOVERY_PATHS.mcpGuide}`, type: 'text/markdown', title: 'MCP endpoint guide' },
        ],
        'service-meta': [
          { href: `${base}/.well-known/oauth-protected-resource/api/mcp`, type: 'application/json', title: 'OAuth protected-resource metadata' },
          { href: `${base}/.well-known/oauth-authorization-server`, type: 'application/json', title: 'OAuth authorization-server metadata' },
        ],
      },
      {
        anchor: `${base}/api/v1`,
        'service-desc': [{ href: `${base}/api/v1/openapi.json`, type: 'application/openapi+json;version=3.1', title: 'Prepaid REST API (OpenAPI 3.1)' }],
        'service-doc': [{ href: `${base}/docs/api`, type: 'text/html', title: 'REST API reference' }],
      },
    ],
  };
}

const GUIDE_FILE = path.resolve(import.meta.dirname, '../../docs/mcp.md');

export function registerDiscoveryDocuments(app: HttpApp, ctx: AppContext): void {
  const card = (contentType: string) => (c: HttpContext) =>
    jsonReply(c, 200, serverCard(ctx.config), { 'content-type': contentType, 'cache-control': 'public, max-age=300', 'access-control-allow-origin': '*' });
  app.pages.get(DISCOVERY_PATHS.serverCard, card('application/json; charset=utf-8'));
  app.pages.get(DISCOVERY_PATHS.serverCardAlias, card('application/mcp-server-card+json'));
  app.pages.get(DISCOVERY_PATHS.apiCatalog, (c) =>
    jsonReply(c, 200, apiCatalog(ctx.config), {
      'content-type': LINKSET_TYPE,
      link: `<${ctx.config.baseUrl}${DISCOVERY_PATHS.apiCatalog}>; rel="api-catalog"`,
      'cache-control': 'public, max-age=300',
      'access-control-allow-origin': '*',
    }),
  );
  app.pages.get(DISCOVERY_PATHS.mcpGuide, (c) => {
    const text = fs.readFileSync(GUIDE_FILE, 'utf8');
    return c.body(text, 200, { 'content-type': 'text/markdown; charset=utf-8' });
  });
}
