import { useCallback, useEffect, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  IP_ATTESTATION_TTL_MS,
  IP_REVALIDATION_INTERVAL_MS,
  STATUS_CACHE_MS,
  type DiscoveredIp,
} from '@postern/protocol';
import { fetchSystemStatus, statusKeys } from '../status/api';
import { logIps } from '../acls/api';
import { discoverFamily, discoverIps, discoveryKey } from './ip-discovery';

/**
 * A round's answers stop being sent with grants after this long: their attestations expire after
 * IP_ATTESTATION_TTL_MS (the server refuses the grant then), and a page that slept has no fresh round
 * yet. Half the lifetime leaves room for clocks and a slow round.
 */
const SEND_WITHIN_MS = IP_ATTESTATION_TTL_MS / 2;

/** What IP discovery gives a user page. */
export interface IpDiscovery {
  /** The CGNAT probes' latest answers while fresh (a grant's IPs), else none. */
  discoveredIps: () => DiscoveredIp[];
  /** The IPv4-only and IPv6-only URLs' latest answers while fresh (a grant's DualStackIPs), else none. */
  dualStackIps: () => DiscoveredIp[];
  /** Those dual-stack answers as last found, for showing the addresses (an attestation's age aside). */
  dualStack: readonly DiscoveredIp[];
}

interface Round {
  found: DiscoveredIp[];
  dualStack: DiscoveredIp[];
  at: number;
}

/**
 * IP discovery while a user page is open: at once and every 30 seconds, the browser asks the
 * discovery host named by GET /api/system_status (IPApi) for its address on each discovery port, and
 * posts the list (with the responder's attestations) to /api/log_ips whenever it differs from the
 * last one posted. On a dual-stack network it also asks the IPv4-only and IPv6-only URLs (IPv4Api,
 * IPv6Api) for its address of each family, which grants send along (DualStackIPs) so one click opens
 * both. Nothing happens when all three are empty (discovery is off).
 */
export function useIpDiscovery(enabled: boolean): IpDiscovery {
  const { data } = useQuery({
    queryKey: statusKeys.system(),
    queryFn: ({ signal }) => fetchSystemStatus({ signal }),
    staleTime: STATUS_CACHE_MS,
    enabled,
    retry: false,
  });
  const base = enabled ? (data?.IPApi ?? '') : '';
  const v4Base = enabled ? (data?.IPv4Api ?? '') : '';
  const v6Base = enabled ? (data?.IPv6Api ?? '') : '';
  const latest = useRef<Round>({ found: [], dualStack: [], at: 0 });
  const [dualStack, setDualStack] = useState<readonly DiscoveredIp[]>([]);

  useEffect(() => {
    if (base === '' && v4Base === '' && v6Base === '') return undefined;
    let stopped = false;
    let posted: string | null = null;
    let shown: string | null = null;
    const round = async () => {
      const [found, v4, v6] = await Promise.all([
        base === '' ? Promise.resolve([]) : discoverIps(base),
        discoverFamily(v4Base, 4),
        discoverFamily(v6Base, 6),
      ]);
      if (stopped) return;
      const pair = [v4, v6].filter((entry): entry is DiscoveredIp => entry !== null);
      latest.current = { found, dualStack: pair, at: Date.now() };
      // A new array only when the addresses changed: the page re-renders for a change, not every round.
      const pairKey = discoveryKey(pair);
      if (pairKey !== shown) {
        shown = pairKey;
        setDualStack(pair);
      }
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
      setDualStack([]);
    };
  }, [base, v4Base, v6Base]);

  const fresh = useCallback(() => Date.now() - latest.current.at <= SEND_WITHIN_MS, []);
  const discoveredIps = useCallback(() => (fresh() ? latest.current.found : []), [fresh]);
  const dualStackIps = useCallback(() => (fresh() ? latest.current.dualStack : []), [fresh]);
  return { discoveredIps, dualStackIps, dualStack };
}
