// Response and body helpers shared by the HTTP surfaces. Error bodies: {error: {code, message, requestId}}.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SitelineError } from '../core/errors.ts';

export function requestId(req: IncomingMessage): string {
  return (req as IncomingMessage & { requestId?: string }).requestId ?? '';
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

export function sendError(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { code, message, requestId: requestId(req) } }, headers);
}

export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
    ...headers,
  });
  res.end(html);
}

/** Reads the whole body, refusing more than limitBytes with a payload_too_large error. */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.resume();
    throw new SitelineError('payload_too_large', `Request body is ${declared} bytes; the limit is ${limitBytes} bytes.`, { limitBytes });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) {
      req.resume();
      throw new SitelineError('payload_too_large', `Request body exceeds the limit of ${limitBytes} bytes.`, { limitBytes });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export const HTTP_STATUS_BY_CODE: Record<string, number> = {
  bad_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};
