import type { Kysely } from 'kysely';
import { NO_AGENT_ID, type KnocRecord } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import { listBackendRows, type BackendWithAgent } from '../backends/backends.repo.js';
import { maskBackendSecrets } from '../backends/backend-secrets.js';
import { maskAclConfig } from './knoc-config.js';
import { childrenOf, membershipsOfKnocs, type KnocMemberships, type KnocRow } from './knocs.repo.js';

/**
 * The API's view of these knocs, in the order given. A knoc without a backend (a membership-only row
 * from before knocs had backends) has no type to show and is left out.
 */
export async function knocRecords(db: Kysely<Database>, rows: readonly KnocRow[]): Promise<KnocRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const many = rows.length > 50;
  // One after another: `db` may be a transaction, which runs one statement at a time anyway.
  const backends = await listBackendRows(db);
  const memberships = await membershipsOfKnocs(db, many ? 'all' : ids);
  const children = await childrenOf(db, many ? 'all' : ids);
  const backendsById = new Map(backends.map((backend) => [backend.id, backend]));
  return rows.flatMap((row) => {
    const backend = row.backendId === null ? undefined : backendsById.get(row.backendId);
    if (backend === undefined) return [];
    return [toKnocRecord(row, backend, memberships.get(row.id), children.get(row.id) ?? [])];
  });
}

function toKnocRecord(
  row: KnocRow,
  backend: BackendWithAgent,
  memberships: KnocMemberships | undefined,
  children: string[],
): KnocRecord {
  const aclConfig = maskAclConfig(row.config);
  const userIds = memberships?.userIds ?? [];
  const groupIds = memberships?.groupIds ?? [];
  return {
    ID: row.id,
    Name: row.description,
    Description: row.description,
    ParentID: row.parentId,
    Children: children,
    HideFromAdmins: row.hideFromAdmins,
    HideFromUsers: row.hideFromUsers,
    URL: row.url,
    Category: row.category,
    Icon: row.icon,
    ClickToGrant: row.clickToGrant,
    CGNATOpen: row.cgnatOpen,
    MaximumGrantDuration: row.maximumGrantDuration,
    BackendID: backend.id,
    BackendName: backend.name,
    BackendType: backend.type,
    AgentID: backend.agentId ?? NO_AGENT_ID,
    AgentName: backend.agentName,
    AutoBrowseUsers: row.autoBrowseUsers,
    UserCount: userIds.length,
    GroupCount: groupIds.length,
    UserIDs: userIds,
    GroupIDs: groupIds,
    LastModifiedAt: new Date(row.updatedAt).toISOString(),
    LastModifiedBy: row.lastModifiedBy,
    IpExclusions: row.ipExclusions,
    GrantType: row.grantType,
    Config: { ...aclConfig, UriToken: row.uriToken },
    AclConfig: aclConfig,
    BackendConfig: { [backend.type]: maskBackendSecrets(backend.type, backend.config) },
  };
}
