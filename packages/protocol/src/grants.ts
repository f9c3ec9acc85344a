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
