// The one HTTP server every surface mounts on. Logs one JSON line per request (path only: query
// strings can carry codes and tokens), maps domain errors once, hides unexpected failures.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { Router } from './router.ts';
import { HTTP_STATUS_BY_CODE } from './respond.ts';
import { allowedHostnames, hostAllowed } from '../mcp/http-rules.ts';
import { forwardedHeader } from './client-ip.ts';

/** Paths answered whatever the Host header says (load balancers probe them by address). */
const ANY_HOST_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export function createHttpServer(ctx: AppContext, router: Router): http.Server {
  // The allowed hostnames follow the config (with port 0 the base URL is final only once the server listens).
  let hosts: { key: string; set: Set<string> } | undefined;
  const allowed = () => {
    const key = `${ctx.config.baseUrl} ${ctx.config.host}`;
    if (hosts?.key !== key) hosts = { key, set: allowedHostnames(ctx.config) };
    return hosts.set;
  };
  // Answers in progress: when draining starts, each one not yet begun says Connection: close.
  const inflight = new Set<ServerResponse>();
  ctx.lifecycle?.onDrain.push(() => {
    for (const res of inflight) if (!res.headersSent) res.shouldKeepAlive = false;
  });
  const server = http.createServer((req, res) => {
    inflight.add(res);
    // Stamped as each request starts and ends: the background audit gives way (src/importer/background-pace.ts).
    if (ctx.lifecycle) ctx.lifecycle.lastRequestAt = performance.now();
    res.once('close', () => {
      inflight.delete(res);
      if (ctx.lifecycle) ctx.lifecycle.lastRequestAt = performance.now();
    });
    void handle(ctx, router, req, res, allowed);
  });
  server.keepAliveTimeout = 65_000;
  return server;
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
  // Draining (SIGTERM): this answer is the connection's last, so keep-alive clients reconnect elsewhere.
  if (ctx.lifecycle?.draining) res.shouldKeepAlive = false;
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    ctx.metrics?.observeRequest(route, req.method ?? 'GET', res.statusCode, ms / 1000);
    ctx.logger.info({ requestId: id, method: req.method, path: pathname.replace(SECRET_IN_PATH, '$1…'), status: res.statusCode, ms: Math.round(ms * 100) / 100 }, 'request');
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
