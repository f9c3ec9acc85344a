import { useQuery } from '@tanstack/react-query';
import { OtpSecret, OtpVerifyResult, type AdminOtpVerifyBody, type OtpVerifyBody } from '@postern/protocol';
import { api } from '../../lib/api/client';
import type { Area } from '../../lib/area';

const OTP_PATHS: Record<Area, { generate: string; verify: string }> = {
  user: { generate: '/otp/generate', verify: '/otp/verify' },
  admin: { generate: '/admin/otp/generate', verify: '/admin/otp/verify' },
};

/** Query keys of the two-factor calls. */
const otpKeys = {
  all: ['otp'] as const,
  secret: (realm: Area) => [...otpKeys.all, 'secret', realm] as const,
};

// These calls belong to a sign-in that is still pending: a 401 err.invalidSession there means "that
// sign-in expired", which the two-factor screens handle themselves (back to the login, saying so).
const PENDING_SIGN_IN = { ignoreInvalidSession: true } as const;

/** GET /api/otp/generate or /api/admin/otp/generate: a new secret to enrol. */
function generateOtpSecret(realm: Area, signal?: AbortSignal): Promise<OtpSecret> {
  return api.get(OTP_PATHS[realm].generate, OtpSecret, { ...PENDING_SIGN_IN, signal });
}

/** POST /api/otp/verify or /api/admin/otp/verify. */
export function verifyOtp(realm: Area, body: OtpVerifyBody | AdminOtpVerifyBody): Promise<OtpVerifyResult> {
  return api.post(OTP_PATHS[realm].verify, body, OtpVerifyResult, PENDING_SIGN_IN);
}

/**
 * The secret to enrol, fetched once per visit of the onboarding screen. It is never refetched on its
 * own (window focus, reconnect): each call makes a new secret, which would swap the QR code under a
 * person who is busy scanning it.
 */
export function useOtpSecret(realm: Area) {
  return useQuery({
    queryKey: otpKeys.secret(realm),
    queryFn: ({ signal }) => generateOtpSecret(realm, signal),
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}
