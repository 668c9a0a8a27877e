// The one HTTP server the app (src/app.ts) answers on, through hono's node adapter. Logs one JSON line
// per request (path only: query strings can carry codes and tokens), refuses a NUL byte in the URL and
// a foreign Host before any route sees the request (in the error format of the path: src/http/errors.ts),
// and stops without dropping a request (drainHttpServer).
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { getRequestListener } from '@hono/node-server';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { allowedHostnames, hostAllowed } from './host-rules.ts';
import { clientIp, forwardedHeader } from './client-ip.ts';
import { routeLabel, type HttpApp } from './http-app.ts';
import type { ErrorAnswer } from './errors.ts';

/** What the server reads of the application context (an AppContext has it). */
export interface ServerDeps {
  config: Config;
  logger: Logger;
  metrics?: { observeRequest(route: string, method: string, status: number, seconds: number): void } | undefined;
  lifecycle?: { lastRequestAt?: number } | undefined;
}

/** Paths answered whatever the Host header says (load balancers probe them by address). */
const ANY_HOST_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Once the listener is closed, a kept-alive connection idle this long is closed (FIN, never a reset); one with a request gets its answer first. */
export const IDLE_LINGER_MS = 1_000;

interface Connection {
  /** Requests on it not yet answered. */
  active: number;
  /** performance.now() when it last became idle (accepted, or its last answer finished). */
  idleSince: number;
  /** This side has been closed (FIN sent). */
  ended: boolean;
}

interface Tracked {
  connections: Map<Socket, Connection>;
  /** Set when the listener closes: every answer not begun says Connection: close. */
  closing: boolean;
  inflight: Set<ServerResponse>;
}

const tracked = new WeakMap<http.Server, Tracked>();

export function createHttpServer(ctx: ServerDeps, app: HttpApp): http.Server {
  // The documented fast path: the adapter's own Request/Response replace the globals, so a handler's
  // Response with a string body and plain headers is written without a web stream.
  const listener = getRequestListener(app.fetch, {
    overrideGlobalObjects: true,
    // A request the adapter cannot turn into a Request (an absolute URL it refuses, a backslash in the path): a 400 in the path's format.
    errorHandler: (err) => {
      const body = JSON.stringify({
        error: { code: 'bad_input', message: `The request could not be read: ${err instanceof Error ? err.message : 'bad request'}.`, requestId: '' },
      });
      return new Response(body, { status: 400, headers: { 'content-type': 'application/json; charset=utf-8' } });
    },
  });
  // The allowed hostnames follow the config (with port 0 the base URL is final only once the server listens).
  let hosts: { key: string; set: Set<string> } | undefined;
  const allowed = () => {
    const key = `${ctx.config.baseUrl} ${ctx.config.host}`;
    if (hosts?.key !== key) hosts = { key, set: allowedHostnames(ctx.config) };
    return hosts.set;
  };
  const state: Tracked = { connections: new Map(), closing: false, inflight: new Set() };
  const server = http.createServer((req, res) => {
    const conn = state.connections.get(req.socket);
    if (conn?.ended) {
      // Bytes that came after this side was closed cannot be answered (the client sees the close): read, not refused.
      req.resume();
      return;
    }
    if (conn) conn.active++;
    state.inflight.add(res);
    // Stopping (the listener closed): this answer is the connection's last, so keep-alive clients reconnect elsewhere.
    if (state.closing) res.shouldKeepAlive = false;
    // Stamped as each request starts and ends: the background audit gives way (src/importer/background-pace.ts).
    if (ctx.lifecycle) ctx.lifecycle.lastRequestAt = performance.now();
    res.once('close', () => {
      state.inflight.delete(res);
      if (conn) {
        conn.active--;
        conn.idleSince = performance.now();
      }
      if (ctx.lifecycle) ctx.lifecycle.lastRequestAt = performance.now();
    });
    void handle(ctx, app, listener, req, res, allowed);
  });
  server.on('connection', (socket: Socket) => {
    state.connections.set(socket, { active: 0, idleSince: performance.now(), ended: false });
    socket.once('close', () => state.connections.delete(socket));
  });
  server.keepAliveTimeout = 65_000;
  tracked.set(server, state);
  return server;
}

/**
 * Stops the server without dropping a request (SIGTERM, after the pre-stop period): the listener closes
 * (no new connection is accepted); every request whose bytes arrived is answered, with Connection:
 * close; a kept-alive connection, or one accepted whose request has not come, is closed once it has
 * been idle IDLE_LINGER_MS, by this side's FIN (socket.end(): what still arrives is read, never
 * answered with a reset). Node's own server.close() destroys every connection without a request in
 * progress at once (a request on its way is then reset), so the listener is closed as a plain
 * net.Server. Resolves true when every connection closed by the deadline (performance.now() time);
 * false when some were cut there.
 */
export async function drainHttpServer(server: http.Server, deadline: number): Promise<boolean> {
  const state = tracked.get(server);
  if (!state) throw new Error('drainHttpServer: not a server made by createHttpServer');
  state.closing = true;
  for (const res of state.inflight) if (!res.headersSent) res.shouldKeepAlive = false;
  const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
  const sweep = () => {
    const now = performance.now();
    for (const [socket, conn] of state.connections) {
      if (conn.ended || conn.active > 0 || now - conn.idleSince < IDLE_LINGER_MS) continue;
      conn.ended = true;
      socket.end();
    }
  };
  sweep();
  const timer = setInterval(sweep, 50);
  let cut: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      closed.then(() => true),
      new Promise<boolean>((r) => (cut = setTimeout(() => r(false), Math.max(0, deadline - performance.now())))),
    ]);
  } finally {
    clearInterval(timer);
    clearTimeout(cut);
    for (const socket of state.connections.keys()) socket.destroy();
    await closed;
  }
}

/** Paths whose last part is a credential (e-mail verification, password reset, e-mail change links): logged without it. */
const SECRET_IN_PATH = /^(\/(?:verify-email|reset-password|confirm-email-change)\/)[^/]+/;

async function handle(
  ctx: ServerDeps,
  app: HttpApp,
  listener: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>,
  req: IncomingMessage,
  res: ServerResponse,
  allowedHosts: () => Set<string>,
): Promise<void> {
  const started = process.hrtime.bigint();
  const id = (req.headers['x-request-id'] as string | undefined)?.slice(0, 64) || randomUUID();
  (req as IncomingMessage & { requestId?: string }).requestId = id;
  res.setHeader('x-request-id', id);
  let pathname = '/';
  try {
    pathname = new URL(req.url ?? '/', 'http://x').pathname;
  } catch {
    pathname = '/';
  }
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // The metrics label: the matched route pattern, never the raw path (ids and tokens would explode it).
    ctx.metrics?.observeRequest(routeLabel(req), req.method ?? 'GET', res.statusCode, ms / 1000);
    ctx.logger.info(
      {
        requestId: id,
        client: clientIp(req, ctx.config),
        method: req.method,
        path: pathname.replace(SECRET_IN_PATH, '$1…'),
        status: res.statusCode,
        ms: Math.round(ms * 100) / 100,
      },
      'request',
    );
  });
  // A NUL byte (raw or %00) in the path or query is never part of a valid resource or parameter here.
  if (/%00|\u0000/i.test(req.url ?? '')) {
    return write(res, app.errors.for(pathname)(req, 400, 'bad_input', 'The request URL holds a NUL byte (%00), which no path or parameter here accepts.'));
  }
  // DNS-rebinding protection on every route: a page on another site that resolves its own name to this
  // server must not read it (the dev outbox, the account pages). A trusted proxy may name the host.
  const host = forwardedHeader(req, 'x-forwarded-host', ctx.config) ?? req.headers.host;
  if (!ANY_HOST_PATHS.has(pathname) && !hostAllowed(host, allowedHosts())) {
    return write(
      res,
      app.errors.for(pathname)(
        req,
        403,
        'forbidden',
        `Host "${String(host ?? '').slice(0, 100)}" is not this service's host; request refused (DNS-rebinding protection).`,
      ),
    );
  }
  try {
    await listener(req, res);
  } catch (err) {
    ctx.logger.error({ requestId: id, err }, 'unexpected failure');
    if (!res.headersSent) write(res, app.errors.for(pathname)(req, 500, 'internal', 'Internal error. Quote the request id when reporting it.'));
    else res.destroy();
  }
}

function write(res: ServerResponse, a: ErrorAnswer): void {
  res.writeHead(a.status, a.headers);
  res.end(a.body);
}
