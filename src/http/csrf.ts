// CSRF protection for every form, on any surface that renders one (web pages, the OAuth consent page):
// a double-submit token (HttpOnly cookie + hidden field, compared in constant time) plus an Origin
// check when the browser sends one.
import crypto from 'node:crypto';
import type { Context } from 'hono';
import type { Config } from '../config.ts';
import { csrfCookieName, readCookie, writeCookie } from './cookies.ts';

/** The CSRF token for a form: the cookie's value, created (and set, for maxAgeS) when missing. */
export function csrfToken(config: Config, c: Context, maxAgeS: number): string {
  const existing = readCookie(c, csrfCookieName(config));
  if (existing && /^[A-Za-z0-9_-]{20,64}$/.test(existing)) return existing;
  const token = newCsrfSecret();
  writeCookie(c, config, csrfCookieName(config), token, maxAgeS);
  return token;
}

export function newCsrfSecret(): string {
  return crypto.randomBytes(24).toString('base64url');
}

/** True when the form's token matches the cookie and the Origin (if any) is this service. */
export function csrfOk(config: Config, c: Context, form: Record<string, string>): boolean {
  const origin = c.req.header('origin');
  if (origin !== undefined) {
    const allowed = new Set([new URL(config.baseUrl).origin]);
    // Same host as the request; on an https deployment only over https (an http Origin is refused).
    const host = c.req.header('host');
    if (host) {
      allowed.add(`https://${host}`);
      if (!config.baseUrl.startsWith('https://')) allowed.add(`http://${host}`);
    }
    if (!allowed.has(origin)) return false;
  }
  const cookie = readCookie(c, csrfCookieName(config));
  const field = form.csrf;
  return !!cookie && !!field && sameToken(cookie, field);
}

/** Constant-time comparison of two tokens (hashed first, so their lengths do not show). */
function sameToken(a: string, b: string): boolean {
  const h = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(h(a), h(b));
}
