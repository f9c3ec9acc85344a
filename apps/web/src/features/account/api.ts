import { useMutation } from '@tanstack/react-query';
import type { PasswordChangeBody } from '@postern/protocol';
import { api } from '../../lib/api/client';

/** PUT /api/password (local accounts only). */
export async function changePassword(body: PasswordChangeBody): Promise<void> {
  await api.put('/password', body);
}

/** The change-password dialog's call. */
export function useChangePasswordMutation() {
  return useMutation({ mutationFn: changePassword });
}
