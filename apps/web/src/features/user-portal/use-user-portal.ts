import { useCallback } from 'react';
import type { AclEntry } from '@postern/protocol';
import { useUserSession } from '../../lib/session/session-store';
import { useUserStatus } from '../status/api';
import { useIpDiscovery } from './use-ip-discovery';
import { otherFamilyAddress } from './ip-discovery';
import type { PollMode } from './poll-policy';
import { useReferrerRedirect } from './use-referrer-redirect';
import { useSessionEnd } from './use-session-end';
import { useStatusPolling } from './use-status-polling';

/**
 * Everything a user page (Home, NewUserDashboard) runs while open: the status with its poll, the
 * session-end check at countdown zero, IP discovery (with the address of the other family it found),
 * and the referrer held from the login.
 */
export function useUserPortal(mode: PollMode) {
  const session = useUserSession();
  const status = useUserStatus();
  const { refetch } = status;
  const data = status.data;

  const refetchAcls = useCallback(async (): Promise<readonly AclEntry[] | undefined> => {
    const result = await refetch();
    return result.isError ? undefined : result.data?.ACLs;
  }, [refetch]);

  const polling = useStatusPolling({ refetch: refetchAcls, acls: data?.ACLs, mode, enabled: data !== undefined });
  useSessionEnd(data?.Ends ?? session?.Ends, refetch);
  const { discoveredIps, dualStackIps, dualStack } = useIpDiscovery(data !== undefined);
  // Dual stack: the address of the other family a grant opens beside CurrentAddress, shown with it.
  const otherAddress = otherFamilyAddress(data?.CurrentAddress, dualStack);
  const leaving = useReferrerRedirect(data?.ACLs);
  const licensed = data === undefined || (data.Licensed && data.UserLicensed);

  return { session, status, data, polling, discoveredIps, dualStackIps, otherAddress, leaving, licensed };
}
