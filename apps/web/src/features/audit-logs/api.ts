import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { AuditEntry, LogClearResponse, type LogListQuery } from '@postern/protocol';
import { api } from '@/lib/api/client';
import { auditLogSearch } from './audit-filter';

/** Query keys of the audit log: every filtered list sits under `all`, so one invalidation renews them. */
export const auditLogKeys = {
  all: ['auditLog'] as const,
  list: (query: LogListQuery) => [...auditLogKeys.all, query] as const,
};

/**
 * GET /api/admin/logs: the entries the filters select (all without), newest first; the screen
 * searches and pages them itself. While a changed filter loads, the previous entries stay shown.
 */
export function useAuditLog(query: LogListQuery = {}) {
  return useQuery({
    queryKey: auditLogKeys.list(query),
    queryFn: ({ signal }) => api.get(`/admin/logs${auditLogSearch(query)}`, z.array(AuditEntry), { signal }),
    placeholderData: keepPreviousData,
  });
}

/** DELETE /api/admin/logs: clears entries older than 30 days; answers how many went. */
export function useClearOldLogs() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete('/admin/logs', LogClearResponse.shape.data),
    // After a failure too: the clearing may have happened even if its answer was lost.
    onSettled: () => queryClient.invalidateQueries({ queryKey: auditLogKeys.all }),
  });
}
