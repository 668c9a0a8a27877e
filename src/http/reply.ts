// JSON answers of hono handlers (the cookies set on c go with them): a body, or the error envelope
// {error: {code, message, requestId}} (src/http/errors.ts).
import type { Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { jsonErrorFormat } from './errors.ts';

export function jsonReply(c: Context, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return c.body(JSON.stringify(body), status as 200, { 'content-type': 'application/json; charset=utf-8', ...headers });
}

export function errorReply(
  c: Context<{ Bindings: HttpBindings }>,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const a = jsonErrorFormat(c.env.incoming, status, code, message, headers);
  return c.body(a.body, a.status as 200, a.headers);
}
