// The client address a request counts against (sign-in and sign-up throttles, the LOCATION rate limit),
// and which forwarding headers may be believed. Like Express's `trust proxy`: X-Forwarded-* are read
// only when the TCP peer is a proxy the operator named (SITELINE_TRUSTED_PROXIES, empty by default),
// and the client is the right-most address in the chain that is not itself a trusted proxy.
import net from 'node:net';
import type { IncomingMessage } from 'node:http';

/** The part of the configuration this module reads: the proxies parsed by src/trusted-proxies.ts. */
export interface TrustedProxies {
  trustedProxies: readonly string[];
}

const lists = new WeakMap<readonly string[], net.BlockList>();

function blockList(cidrs: readonly string[]): net.BlockList {
  let list = lists.get(cidrs);
  if (!list) {
    list = new net.BlockList();
    for (const c of cidrs) {
      const [addr, bits] = c.split('/');
      list.addSubnet(addr!, Number(bits), net.isIP(addr!) === 6 ? 'ipv6' : 'ipv4');
    }
    lists.set(cidrs, list);
  }
  return list;
}

/** ::ffff:1.2.3.4 -> 1.2.3.4; brackets and zone ids removed. Undefined when not an IP address. */
function normalise(addr: string): string | undefined {
  let a = addr.trim().replace(/^\[|\]$/g, '');
  a = a.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  if (mapped) a = mapped[1]!;
  return net.isIP(a) ? a.toLowerCase() : undefined;
}

export function isTrustedProxy(addr: string, config: TrustedProxies): boolean {
  if (config.trustedProxies.length === 0) return false;
  const a = normalise(addr);
  if (!a) return false;
  return blockList(config.trustedProxies).check(a, net.isIP(a) === 6 ? 'ipv6' : 'ipv4');
}

/** True when the TCP peer is a trusted proxy, so its X-Forwarded-* headers may be read. */
export function peerIsTrustedProxy(req: IncomingMessage, config: TrustedProxies): boolean {
  return isTrustedProxy(req.socket.remoteAddress ?? '', config);
}

/**
 * The client address: the TCP peer, unless that peer is a trusted proxy; then X-Forwarded-For is
 * walked from the right and the first address that is not a trusted proxy is the client. A hop that
 * is not an IP address stops the walk at the proxy that forwarded it.
 */
export function clientIp(req: IncomingMessage, config: TrustedProxies): string {
  const raw = req.socket.remoteAddress ?? 'unknown';
  let current = normalise(raw) ?? raw;
  if (!isTrustedProxy(current, config)) return current;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalise(hops[i]!);
    if (!hop) return current;
    current = hop;
    if (!isTrustedProxy(hop, config)) return hop;
  }
  return current;
}

/** X-Forwarded-Proto / -Host as a trusted proxy set them (first value, as Express reads them), else undefined. */
export function forwardedHeader(req: IncomingMessage, name: 'x-forwarded-proto' | 'x-forwarded-host', config: TrustedProxies): string | undefined {
  if (!peerIsTrustedProxy(req, config)) return undefined;
  const v = req.headers[name];
  const first = (Array.isArray(v) ? v[0] : v)?.split(',')[0]?.trim();
  return first || undefined;
}

/** True when the TCP peer is this machine (not a forwarded address: a proxy on loopback does not count). */
export function fromLoopbackPeer(req: IncomingMessage): boolean {
  const peer = req.socket.remoteAddress ?? '';
  return (peer === '::1' || /^(::ffff:)?127\./.test(peer)) && req.headers['x-forwarded-for'] === undefined;
}
