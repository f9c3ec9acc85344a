/**
 * IP addresses and CIDR ranges as numbers, for "is this caller inside an AllowedFrom entry" checks.
 *
 * An IPv4 address that reaches us as an IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, how a dual-stack
 * socket reports IPv4 peers) is treated as the IPv4 address it carries, and a range written in mapped
 * form (`::ffff:192.0.2.0/120`) as the IPv4 range it covers. Otherwise the families are separate: an
 * IPv6 range never contains an IPv4 address and the reverse, so `::/0` means "any IPv6 caller" and an
 * admin who wants both families lists `0.0.0.0/0` and `::/0` (the spec's default).
 */

export type IpFamily = 4 | 6;

/** One address: its family and its value as an unsigned integer (32 or 128 bits). */
export interface IpAddress {
  family: IpFamily;
  value: bigint;
}

/** One range: the network address (host bits cleared) and the prefix length. */
export interface CidrRange {
  family: IpFamily;
  network: bigint;
  bits: number;
}

const FAMILY_BITS: Record<IpFamily, number> = { 4: 32, 6: 128 };
/** ::ffff:0:0/96, the IPv4-mapped block. */
const MAPPED_PREFIX = 0xffffn << 32n;
const MAPPED_MASK = ((1n << 96n) - 1n) << 32n;

/**
 * Parses an IPv4 or IPv6 address; IPv4-mapped IPv6 becomes IPv4. A zone (`fe80::1%eth0`) is ignored.
 * Returns null for anything else, including IPv4 parts with leading zeros (ambiguous: octal or not).
 */
export function parseIp(text: string): IpAddress | null {
  const address = text.trim();
  if (address.includes(':')) {
    const zoneAt = address.indexOf('%');
    const value = parseIpv6(zoneAt === -1 ? address : address.slice(0, zoneAt));
    if (value === null) return null;
    return isMapped(value) ? { family: 4, value: value & 0xffffffffn } : { family: 6, value };
  }
  const value = parseIpv4(address);
  return value === null ? null : { family: 4, value };
}

/** Parses `address/bits`; the host bits may be set (they are cleared). Returns null when invalid. */
export function parseCidr(text: string): CidrRange | null {
  const parts = text.trim().split('/');
  if (parts.length !== 2) return null;
  const [addressText = '', bitsText = ''] = parts;
  if (!/^\d{1,3}$/.test(bitsText) || addressText.includes('%')) return null;
  let bits = Number(bitsText);
  let family: IpFamily;
  let value: bigint;
  if (addressText.includes(':')) {
    const parsed = parseIpv6(addressText);
    if (parsed === null || bits > 128) return null;
    if (bits >= 96 && isMapped(parsed)) {
      family = 4;
      value = parsed & 0xffffffffn;
      bits -= 96;
    } else {
      family = 6;
      value = parsed;
    }
  } else {
    const parsed = parseIpv4(addressText);
    if (parsed === null || bits > 32) return null;
    family = 4;
    value = parsed;
  }
  return { family, network: value & prefixMask(family, bits), bits };
}

/** True when `address` lies inside `range` (same family after unmapping). */
export function cidrContains(range: CidrRange, address: IpAddress): boolean {
  if (range.family !== address.family) return false;
  return (address.value & prefixMask(range.family, range.bits)) === range.network;
}

/**
 * True when the address parses and lies inside at least one of the ranges. Ranges that do not parse
 * match nothing (fail closed); an unparsable address matches nothing.
 */
export function addressInAnyCidr(addressText: string, cidrs: readonly string[]): boolean {
  const address = parseIp(addressText);
  if (address === null) return false;
  return cidrs.some((text) => {
    const range = parseCidr(text);
    return range !== null && cidrContains(range, address);
  });
}

function prefixMask(family: IpFamily, bits: number): bigint {
  const width = BigInt(FAMILY_BITS[family]);
  const all = (1n << width) - 1n;
  return (all << (width - BigInt(bits))) & all;
}

function isMapped(value: bigint): boolean {
  return (value & MAPPED_MASK) === MAPPED_PREFIX;
}

function parseIpv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

/** RFC 4291 text forms: full, `::`-compressed, and with a dotted IPv4 tail. */
function parseIpv6(text: string): bigint | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const compressed = halves.length === 2;
  const split = (half: string | undefined) => (half === undefined || half === '' ? [] : half.split(':'));
  const head = readGroups(split(halves[0]), !compressed);
  const tail = readGroups(split(halves[1]), true);
  if (head === null || tail === null) return null;
  const used = head.length + tail.length;
  if (compressed ? used > 7 : used !== 8) return null;
  const groups = [...head, ...new Array<number>(8 - used).fill(0), ...tail];
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(group);
  return value;
}

/** 16-bit groups from hex pieces; the last piece of the address may be a dotted IPv4 (two groups). */
function readGroups(pieces: string[], endsAddress: boolean): number[] | null {
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (endsAddress && index === pieces.length - 1 && piece.includes('.')) {
      const v4 = parseIpv4(piece);
      if (v4 === null) return null;
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
      groups.push(parseInt(piece, 16));
    } else {
      return null;
    }
  }
  return groups;
}
