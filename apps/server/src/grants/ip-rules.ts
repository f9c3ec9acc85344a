import {
  ErrorCodes,
  formatIp,
  neverGrantedKind,
  parseIp,
  RFC1918_RANGES,
  type ErrorCode,
  type IpExclusions,
  type IpRange,
} from '@postern/protocol';

function inRange(ip: string, range: IpRange): boolean {
  const address = parseIp(ip);
  const start = parseIp(range.Start);
  const end = parseIp(range.End);
  if (address?.family !== 4 || start?.family !== 4 || end?.family !== 4) return false;
  return address.value >= start.value && address.value <= end.value;
}

function inAny(ip: string, ranges: readonly IpRange[]): boolean {
  return ranges.some((range) => range.Start !== '' && inRange(ip, range));
}

/**
 * Whether the knoc's IpExclusions let this address use the knoc. Ranges are IPv4 (the spec's
 * rule), so an IPv6 address is outside every range: allowed under a deny rule, refused under an
 * allow rule — a restriction an admin set never opens up to addresses it cannot describe.
 */
export function addressAllowed(exclusions: IpExclusions, ip: string): boolean {
  switch (exclusions.RestrictionType) {
    case 'none':
      return true;
    case 'RFC1918': {
      const inside = inAny(ip, RFC1918_RANGES);
      return exclusions.RfcType === 'allow' ? inside : !inside;
    }
    case 'allowList':
      return inAny(ip, exclusions.Ranges);
    case 'denyList':
      return !inAny(ip, exclusions.Ranges);
  }
}

/** An address a grant may write to a device, in its canonical spelling; or why it may not be. */
export type GrantableAddress = { ip: string } | { refused: ErrorCode };

/**
 * Checks that an address may be written to a device at all: exactly one IPv4 or IPv6 host address
 * (never a range), and none of the addresses no grant ever opens (loopback, unspecified, link-local,
 * multicast, broadcast, cloud metadata: NEVER_GRANTED_RANGES in @postern/protocol). IPv4-mapped
 * IPv6 comes back as IPv4.
 */
export function grantableAddress(text: string): GrantableAddress {
  const parsed = parseIp(text);
  if (parsed === null) return { refused: ErrorCodes.invalidIpAddress };
  if (neverGrantedKind(parsed) !== null) return { refused: ErrorCodes.ipAddressNotGrantable };
  return { ip: formatIp(parsed) };
}
