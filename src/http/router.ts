// A small route table over node:http: exact paths and ':param' segments, plus prefix mounts for
// libraries that bring their own node handler (the OAuth provider, the MCP SDK adapter).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendError } from './respond.ts';

export type RouteParams = Record<string, string>;
export type Handler = (req: IncomingMessage, res: ServerResponse, params: RouteParams) => unknown | Promise<unknown>;

interface Route {
  method: string; // '*' matches any
  path: string;
  parts: string[];
  handler: Handler;
}

interface Mount {
  prefix: string;
  handler: Handler;
}

export interface Match {
  handler: Handler;
  params: RouteParams;
  /** The route as registered ('/api/v1/keys/:id', a mount as '/api/auth/*'): a low-cardinality metrics label. */
  pattern: string;
}

export class Router {
  private readonly routes: Route[] = [];
  private readonly mounts: Mount[] = [];
  /** How the server answers a 404/405/error: JSON by default; the web surface sets a renderer that gives browsers an HTML page. */
  errorResponder: typeof sendError = sendError;
  private readonly scopedResponders: { prefix: string; responder: typeof sendError }[] = [];

  /** Errors the server itself answers (a NUL byte in the URL, a foreign Host, a failure) under prefix use this responder (REST: problem+json). */
  errorResponderUnder(prefix: string, responder: typeof sendError): this {
    this.scopedResponders.push({ prefix: prefix.replace(/\/+$/, ''), responder });
    this.scopedResponders.sort((a, b) => b.prefix.length - a.prefix.length);
    return this;
  }

  /** The responder for a path: the longest scoped prefix that holds it, else errorResponder. */
  errorResponderFor(pathname: string): typeof sendError {
    const hit = this.scopedResponders.find((s) => pathname === s.prefix || pathname.startsWith(`${s.prefix}/`));
    return hit ? hit.responder : this.errorResponder;
  }

  add(method: string, path: string, handler: Handler): this {
    this.routes.push({ method: method.toUpperCase(), path, parts: split(path), handler });
    return this;
  }
  get(path: string, handler: Handler): this {
    return this.add('GET', path, handler);
  }
  post(path: string, handler: Handler): this {
    return this.add('POST', path, handler);
  }
  /** Every request under prefix (after no exact route matched) goes to handler. */
  mount(prefix: string, handler: Handler): this {
    this.mounts.push({ prefix: prefix.replace(/\/+$/, ''), handler });
    this.mounts.sort((a, b) => b.prefix.length - a.prefix.length);
    return this;
  }

  /** Finds the handler; `allowed` lists the methods of a path that matched with another method. */
  match(method: string, pathname: string): { match?: Match; allowed: string[] } {
    const parts = split(pathname);
    const allowed: string[] = [];
    for (const r of this.routes) {
      const params = matchParts(r.parts, parts);
      if (!params) continue;
      if (r.method === '*' || r.method === method || (method === 'HEAD' && r.method === 'GET')) {
        return { match: { handler: r.handler, params, pattern: r.path }, allowed };
      }
      allowed.push(r.method);
    }
    if (allowed.length === 0) {
      for (const m of this.mounts) {
        if (pathname === m.prefix || pathname.startsWith(m.prefix + '/') || m.prefix === '') {
          return { match: { handler: m.handler, params: {}, pattern: `${m.prefix}/*` }, allowed };
        }
      }
    }
    return { allowed };
  }
}

function split(path: string): string[] {
  return path.split('/').filter(Boolean);
}

function matchParts(pattern: string[], actual: string[]): RouteParams | null {
  if (pattern.length !== actual.length) return null;
  const params: RouteParams = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const a = actual[i]!;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(a);
      } catch {
        return null;
      }
    } else if (p !== a) return null;
  }
  return params;
}
