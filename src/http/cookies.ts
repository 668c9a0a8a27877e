// Cookie reading and writing for the web pages: HttpOnly, SameSite=Lax, Secure behind https.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.ts';

export const SESSION_COOKIE = 'sl_session';
export const CSRF_COOKIE = 'sl_csrf';

/**
 * The CSRF cookie's name: on https `__Host-sl_csrf`, which browsers accept only when Secure, Path=/ and
 * without Domain, so a sibling subdomain (or an http page on the same host) cannot plant its own token.
 */
export function csrfCookieName(config: Config): string {
  return config.baseUrl.startsWith('https://') ? `__Host-${CSRF_COOKIE}` : CSRF_COOKIE;
}

export function readCookies(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 1) continue;
    const name = part.slice(0, i).trim();
    try {
      out[name] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      /* a malformed cookie is ignored */
    }
  }
  return out;
}

export function cookieHeader(config: Config, name: string, value: string, maxAgeS: number): string {
  const secure = config.baseUrl.startsWith('https://') ? '; Secure' : '';
  return `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${secure}`;
}

export function addSetCookie(res: ServerResponse, cookie: string): void {
  const prev = res.getHeader('set-cookie');
  const list = Array.isArray(prev) ? prev : prev ? [String(prev)] : [];
  res.setHeader('set-cookie', [...list, cookie]);
}

/** A one-time message for a page a form redirects to: set with the redirect, shown once, then cleared. */
export const FLASH_COOKIE = 'sl_flash';
const FLASH_MAX_AGE_S = 120;

/** Sets the message `page` (a path) shows once on its next load. */
export function setFlash(config: Config, res: ServerResponse, page: string, message: string): void {
  addSetCookie(res, cookieHeader(config, FLASH_COOKIE, `${page}\n${message.slice(0, 1500)}`, FLASH_MAX_AGE_S));
}

/** The message set for `page`, cleared as it is read (a reload no longer shows it); null when none. */
export function takeFlash(config: Config, req: IncomingMessage, res: ServerResponse, page: string): string | null {
  const raw = readCookies(req)[FLASH_COOKIE];
  if (raw === undefined) return null;
  const i = raw.indexOf('\n');
  if (raw.slice(0, i) !== page) return null;
  addSetCookie(res, cookieHeader(config, FLASH_COOKIE, '', 0));
  return raw.slice(i + 1) || null;
}
