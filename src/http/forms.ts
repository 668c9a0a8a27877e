// Form bodies and redirects for the server-rendered pages.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from './respond.ts';
import { badInput } from '../core/errors.ts';

export const FORM_LIMIT = 8 * 1024;

/** Reads an application/x-www-form-urlencoded body; anything else yields an empty form. */
export async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const raw = (await readBody(req, FORM_LIMIT)).toString('utf8');
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return {};
  const form = Object.fromEntries(new URLSearchParams(raw));
  // No field of any form here may hold a NUL: refused before it reaches a hash, a page or the database.
  if (Object.entries(form).some(([k, v]) => k.includes('\u0000') || v.includes('\u0000'))) {
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

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { location, 'cache-control': 'no-store' });
  res.end();
}

