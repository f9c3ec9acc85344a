import { z } from 'zod';
import { KnocRecord } from '@postern/protocol';
import { createResourceApi } from '@/lib/api/resource-api';

/**
 * /api/admin/knocs: the knocs list (those hidden from admins already left out by the server), one
 * knoc by id (hidden children too) and delete. Creating and updating go through the wizards.
 */
export const knocsApi = createResourceApi({
  key: 'knocs',
  path: '/admin/knocs',
  list: z.array(KnocRecord),
  item: KnocRecord,
});
