// The one HTTP server every surface mounts on. Logs one JSON line per request (path only: query
// strings can carry codes and tokens), maps domain errors once, hides unexpected failures.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { Router } from './router.ts';
import { HTTP_STATUS_BY_CODE, sendError } from './respond.ts';

export function createHttpServer(ctx: AppContext, router: Router): http.Server {
  const server = http.createServer((req, res) => {
    void handle(ctx, router, req, res);
  });
  server.keepAliveTimeout = 65_000;
  return server;
}

async function handle(ctx: AppContext, router: Router, req: IncomingMessage, res: ServerResponse): Promise<void> {
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
    ctx.logger.info({ requestId: id, method: req.method, path: pathname, status: res.statusCode, ms: Math.round(ms * 100) / 100 }, 'request');
  });
  try {
    // A NUL byte (raw or %00) in the path or query is never part of a valid resource or parameter here.
    if (/%00|\u0000/i.test(req.url ?? '')) {
      sendError(req, res, 400, 'bad_input', 'The request URL holds a NUL byte (%00), which no path or parameter here accepts.');
      return;
    }
    const { match, allowed } = router.match(req.method ?? 'GET', pathname);
    if (!match) {
      if (allowed.length > 0) {
        sendError(req, res, 405, 'method_not_allowed', `Method ${req.method} is not allowed here. Allowed: ${[...new Set(allowed)].join(', ')}.`, {
          allow: [...new Set(allowed)].join(', '),
        });
      } else {
        sendError(req, res, 404, 'not_found', `No route for ${req.method} ${pathname}.`);
      }
      return;
    }
    await match.handler(req, res, match.params);
  } catch (err) {
    if (res.headersSent) {
      ctx.logger.error({ requestId: id, err }, 'failure after headers were sent');
      res.destroy();
      return;
    }
    if (err instanceof SitelineError && err.code !== 'internal') {
      sendError(req, res, HTTP_STATUS_BY_CODE[err.code] ?? 400, err.code, err.message);
      return;
    }
    ctx.logger.error({ requestId: id, err }, 'unexpected failure');
    sendError(req, res, 500, 'internal', 'Internal error. Quote the request id when reporting it.');
  }
}
