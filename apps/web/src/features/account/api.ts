import { useMutation } from '@tanstack/react-query';
import type { AccountLanguage, PasswordChangeBody } from '@postern/protocol';
import { api } from '../../lib/api/client';

/** PUT /api/password (local accounts only). */
export async function changePassword(body: PasswordChangeBody): Promise<void> {
  await api.put('/password', body);
}

/** The change-password dialog's call. */
export function useChangePasswordMutation() {
  return useMutation({ mutationFn: changePassword });
}

/** Where each area keeps the signed-in account's language: the user's and the administrator's own. */
const LANGUAGE_PATHS = { user: '/account/language', admin: '/admin/account/language' } as const;

/** PUT /api/account/language or /api/admin/account/language: the choice follows the account. */
export async function saveLanguage(area: keyof typeof LANGUAGE_PATHS, language: AccountLanguage): Promise<void> {
  await api.put(LANGUAGE_PATHS[area], { Language: language });
}
