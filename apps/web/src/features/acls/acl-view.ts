import {
  COUNTDOWN_WARNING_SECONDS,
  DEFAULT_ACL_CATEGORY,
  GrantStatus,
  SETTLED_AFTER_ACTION,
  type AclEntry,
} from '@postern/protocol';

/**
 * How the user portal reads an ACL entry of GET /api/status: which button it offers, which badge it
 * wears, whether the dashboard must keep polling for it. Pure functions of the entry and the time,
 * so the pages and the tests share one reading of the spec's status table (§4).
 */

/** What the ACL's action area shows. */
export type AclAction =
  /** DisableForUser: a disabled 'Disabled' button and 'Consult your administrator for details'. */
  | 'disabled'
  /** The agent is offline (status 3): the rule is disabled until it returns. */
  | 'offline'
  /** Status 2: a 'Pending' button that does nothing. */
  | 'pending'
  /** A grant is issued or still runs: 'Revoke Access'. */
  | 'revoke'
  /** Ready to grant: 'Grant Access'. */
  | 'grant';

/** Grant issued (spec §4: Granted, Read, Published, Revoking). */
const ISSUED: ReadonlySet<number> = new Set([
  GrantStatus.Granted,
  GrantStatus.Read,
  GrantStatus.Published,
  GrantStatus.Revoking,
]);

/** Whether the entry's grant still runs: ExpiredAfter lies in the future. */
function grantRunning(acl: Pick<AclEntry, 'ExpiredAfter'>, now: number): boolean {
  return acl.ExpiredAfter !== null && Date.parse(acl.ExpiredAfter) > now;
}

/**
 * The action the ACL offers (spec §2, §4). A click-to-grant ACL that is ready (Created, Revoked) gets
 * Grant Access, and so does one whose last attempt failed without leaving a grant behind, so that a
 * failure can be retried; an ACL granted at sign-in (not click-to-grant) can be granted again the
 * same way once it has been revoked.
 */
export function aclAction(acl: AclEntry, now: number): AclAction {
  if (acl.DisableForUser) return 'disabled';
  if (acl.Status === GrantStatus.AgentOffline) return 'offline';
  if (acl.Status === GrantStatus.Pending) return 'pending';
  if (ISSUED.has(acl.Status) || grantRunning(acl, now)) return 'revoke';
  return 'grant';
}

/** The badge an ACL wears, besides its button. */
export type AclBadge =
  | { kind: 'access'; secondsLeft: number; warning: boolean }
  | { kind: 'error'; message: string }
  | { kind: 'offline' }
  | { kind: 'none' };

/**
 * 'Access for {relative time}' while a grant runs, orange under 900 seconds (spec §2, §9); the error
 * of a failed grant or revoke; 'Offline' when the agent is away.
 */
export function aclBadge(acl: AclEntry, now: number): AclBadge {
  if (acl.Status === GrantStatus.AgentOffline) return { kind: 'offline' };
  if (acl.Status === GrantStatus.GrantError || acl.Status === GrantStatus.RevokeError) {
    return { kind: 'error', message: acl.Error };
  }
  if (acl.ExpiredAfter !== null && ISSUED.has(acl.Status) && acl.Status !== GrantStatus.Revoking) {
    const secondsLeft = Math.floor((Date.parse(acl.ExpiredAfter) - now) / 1000);
    if (secondsLeft > 0) return { kind: 'access', secondsLeft, warning: secondsLeft < COUNTDOWN_WARNING_SECONDS };
  }
  return { kind: 'none' };
}

/** Statuses on their way somewhere: the dashboard polls fast while an ACL shows one (spec §4). */
const IN_FLIGHT: ReadonlySet<number> = new Set([GrantStatus.Pending, GrantStatus.Revoking]);

/** Whether the ACL is still on its way to an outcome (Pending or Revoking). */
export function isUnsettled(acl: Pick<AclEntry, 'Status'>): boolean {
  return IN_FLIGHT.has(acl.Status);
}

/** The user action a grant poll follows. */
export type AclActionKind = 'grant' | 'revoke';

/** What each action ends in on this server, besides the spec's 1, 3, 4 and 6. */
const OUTCOME: Record<AclActionKind, ReadonlySet<number>> = {
  grant: new Set([GrantStatus.Granted, GrantStatus.Read]),
  revoke: new Set([GrantStatus.Revoked, GrantStatus.RevokeError]),
};

/**
 * Whether the poll after a grant or revoke may stop: the spec's settled statuses (GrantError,
 * AgentOffline, Created, Published), or the outcome the action itself aims at (a grant on the device,
 * a revoke done or failed), which the spec's list does not name but which never changes on its own.
 */
export function settledAfter(action: AclActionKind, status: number): boolean {
  return (SETTLED_AFTER_ACTION as readonly number[]).includes(status) || OUTCOME[action].has(status);
}

/** The ACLs a user sees: HideFromUsers ones are left out (spec §2). */
export function visibleAcls(acls: readonly AclEntry[]): AclEntry[] {
  return acls.filter((acl) => !acl.HideFromUsers);
}

/** Whether the ACL's URL is one a browser can open (http or https). */
export function browsableUrl(url: string): string | null {
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return null;
  return url;
}

/** Whether the category is the default one, which the dashboard labels Other. */
export function isDefaultCategory(category: string): boolean {
  return category === '' || category === DEFAULT_ACL_CATEGORY;
}
