// The client address a request counts against (sign-in throttles, the LOCATION rate limit).
import type { IncomingMessage } from 'node:http';

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
