// Errors as pages for people: a browser navigating to a missing page (or one that failed) gets an
// HTML page with a way on; every API client keeps the JSON envelope {error: {code, message, requestId}}.
// The default error format of the app (src/http/errors.ts): the server uses it for 404, 405 and
// failures on every path no other surface claims.
import type { IncomingMessage } from 'node:http';
import type { HttpApp } from '../http/http-app.ts';
import { jsonErrorFormat, requestId, type ErrorFormat } from '../http/errors.ts';
import { html } from '../http/html.ts';
import { page, PAGE_HEADERS } from '../http/page.ts';

/** Paths whose clients are programs: always JSON, whatever they accept. */
const API_PREFIXES = ['/api/', '/.well-known/', '/tiles/', '/assets/', '/healthz', '/readyz', '/metrics', '/staff/api/'];

/** True when a browser asked for a page: a GET (or HEAD) whose Accept names text/html, outside the API paths. */
export function wantsHtmlPage(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (!/\btext\/html\b/i.test(String(req.headers.accept ?? ''))) return false;
  let pathname = '/';
  try {
    pathname = new URL(req.url ?? '/', 'http://x').pathname;
  } catch {
    return false;
  }
  return !API_PREFIXES.some((p) => pathname === p.replace(/\/$/, '') || pathname.startsWith(p));
}

const TITLES: Record<number, string> = {
  400: 'That request could not be read',
  403: 'Not allowed',
  404: 'Page not found',
  405: 'Not available this way',
  429: 'Too many requests',
  500: 'Something went wrong',
  503: 'Temporarily unavailable',
};

export function errorPageHtml(status: number, message: string, reqId: string): string {
  const title = TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'That did not work');
  const body =
    status === 404
      ? html`<p>There is no page at this address. It may have moved, or the link may be mistyped.</p>`
      : status >= 500
        ? html`<p>siteline could not answer this request. Nothing you typed was lost: go back and try again in a moment.</p>`
        : html`<p class="error">${message}</p>`;
  return page(
    title,
    html`${body}
<ul>
<li><a href="/">Home</a></li>
<li><a href="/sites">Check an address</a></li>
<li><a href="/coverage">Which places are covered</a></li>
</ul>
<p class="muted">Error ${status}${reqId ? html` · request id <code id="request-id">${reqId}</code> (quote it when reporting a problem)` : ''}.</p>`,
  );
}

/** An HTML page for a browser navigating to a page; the JSON envelope for everyone else. */
export const webErrorFormat: ErrorFormat = (req, status, code, message, headers = {}) => {
  if (!wantsHtmlPage(req)) return jsonErrorFormat(req, status, code, message, headers);
  const body = errorPageHtml(status, message, requestId(req));
  return {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), ...headers, ...PAGE_HEADERS },
    body,
  };
};

export function installErrorPages(app: HttpApp): void {
  app.errors.setDefault(webErrorFormat);
}
