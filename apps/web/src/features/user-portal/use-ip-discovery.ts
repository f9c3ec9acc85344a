import { useCallback, useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { IP_REVALIDATION_INTERVAL_MS, STATUS_CACHE_MS, type DiscoveredIp } from '@postern/protocol';
import { fetchSystemStatus, statusKeys } from '../status/api';
import { logIps } from '../acls/api';
import { discoverIps, discoveryKey } from './ip-discovery';

/**
 * IP discovery while a user page is open: at once and every 30 seconds, the browser asks the
 * discovery host named by GET /api/system_status (IPApi) for its address on each discovery port, and
 * posts the list to /api/log_ips whenever it differs from the last one posted. Nothing happens when
 * IPApi is empty (discovery is off). Answers a getter of the latest list, which grants send along.
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
  const latest = useRef<DiscoveredIp[]>([]);

  useEffect(() => {
    if (base === '') return undefined;
    let stopped = false;
    let posted: string | null = null;
    const round = async () => {
      const found = await discoverIps(base);
      if (stopped) return;
      latest.current = found;
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

  return useCallback(() => latest.current, []);
}
