import { cidrContains, parseIp, parseIpOrCidr, type IpPrefix } from '@postern/protocol';

/** A port after an address: decimal 1–65535, no sign, no leading zero. */
const PORT = /^[1-9]\d{0,4}$/;
const HIGHEST_PORT = 65_535;

/**
 * One hop of X-Forwarded-For as proxies write it: an IPv4 or IPv6 address, `v4:port`, `[v6]` or
 * `[v6]:port` (some proxies, Azure's among them, append the client's source port; it is dropped).
 * Null for anything else: a host name, a network (`1.2.3.4/24`), a zone id (`fe80::1%eth0`), two
 * values without a comma, markup. The address itself is parsed by @postern/protocol's net.ts, the
 * one address parser, so a forwarded address is spelled like every other.
 */
export function parseForwardedHop(text: string): IpPrefix | null {
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return null;
    const suffix = text.slice(close + 1);
    if (suffix !== '' && !isPortSuffix(suffix)) return null;
    // Brackets are for IPv6 only: `[192.0.2.1]` is no proxy's spelling.
    const inner = text.slice(1, close);
    return inner.includes(':') ? parseIp(inner) : null;
  }
  const colon = text.indexOf(':');
  // Exactly one colon is IPv4 with a port; IPv6 has at least two.
  if (colon !== -1 && colon === text.lastIndexOf(':')) {
    if (!isPort(text.slice(colon + 1))) return null;
    return parseIp(text.slice(0, colon));
  }
  return parseIp(text);
}

/** Whether a peer or hop is one of the configured proxies, whose X-Forwarded-* are believed. */
export type ProxyTrust = (address: string) => boolean;

/**
 * The trust rule for POSTERN_TRUSTED_PROXIES (addresses and CIDR ranges), or null when none is
 * configured. Fastify walks X-Forwarded-For with it and Postern's own request rule checks the peer
 * with it, so both decide with the same parser; a hop that does not parse is never trusted.
 */
export function trustedProxyRule(entries: readonly string[]): ProxyTrust | null {
  if (entries.length === 0) return null;
  const ranges = entries.map((entry) => {
    const range = parseIpOrCidr(entry);
    // The configuration refuses such entries at start-up; this guards callers that bypass it.
    if (range === null) throw new Error(`trusted proxy "${entry}" is not an IP address or CIDR range`);
    return range;
  });
  return (address) => {
    const parsed = parseForwardedHop(address);
    return parsed !== null && ranges.some((range) => cidrContains(range, parsed));
  };
}

function isPortSuffix(text: string): boolean {
  return text.startsWith(':') && isPort(text.slice(1));
}

function isPort(text: string): boolean {
  return PORT.test(text) && Number(text) <= HIGHEST_PORT;
}
