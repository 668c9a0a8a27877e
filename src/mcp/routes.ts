// Mounts POST /api/mcp (every method reaches the endpoint, which answers 405 itself with a JSON-RPC body).
import type { AppContext } from '../context.ts';
import type { Router } from '../http/router.ts';
import { createMcpEndpoint } from './endpoint.ts';

export const MCP_PATH = '/api/mcp';

export function registerMcpRoutes(router: Router, ctx: AppContext): void {
  const endpoint = createMcpEndpoint(ctx);
  router.add('*', MCP_PATH, (req, res) => endpoint.handle(req, res));
}
