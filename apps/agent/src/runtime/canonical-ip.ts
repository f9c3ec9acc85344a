import { isIP } from 'node:net';

/**
 * A fast canonical spelling for comparing many addresses (see drivers/addresses.ts for the strict
 * parse drivers use, which also clears a network's host bits). An address or CIDR in one spelling, so that what a device lists (`2001:db8::1`, `10.0.0.1`) can be
 * compared with what the server sent (`2001:DB8:0::1`, `10.0.0.1/32`). Single-address prefixes
 * (/32, /128) are dropped; IPv6 is lower-cased and compressed. Anything unparsable is returned
 * trimmed, so it still compares equal to itself.
 */
export function canonicalIp(value: string): string {
  const trimmed = value.trim().toLowerCase();
  const slash = trimmed.indexOf('/');
  const address = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const prefix = slash === -1 ? null : trimmed.slice(slash + 1);
  const family = isIP(address);
  if (family === 0) return trimmed;
  const canonical = family === 6 ? compressIpv6(address) : address;
  if (prefix === null || (family === 4 && prefix === '32') || (family === 6 && prefix === '128')) return canonical;
  return `${canonical}/${prefix}`;
}

function compressIpv6(address: string): string {
  // The WHATWG URL parser writes IPv6 hosts in their canonical compressed form (RFC 5952); it
  // refuses zone ids (fe80::1%eth0), which are then kept as written.
  const url = URL.parse(`http://[${address}]/`);
  return url === null ? address : url.hostname.slice(1, -1);
}
