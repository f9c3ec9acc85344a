import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { GroupCreateBody, GroupRecord, GroupUpdateBody, KnocRecord, UserRecord } from '@postern/protocol';
import { api } from '@/lib/api/client';
import { createResourceApi } from '@/lib/api/resource-api';

/** /api/admin/groups: list, create, update, delete (every query under the key "groups"). */
export const groupsApi = createResourceApi({
  key: 'groups',
  path: '/admin/groups',
  list: z.array(GroupRecord),
  item: GroupRecord,
  create: GroupCreateBody,
  update: GroupUpdateBody,
});

/*
 * The dialog's checklists read the knocs and users under the groups' own key: they refresh with every
 * group change, and their cache cannot clash with the knocs or users screens' queries of other shapes.
 */

/** GET /api/admin/acls: the knocs a group can give. */
export const useKnocChoices = () =>
  useQuery({
    queryKey: [...groupsApi.keys.all, 'knoc-choices'],
    queryFn: ({ signal }) => api.get('/admin/acls', z.array(KnocRecord), { signal }),
  });

/** GET /api/admin/users: the users a local group can hold. */
export const useUserChoices = () =>
  useQuery({
    queryKey: [...groupsApi.keys.all, 'user-choices'],
    queryFn: ({ signal }) => api.get('/admin/users', z.array(UserRecord), { signal }),
  });
