import { ErrorCodes, parseIp, type DiscoveredIp } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { BadRequestError } from '../errors.js';
import { ipAttestor } from '../ip-discovery/attestation.js';
import { readSetting } from '../settings/settings.js';
import { grantableAddress, type GrantableAddress } from './ip-rules.js';

/** A browser-reported address the server has reason to believe the caller uses. */
export interface SeenAddress {
  /** Canonical spelling (IPv4-mapped IPv6 as IPv4). */
  ip: string;
  /** The discovery port it was seen on. */
  port: number;
}

/** The request field a list of reported addresses came in: a refusal names it (`IPs.1.IP`). */
export type ReportedField = 'IPs' | 'DualStackIPs';

/**
 * The caller's own address (the request's, see lib/client-address.ts) as a grant writes it, or a 400:
 * a request from loopback, link-local and the like is never granted, not even to itself.
 */
export function ownGrantableAddress(address: string): string {
  const checked = grantableAddress(address);
  if ('refused' in checked) throw new BadRequestError({ code: checked.refused });
  return checked.ip;
}

/** Checks reported addresses against the caller's own address; reads the trust setting once, when needed. */
function addressChecker(ctx: AppContext, callerAddress: string, now: number) {
  const own: GrantableAddress = grantableAddress(callerAddress);
  const attestor = ipAttestor(ctx.secrets);
  let trustUnattested: boolean | undefined;
  return async (entry: DiscoveredIp, field: string): Promise<SeenAddress> => {
    const checked = grantableAddress(entry.IP);
    if ('refused' in checked) throw new BadRequestError({ code: checked.refused, extra: field });
    const subject = { ip: checked.ip, port: entry.Port };
    const vouched =
      ('ip' in own && own.ip === checked.ip) ||
      (entry.Attestation !== undefined && attestor.verify(entry.Attestation, subject, now)) ||
      (trustUnattested ??= await readSetting(ctx.db, 'DiscoverIPTrustUnattested'));
    if (!vouched) throw new BadRequestError({ code: ErrorCodes.ipAddressNotSeen, extra: field });
    return subject;
  };
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
  field: ReportedField = 'IPs',
): Promise<SeenAddress[]> {
  const check = addressChecker(ctx, callerAddress, now);
  const seen: SeenAddress[] = [];
  for (const [index, entry] of reported.entries()) seen.push(await check(entry, `${field}.${index}.IP`));
  return seen;
}

/**
 * Dual stack: of what the IPv4-only and IPv6-only discovery URLs answered (GrantBody.DualStackIPs),
 * the first address of the family the request's own address is not, checked as seenAddresses checks
 * every reported address (a refusal is a 400 naming `DualStackIPs.<n>.IP`); null when there is none.
 * So this path adds one address at most, and never a second one of the caller's own family (that is
 * CGNAT's, on CGNATOpen knocs). Answers of the caller's own family are not used, so not checked.
 */
export async function otherFamilyAddress(
  ctx: AppContext,
  callerAddress: string,
  reported: readonly DiscoveredIp[],
  now: number,
): Promise<SeenAddress | null> {
  const ownFamily = parseIp(callerAddress)?.family;
  if (ownFamily === undefined) return null;
  const index = reported.findIndex((entry) => {
    const family = parseIp(entry.IP)?.family;
    return family !== undefined && family !== ownFamily;
  });
  const entry = reported[index];
  if (entry === undefined) return null;
  return addressChecker(ctx, callerAddress, now)(entry, `DualStackIPs.${index}.IP`);
}
