import { useMutation, useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { AdminSessionRecord } from '@postern/protocol';
import { api } from '@/lib/api/client';
import type { ResourceId } from '@/lib/api/resource-api';
import { adminPath, adminsApi, useRefreshingAdmins } from './api';

const SessionsEnded = z.object({ Ended: z.number().int() });

/** The query key of one admin's sessions: under the admins' key, so every admin change refreshes it. */
export const adminSessionsKey = (id: ResourceId) => [...adminsApi.keys.all, 'sessions', id] as const;

/** GET /api/admin/admins/{id}/sessions; waits while `id` is undefined. */
export const useAdminSessions = (id: ResourceId | undefined) =>
  useQuery({
    queryKey: adminSessionsKey(id ?? ''),
    queryFn: ({ signal }) => api.get(adminPath(id ?? '', '/sessions'), z.array(AdminSessionRecord), { signal }),
    enabled: id !== undefined,
  });

/** DELETE /api/admin/adminsessions: ends every admin session but the asking one; resolves to how many ended. */
export const useInvalidateAdminSessions = () =>
  useMutation({ mutationFn: () => api.delete('/admin/adminsessions', SessionsEnded), ...useRefreshingAdmins() });

/** DELETE /api/admin/adminsessions/{id}: ends one admin session (ending the asking one signs out). */
export const useEndAdminSession = () =>
  useMutation({
    mutationFn: (sessionId: ResourceId) => api.delete(`/admin/adminsessions/${encodeURIComponent(String(sessionId))}`),
    ...useRefreshingAdmins(),
  });
