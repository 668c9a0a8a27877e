// Errors of /api/v1 as RFC 9457 problem details (application/problem+json). Each kind has a stable
// `type` URI (a fragment of the API reference page that explains it) and the same short `code`
// word; never a stack trace. Domain errors (SitelineError) are mapped here once.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import { SitelineError } from '../core/errors.ts';
import { requestId, type ErrorAnswer, type ErrorFormat } from '../http/errors.ts';

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
  return { status, headers: { 'content-type': 'application/problem+json', 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-store', ...headers }, body };
}

/** The error format of /api/v1 (src/http/errors.ts): what the server answers itself there is a problem too. */
export function problemFormat(ctx: AppContext): ErrorFormat {
  return (req, status, _code, message, headers = {}) => problemAnswer(ctx, req, problemForStatus(status), message, headers);
}

export function sendProblem(
  ctx: AppContext,
  req: IncomingMessage,
  res: ServerResponse,
  code: ProblemCode,
  detail: string,
  headers: Record<string, string> = {},
  extra: Record<string, unknown> = {},
): void {
  const a = problemAnswer(ctx, req, code, detail, headers, extra);
  res.writeHead(a.status, a.headers);
  res.end(a.body);
}

const BY_DOMAIN_CODE: Record<string, ProblemCode> = {
  bad_input: 'bad_request',
  not_found: 'not_found',
  conflict: 'conflict',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  rate_limited: 'rate_limited',
  payload_too_large: 'payload_too_large',
  unavailable: 'unavailable',
};

/** Any failure as a problem: domain errors by their code, everything else a 500 without detail (logged). */
export function sendFailure(ctx: AppContext, req: IncomingMessage, res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    ctx.logger.error({ requestId: requestId(req), err }, 'failure after headers were sent');
    res.destroy();
    return;
  }
  if (err instanceof SitelineError && err.code !== 'internal') {
    sendProblem(ctx, req, res, BY_DOMAIN_CODE[err.code] ?? 'bad_request', err.message);
    return;
  }
  ctx.logger.error({ requestId: requestId(req), err }, 'unexpected failure');
  sendProblem(ctx, req, res, 'internal', 'Internal error. Quote the request id when reporting it.');
}
