// Errors of /api/v1 as RFC 9457 problem details (application/problem+json). Each kind has a stable
// `type` URI (a fragment of the API reference page that explains it) and the same short `code`
// word; never a stack trace. A domain error (SitelineError) gets its status from src/http/errors.ts
// (the one mapping) and the problem of that status here.
import type { IncomingMessage } from 'node:http';
import type { Context, Handler } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { AppContext } from '../context.ts';
import { ErrorFormats, isDomainRefusal, requestId, type ErrorAnswer, type ErrorFormat } from '../http/errors.ts';

export const PROBLEMS = {
  bad_request: { status: 400, title: 'The request is not valid' },
  unauthorized: { status: 401, title: 'Authentication is needed' },
  out_of_credit: { status: 402, title: 'Out of credit' },
  forbidden: { status: 403, title: 'Not allowed with this credential' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  idempotency_key_reused: { status: 422, title: 'Idempotency-Key reused with another request' },
  rate_limited: { status: 429, title: 'Too many requests' },
  internal: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Temporarily unavailable' },
} as const;

export type ProblemCode = keyof typeof PROBLEMS;

/** The problem for a status the server answers itself (the generic responder speaks in statuses and domain codes). */
export function problemForStatus(status: number): ProblemCode {
  const hit = (Object.keys(PROBLEMS) as ProblemCode[]).find((c) => PROBLEMS[c].status === status);
  return hit ?? (status >= 500 ? 'internal' : 'bad_request');
}

export const API_REFERENCE_PATH = '/docs/api';

export function problemType(ctx: AppContext, code: ProblemCode): string {
  return `${ctx.config.baseUrl}${API_REFERENCE_PATH}#problem-${code.replace(/_/g, '-')}`;
}

/** A problem's status, headers and body (no-store; the headers given win). */
export function problemAnswer(
  ctx: AppContext,
  req: IncomingMessage,
  code: ProblemCode,
  detail: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): ErrorAnswer {
  const { status, title } = PROBLEMS[code];
  const body = JSON.stringify({ type: problemType(ctx, code), title, status, detail, code, requestId: requestId(req), ...extra });
  return {
    status,
    headers: { 'content-type': 'application/problem+json', 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-store', ...headers },
    body,
  };
}

/** The error format of /api/v1 (src/http/errors.ts): what the server answers itself there is a problem too. */
export function problemFormat(ctx: AppContext): ErrorFormat {
  return (req, status, _code, message, headers = {}) => problemAnswer(ctx, req, problemForStatus(status), message, headers);
}

/**
 * A handler outside /api/v1 whose errors are problems all the same (the Stripe webhook): what it throws is
 * mapped by the same table (src/http/errors.ts), in this format.
 */
export function errorsAsProblems<E extends { Bindings: HttpBindings }>(ctx: AppContext, handler: (c: Context<E>) => Promise<Response>): Handler<E> {
  const formats = new ErrorFormats().setDefault(problemFormat(ctx));
  return async (c) => {
    try {
      return await handler(c);
    } catch (err) {
      const req = c.env.incoming;
      if (!isDomainRefusal(err)) ctx.logger.error({ requestId: requestId(req), err }, 'unexpected failure');
      const a = formats.forError(req, c.req.path, err);
      return new Response(a.body, { status: a.status, headers: a.headers });
    }
  };
}
