// The MCP surface's routes: POST /api/mcp (every method reaches the endpoint, which answers 405 itself
// with a JSON-RPC body), the discovery documents (server card, api-catalog, the guide) and the connect
// page that documents the endpoint for people.
import type { AppContext } from '../context.ts';
import type { HttpApp } from '../http/http-app.ts';
import { createMcpEndpoint } from './endpoint.ts';
import { registerDiscoveryDocuments } from './discovery-documents.ts';
import { registerConnectPage } from './connect-page.ts';

export const MCP_PATH = '/api/mcp';

export function mountRoutes(app: HttpApp, ctx: AppContext): void {
  const endpoint = createMcpEndpoint(ctx);
  // The SDK's node handler answers on the raw request and response.
  app.nodeRoute('*', MCP_PATH, (req, res) => endpoint.handle(req, res));
  registerDiscoveryDocuments(app, ctx);
  registerConnectPage(app, ctx);
}
