import { z } from 'zod';
import { Id, KnocCreateBody, KnocRecord, KnocUpdateBody } from '@postern/protocol';
import { createResourceApi } from '@/lib/api/resource-api';

/** /api/admin/acls for the ACLs screen: list, create, update, delete (queries under "admin-acls"). */
export const adminAclsApi = createResourceApi({
  key: 'admin-acls',
  path: '/admin/acls',
  list: z.array(KnocRecord),
  item: KnocRecord,
  create: KnocCreateBody,
  update: KnocUpdateBody,
  created: z.object({ ID: Id }),
});
