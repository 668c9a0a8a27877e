// Dynamic Client Registration policy, applied before oidc-provider sees a registration: redirect URIs
// as RFC 8252 / OAuth 2.1 allow them (https; http only on a loopback host, any port; a private-use
// scheme such as cursor:// or vscode://), no control characters, size caps, a per-client and a
// service-wide hourly limit. Unused clients expire (see oidc-adapter: CLIENT_UNUSED_TTL_S).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import { readBody } from '../http/respond.ts';
import { clientIp } from '../http/client-ip.ts';
import { takeRateLimit, normaliseIp } from '../ops/rate-limit.ts';
import { AgentAuthError } from '../auth/oauth-errors.ts';
import { sendOAuthError } from './send-oauth-error.ts';

export const DCR_BODY_LIMIT = 16 * 1024;
export const DCR_MAX_REDIRECT_URIS = 10;
export const DCR_MAX_URI_LENGTH = 2048;
export const DCR_MAX_TEXT_LENGTH = 256;
export const DCR_PER_CLIENT_HOURLY = 30;
export const DCR_HOURLY = 1000;

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes a browser would run or read locally: never a redirect target. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'about:',
  'blob:',
  'filesystem:',
  'view-source:',
  'ws:',
  'wss:',
  'ftp:',
  'mailto:',
  'tel:',
  'chrome:',
  'chrome-extension:',
  'moz-extension:',
]);
const CONTROL = /[\u0000-\u0020\u007f-\u009f]/;

const invalid = (error: string, description: string) => new AgentAuthError(400, error, description);

/** Why a redirect URI is refused, or undefined when it is acceptable. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri === '') return 'a redirect URI must be a non-empty string';
  if (uri.length > DCR_MAX_URI_LENGTH) return `a redirect URI may have at most ${DCR_MAX_URI_LENGTH} characters`;
  if (CONTROL.test(uri)) return 'a redirect URI must not contain spaces or control characters (CR, LF, tab, NUL)';
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `"${uri.slice(0, 100)}" is not an absolute URI`;
  }
  if (u.hash || uri.includes('#')) return 'a redirect URI must not have a fragment';
  // Redirects are matched exactly (loopback: any port); a wildcard would let any subdomain receive codes.
  if (uri.includes('*') || /%2a/i.test(uri)) return 'a redirect URI must not contain a wildcard (*): register each exact URI';
  if (
    (u.protocol === 'https:' || u.protocol === 'http:') &&
    !/^(\[[0-9a-f:.]+\]|([a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)$/.test(u.hostname)
  )
    return `"${u.hostname.slice(0, 100)}" is not a host name (letters, digits and hyphens in dot-separated labels)`;
  if (u.username || u.password) return 'a redirect URI must not carry user information';
  if (u.protocol === 'https:') return undefined;
  if (u.protocol === 'http:')
    return LOOPBACK.has(u.hostname) ? undefined : `http is allowed only on a loopback host (127.0.0.1, [::1], localhost), not ${u.hostname}: use https`;
  if (FORBIDDEN_SCHEMES.has(u.protocol)) return `the ${u.protocol.slice(0, -1)} scheme is not allowed for redirects`;
  // A private-use scheme (RFC 8252 §7.1): cursor://..., vscode://..., com.example.app:/callback.
  if (!/^[a-z][a-z0-9+.-]*:$/.test(u.protocol)) return 'the redirect URI scheme is malformed';
  return undefined;
}

/** Checks a registration's metadata; returns it with application_type set so oidc-provider applies the native rules. */
export function checkRegistration(meta: Record<string, unknown>): Record<string, unknown> {
  const uris = meta.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) throw invalid('invalid_redirect_uri', 'redirect_uris must be a non-empty array.');
  if (uris.length > DCR_MAX_REDIRECT_URIS) throw invalid('invalid_redirect_uri', `At most ${DCR_MAX_REDIRECT_URIS} redirect_uris may be registered.`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalid('invalid_redirect_uri', `Refused redirect URI: ${problem}.`);
  }
  for (const key of ['client_name', 'software_id', 'software_version']) {
    const v = meta[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length > DCR_MAX_TEXT_LENGTH || /[\u0000-\u001f\u007f]/.test(v)) {
      throw invalid('invalid_client_metadata', `${key} must be a string of at most ${DCR_MAX_TEXT_LENGTH} characters without control characters.`);
    }
  }
  for (const key of ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri']) {
    const v = meta[key];
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.length > DCR_MAX_URI_LENGTH || CONTROL.test(v) || !/^https?:\/\//i.test(v)) {
      throw invalid('invalid_client_metadata', `${key} must be an http(s) URL of at most ${DCR_MAX_URI_LENGTH} characters.`);
    }
  }
  // oidc-provider's "web" type refuses private-use schemes and allows http on any host; its "native"
  // rules are RFC 8252's. Loopback http and private-use schemes are native clients by definition.
  const nativeShaped = (uris as string[]).some((u) => !u.startsWith('https:'));
  const type = meta.application_type;
  if (type === undefined || (type === 'web' && nativeShaped)) return { ...meta, application_type: nativeShaped ? 'native' : 'web' };
  return meta;
}

/**
 * Applies the policy to POST <registration>: throttles, reads the capped body, validates. Returns the
 * body for oidc-provider, or undefined when it already answered.
 */
export async function guardRegistration(ctx: AppContext, req: IncomingMessage, res: ServerResponse): Promise<Record<string, unknown> | undefined> {
  try {
    for (const [policy, subject] of [
      [{ bucket: 'dcr-client', limit: DCR_PER_CLIENT_HOURLY, windowSeconds: 3600 }, normaliseIp(clientIp(req, ctx.config))],
      [{ bucket: 'dcr-all', limit: DCR_HOURLY, windowSeconds: 3600 }, '*'],
    ] as const) {
      const d = await takeRateLimit(ctx, policy, subject);
      if (!d.allowed) {
        ctx.logger.warn({ throttle: policy.bucket }, 'client registration throttled');
        res.setHeader('retry-after', String(d.resetSeconds));
        throw new AgentAuthError(429, 'slow_down', `Too many client registrations; try again in ${Math.ceil(d.resetSeconds / 60)} minute(s).`);
      }
    }
    let raw: Buffer;
    try {
      raw = await readBody(req, DCR_BODY_LIMIT);
    } catch {
      throw new AgentAuthError(413, 'invalid_client_metadata', `The registration body may have at most ${DCR_BODY_LIMIT} bytes.`);
    }
    let meta: unknown;
    try {
      meta = JSON.parse(raw.toString('utf8'));
    } catch {
      throw invalid('invalid_client_metadata', 'The registration body is not valid JSON.');
    }
    if (!meta || typeof meta !== 'object' || Array.isArray(meta)) throw invalid('invalid_client_metadata', 'The registration body must be a JSON object.');
    return checkRegistration(meta as Record<string, unknown>);
  } catch (err) {
    if (!(err instanceof AgentAuthError)) throw err;
    sendOAuthError(req, res, err);
    return undefined;
  }
}
