import {
  DASHBOARD_FAST_POLL_MS,
  DASHBOARD_FAST_POLL_TRIES,
  DASHBOARD_SLOW_POLL_MS,
  IP_REVALIDATION_INTERVAL_MS,
  type AclEntry,
} from '@postern/protocol';
import { isUnsettled, settledAfter, type AclActionKind } from '../acls/acl-view';

/**
 * When the user pages ask for their status again (spec §4, §9), as pure functions of a small state,
 * so the rules can be tested without a clock:
 *
 * - the dashboard polls every second, for at most 30 tries, while some ACL is on its way (Pending,
 *   Revoking), and every 30 seconds otherwise;
 * - the older home polls every 30 seconds (which also revalidates the IP address);
 * - after a grant or revoke, the ACL is followed from 1 second with a delay growing by a step each
 *   time, until its status settles.
 */

/** How the page polls when no grant or revoke is being followed. */
export type PollMode = 'dashboard' | 'home';

/** A grant poll starts 1 second after the action … */
const ACTION_POLL_START_MS = DASHBOARD_FAST_POLL_MS;
/** … and each further wait is this much longer. */
const ACTION_POLL_STEP_MS = 500;

/** An ACL whose grant or revoke is being followed. */
export interface WatchedAcl {
  action: AclActionKind;
  /** Waits scheduled since the action's own refetch (the next wait is 1 second plus this many steps). */
  attempt: number;
}

/** What the poller remembers between polls. */
export interface PollState {
  /** Fast polls made in the current unsettled stretch of the dashboard. */
  fastTries: number;
  /** ACLs followed after a grant or revoke, by ACLID. */
  watched: ReadonlyMap<string, WatchedAcl>;
}

export const INITIAL_POLL_STATE: PollState = { fastTries: 0, watched: new Map() };

type AclStatus = Pick<AclEntry, 'ACLID' | 'Status'>;

/** The wait before the grant poll's next request, growing from 1 second by a step per attempt. */
export function actionPollDelay(attempt: number): number {
  return ACTION_POLL_START_MS + attempt * ACTION_POLL_STEP_MS;
}

/**
 * The wait before the next status request, and the state once that request is scheduled. A followed
 * grant or revoke whose back-off has grown past the regular interval is left to the regular poll.
 */
export function nextPoll(
  state: PollState,
  acls: readonly AclStatus[] | undefined,
  mode: PollMode,
): { delay: number; state: PollState } {
  let delay = mode === 'dashboard' ? DASHBOARD_SLOW_POLL_MS : IP_REVALIDATION_INTERVAL_MS;
  let fastTries = state.fastTries;
  const watched = new Map<string, WatchedAcl>();
  for (const [aclId, watch] of state.watched) {
    delay = Math.min(delay, actionPollDelay(watch.attempt));
    // Each wait scheduled while an ACL is followed makes its next wait one step longer.
    watched.set(aclId, { ...watch, attempt: watch.attempt + 1 });
  }
  if (mode === 'dashboard') {
    const unsettled = acls?.some(isUnsettled) ?? false;
    if (!unsettled) fastTries = 0;
    else if (fastTries < DASHBOARD_FAST_POLL_TRIES) {
      if (DASHBOARD_FAST_POLL_MS <= delay) {
        delay = DASHBOARD_FAST_POLL_MS;
        fastTries += 1;
      }
    }
  }
  return { delay, state: { fastTries, watched } };
}

/**
 * The state after a status answer: a followed ACL stops being followed once its status is settled
 * for its action, once it has left the list, or once its back-off has reached the regular interval.
 * A failed request (no ACLs) changes nothing.
 */
export function afterPoll(state: PollState, acls: readonly AclStatus[] | undefined): PollState {
  if (state.watched.size === 0) return state;
  const watched = new Map<string, WatchedAcl>();
  for (const [aclId, watch] of state.watched) {
    const acl = acls?.find((candidate) => candidate.ACLID === aclId);
    if (acls !== undefined && (acl === undefined || settledAfter(watch.action, acl.Status))) continue;
    if (actionPollDelay(watch.attempt) >= DASHBOARD_SLOW_POLL_MS) continue;
    watched.set(aclId, watch);
  }
  return { ...state, watched };
}

/** The state once a grant or revoke of `aclId` has been sent: follow it from its first attempt. */
export function watchAcl(state: PollState, aclId: string, action: AclActionKind): PollState {
  const watched = new Map(state.watched);
  watched.set(aclId, { action, attempt: 0 });
  return { ...state, watched };
}
