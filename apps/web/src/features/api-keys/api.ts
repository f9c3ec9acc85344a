import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { ApiKeyCreateResponse, ApiKeyRecord, type ApiKeyCreateBody, type ApiKeyUpdateBody } from '@postern/protocol';
import { api } from '@/lib/api/client';
import { createResourceApi } from '@/lib/api/resource-api';

/** /api/admin/api-keys: list, create, update (AllowedFrom only), delete. */
export const apiKeysApi = createResourceApi({
  key: 'apiKeys',
  path: '/admin/api-keys',
  list: z.array(ApiKeyRecord),
  item: ApiKeyRecord,
  create: z.custom<ApiKeyCreateBody>(),
  update: z.custom<ApiKeyUpdateBody>(),
});

/**
 * POST /api/admin/api-keys, reading the answer: it is the only place the plaintext key ever appears,
 * which the generic `useCreate` (it ignores the answer) cannot give back.
 */
export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ApiKeyCreateBody) => api.post('/admin/api-keys', body, ApiKeyCreateResponse.shape.data),
    onSettled: () => queryClient.invalidateQueries({ queryKey: apiKeysApi.keys.all }),
  });
}
