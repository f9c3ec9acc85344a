import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { KnocRecord, KnocTestResult, type KnocTestBody } from '@postern/protocol';
import { api } from '@/lib/api/client';
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

/**
 * POST /api/admin/knocs/{id}/test: "Test this knoc" (grant, the agent's report, revoke in one call). An empty
 * IP tests the admin's own address. Answers only when the loop is closed, so the call may take seconds.
 */
export function useTestKnoc(knocId: string) {
  return useMutation({
    mutationFn: (IP: string) =>
      api.post(`/admin/knocs/${encodeURIComponent(knocId)}/test`, { IP } satisfies KnocTestBody, KnocTestResult),
  });
}
