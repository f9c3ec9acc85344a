import { useCallback, useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  IP_ATTESTATION_TTL_MS,
  IP_REVALIDATION_INTERVAL_MS,
  STATUS_CACHE_MS,
  type DiscoveredIp,
} from '@postern/protocol';
import { fetchSystemStatus, statusKeys } from '../status/api';
import { logIps } from '../acls/api';
import { discoverIps, discoveryKey } from './ip-discovery';

/**
 * A round's answers stop being sent with grants after this long: their attestations expire after
 * IP_ATTESTATION_TTL_MS (the server refuses the grant then), and a page that slept has no fresh round
 * yet. Half the lifetime leaves room for clocks and a slow round.
 */
const SEND_WITHIN_MS = IP_ATTESTATION_TTL_MS / 2;

/**
 * IP discovery while a user page is open: at once and every 30 seconds, the browser asks the
 * discovery host named by GET /api/system_status (IPApi) for its address on each discovery port, and
 * posts the list (with the responder's attestations) to /api/log_ips whenever it differs from the
 * last one posted. Nothing happens when IPApi is empty (discovery is off). Answers a getter of the
 * latest list, which grants send along while it is fresh (empty after SEND_WITHIN_MS).
 */
export function useIpDiscovery(enabled: boolean): () => DiscoveredIp[] {
  const { data } = useQuery({
    queryKey: statusKeys.system(),
    queryFn: ({ signal }) => fetchSystemStatus({ signal }),
    staleTime: STATUS_CACHE_MS,
    enabled,
    retry: false,
  });
  const base = enabled ? (data?.IPApi ?? '') : '';
  const latest = useRef<{ found: DiscoveredIp[]; at: number }>({ found: [], at: 0 });

  useEffect(() => {
    if (base === '') return undefined;
    let stopped = false;
    let posted: string | null = null;
    const round = async () => {
      const found = await discoverIps(base);
      if (stopped) return;
      latest.current = { found, at: Date.now() };
      const key = discoveryKey(found);
      if (found.length === 0 || key === posted) return;
      try {
        await logIps(found);
        posted = key;
      } catch {
        // Posted again on the next round; a failure here must not disturb the page.
      }
    };
    void round();
    const timer = setInterval(() => void round(), IP_REVALIDATION_INTERVAL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [base]);

  return useCallback(() => (Date.now() - latest.current.at <= SEND_WITHIN_MS ? latest.current.found : []), []);
}
