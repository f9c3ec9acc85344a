import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { Passkey } from '@postern/protocol';
import { api } from '../../lib/api/client';
import { passkeyKeys } from './webauthn-api';

/** The console screens whose accounts hold passkeys: /api/admin/users/… and /api/admin/admins/…. */
export type ConsoleAccounts = 'users' | 'admins';

const consoleKey = (accounts: ConsoleAccounts) => [...passkeyKeys.all, 'console', accounts] as const;
const passkeysPath = (accounts: ConsoleAccounts, id: string) => `/admin/${accounts}/${encodeURIComponent(id)}/passkeys`;

/** GET /api/admin/{users|admins}/{id}/passkeys: what an administrator sees of an account's passkeys. */
export function useAccountPasskeys(accounts: ConsoleAccounts, id: string) {
  return useQuery({
    queryKey: [...consoleKey(accounts), id],
    queryFn: ({ signal }) => api.get(passkeysPath(accounts, id), z.array(Passkey), { signal }),
  });
}

/** DELETE /api/admin/{users|admins}/{id}/passkeys: removes every passkey of the account. */
export function useRemoveAccountPasskeys(accounts: ConsoleAccounts) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api.delete(passkeysPath(accounts, id)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: consoleKey(accounts) }),
  });
}
