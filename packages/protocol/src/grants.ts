import { z } from 'zod';
import { Id } from './common.js';
import { dataEnvelope } from './envelope.js';
import { ErrorCodes } from './errors.js';
import { parseIp } from './net.js';

/**
 * Grant status codes, exactly as the specification numbers them. 7 is unused by design.
 */
export const GrantStatus = {
  Granted: 0,
  GrantError: 1,
  Pending: 2,
  AgentOffline: 3,
  Created: 4,
  Read: 5,
  Published: 6,
  Revoking: 8,
  Revoked: 9,
  RevokeError: 10,
} as const;
export type GrantStatus = (typeof GrantStatus)[keyof typeof GrantStatus];

export const GRANT_STATUS_CODES: readonly GrantStatus[] = Object.values(GrantStatus);

/** Statuses at which the grant poll stops: the outcome is known. */
export const SETTLED_AFTER_ACTION: readonly GrantStatus[] = [
  GrantStatus.GrantError,
  GrantStatus.AgentOffline,
  GrantStatus.Created,
  GrantStatus.Published,
];

/**
 * How long a discovery responder's attestation stays valid. Browsers ask again every 30 seconds
 * (IP_REVALIDATION_INTERVAL_MS), so a live page always holds a fresh one; a copied one soon expires.
 */
export const IP_ATTESTATION_TTL_MS = 5 * 60_000;

/** One address the browser learned on a discovery port. */
export const DiscoveredIp = z.object({
  Port: z.number().int().min(0).max(65535),
  /** One IPv4 or IPv6 address (no range, no zone id). */
  IP: z
    .string()
    .trim()
    .max(64)
    .refine((value) => parseIp(value) !== null, ErrorCodes.invalidIpAddress),
  /**
   * The built-in responder's signed statement that it saw this address on this port, as it answered
   * it; absent when the address came from an external DiscoverIPURL, which cannot attest.
   */
  Attestation: z.string().max(200).optional(),
});
export type DiscoveredIp = z.infer<typeof DiscoveredIp>;

/** POST /api/grant */
export const GrantBody = z.object({
  ACLID: z.string().min(1).max(64),
  /** Addresses from IP discovery; used only when the knoc has CGNATOpen. */
  IPs: z.array(DiscoveredIp).max(16).default([]),
  /**
   * Dual stack: what the IPv4-only and IPv6-only discovery URLs (IPv4Api, IPv6Api) answered, at most
   * one each. A grant of a knoc for the user's address also opens the one of the other family than
   * the request's own address, CGNATOpen or not.
   */
  DualStackIPs: z.array(DiscoveredIp).max(2).default([]),
});
export type GrantBody = z.infer<typeof GrantBody>;

/** POST /api/log_ips */
export const LogIpsBody = z.object({ IPs: z.array(DiscoveredIp).max(16) });
export type LogIpsBody = z.infer<typeof LogIpsBody>;

/** POST /api/admin/acls/{id}/grants: an admin's audited break-glass grant. */
export const BreakGlassGrantBody = z.object({
  IP: z.string().trim().min(1).max(64),
  /** Minutes; capped by the knoc's MaximumGrantDuration when it has one. */
  Minutes: z.number().int().min(1).max(40320),
  Reason: z.string().trim().min(1).max(500),
});
export type BreakGlassGrantBody = z.infer<typeof BreakGlassGrantBody>;

/** The break-glass grant made: its id, the address and when it ends (ISO). */
export const BreakGlassGrant = z.object({ ID: Id, IP: z.string(), ExpiresAt: z.string() });
export type BreakGlassGrant = z.infer<typeof BreakGlassGrant>;
export const BreakGlassGrantResponse = dataEnvelope(BreakGlassGrant);
