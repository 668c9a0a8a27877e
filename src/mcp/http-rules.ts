// The endpoint's HTTP rules, as pure checks: Host (DNS-rebinding protection), Origin allowlist,
// Accept negotiation. The endpoint applies them in order before the SDK sees the request.
import type { Config } from '../config.ts';
// Host rules are the server's (every route checks Host): the endpoint reads the same ones.
export { allowedHostnames, hostAllowed } from '../http/host-rules.ts';

/** Body cap for POST /api/mcp. Tool arguments are an address or a status: 64 KiB is generous. */
export const MCP_MAX_BODY_BYTES = 64 * 1024;

/** Origins allowed to call the endpoint from a browser: the service's own plus MCP_ALLOWED_ORIGINS. */
export function allowedOrigins(config: Pick<Config, 'baseUrl' | 'mcpAllowedOrigins'>): Set<string> {
  const origins = new Set<string>([new URL(config.baseUrl).origin]);
  for (const o of config.mcpAllowedOrigins) {
    try {
      origins.add(new URL(o).origin);
    } catch {
      // A malformed entry allows nothing rather than failing the start.
    }
  }
  return origins;
}

/**
 * No Origin -> allowed (non-browser clients). Otherwise an exact origin match (scheme, host, port),
 * or same-origin with the request itself: an Origin whose host:port is the (already checked) Host
 * header, e.g. http://127.0.0.1:8080 when the base URL says localhost:8080.
 */
export function originAllowed(originHeader: string | undefined, allowed: Set<string>, hostHeader?: string): boolean {
  if (originHeader === undefined || originHeader === '') return true;
  try {
    const url = new URL(originHeader);
    if (url.origin === 'null') return false;
    if (allowed.has(url.origin)) return true;
    // Same-origin with the request: on an https deployment only an https Origin (an http page on the same
    // host name is another origin, and one a network attacker can write).
    const https = (allowed.values().next().value ?? '').startsWith('https://'); // the first entry is the base URL's origin
    const schemeOk = url.protocol === 'https:' || (url.protocol === 'http:' && !https);
    return hostHeader !== undefined && schemeOk && url.host === hostHeader.toLowerCase();
  } catch {
    return false;
  }
}

/** The Accept header must list both application/json and text/event-stream (wildcards do not count). */
export function acceptsJsonAndSse(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  return types.includes('application/json') && types.includes('text/event-stream');
}

export function isJsonContentType(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}
