// Form bodies and redirects for the server-rendered pages.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http/respond.ts';

export const FORM_LIMIT = 8 * 1024;

/** Reads an application/x-www-form-urlencoded body; anything else yields an empty form. */
export async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const raw = (await readBody(req, FORM_LIMIT)).toString('utf8');
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return {};
  return Object.fromEntries(new URLSearchParams(raw));
}

/** Only same-site relative paths may be a `next` target (no open redirects). */
export function safeNext(next: string | null | undefined, fallback = '/account'): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\') || /[\r\n]/.test(next)) return fallback;
  return next;
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, 'cache-control': 'no-store' });
  res.end();
}

export { clientIp } from '../http/client-ip.ts';
