import { isIpv4, isIpv6, RFC1918_RANGES, type IpExclusions, type IpRange } from '@postern/protocol';

function ipv4ToNumber(ip: string): number {
  return ip.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

function inRange(ip: string, range: IpRange): boolean {
  if (!isIpv4(ip) || !isIpv4(range.Start) || !isIpv4(range.End)) return false;
  const value = ipv4ToNumber(ip);
  return value >= ipv4ToNumber(range.Start) && value <= ipv4ToNumber(range.End);
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

/**
 * Whether an address may be written to a device at all: one IPv4 or IPv6 host address, never an
 * unspecified, a broadcast or a multicast address and never a range.
 */
export function isGrantableAddress(ip: string): boolean {
  if (isIpv4(ip)) {
    const first = Number(ip.split('.')[0]);
    return ip !== '0.0.0.0' && ip !== '255.255.255.255' && !(first >= 224 && first <= 239);
  }
  if (isIpv6(ip)) {
    const canonical = canonicalAddress(ip);
    return canonical !== '::' && !canonical.startsWith('ff');
  }
  return false;
}

/** One spelling per address (IPv6 compressed and lower-case), so shared addresses match. */
export function canonicalAddress(ip: string): string {
  if (!isIpv6(ip)) return ip;
  return new URL(`http://[${ip}]/`).hostname.replace(/^\[|\]$/g, '');
}
