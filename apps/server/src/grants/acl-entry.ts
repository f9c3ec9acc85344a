import { GrantStatus, type AclEntry } from '@postern/protocol';
import type { GrantableKnoc } from './knoc-access.js';
import { addressAllowed } from './ip-rules.js';

/** A grant row of the session on one knoc, as the status needs it. */
export interface SessionGrant {
  status: number;
  error: string;
  expiresAt: number;
  endedAt: number | null;
  createdAt: number;
}

/**
 * The status a user sees for one knoc, from their session's grants on it:
 * running grants → Granted when all are on the device, GrantError when one failed, Published for
 * allowlists (Read once the firewall has fetched the list), Pending otherwise, AgentOffline when the agent is away; nothing running → the last
 * ended grant's Revoking / error on revoke / Revoked, or Created (ready to grant).
 * `childGrants` are the session's grants on the knoc's passive+ children: the user never sees those
 * knocs, so a child's failure (the firewall refused to refresh its list) shows as this knoc's error.
 */
export function aclEntry(
  knoc: GrantableKnoc,
  grants: readonly SessionGrant[],
  address: string,
  now: number,
  childGrants: readonly SessionGrant[] = [],
): AclEntry {
  const isRunning = (grant: SessionGrant) => grant.endedAt === null && Number(grant.expiresAt) > now;
  const running = grants.filter(isRunning);
  let status: number = GrantStatus.Created;
  let error = '';
  let expiredAfter: string | null = null;
  if (running.length > 0) {
    expiredAfter = new Date(Math.max(...running.map((grant) => Number(grant.expiresAt)))).toISOString();
    const failed = [...running, ...childGrants.filter(isRunning)].find(
      (grant) => grant.status === GrantStatus.GrantError,
    );
    if (!knoc.agentOnline) status = GrantStatus.AgentOffline;
    else if (failed !== undefined) {
      status = GrantStatus.GrantError;
      error = failed.error;
    } else if (running.every((grant) => grant.status === GrantStatus.Granted)) status = GrantStatus.Granted;
    else if (running.every((grant) => grant.status === GrantStatus.Read)) status = GrantStatus.Read;
    else if (running.every((grant) => grant.status === GrantStatus.Published || grant.status === GrantStatus.Read)) {
      status = GrantStatus.Published;
    } else status = GrantStatus.Pending;
  } else {
    const ended = [...grants].sort((a, b) => Number(b.endedAt ?? b.expiresAt) - Number(a.endedAt ?? a.expiresAt));
    const last = ended[0];
    if (last !== undefined && last.endedAt === null) status = GrantStatus.Revoking;
    else if (
      last?.status === GrantStatus.Revoking ||
      last?.status === GrantStatus.RevokeError ||
      last?.status === GrantStatus.Revoked
    ) {
      status = last.status;
      error = last.status === GrantStatus.RevokeError ? last.error : '';
    }
    if (!knoc.agentOnline) status = GrantStatus.AgentOffline;
  }
  return {
    ID: knoc.id,
    ACLID: knoc.id,
    ParentID: knoc.parentId,
    Description: knoc.description,
    URL: knoc.url,
    Icon: knoc.icon,
    Category: knoc.category,
    Status: status,
    Error: error,
    ExpiredAfter: expiredAfter,
    ClickToGrant: knoc.clickToGrant,
    CGNATOpen: knoc.cgnatOpen,
    HideFromUsers: knoc.hideFromUsers,
    DisableForUser: knoc.grantType.Type === 'userIp' && !addressAllowed(knoc.ipExclusions, address),
    GrantTypeFixedIps: knoc.grantType.Type === 'specifiedIps',
    AutoBrowseUsers: knoc.autoBrowseUsers,
    Config: { UriToken: knoc.uriToken },
  };
}
