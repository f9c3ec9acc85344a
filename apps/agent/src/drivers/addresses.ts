import { canonicalIp, formatIp, IP_FAMILY_BITS, parseIpOrCidr } from '@postern/protocol';

/**
 * An address or network a driver may write, checked and in one canonical spelling — the spelling of
 * @postern/protocol's net.ts, which the server uses too, so an entry the server sends, the one a
 * driver writes and the one a device lists back compare equal.
 */
export interface ParsedAddress {
  /** The family as ipset and nftables name it. IPv4-mapped IPv6 (`::ffff:192.0.2.7`) is IPv4. */
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
  const parsed = parseIpOrCidr(value);
  if (parsed === null) return null;
  const bits = IP_FAMILY_BITS[parsed.family];
  const address = formatIp({ ...parsed, prefix: bits });
  const isHost = parsed.prefix === bits;
  return {
    family: parsed.family === 4 ? 'inet' : 'inet6',
    address,
    prefix: parsed.prefix,
    isHost,
    canonical: isHost ? address : `${address}/${parsed.prefix}`,
    cidr: `${address}/${parsed.prefix}`,
  };
}

/** The canonical spelling of an address (see {@link parseAddress}), or the input when it is not one. */
export function canonicalAddress(value: string): string {
  return canonicalIp(value) ?? value;
}

/**
 * The prefix length of a contiguous dotted IPv4 netmask ("255.255.255.0" → 24, "0.0.0.0" → 0), or
 * null for anything else: how vendors that show a subnet as address and mask say what it opens.
 */
export function netmaskPrefixLength(mask: string): number | null {
  const octets = mask.split('.');
  if (octets.length !== 4 || octets.some((octet) => !/^\d{1,3}$/.test(octet) || Number(octet) > 255)) return null;
  const bits = octets.reduce((value, octet) => value * 256 + Number(octet), 0);
  // Contiguous ones then zeros: the zeros' part plus one is a power of two.
  const length = 32 - Math.log2(2 ** 32 - bits);
  return Number.isInteger(length) ? length : null;
}
