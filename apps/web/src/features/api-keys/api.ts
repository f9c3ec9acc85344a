import { z } from 'zod';
import { ApiKeyCreateResponse, ApiKeyRecord, type ApiKeyCreateBody, type ApiKeyUpdateBody } from '@postern/protocol';
import { createResourceApi } from '@/lib/api/resource-api';

/** /api/admin/api-keys: list, create, update (AllowedFrom only), delete. */
export const apiKeysApi = createResourceApi({
  key: 'apiKeys',
  path: '/admin/api-keys',
  list: z.array(ApiKeyRecord),
  item: ApiKeyRecord,
  create: z.custom<ApiKeyCreateBody>(),
  update: z.custom<ApiKeyUpdateBody>(),
  /** The new key with its plaintext: the only place it ever appears. */
  created: ApiKeyCreateResponse.shape.data,
});
