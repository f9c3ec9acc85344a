import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../../lib/api/api-error';
import { storeAdminSession, storeUserSession } from '../../lib/session/session-store';
import { adminSessionFromStatus, userSessionFromStatus } from '../../features/auth/api';
import { fetchAdminStatus, fetchUserStatus, statusKeys } from '../../features/status/api';
import type { Area } from '../../lib/area';

/** Outcome of asking the server about a session the tab does not remember. */
export type ProbeResult = { state: 'checking' } | { state: 'denied'; errorCode: string | null };

/**
 * When session storage has no session (a new tab, a reload after the tab forgot it), asks the
 * server once whether the cookie still carries one. A yes stores the derived session info (the
 * caller then re-renders through the session store) and primes the status cache; a no is 'denied'.
 */
export function useSessionProbe(realm: Area, needed: boolean): ProbeResult {
  const queryClient = useQueryClient();
  const [result, setResult] = useState<ProbeResult>({ state: 'checking' });

  useEffect(() => {
    if (!needed) return undefined;
    const controller = new AbortController();
    const options = { signal: controller.signal, ignoreInvalidSession: true };
    const probe =
      realm === 'user'
        ? fetchUserStatus(options).then((status) => {
            queryClient.setQueryData(statusKeys.user(), status);
            storeUserSession(userSessionFromStatus(status));
          })
        : fetchAdminStatus(options).then((status) => {
            queryClient.setQueryData(statusKeys.admin(), status);
            storeAdminSession(adminSessionFromStatus(status));
          });
    probe.catch((error: unknown) => {
      if (controller.signal.aborted) return;
      // A 401 simply means "not signed in"; anything else is worth telling on the login page.
      const errorCode = error instanceof ApiError && error.status !== 401 ? (error.err ?? null) : null;
      setResult({ state: 'denied', errorCode });
    });
    return () => controller.abort();
  }, [needed, realm, queryClient]);

  return result;
}
