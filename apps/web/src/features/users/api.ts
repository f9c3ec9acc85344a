import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { UserCreateBody, UserCreateResponse, UserRecord, UserUpdateBody } from '@postern/protocol';
import { api } from '@/lib/api/client';
import { createResourceApi } from '@/lib/api/resource-api';

/**
 * The user list refreshes every 30 seconds (spec §9). Kept here until the protocol's limits.ts has
 * a USERS_LIST_REFRESH_MS beside ADMIN_HOME_STATUS_REFRESH_MS.
 */
export const USERS_LIST_REFRESH_MS = 30_000;

/** /api/admin/users: keys, list, update and delete, each refreshing every users query. */
export const usersApi = createResourceApi({
  key: 'users',
  path: '/admin/users',
  list: z.array(UserRecord),
  item: UserRecord,
  create: UserCreateBody,
  update: UserUpdateBody,
});

/** What a create answers: the user and, for an apikey user created with a key, its plaintext (once). */
const UserCreateResult = UserCreateResponse.shape.data;
export type UserCreateResult = z.infer<typeof UserCreateResult>;

/**
 * POST /api/admin/users with its answer parsed: the generic create of createResourceApi does not
 * read answers, and this one carries the one-time API key.
 */
export function useCreateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.input<typeof UserCreateBody>) => api.post('/admin/users', body, UserCreateResult),
    onSettled: () => queryClient.invalidateQueries({ queryKey: usersApi.keys.all }),
  });
}
