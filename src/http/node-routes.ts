// Routes whose handlers are written against node:http (req, res, params), registered on the hono app:
// the libraries that bring their own node handler (oidc-provider, the MCP SDK adapter) and the pages
// not yet written as hono handlers. Each is a hono route like any other (same matching, 404/405, error
// formats and metrics label); the handler answers on the raw ServerResponse.
import type { HttpApp, NodeHandler } from './http-app.ts';

export type { NodeHandler as Handler, RouteParams } from './http-app.ts';

export class NodeRoutes {
  constructor(readonly app: HttpApp) {}

  add(method: string, path: string, handler: NodeHandler): this {
    this.app.nodeRoute(method === '*' ? '*' : method.toUpperCase(), path, handler);
    return this;
  }
  get(path: string, handler: NodeHandler): this {
    return this.add('GET', path, handler);
  }
  post(path: string, handler: NodeHandler): this {
    return this.add('POST', path, handler);
  }
  /** Every request under prefix (the prefix itself included) that no route registered before it matched goes to handler. */
  mount(prefix: string, handler: NodeHandler): this {
    return this.add('*', `${prefix.replace(/\/+$/, '')}/*`, (req, res, params) => {
      // A path a route holds for another method is a 405, never the mount's (the hand router's rule).
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const allowed = this.app.methodsOf(path);
      if (allowed.length > 0) {
        const a = this.app.errors.for(path)(req, 405, 'method_not_allowed', `Method ${req.method} is not allowed here. Allowed: ${allowed.join(', ')}.`, { allow: allowed.join(', ') });
        res.writeHead(a.status, a.headers);
        res.end(a.body);
        return;
      }
      return handler(req, res, params);
    });
  }
}
