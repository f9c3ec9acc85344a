import { isIPv4, isIPv6 } from 'node:net';

/** An address or network a driver may write, checked and in one canonical spelling. */
export interface ParsedAddress {
  family: 'inet' | 'inet6';
  /** The network address (host bits cleared), canonical: lower-case, RFC 5952 compressed for IPv6. */
  address: string;
  /** 32 or 128 for a single host. */
  prefix: number;
  /** A single host: what devices show without a prefix. */
  isHost: boolean;
  /** `address` for a host, `address/prefix` for a network: how ipset and HAProxy print it back. */
  canonical: string;
  /** Always with a prefix (`/32`, `/128` for a host): the scripts' knoc_cidr. */
  cidr: string;
}

/**
 * Parses one IPv4/IPv6 address or CIDR strictly. Everything a driver sends to a device goes through
 * here first: ipset would resolve a host name, and a newline or `;` would smuggle a second command
 * into `ipset restore` or the HAProxy runtime API. Returns null for anything else (zone ids included).
 */
export function parseAddress(value: string): ParsedAddress | null {
  const slash = value.indexOf('/');
  const host = slash === -1 ? value : value.slice(0, slash);
  const prefixText = slash === -1 ? null : value.slice(slash + 1);
  const family = isIPv4(host) ? 'inet' : isIPv6(host) && !host.includes('%') ? 'inet6' : null;
  if (family === null) return null;
  const bits = family === 'inet' ? 32 : 128;
  if (prefixText !== null && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === null ? bits : Number(prefixText);
  if (prefix > bits) return null;

  const number = family === 'inet' ? ipv4ToBigInt(host) : ipv6ToBigInt(host);
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(bits - prefix);
  const network = number & mask;
  const address = family === 'inet' ? bigIntToIpv4(network) : bigIntToIpv6(network);
  const isHost = prefix === bits;
  return {
    family,
    address,
    prefix,
    isHost,
    canonical: isHost ? address : `${address}/${prefix}`,
    cidr: `${address}/${prefix}`,
  };
}

/** The canonical spelling of an address (see {@link parseAddress}), or the input when it is not one. */
export function canonicalAddress(value: string): string {
  return parseAddress(value)?.canonical ?? value;
}

function ipv4ToBigInt(address: string): bigint {
  return address.split('.').reduce((sum, part) => (sum << 8n) | BigInt(Number(part)), 0n);
}

function bigIntToIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function ipv6ToBigInt(address: string): bigint {
  // Expand an embedded dotted quad (::ffff:1.2.3.4) into two hex groups first.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  let text = address;
  if (dotted?.[1] !== undefined) {
    const v4 = ipv4ToBigInt(dotted[1]);
    text = `${address.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  return groups.reduce((sum, group) => (sum << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/** RFC 5952: lower case, the longest run (2+) of zero groups as `::`, IPv4-mapped as `::ffff:a.b.c.d`. */
function bigIntToIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, index) => Number((value >> BigInt((7 - index) * 16)) & 0xffffn));
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return `::ffff:${bigIntToIpv4(value & 0xffffffffn)}`;
  }
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start += 1) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length += 1;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
