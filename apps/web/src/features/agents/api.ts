import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { AgentCreateBody, AgentRecord, AgentUpdateBody } from '@postern/protocol';
import { api } from '@/lib/api/client';
import { createResourceApi, type ResourceId } from '@/lib/api/resource-api';

/**
 * How often the agents page asks for the list again (spec: every 5 seconds on the agents page).
 * Belongs in the protocol's limits beside ADMIN_HOME_STATUS_REFRESH_MS; kept here until it is there.
 */
export const AGENTS_PAGE_REFRESH_MS = 5_000;

/** /api/admin/agents: list, item, create, rename, delete, each refreshing the list. */
export const agentsApi = createResourceApi({
  key: 'agents',
  path: '/admin/agents',
  list: z.array(AgentRecord),
  item: AgentRecord,
  create: AgentCreateBody,
  update: AgentUpdateBody,
});

/** POST /api/admin/agents/{id}/token: a new token (the old one stops working); answers the agent. */
export function useRotateAgentToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: ResourceId) =>
      api.post(`/admin/agents/${encodeURIComponent(String(id))}/token`, undefined, AgentRecord),
    onSettled: () => queryClient.invalidateQueries({ queryKey: agentsApi.keys.all }),
  });
}
