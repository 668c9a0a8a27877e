// The one HTTP server every surface mounts on. Logs one JSON line per request (path only: query
// strings can carry codes and tokens), maps domain errors once, hides unexpected failures.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { Router } from './router.ts';
import { HTTP_STATUS_BY_CODE } from './respond.ts';
import { allowedHostnames, hostAllowed } from '../mcp/http-rules.ts';
import { clientIp, forwardedHeader } from './client-ip.ts';

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

export function createHttpServer(ctx: AppContext, router: Router): http.Server {
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
    void handle(ctx, router, req, res, allowed);
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
    return await Promise.race([closed.then(() => true), new Promise<boolean>((r) => (cut = setTimeout(() => r(false), Math.max(0, deadline - performance.now()))))]);
  } finally {
    clearInterval(timer);
    clearTimeout(cut);
    for (const socket of state.connections.keys()) socket.destroy();
    await closed;
  }
}

/** Paths whose last part is a credential (e-mail verification, password reset, e-mail change links): logged without it. */
const SECRET_IN_PATH = /^(\/(?:verify-email|reset-password|confirm-email-change)\/)[^/]+/;

async function handle(ctx: AppContext, router: Router, req: IncomingMessage, res: ServerResponse, allowedHosts: () => Set<string>): Promise<void> {
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
  // The metrics label: the matched route pattern, never the raw path (ids and tokens would explode it).
  let route = 'unmatched';
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    ctx.metrics?.observeRequest(route, req.method ?? 'GET', res.statusCode, ms / 1000);
    ctx.logger.info({ requestId: id, client: clientIp(req, ctx.config), method: req.method, path: pathname.replace(SECRET_IN_PATH, '$1…'), status: res.statusCode, ms: Math.round(ms * 100) / 100 }, 'request');
  });
  try {
    // A NUL byte (raw or %00) in the path or query is never part of a valid resource or parameter here.
    if (/%00|\u0000/i.test(req.url ?? '')) {
      router.errorResponderFor(pathname)(req, res, 400, 'bad_input', 'The request URL holds a NUL byte (%00), which no path or parameter here accepts.');
      return;
    }
    // DNS-rebinding protection on every route: a page on another site that resolves its own name to this
    // server must not read it (the dev outbox, the account pages). A trusted proxy may name the host.
    const host = forwardedHeader(req, 'x-forwarded-host', ctx.config) ?? req.headers.host;
    if (!ANY_HOST_PATHS.has(pathname) && !hostAllowed(host, allowedHosts())) {
      router.errorResponderFor(pathname)(req, res, 403, 'forbidden', `Host "${String(host ?? '').slice(0, 100)}" is not this service's host; request refused (DNS-rebinding protection).`);
      return;
    }
    const { match, allowed } = router.match(req.method ?? 'GET', pathname);
    if (!match) {
      if (allowed.length > 0) {
        router.errorResponder(req, res, 405, 'method_not_allowed', `Method ${req.method} is not allowed here. Allowed: ${[...new Set(allowed)].join(', ')}.`, {
          allow: [...new Set(allowed)].join(', '),
        });
      } else {
        router.errorResponder(req, res, 404, 'not_found', `No route for ${req.method} ${pathname}.`);
      }
      return;
    }
    route = match.pattern;
    await match.handler(req, res, match.params);
  } catch (err) {
    if (res.headersSent) {
      ctx.logger.error({ requestId: id, err }, 'failure after headers were sent');
      res.destroy();
      return;
    }
    if (err instanceof SitelineError && err.code !== 'internal') {
      router.errorResponderFor(pathname)(req, res, HTTP_STATUS_BY_CODE[err.code] ?? 400, err.code, err.message);
      return;
    }
    ctx.logger.error({ requestId: id, err }, 'unexpected failure');
    router.errorResponderFor(pathname)(req, res, 500, 'internal', 'Internal error. Quote the request id when reporting it.');
  }
}
