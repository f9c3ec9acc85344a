import { useCallback, useState } from 'react';
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { ErrorCodes, type AdminOtpVerifyBody } from '@postern/protocol';
import { hasErrorCode } from '../../lib/api/api-error';
import { clearSession, storeAdminSession, storeUserSession } from '../../lib/session/session-store';
import { LOGIN_PATH, type Area } from '../../lib/area';
import { adminSessionFromStatus, userSessionFromStatus } from '../auth/api';
import { ADMIN_HOME_PATH, userHomePath } from '../auth/landing';
import { fetchAdminStatus, fetchUserStatus, statusKeys } from '../status/api';
import { verifyOtp } from './api';

/** Where a verification leads. */
export interface Destination {
  to: string;
}

/**
 * Builds the session a completed sign-in now has (the status call describes it) and names its home.
 * Every way of finishing a sign-in (a code, a passkey, an enrolment) ends here.
 */
export async function completeSignIn(realm: Area, queryClient: QueryClient): Promise<Destination> {
  const options = { ignoreInvalidSession: true };
  if (realm === 'user') {
    const status = await fetchUserStatus(options);
    queryClient.setQueryData(statusKeys.user(), status);
    storeUserSession(userSessionFromStatus(status));
    return { to: userHomePath(status) };
  }
  const status = await fetchAdminStatus(options);
  queryClient.setQueryData(statusKeys.admin(), status);
  // Stored without a pending step: this also clears the second-factor marker of the admin sign-in.
  storeAdminSession(adminSessionFromStatus(status));
  return { to: ADMIN_HOME_PATH };
}

/**
 * Sends someone whose pending sign-in is gone (expired, or there never was one) back to the login,
 * telling them their session expired.
 */
export function useLeavePendingSignIn(realm: Area): () => void {
  const navigate = useNavigate();
  return useCallback(() => {
    if (realm === 'admin') clearSession('admin');
    const search = new URLSearchParams({ error: ErrorCodes.sessionExpired });
    void navigate(`${LOGIN_PATH[realm]}?${search.toString()}`, { replace: true });
  }, [navigate, realm]);
}

/** One step that finishes a pending sign-in (a code, a passkey, an enrolment), and its last failure. */
export interface PendingSignInStep<V> {
  run: (variables: V) => void;
  pending: boolean;
  /** What the step was last run with, while it is on its way. */
  variables: V | undefined;
  /** The last failure to show, or null. */
  error: unknown;
}

/**
 * Runs `step` (which ends in completeSignIn) and goes where it leads; a pending sign-in that is gone
 * goes back to the login with "session expired", any other failure is kept for the screen to show.
 */
export function usePendingSignInStep<V>(
  realm: Area,
  step: (variables: V) => Promise<Destination>,
): PendingSignInStep<V> {
  const navigate = useNavigate();
  const leave = useLeavePendingSignIn(realm);
  const [error, setError] = useState<unknown>(null);
  const mutation = useMutation({ mutationFn: step });
  const run = (variables: V) => {
    setError(null);
    mutation.mutate(variables, {
      onSuccess: ({ to }) => void navigate(to, { replace: true }),
      onError: (failure) => {
        if (hasErrorCode(failure, ErrorCodes.invalidSession)) leave();
        else setError(failure);
      },
    });
  };
  return { run, pending: mutation.isPending, variables: mutation.variables, error };
}

/** What the two-factor screens need from the verification call. */
export interface SecondFactor {
  /** Sends a code from the authenticator. */
  submitCode: (code: string) => void;
  /** Postpones enrolment ("Do this next time"; admins only, when the server allows it). */
  defer: () => void;
  /** Which call is on its way, if any. */
  pending: 'code' | 'defer' | null;
  /** The last failure to show (err.invalidCode included), or null. */
  error: unknown;
}

/**
 * The second step of a sign-in: verifies a code (or defers enrolment) and goes to the home, saying
 * so after an enrolment; the login with "session expired" when the pending sign-in is gone.
 */
export function useSecondFactor(realm: Area): SecondFactor {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const step = usePendingSignInStep(realm, async (body: AdminOtpVerifyBody) => {
    const { Outcome } = await verifyOtp(realm, body);
    // Every outcome signs in, an enrolment too: its code proved the new authenticator, and asking
    // for one again would refuse the same code (each is accepted once) until the app shows the next.
    const destination = await completeSignIn(realm, queryClient);
    // Said here, not in onSuccess: storing the admin session can unmount this screen (its guard
    // leads on to the console), and mutate()'s own callbacks never run after an unmount.
    if (Outcome === 'Enrolled') notifications.show({ color: 'green', message: t('twoFactor.enrolled') });
    return destination;
  });
  return {
    submitCode: (code) => step.run({ Code: code }),
    defer: () => step.run({ deferEnrolment: true }),
    pending: step.pending ? (step.variables?.deferEnrolment === true ? 'defer' : 'code') : null,
    error: step.error,
  };
}
