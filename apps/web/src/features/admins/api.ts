import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { AdminCreateBody, AdminRecord, AdminUpdateBody } from '@postern/protocol';
import { api } from '@/lib/api/client';
import { createResourceApi, type ResourceId } from '@/lib/api/resource-api';

/** /api/admin/admins: list, create, update, delete (every query under the key "admins"). */
export const adminsApi = createResourceApi({
  key: 'admins',
  path: '/admin/admins',
  list: z.array(AdminRecord),
  item: AdminRecord,
  create: AdminCreateBody,
  update: AdminUpdateBody,
});

/** The path of one admin, or of something under it. */
export const adminPath = (id: ResourceId, rest = '') => `/admin/admins/${encodeURIComponent(String(id))}${rest}`;

/** Mutation options refreshing every admins query (their sessions too) once the call settled, failed too. */
export function useRefreshingAdmins() {
  const queryClient = useQueryClient();
  return { onSettled: () => queryClient.invalidateQueries({ queryKey: adminsApi.keys.all }) };
}

/** DELETE /api/admin/admins/{id}/totpToken: the admin must enrol an authenticator again. */
export const useResetAdminTotp = () =>
  useMutation({ mutationFn: (id: ResourceId) => api.delete(adminPath(id, '/totpToken')), ...useRefreshingAdmins() });
