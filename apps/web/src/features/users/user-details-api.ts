import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { GroupRecord, SessionsEndedResponse, UserAcl, UserSessionRecord } from '@postern/protocol';
import { api } from '@/lib/api/client';
import { usersApi } from './api';

/** Keys of one user's detail queries, under the users key so every user mutation refreshes them. */
const detailKey = (id: string, part: 'groups' | 'acls' | 'sessions') => [...usersApi.keys.item(id), part] as const;

const userPath = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

/** GET /api/admin/users/:id/groups */
export const useUserGroups = (id: string) =>
  useQuery({
    queryKey: detailKey(id, 'groups'),
    queryFn: ({ signal }) => api.get(`${userPath(id)}/groups`, z.array(GroupRecord), { signal }),
  });

/** GET /api/admin/users/:id/acls */
export const useUserAcls = (id: string) =>
  useQuery({
    queryKey: detailKey(id, 'acls'),
    queryFn: ({ signal }) => api.get(`${userPath(id)}/acls`, z.array(UserAcl), { signal }),
  });

/** GET /api/admin/users/:id/sessions */
export const useUserSessions = (id: string) =>
  useQuery({
    queryKey: detailKey(id, 'sessions'),
    queryFn: ({ signal }) => api.get(`${userPath(id)}/sessions`, z.array(UserSessionRecord), { signal }),
  });

/** Mutation options refreshing every users query (list, items, details) once the call settles. */
function useRefreshingUsers() {
  const queryClient = useQueryClient();
  return { onSettled: () => queryClient.invalidateQueries({ queryKey: usersApi.keys.all }) };
}

/** DELETE /api/admin/users/:id/totpToken: the user sets up 2FA again at the next sign-in. */
export const useResetUserTotp = () =>
  useMutation({ mutationFn: (id: string) => api.delete(`${userPath(id)}/totpToken`), ...useRefreshingUsers() });

/** DELETE /api/admin/sessions/:id: ends one user session. */
export const useEndUserSession = () =>
  useMutation({
    mutationFn: (sessionId: string) => api.delete(`/admin/sessions/${encodeURIComponent(sessionId)}`),
    ...useRefreshingUsers(),
  });

/** DELETE /api/admin/sessions: ends every user session; answers how many ended. */
export const useInvalidateAllUserSessions = () =>
  useMutation({
    mutationFn: () => api.delete('/admin/sessions', SessionsEndedResponse.shape.data),
    ...useRefreshingUsers(),
  });
