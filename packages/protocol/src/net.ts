/**
 * IP addresses and networks, the one implementation the server, the agent and the browser share, so
 * that every side spells an address alike (a grant written under one spelling and removed under
 * another would never leave the device).
 *
 * - Parsing is strict: IPv4 as four decimal parts 0–255 without leading zeros (`010` could be octal),
 *   IPv6 in the RFC 4291 text forms (with `::` and an optional dotted IPv4 tail). No surrounding
 *   space, no zone id (`fe80::1%eth0`), no host names: anything else is null. Drivers rely on this,
 *   because a newline or `;` that got through would become a second command on a device.
 * - An IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, also written `::ffff:c000:207`) is the IPv4
 *   address it carries, and a mapped network of /96 or longer the IPv4 network it covers: that is
 *   how a dual-stack socket reports IPv4 peers, and how firewalls see the packets.
 * - The canonical spelling is lower-case RFC 5952 for IPv6 (the longest run of two or more zero
 *   groups as `::`, the first when tied), dotted decimal for IPv4, and no prefix for a single host
 *   (`192.0.2.7`, not `192.0.2.7/32`: what ipset and HAProxy print back). A network is its network
 *   address with the host bits cleared and its prefix (`10.1.2.3/8` is `10.0.0.0/8`).
 *
 * No Node.js imports: the browser uses this too.
 */

/** 4 or 6. */
export type IpFamily = 4 | 6;

/** One address (prefix 32 or 128) or one network. */
export interface IpPrefix {
  family: IpFamily;
  /** The address as an unsigned 32- or 128-bit integer; for a network, its network address. */
  value: bigint;
  /** The prefix length: 32 (IPv4) or 128 (IPv6) for a single host. */
  prefix: number;
}

/** Address width per family. */
export const IP_FAMILY_BITS: Readonly<Record<IpFamily, number>> = { 4: 32, 6: 128 };

const IPV4_PART = /^(0|[1-9]\d{0,2})$/;
/** An IPv4 address already in canonical form: the fast path of {@link canonicalIp}. */
const CANONICAL_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV6_GROUP = /^[0-9a-fA-F]{1,4}$/;
const PREFIX_LENGTH = /^\d{1,3}$/;

/** One address (no prefix); IPv4-mapped IPv6 becomes IPv4. Null for anything else. */
export function parseIp(text: string): IpPrefix | null {
  if (text.includes(':')) {
    const groups = parseIpv6Groups(text);
    if (groups === null) return null;
    if (isMappedGroups(groups)) return { family: 4, value: mappedIpv4(groups), prefix: 32 };
    return { family: 6, value: groupsToValue(groups), prefix: 128 };
  }
  const value = parseIpv4(text);
  return value === null ? null : { family: 4, value, prefix: 32 };
}

/**
 * A network written `address/prefix` (the host bits may be set; they are cleared). A mapped network
 * of /96 or longer becomes the IPv4 network it covers (`::ffff:192.0.2.0/120` is `192.0.2.0/24`).
 * Null without a prefix, or for anything else.
 */
export function parseCidr(text: string): IpPrefix | null {
  const slash = text.indexOf('/');
  if (slash === -1) return null;
  const addressText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!PREFIX_LENGTH.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (addressText.includes(':')) {
    const groups = parseIpv6Groups(addressText);
    if (groups === null || prefix > 128) return null;
    const value = groupsToValue(groups);
    if (prefix >= 96 && isMappedGroups(groups)) return network(4, value & 0xffffffffn, prefix - 96);
    return network(6, value, prefix);
  }
  const value = parseIpv4(addressText);
  if (value === null || prefix > 32) return null;
  return network(4, value, prefix);
}

/** An address, or a network when the text has a `/prefix` (see {@link parseIp} and {@link parseCidr}). */
export function parseIpOrCidr(text: string): IpPrefix | null {
  return text.includes('/') ? parseCidr(text) : parseIp(text);
}

/** True for a single address (/32 or /128). */
export function isSingleHost(address: IpPrefix): boolean {
  return address.prefix === IP_FAMILY_BITS[address.family];
}

/** The canonical spelling: the address, with `/prefix` only for a network wider than one host. */
export function formatIp(address: IpPrefix): string {
  const text = address.family === 4 ? formatIpv4(address.value) : formatIpv6(address.value);
  return isSingleHost(address) ? text : `${text}/${address.prefix}`;
}

/** The canonical spelling of an address or network written any valid way, or null when it is neither. */
export function canonicalIp(text: string): string | null {
  // Fast paths for single addresses, without big integers: agents compare thousands of them.
  if (CANONICAL_IPV4.test(text)) return text;
  if (text.includes(':') && !text.includes('/')) {
    const groups = parseIpv6Groups(text);
    if (groups === null) return null;
    return isMappedGroups(groups) ? formatIpv4(mappedIpv4(groups)) : formatGroups(groups);
  }
  const parsed = parseIpOrCidr(text);
  return parsed === null ? null : formatIp(parsed);
}

/** True when `inner` (an address or a network) lies inside `range`; families never mix. */
export function cidrContains(range: IpPrefix, inner: IpPrefix): boolean {
  if (range.family !== inner.family || inner.prefix < range.prefix) return false;
  return (inner.value & prefixMask(range.family, range.prefix)) === range.value;
}

/**
 * True when the address parses and lies inside one of the networks (written `address/prefix`).
 * Entries that do not parse match nothing, and an unparsable address matches nothing: fail closed.
 */
export function addressInAnyCidr(addressText: string, cidrs: readonly string[]): boolean {
  const address = parseIp(addressText);
  if (address === null) return false;
  return cidrs.some((text) => {
    const range = parseCidr(text);
    return range !== null && cidrContains(range, address);
  });
}

/** Why an address may never be granted. */
export type NeverGrantedKind = 'unspecified' | 'loopback' | 'link-local' | 'multicast' | 'broadcast' | 'cloud-metadata';

/**
 * Addresses no grant ever opens, whoever asks and however the address was learned: opening them
 * would let a firewall rule match the device itself, a whole link, a group, or a cloud instance's
 * metadata and credential service rather than one person's network path.
 *
 * The cloud metadata services most providers use (AWS, GCP, Azure, Oracle, OpenStack, DigitalOcean,
 * Hetzner: 169.254.169.254; Tencent 169.254.0.23; AWS ECS/EKS 169.254.170.2 and .23) are link-local
 * and covered by 169.254.0.0/16. The others are listed one by one.
 */
export const NEVER_GRANTED_RANGES: readonly { cidr: string; kind: NeverGrantedKind; note: string }[] = [
  { cidr: '0.0.0.0/8', kind: 'unspecified', note: '"this network" (RFC 1122), including 0.0.0.0' },
  { cidr: '127.0.0.0/8', kind: 'loopback', note: 'IPv4 loopback' },
  { cidr: '169.254.0.0/16', kind: 'link-local', note: 'IPv4 link-local, including 169.254.169.254' },
  { cidr: '224.0.0.0/4', kind: 'multicast', note: 'IPv4 multicast' },
  { cidr: '255.255.255.255/32', kind: 'broadcast', note: 'limited broadcast' },
  { cidr: '100.100.100.200/32', kind: 'cloud-metadata', note: 'Alibaba Cloud instance metadata' },
  { cidr: '168.63.129.16/32', kind: 'cloud-metadata', note: 'Azure WireServer (platform agent endpoint)' },
  { cidr: '::/128', kind: 'unspecified', note: 'IPv6 unspecified' },
  { cidr: '::1/128', kind: 'loopback', note: 'IPv6 loopback' },
  { cidr: 'fe80::/10', kind: 'link-local', note: 'IPv6 link-local' },
  { cidr: 'ff00::/8', kind: 'multicast', note: 'IPv6 multicast' },
  { cidr: 'fd00:ec2::254/128', kind: 'cloud-metadata', note: 'AWS instance metadata (IMDS) over IPv6' },
  { cidr: 'fd00:ec2::23/128', kind: 'cloud-metadata', note: 'AWS EKS Pod Identity agent over IPv6' },
  { cidr: 'fd20:ce::254/128', kind: 'cloud-metadata', note: 'Google Cloud metadata server over IPv6' },
];

let neverGranted: { range: IpPrefix; kind: NeverGrantedKind }[] | undefined;

/** Why this address may never be granted, or null when it may be (see {@link NEVER_GRANTED_RANGES}). */
export function neverGrantedKind(address: IpPrefix): NeverGrantedKind | null {
  // Parsed on first use, so that importing this module does no work.
  neverGranted ??= NEVER_GRANTED_RANGES.map(({ cidr, kind }) => {
    const range = parseCidr(cidr);
    if (range === null) throw new Error(`bad built-in range ${cidr}`);
    return { range, kind };
  });
  return neverGranted.find((entry) => cidrContains(entry.range, address))?.kind ?? null;
}

function network(family: IpFamily, value: bigint, prefix: number): IpPrefix {
  return { family, value: value & prefixMask(family, prefix), prefix };
}

function prefixMask(family: IpFamily, prefix: number): bigint {
  const width = BigInt(IP_FAMILY_BITS[family]);
  const all = (1n << width) - 1n;
  return (all << (width - BigInt(prefix))) & all;
}

function parseIpv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!IPV4_PART.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return BigInt(value);
}

/** Eight 16-bit groups, in order. */
type Groups = [number, number, number, number, number, number, number, number];

/** RFC 4291 text forms: eight groups, `::`-compressed, with or without a dotted IPv4 tail. */
function parseIpv6Groups(text: string): Groups | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const compressed = halves.length === 2;
  const split = (half: string | undefined) => (half === undefined || half === '' ? [] : half.split(':'));
  const head = readGroups(split(halves[0]), !compressed);
  const tail = compressed ? readGroups(split(halves[1]), true) : [];
  if (head === null || tail === null) return null;
  const used = head.length + tail.length;
  if (compressed ? used > 7 : used !== 8) return null;
  return [...head, ...new Array<number>(8 - used).fill(0), ...tail] as Groups;
}

function groupsToValue([a, b, c, d, e, f, g, h]: Groups): bigint {
  // Four 32-bit words: fewer big-integer steps than one per group.
  const word = (high: number, low: number) => BigInt(high * 65536 + low);
  return (word(a, b) << 96n) | (word(c, d) << 64n) | (word(e, f) << 32n) | word(g, h);
}

/** In ::ffff:0:0/96, the IPv4-mapped block. */
function isMappedGroups([a, b, c, d, e, f]: Groups): boolean {
  return a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0xffff;
}

/** The IPv4 address an IPv4-mapped address carries in its last two groups. */
function mappedIpv4(groups: Groups): bigint {
  return BigInt(groups[6] * 65536 + groups[7]);
}

/** 16-bit groups; the last piece of the whole address may be a dotted IPv4 address (two groups). */
function readGroups(pieces: readonly string[], endsAddress: boolean): number[] | null {
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (endsAddress && index === pieces.length - 1 && piece.includes('.')) {
      const v4 = parseIpv4(piece);
      if (v4 === null) return null;
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    } else if (IPV6_GROUP.test(piece)) {
      groups.push(parseInt(piece, 16));
    } else {
      return null;
    }
  }
  return groups;
}

function formatIpv4(value: bigint): string {
  const n = Number(value);
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

function formatIpv6(value: bigint): string {
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((value >> shift) & 0xffffn));
  return formatGroups(groups as Groups);
}

/** RFC 5952 §4: lower case, no leading zeros, the longest run (2+) of zero groups as `::`, first if tied. */
function formatGroups(groups: Groups): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8;) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length += 1;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
    start += Math.max(length, 1);
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
