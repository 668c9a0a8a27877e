// Helpers for handlers that answer on node:http (the OAuth agent routes, the MCP endpoint) and for reading a
// request body from the socket with a cap every surface shares (JSON bodies of the REST API and the staff
// API, the Stripe webhook, MCP).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SitelineError } from '../core/errors.ts';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

/**
 * How much of an over-limit body is read and dropped before the refusal is sent. A server that answers
 * and closes while the client is still uploading makes the client's kernel see a reset, and most
 * clients then report "connection reset" instead of the 413; reading the rest first lets them read it.
 * A body larger than this is cut off (the connection is destroyed): no answer can be delivered to it.
 */
export const DRAIN_MAX_BYTES = 32 * 1024 * 1024;

/** Reads and drops the rest of a request body (up to DRAIN_MAX_BYTES); resolves when it has ended. */
export function drainRequest(req: IncomingMessage, alreadyRead = 0): Promise<void> {
  if (req.readableEnded || req.complete) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = alreadyRead;
    const done = () => {
      req.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_MAX_BYTES) {
        req.off('data', onData);
        req.socket.destroy();
        resolve();
      }
    };
    req.on('data', onData);
    req.once('end', done);
    req.once('close', done);
    req.once('error', done);
    req.resume();
  });
}

/** Reads the whole body, refusing more than limitBytes with a payload_too_large error (after draining the rest). */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limitBytes) {
    await drainRequest(req);
    throw new SitelineError('payload_too_large', `Request body is ${declared} bytes; the limit is ${limitBytes} bytes.`, { limitBytes });
  }
  const body = await new Promise<Buffer | null>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        // Over the limit: stop keeping chunks, drain the rest, then refuse.
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', reject);
        chunks.length = 0;
        void drainRequest(req, size).then(() => resolve(null));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve(Buffer.concat(chunks, size));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', reject);
  });
  if (body === null) throw new SitelineError('payload_too_large', `Request body exceeds the limit of ${limitBytes} bytes.`, { limitBytes });
  return body;
}

/** The RateLimit headers (draft-ietf-httpapi-ratelimit-headers) of a counted request. */
export function rateLimitHeaders(d: { limit: number; windowSeconds: number; remaining: number; resetSeconds: number }): Record<string, string> {
  return {
    'ratelimit-policy': `${d.limit};w=${d.windowSeconds}`,
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.resetSeconds),
  };
}
