import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { AgentCreateBody, AgentRecord, AgentUpdateBody } from '@postern/protocol';
import { api } from '@/lib/api/client';
import { createResourceApi, type ResourceId } from '@/lib/api/resource-api';

/** /api/admin/agents: list, item, create, rename, delete, each refreshing the list. */
export const agentsApi = createResourceApi({
  key: 'agents',
  path: '/admin/agents',
  list: z.array(AgentRecord),
  item: AgentRecord,
  create: AgentCreateBody,
  update: AgentUpdateBody,
  created: AgentRecord,
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
