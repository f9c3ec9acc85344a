import { z } from 'zod';
import { BackendCreateBody, BackendRecord, BackendUpdateBody } from '@postern/protocol';
import { createResourceApi } from '@/lib/api/resource-api';

/** /api/admin/backends: list, item, create, update, delete (every query under the key "backends"). */
export const backendsApi = createResourceApi({
  key: 'backends',
  path: '/admin/backends',
  list: z.array(BackendRecord),
  item: BackendRecord,
  create: BackendCreateBody,
  update: BackendUpdateBody,
  created: BackendRecord,
});
