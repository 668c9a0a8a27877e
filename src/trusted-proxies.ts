// SITELINE_TRUSTED_PROXIES, parsed at configuration time: the proxies whose X-Forwarded-* headers are
// believed (src/http/client-ip.ts reads the parsed list).
import net from 'node:net';

/** Names accepted in SITELINE_TRUSTED_PROXIES besides CIDRs and single addresses. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  private: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
};

/** Parses the list (comma or space separated); throws with the offending entry when one is not a CIDR. */
export function parseTrustedProxies(text: string): string[] {
  const out: string[] = [];
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    const named = NAMED_RANGES[entry.toLowerCase()];
    if (named) {
      out.push(...named);
      continue;
    }
    const [addr, bits, extra] = entry.split('/');
    const family = net.isIP(addr ?? '');
    const max = family === 6 ? 128 : 32;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
    if (!family || extra !== undefined || !(prefix >= 0 && prefix <= max)) {
      throw new Error(`"${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1, loopback)`);
    }
    out.push(`${addr}/${prefix}`);
  }
  return out;
}
