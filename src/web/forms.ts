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

const PRIVATE_PEER = /^(::ffff:)?(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)|^::1$|^f[cd][0-9a-f]{2}:/i;

/**
 * The client address for throttling. X-Forwarded-For is believed only from a loopback or private peer
 * (a reverse proxy in front of the service), and then only its last hop, the one that proxy added:
 * a client connecting directly cannot pick the address its failures are counted against.
 */
export function clientIp(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  const xff = req.headers['x-forwarded-for'];
  if (xff && PRIVATE_PEER.test(peer)) {
    const last = String(xff).split(',').map((s) => s.trim()).filter(Boolean).pop();
    if (last && last.length <= 64) return last;
  }
  return peer;
}
