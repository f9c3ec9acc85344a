import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { STATUS_CACHE_MS } from '@postern/protocol';
import type { Area } from '../../lib/area';
import { storeAdminSession, storeUserSession } from '../../lib/session/session-store';
import { ADMIN_HOME_PATH, userHomePath } from '../auth/landing';
import { fetchSystemStatus, statusKeys } from '../status/api';
import { passkeysSupported, runAuthentication } from './ceremony';
import { passwordlessOptions, passwordlessVerifyAdmin, passwordlessVerifyUser } from './webauthn-api';

/**
 * Whether `realm`'s login page offers signing in with a passkey alone: the server's setting says so
 * (the public system status, the same cached answer SSO reads) and this browser can use passkeys.
 */
export function usePasswordlessAvailable(realm: Area): boolean {
  const { data } = useQuery({
    queryKey: statusKeys.system(),
    queryFn: ({ signal }) => fetchSystemStatus({ signal, ignoreInvalidSession: true }),
    staleTime: STATUS_CACHE_MS,
    retry: false,
  });
  if (data === undefined || !passkeysSupported()) return false;
  return realm === 'admin' ? data.AdminPasskeySignIn : data.UserPasskeySignIn;
}

/** What a login page needs from the passkey sign-in. */
export interface PasswordlessSignIn {
  start: () => void;
  pending: boolean;
  /** The last failure (a cancelled prompt included), or null. */
  error: unknown;
}

/**
 * Signing in with a passkey alone: a ceremony from the server, the browser's prompt, the answer;
 * then the session is stored and the person lands where a password sign-in lands them (a user on
 * the dashboard or home, with the kiosk choice; an admin on the console).
 */
export function usePasswordlessSignIn(realm: Area, kioskMode = false): PasswordlessSignIn {
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>(null);
  const mutation = useMutation({
    mutationFn: async (): Promise<string> => {
      const { CeremonyID, Options } = await passwordlessOptions(realm);
      const Response = await runAuthentication(Options);
      if (realm === 'admin') {
        // A passkey with user verification is both factors: the session is whole, whatever the
        // account's TOTP says, so no second-factor step is marked.
        storeAdminSession(await passwordlessVerifyAdmin({ CeremonyID, Response }));
        return ADMIN_HOME_PATH;
      }
      const info = await passwordlessVerifyUser({ CeremonyID, Response, KioskMode: kioskMode });
      storeUserSession(info);
      return userHomePath(info);
    },
  });

  const start = () => {
    setError(null);
    mutation.mutate(undefined, {
      onSuccess: (to) => void navigate(to, { replace: true }),
      onError: setError,
    });
  };

  return { start, pending: mutation.isPending, error };
}
