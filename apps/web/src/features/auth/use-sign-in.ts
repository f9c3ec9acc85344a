import { useState } from 'react';
import { useNavigate, type NavigateFunction } from 'react-router';
import { ErrorCodes, type AdminLoginBody, type AdminSessionInfo, type LoginBody } from '@postern/protocol';
import { hasErrorCode } from '../../lib/api/api-error';
import { storeAdminSession, storeUserSession } from '../../lib/session/session-store';
import { fetchAdminSession, useAdminLoginMutation, useLoginMutation } from './api';
import { adminLandingPath, adminSecondFactorStep, userHomePath } from './landing';

/** What a login form needs from its sign-in flow. */
export interface SignIn<Body> {
  submit: (body: Body) => void;
  pending: boolean;
  /** The failure to show in the form, or null. */
  error: unknown;
}

/** Stores an admin session (marking an owed second factor) and returns where the admin goes next. */
function startAdminSession(info: AdminSessionInfo): string {
  storeAdminSession(info, adminSecondFactorStep(info));
  return adminLandingPath(info);
}

/**
 * Follows a refused user sign-in where the spec says to (§4). Returns false when the refusal is
 * simply to be shown in the form.
 */
async function followUserRefusal(failure: unknown, navigate: NavigateFunction): Promise<boolean> {
  if (hasErrorCode(failure, ErrorCodes.totpVerificationRequired)) {
    await navigate('/otp/verify');
    return true;
  }
  if (hasErrorCode(failure, ErrorCodes.totpEnrolmentRequired)) {
    await navigate('/otp/onboard');
    return true;
  }
  if (!hasErrorCode(failure, ErrorCodes.unauthorised)) return false;
  // An admin used the user form: the admin sign-in the server started (perhaps still waiting for its
  // second factor) decides where they go.
  try {
    const info = await fetchAdminSession({ ignoreInvalidSession: true });
    await navigate(startAdminSession(info), { replace: true });
    return true;
  } catch {
    // No admin session after all: the original refusal is the useful message.
    return false;
  }
}

/**
 * The user login flow: success lands on the dashboard or home; a required second factor leads to
 * its screen; err.unauthorised sends an admin on to the admin console.
 */
export function useUserSignIn(): SignIn<LoginBody> {
  const navigate = useNavigate();
  const mutation = useLoginMutation();
  const [error, setError] = useState<unknown>(null);

  const submit = (body: LoginBody) => {
    setError(null);
    mutation.mutate(body, {
      onSuccess: (info) => {
        storeUserSession(info);
        void navigate(userHomePath(info), { replace: true });
      },
      onError: (failure) => {
        void followUserRefusal(failure, navigate).then((followed) => {
          if (!followed) setError(failure);
        });
      },
    });
  };

  return { submit, pending: mutation.isPending, error };
}

/** The admin login flow: second factor first when TOTP is on, otherwise the admin home. */
export function useAdminSignIn(): SignIn<AdminLoginBody> {
  const navigate = useNavigate();
  const mutation = useAdminLoginMutation();
  const [error, setError] = useState<unknown>(null);

  const submit = (body: AdminLoginBody) => {
    setError(null);
    mutation.mutate(body, {
      onSuccess: (info) => {
        void navigate(startAdminSession(info), { replace: true });
      },
      onError: (failure) => setError(failure),
    });
  };

  return { submit, pending: mutation.isPending, error };
}
