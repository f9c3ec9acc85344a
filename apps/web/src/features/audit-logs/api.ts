import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { AuditEntry, LogClearResponse } from '@postern/protocol';
import { api } from '@/lib/api/client';

/** Query keys of the audit log. */
export const auditLogKeys = { all: ['auditLog'] as const };

/** GET /api/admin/logs: every entry, newest first; the screen searches and pages them itself. */
export function useAuditLog() {
  return useQuery({
    queryKey: auditLogKeys.all,
    queryFn: ({ signal }) => api.get('/admin/logs', z.array(AuditEntry), { signal }),
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
