import { useCallback, useState } from 'react';
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { ErrorCodes, type AdminOtpVerifyBody, type OtpVerifyResult } from '@postern/protocol';
import { hasErrorCode } from '../../lib/api/api-error';
import { clearSession, storeAdminSession, storeUserSession } from '../../lib/session/session-store';
import { LOGIN_PATH, type Area } from '../../lib/area';
import { adminSessionFromStatus, userSessionFromStatus } from '../auth/api';
import { ADMIN_HOME_PATH, userHomePath } from '../auth/landing';
import { signInNoticeState } from '../auth/sign-in-notice';
import { fetchAdminStatus, fetchUserStatus, statusKeys } from '../status/api';
import { verifyOtp } from './api';

/** Where a verification leads, and what that page is told. */
interface Destination {
  to: string;
  state?: unknown;
}

/** Builds the session a completed sign-in now has (the status call describes it) and names its home. */
async function completeSignIn(realm: Area, queryClient: QueryClient): Promise<Destination> {
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

/** Where each outcome of a verification leads (spec §2, §4). */
async function destinationOf(realm: Area, outcome: OtpVerifyResult['Outcome'], queryClient: QueryClient) {
  if (outcome !== 'Enrolled') return completeSignIn(realm, queryClient);
  // A new authenticator is set up; the person signs in again, this time with a code from it.
  if (realm === 'admin') clearSession('admin');
  return { to: LOGIN_PATH[realm], state: signInNoticeState('twoFactorEnrolled') };
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
 * The second step of a sign-in: verifies a code (or defers enrolment) and goes where the outcome
 * says: the home when signed in or deferred, the login with a note after enrolling, and the login
 * with "session expired" when the pending sign-in is gone.
 */
export function useSecondFactor(realm: Area): SecondFactor {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const leave = useLeavePendingSignIn(realm);
  const [error, setError] = useState<unknown>(null);
  const mutation = useMutation({
    mutationFn: async (body: AdminOtpVerifyBody) => {
      const { Outcome } = await verifyOtp(realm, body);
      return destinationOf(realm, Outcome, queryClient);
    },
  });

  const send = (body: AdminOtpVerifyBody) => {
    setError(null);
    mutation.mutate(body, {
      onSuccess: ({ to, state }) => void navigate(to, { replace: true, state }),
      onError: (failure) => {
        if (hasErrorCode(failure, ErrorCodes.invalidSession)) leave();
        else setError(failure);
      },
    });
  };

  return {
    submitCode: (code) => send({ Code: code }),
    defer: () => send({ deferEnrolment: true }),
    pending: mutation.isPending ? (mutation.variables.deferEnrolment === true ? 'defer' : 'code') : null,
    error,
  };
}
