import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { ADMIN_LIST_CACHE_MS, AgentRecord, STATUS_CACHE_MS } from '@postern/protocol';
import { api } from '../../lib/api/client';
import { agentsApi } from '../agents/api';
import { fetchAdminStatus, statusKeys } from '../status/api';

/**
 * The banner area's two queries, with the refresh intervals of spec §7: "An agent list is refreshed
 * every 180 seconds by the banner …; status every 180 seconds (forced every 30 seconds on admin
 * home)". Both share their cache entries with the pages that read the same data, so the admin home's
 * 30-second refresh and the agents page's list keep the banner current there too.
 */

/** The admin status refresh on every admin page (180 s; the admin home's own query adds 30 s). */
export const BANNER_STATUS_REFRESH_MS = STATUS_CACHE_MS;
/** The banner's agent list refresh: 180 s, the admin list lifetime. */
export const BANNER_AGENTS_REFRESH_MS = ADMIN_LIST_CACHE_MS;

const AgentList = z.array(AgentRecord);

/** The admin status, refreshed every 180 seconds while an admin page is open. */
export function useBannerAdminStatus() {
  return useQuery({
    queryKey: statusKeys.admin(),
    queryFn: ({ signal }) => fetchAdminStatus({ signal }),
    staleTime: BANNER_STATUS_REFRESH_MS,
    refetchInterval: BANNER_STATUS_REFRESH_MS,
  });
}

/** The agents, refreshed every 180 seconds; `enabled` false skips the call while no banner needs it. */
export function useBannerAgents(enabled: boolean) {
  return useQuery({
    // The agents page's own cache entry: its edits (which invalidate it) refresh the banner at once.
    queryKey: agentsApi.keys.list(),
    queryFn: ({ signal }) => api.get('/admin/agents', AgentList, { signal }),
    staleTime: BANNER_AGENTS_REFRESH_MS,
    refetchInterval: BANNER_AGENTS_REFRESH_MS,
    enabled,
  });
}
