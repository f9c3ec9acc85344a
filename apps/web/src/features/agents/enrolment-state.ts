import type { AgentRecord } from '@postern/protocol';

/**
 * Where the agent of an open install dialog stands: `waiting` until an agent has registered its key
 * with this token (a new agent, or one whose token was just rotated), `connected` while that agent
 * holds its connection, `offline` when it enrolled but is not connected now.
 */
export type EnrolmentState = 'waiting' | 'connected' | 'offline';

/**
 * How often the agents list is polled while the install dialog is open: the admin is watching the
 * agent connect, which then shows within a couple of seconds (the page polls every 5 s else).
 */
export const INSTALL_DIALOG_REFRESH_MS = 2_000;

/** The enrolment state of `agent` (see {@link EnrolmentState}). */
export function enrolmentState(agent: Pick<AgentRecord, 'EnrolledAt' | 'Online'>): EnrolmentState {
  if (agent.EnrolledAt === null) return 'waiting';
  return agent.Online ? 'connected' : 'offline';
}

/**
 * The freshest record of the agent a dialog shows: the polled list's, unless the record the dialog
 * opened with is newer. A rotation answers the agent with its new token before the list is fetched
 * again, and the list's older copy would still show the old key as connected.
 */
export function freshestAgent(opened: AgentRecord, listed: readonly AgentRecord[] | undefined): AgentRecord {
  const current = listed?.find((agent) => agent.ID === opened.ID);
  if (current === undefined) return opened;
  return Date.parse(current.LastModifiedAt) >= Date.parse(opened.LastModifiedAt) ? current : opened;
}
