import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { ErrorCodes } from '@postern/protocol';
import { onInvalidSession } from '../lib/api/invalid-session';
import { clearSession } from '../lib/session/session-store';
import { areaOf, LOGIN_PATH } from '../lib/area';

/**
 * When any call answers 401 err.invalidSession, forgets the session of the area the person is in
 * and sends them to its login, telling them why.
 */
export function useInvalidSessionRedirect(): void {
  const navigate = useNavigate();
  const queryClient = useQueryClient();

  useEffect(
    () =>
      onInvalidSession(() => {
        // Read at the moment of the refusal: the page may have changed since this was registered.
        const area = areaOf(window.location.pathname);
        clearSession(area);
        queryClient.removeQueries();
        const search = new URLSearchParams({ error: ErrorCodes.sessionExpired });
        void navigate(`${LOGIN_PATH[area]}?${search.toString()}`, { replace: true });
      }),
    [navigate, queryClient],
  );
}
