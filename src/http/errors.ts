// How an error is put on the wire, chosen once per path: every surface says which format its paths
// answer errors in (REST: problem+json under /api/v1; web: an HTML page for a browser; the JSON
// envelope {error: {code, message, requestId}} everywhere else), and a SitelineError is mapped to its
// status here, once. The server's own refusals (a NUL byte, a foreign Host, no route, a failure) and
// every error a handler throws go through the same table (src/http/server.ts, src/app.ts).
import type { IncomingMessage } from 'node:http';
import { SitelineError } from '../core/errors.ts';

/** An error answer, independent of the framework: written by a hono handler or straight to the socket. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Renders one error in a wire format. `code` is the domain's word (bad_input, not_found, ...) or the server's own (method_not_allowed). */
export type ErrorFormat = (req: IncomingMessage, status: number, code: string, message: string, headers?: Record<string, string>) => ErrorAnswer;

export function requestId(req: IncomingMessage): string {
  return (req as IncomingMessage & { requestId?: string }).requestId ?? '';
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

/** The message of an unexpected failure: no detail (it is logged with the request id). */
export const INTERNAL_MESSAGE = 'Internal error. Quote the request id when reporting it.';

/** The JSON envelope every surface without its own format answers with. */
export const jsonErrorFormat: ErrorFormat = (req, status, code, message, headers = {}) => {
  const body = JSON.stringify({ error: { code, message, requestId: requestId(req) } });
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), ...headers }, body };
};

/** Which format answers errors under which path: the longest registered prefix that holds the path, else the default. */
export class ErrorFormats {
  private fallback: ErrorFormat = jsonErrorFormat;
  private readonly scoped: { prefix: string; format: ErrorFormat }[] = [];

  /** The format of every path no prefix claims (the web surface sets one that gives browsers an HTML page). */
  setDefault(format: ErrorFormat): this {
    this.fallback = format;
    return this;
  }

  /** Errors under prefix (the path itself, or below it) are answered in format. */
  under(prefix: string, format: ErrorFormat): this {
    this.scoped.push({ prefix: prefix.replace(/\/+$/, ''), format });
    this.scoped.sort((a, b) => b.prefix.length - a.prefix.length);
    return this;
  }

  for(pathname: string): ErrorFormat {
    const hit = this.scoped.find((s) => pathname === s.prefix || pathname.startsWith(`${s.prefix}/`));
    return hit ? hit.format : this.fallback;
  }

  /** The answer to an error thrown while answering: a SitelineError by its code, anything else a 500 without detail. */
  forError(req: IncomingMessage, pathname: string, err: unknown): ErrorAnswer {
    const format = this.for(pathname);
    if (err instanceof SitelineError && err.code !== 'internal') return format(req, HTTP_STATUS_BY_CODE[err.code] ?? 400, err.code, err.message);
    return format(req, 500, 'internal', INTERNAL_MESSAGE);
  }
}

/** True when the error is one a caller caused (a SitelineError other than internal): not logged as a failure. */
export function isDomainRefusal(err: unknown): boolean {
  return err instanceof SitelineError && err.code !== 'internal';
}
