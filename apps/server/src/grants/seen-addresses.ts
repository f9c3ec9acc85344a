import { ErrorCodes, type DiscoveredIp } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { BadRequestError } from '../errors.js';
import { ipAttestor } from '../ip-discovery/attestation.js';
import { readSetting } from '../settings/settings.js';
import { grantableAddress } from './ip-rules.js';

/** A browser-reported address the server has reason to believe the caller uses. */
export interface SeenAddress {
  /** Canonical spelling (IPv4-mapped IPv6 as IPv4). */
  ip: string;
  /** The discovery port it was seen on. */
  port: number;
}

/**
 * The caller's own address (the request's, see lib/client-address.ts) as a grant writes it, or a 400:
 * a request from loopback, link-local and the like is never granted, not even to itself.
 */
export function ownGrantableAddress(address: string): string {
  const checked = grantableAddress(address);
  if ('refused' in checked) throw new BadRequestError({ code: checked.refused });
  return checked.ip;
}

/**
 * Enforces "a grant never opens an address the server has not seen the caller use" on the addresses
 * a browser reports (the IPs of /api/log_ips and /api/grant). Each one must be
 * - one address no grant is barred from (ip-rules.ts grantableAddress), and
 * - the request's own address, or attested by the built-in discovery responder for this address and
 *   port (ip-discovery/attestation.ts), or reported while the admin setting DiscoverIPTrustUnattested
 *   is on (an external DiscoverIPURL cannot attest; the setting takes that risk knowingly).
 * The first address that fails makes the whole request a 400 naming it (`IPs.1.IP`): nothing is
 * dropped quietly, so nothing half-granted is left behind.
 */
export async function seenAddresses(
  ctx: AppContext,
  callerAddress: string,
  reported: readonly DiscoveredIp[],
  now: number,
): Promise<SeenAddress[]> {
  const own = grantableAddress(callerAddress);
  const attestor = ipAttestor(ctx.secrets);
  let trustUnattested: boolean | undefined;
  const seen: SeenAddress[] = [];
  for (const [index, entry] of reported.entries()) {
    const field = `IPs.${index}.IP`;
    const checked = grantableAddress(entry.IP);
    if ('refused' in checked) throw new BadRequestError({ code: checked.refused, extra: field });
    const subject = { ip: checked.ip, port: entry.Port };
    const vouched =
      ('ip' in own && own.ip === checked.ip) ||
      (entry.Attestation !== undefined && attestor.verify(entry.Attestation, subject, now)) ||
      (trustUnattested ??= await readSetting(ctx.db, 'DiscoverIPTrustUnattested'));
    if (!vouched) throw new BadRequestError({ code: ErrorCodes.ipAddressNotSeen, extra: field });
    seen.push(subject);
  }
  return seen;
}
