// DNS-rebinding protection: which Host header names this service. The server checks it on every route
// (src/http/server.ts); the MCP endpoint applies the same rule before its own (src/mcp/http-rules.ts).
import type { Config } from '../config.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']);
const LOCALHOST_FORMS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Hostnames the endpoint answers to: the public base URL's, plus the localhost forms when the service
 * is bound to loopback or its base URL is itself a localhost form (all name the same machine).
 */
export function allowedHostnames(config: Pick<Config, 'baseUrl' | 'host'>): Set<string> {
  const own = new URL(config.baseUrl).hostname.toLowerCase();
  const hosts = new Set<string>([own]);
  if (LOOPBACK_HOSTS.has(config.host.toLowerCase()) || LOOPBACK_HOSTS.has(own)) for (const h of LOCALHOST_FORMS) hosts.add(h);
  return hosts;
}

/** True when the Host header names one of the allowed hostnames (port-agnostic). */
export function hostAllowed(hostHeader: string | undefined, allowed: Set<string>): boolean {
  if (!hostHeader) return false;
  let hostname: string;
  try {
    hostname = new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return false;
  }
  return allowed.has(hostname);
}
