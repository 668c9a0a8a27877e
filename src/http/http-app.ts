// The one hono app every surface mounts its routes on (src/app.ts builds it), with what the server needs
// beside the routes: the error formats per path (src/http/errors.ts), the 405 that lists a path's
// methods, and the matched route pattern for the metrics label. Libraries that bring their own node
// handler (oidc-provider, the MCP SDK adapter) are mounted as routes that answer on the raw
// IncomingMessage/ServerResponse (`nodeRoute`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono, type Context, type Handler } from 'hono';
import { routePath } from 'hono/route';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Logger } from '../logger.ts';
import { ErrorFormats, isDomainRefusal, requestId, type ErrorAnswer } from './errors.ts';

export type HttpEnv = { Bindings: HttpBindings };
export type HttpContext = Context<HttpEnv>;
export type RouteParams = Record<string, string>;
/** A handler written against node:http (a library's, or a page that streams): it answers on res itself. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, params: RouteParams) => unknown | Promise<unknown>;

/** The metrics label of a request no route matched. */
export const UNMATCHED = 'unmatched';
const ROUTE_LABEL = Symbol('siteline.route');

/** The matched route pattern of an answered request ('/api/v1/keys/:id', '/oauth/*'), or 'unmatched': a low-cardinality metrics label. */
export function routeLabel(req: IncomingMessage): string {
  return (req as IncomingMessage & { [ROUTE_LABEL]?: string })[ROUTE_LABEL] ?? UNMATCHED;
}

/** A handler that answers on every path (a page, a redirect, a JSON body): checked by the compiler, unlike hono's, which may return nothing. */
export type Answer = (c: HttpContext) => Response | Promise<Response>;

export class HttpApp extends Hono<HttpEnv> {
  /** How errors are answered under each path: surfaces register their format when they mount. */
  readonly errors = new ErrorFormats();

  /** GET and POST routes whose handlers must answer (hono's get/post, with the handler's type checked). */
  readonly pages = {
    get: (path: string, handler: Answer): void => void this.get(path, handler),
    post: (path: string, handler: Answer): void => void this.post(path, handler),
  };

  constructor(logger: Logger) {
    // strict: false, as the hand router was: /account/ is /account.
    super({ strict: false });
    this.use(async (c, next) => {
      await next();
      if (!notFoundAnswered.has(c)) (c.env.incoming as IncomingMessage & { [ROUTE_LABEL]?: string })[ROUTE_LABEL] = routePath(c);
    });
    this.notFound((c) => {
      notFoundAnswered.add(c);
      const method = c.req.method;
      const allowed = this.methodsOf(c.req.path);
      const format = this.errors.for(c.req.path);
      if (allowed.length > 0) {
        return answer(
          format(c.env.incoming, 405, 'method_not_allowed', `Method ${method} is not allowed here. Allowed: ${allowed.join(', ')}.`, {
            allow: allowed.join(', '),
          }),
        );
      }
      return answer(format(c.env.incoming, 404, 'not_found', `No route for ${method} ${c.req.path}.`));
    });
    this.onError((err, c) => {
      const req = c.env.incoming;
      if (c.env.outgoing.headersSent) {
        // A node handler failed after it began its answer: nothing can be said any more.
        logger.error({ requestId: requestId(req), err }, 'failure after headers were sent');
        c.env.outgoing.destroy();
        return RESPONSE_ALREADY_SENT;
      }
      if (!isDomainRefusal(err)) logger.error({ requestId: requestId(req), err }, 'unexpected failure');
      return answer(this.errors.forError(req, c.req.path, err));
    });
  }

  /** The methods registered for a path (in registration order), for the 405's Allow header. */
  methodsOf(path: string): string[] {
    const base = this.router.match('SITELINE-NO-METHOD', path)[0].length;
    const methods: string[] = [];
    for (const r of this.routes) {
      if (r.method === 'ALL' || methods.includes(r.method)) continue;
      if (this.router.match(r.method, path)[0].length > base) methods.push(r.method);
    }
    return methods;
  }

  /**
   * Every request under prefix (the prefix itself included) that no route registered before it matched goes
   * to a node handler (oidc-provider). A path a route holds for another method is a 405, never the mount's.
   */
  nodeMount(prefix: string, handler: NodeHandler): this {
    return this.nodeRoute('*', `${prefix.replace(/\/+$/, '')}/*`, (req, res, params) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const allowed = this.methodsOf(path);
      if (allowed.length > 0) {
        const a = this.errors.for(path)(req, 405, 'method_not_allowed', `Method ${req.method} is not allowed here. Allowed: ${allowed.join(', ')}.`, {
          allow: allowed.join(', '),
        });
        res.writeHead(a.status, a.headers);
        res.end(a.body);
        return;
      }
      return handler(req, res, params);
    });
  }

  /** A route answered by a node handler on the raw request and response (method '*' for every method). */
  nodeRoute(method: string, path: string, handler: NodeHandler): this {
    const h = nodeHandler(handler);
    if (method === '*') this.all(path, h);
    else this.on(method, path, h);
    return this;
  }
}

const notFoundAnswered = new WeakSet<object>();

/** A node handler as a hono handler: it answers on c.env.outgoing, and the adapter writes nothing more. */
export function nodeHandler(handler: NodeHandler): Handler<HttpEnv> {
  return async (c) => {
    // Labelled before it runs: a node handler's answer can be finished (and counted) before it returns.
    (c.env.incoming as IncomingMessage & { [ROUTE_LABEL]?: string })[ROUTE_LABEL] = routePath(c);
    await handler(c.env.incoming, c.env.outgoing, c.req.param() as RouteParams);
    return RESPONSE_ALREADY_SENT;
  };
}

/** An ErrorAnswer as the handler's response. */
export function answer(a: ErrorAnswer): Response {
  return new Response(a.body, { status: a.status, headers: a.headers });
}
