// Outgoing fetches on behalf of a client (Client ID Metadata Documents, and any other URL oidc-provider
// fetches): the host name is resolved first, every address checked to be public, and the connection made
// to the checked address (the socket's lookup returns it, so a second DNS answer cannot redirect it).
// Size and time are capped; redirects are not followed.
import dns from 'node:dns/promises';
import net from 'node:net';
import https from 'node:https';
import http from 'node:http';

const SAFE_FETCH_MAX_BYTES = 64 * 1024;
const SAFE_FETCH_TIMEOUT_MS = 2500;

const NON_PUBLIC = new net.BlockList();
for (const [a, p] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NON_PUBLIC.addSubnet(a, p, 'ipv4');
for (const [a, p] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(a, p, 'ipv6');
}

/** True for an address on the public internet (not loopback, private, link-local, documentation, multicast...). */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (!family) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  if (family === 6 && /^(::ffff:|64:ff9b::)/i.test(address)) return false; // other mapped / NAT64 forms
  return !NON_PUBLIC.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

export interface SafeFetchOptions {
  /** Which resolved addresses may be connected to (default: public ones only). */
  allowAddress?: (address: string) => boolean;
  maxBytes?: number;
  timeoutMs?: number;
}

class SafeFetchError extends Error {}

/** A fetch-compatible GET: resolve, check, connect to the checked address, cap the body and the time. */
export function safeFetch(policy: SafeFetchOptions = {}) {
  const allow = policy.allowAddress ?? isPublicAddress;
  const maxBytes = policy.maxBytes ?? SAFE_FETCH_MAX_BYTES;
  const timeoutMs = policy.timeoutMs ?? SAFE_FETCH_TIMEOUT_MS;
  return async (
    input: string | URL,
    init: { method?: string; headers?: ConstructorParameters<typeof Headers>[0]; signal?: AbortSignal } = {},
  ): Promise<Response> => {
    const url = new URL(String(input));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new SafeFetchError(`refusing to fetch a ${url.protocol} URL`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const addresses = net.isIP(host) ? [{ address: host, family: net.isIP(host) }] : await dns.lookup(host, { all: true, verbatim: true });
    if (addresses.length === 0) throw new SafeFetchError(`${host} does not resolve`);
    const refused = addresses.find((a) => !allow(a.address));
    if (refused) throw new SafeFetchError(`refusing to fetch ${url.origin}: ${host} resolves to a non-public address (${refused.address})`);
    const target = addresses[0]!;
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(init.signal ? [init.signal] : [])]);
    const headers = Object.fromEntries(new Headers(init.headers ?? {}));
    return new Promise<Response>((resolve, reject) => {
      const req = (url.protocol === 'https:' ? https : http).request(
        url,
        {
          method: init.method ?? 'GET',
          headers,
          signal,
          // The connection goes to the address just checked, whatever DNS would answer now.
          lookup: (_h, opts, cb) => {
            if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
            else cb(null, target.address, target.family);
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > maxBytes) {
              reject(new SafeFetchError(`the response from ${url.origin} exceeds ${maxBytes} bytes`));
              req.destroy();
              return;
            }
            chunks.push(c);
          });
          res.on('end', () => {
            const h = new Headers();
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
            const status = res.statusCode ?? 502;
            resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: h }));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  };
}
