import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { AclEntry, type DiscoveredIp, type UserStatus } from '@postern/protocol';
import { api } from '../../lib/api/client';
import { statusKeys } from '../status/api';

/**
 * POST /api/grant: access to one ACL from this browser's addresses (`dualStackIps`: the IPv4-only and
 * IPv6-only discovery answers, sent when there are any); answers the ACL as it now is.
 */
export function grantAcl(
  aclId: string,
  ips: readonly DiscoveredIp[],
  dualStackIps: readonly DiscoveredIp[] = [],
): Promise<AclEntry> {
  const body =
    dualStackIps.length === 0 ? { ACLID: aclId, IPs: ips } : { ACLID: aclId, IPs: ips, DualStackIPs: dualStackIps };
  return api.post('/grant', body, AclEntry);
}

/** DELETE /api/sessions/current/granted-acls/{id}: ends this session's access to one ACL. */
export function revokeAcl(aclId: string): Promise<AclEntry> {
  return api.delete(`/sessions/current/granted-acls/${encodeURIComponent(aclId)}`, AclEntry);
}

/** POST /api/log_ips: the addresses IP discovery found, for CGNATOpen ACLs. */
export async function logIps(ips: readonly DiscoveredIp[]): Promise<void> {
  await api.post('/log_ips', { IPs: ips });
}

/** Puts the ACL a grant or revoke answered into the cached status, so the page shows it at once. */
function storeAclEntry(queryClient: QueryClient, entry: AclEntry): void {
  queryClient.setQueryData<UserStatus>(statusKeys.user(), (status) =>
    status === undefined
      ? status
      : { ...status, ACLs: status.ACLs.map((acl) => (acl.ACLID === entry.ACLID ? entry : acl)) },
  );
}

/** What a grant or revoke button sends. */
export interface AclActionVariables {
  aclId: string;
  ips?: readonly DiscoveredIp[];
  dualStackIps?: readonly DiscoveredIp[];
}

/** The Grant Access call. */
export function useGrantMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ aclId, ips = [], dualStackIps = [] }: AclActionVariables) => grantAcl(aclId, ips, dualStackIps),
    onSuccess: (entry) => storeAclEntry(queryClient, entry),
  });
}

/** The Revoke Access call. */
export function useRevokeMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ aclId }: AclActionVariables) => revokeAcl(aclId),
    onSuccess: (entry) => storeAclEntry(queryClient, entry),
  });
}
