// Cookies of the pages, through hono's cookie helpers: HttpOnly, SameSite=Lax, Path=/, Secure behind https.
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
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

/** A cookie's value (decoded), or undefined; a malformed cookie is ignored. */
export function readCookie(c: Context, name: string): string | undefined {
  return getCookie(c, name);
}

/** Sets a cookie on the answer (Max-Age 0 clears it); the answer's other Set-Cookie headers stay. */
export function writeCookie(c: Context, config: Pick<Config, 'baseUrl'>, name: string, value: string, maxAgeS: number): void {
  setCookie(c, name, value, {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    maxAge: maxAgeS,
    ...(config.baseUrl.startsWith('https://') ? { secure: true } : {}),
  });
}

/** A one-time message for a page a form redirects to: set with the redirect, shown once, then cleared. */
export const FLASH_COOKIE = 'sl_flash';
const FLASH_MAX_AGE_S = 120;

/** Sets the message `page` (a path) shows once on its next load. */
export function setFlash(config: Config, c: Context, page: string, message: string): void {
  writeCookie(c, config, FLASH_COOKIE, `${page}\n${message.slice(0, 1500)}`, FLASH_MAX_AGE_S);
}

/** The message set for `page`, cleared as it is read (a reload no longer shows it); null when none. */
export function takeFlash(config: Config, c: Context, page: string): string | null {
  const raw = readCookie(c, FLASH_COOKIE);
  if (raw === undefined) return null;
  const i = raw.indexOf('\n');
  if (raw.slice(0, i) !== page) return null;
  writeCookie(c, config, FLASH_COOKIE, '', 0);
  return raw.slice(i + 1) || null;
}
