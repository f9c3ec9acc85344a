import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { BackendRecord, KnocWizardCreateResponse } from '@postern/protocol';
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
