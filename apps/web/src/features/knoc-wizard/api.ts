import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { BackendRecord, KnocRecord, KnocWizardCreateResponse, type KnocWizardUpdateBody } from '@postern/protocol';
import { api } from '@/lib/api/client';
import { checkedCreateInput, type KnocWizardCreateInput } from './to-request';

/** The backends' names, read when the wizard names its backend (names are unique). */
const fetchBackendNames = async () =>
  (await api.get('/admin/backends', z.array(BackendRecord))).map((backend) => backend.Name);

/**
 * The wizards' create: POST /api/admin/knocs with the body the wizard built for a backend name no
 * backend has yet, checked against the protocol first. Every cached list is stale afterwards (the
 * knoc, its backend, users' and groups' knocs): all admin queries are refreshed.
 */
export function useCreateKnocWithWizard() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (build: (takenBackendNames: string[]) => KnocWizardCreateInput) =>
      api.post(
        '/admin/knocs',
        checkedCreateInput(build(await fetchBackendNames())),
        KnocWizardCreateResponse.shape.data,
      ),
    onSuccess: () => queryClient.invalidateQueries(),
  });
}

/** GET /api/admin/knocs/{id}: the knoc the update screen edits. */
export const useKnoc = (knocId: string | null) =>
  useQuery({
    queryKey: ['knocs', 'item', knocId ?? ''],
    queryFn: ({ signal }) => api.get(`/admin/knocs/${encodeURIComponent(knocId ?? '')}`, KnocRecord, { signal }),
    // null: no knoc to fetch (a knoc without a parent).
    enabled: knocId !== null,
  });

/** PUT /api/admin/knocs/{id}: backend, knoc and memberships in one call; every admin list is stale after. */
export function useUpdateKnocWithWizard() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: z.input<typeof KnocWizardUpdateBody> }) =>
      api.put(`/admin/knocs/${encodeURIComponent(id)}`, body, KnocRecord),
    onSuccess: () => queryClient.invalidateQueries(),
  });
}
