// Where the discovery documents are served (src/http/discovery-documents.ts) and linked from (the home page).
export const DISCOVERY_PATHS = {
  serverCard: '/.well-known/mcp/server-card.json',
  serverCardAlias: '/api/mcp/server-card',
  apiCatalog: '/.well-known/api-catalog',
  mcpGuide: '/docs/mcp',
  connect: '/connect',
} as const;
