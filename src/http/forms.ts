// Form bodies and redirects for the server-rendered pages (web and the OAuth consent page). A form is
// parsed by the framework (hono's parseBody) under the body limit (hono's bodyLimit) every form shares.
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { badInput, SitelineError } from '../core/errors.ts';

export const FORM_LIMIT = 8 * 1024;

/**
 * Reads an application/x-www-form-urlencoded body (at most maxBytes, FORM_LIMIT unless given); anything
 * else yields an empty form. A NUL in a field is refused unless the form's own checks handle it (keepNul).
 */
export async function readForm(c: Context, opts: { maxBytes?: number; keepNul?: boolean } = {}): Promise<Record<string, string>> {
  const limit = opts.maxBytes ?? FORM_LIMIT;
  let parsed: Record<string, string | File> = {};
  const declared = Number(c.req.header('content-length') ?? NaN);
  await bodyLimit({
    maxSize: limit,
    onError: () => {
      const size = Number.isFinite(declared) ? `is ${declared} bytes; the limit is ${limit} bytes` : `exceeds the limit of ${limit} bytes`;
      throw new SitelineError('payload_too_large', `Request body ${size}.`, { limitBytes: limit });
    },
  })(c, async () => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type === 'application/x-www-form-urlencoded') parsed = await c.req.parseBody();
  });
  const form = Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
  // No field of any form here may hold a NUL: refused before it reaches a hash, a page or the database.
  if (!opts.keepNul && Object.entries(form).some(([k, v]) => k.includes('\u0000') || v.includes('\u0000'))) {
    throw badInput('The form holds a NUL character (%00), which no field accepts. Remove it and send the form again.');
  }
  return form;
}

const PROBE_ORIGIN = 'http://siteline.invalid';
export const NEXT_MAX = 2048;

/**
 * Where to go after a form: only a same-origin path that survives URL parsing unchanged (no open
 * redirects). Browsers strip tab/CR/LF inside URLs and read `\\` as `/`, so `/\t/evil.example` would
 * become `//evil.example`: any control character, backslash, or a value the URL parser rewrites is
 * refused. An absent value gives `fallback`; a present but unsafe one gives `/`.
 */
export function safeNext(next: string | null | undefined, fallback = '/account'): string {
  if (next === null || next === undefined || next === '') return fallback;
  if (typeof next !== 'string' || next.length > NEXT_MAX) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || /[\u0000-\u0020\u007f-\u009f\\]/.test(next)) return '/';
  let u: URL;
  try {
    u = new URL(next, PROBE_ORIGIN);
  } catch {
    return '/';
  }
  if (u.origin !== PROBE_ORIGIN || `${u.pathname}${u.search}${u.hash}` !== next) return '/';
  return next;
}

/** See other: where a form's answer continues (no-store). */
export function redirect(c: Context, location: string): Response {
  return c.body(null, 303, { location, 'cache-control': 'no-store' });
}
