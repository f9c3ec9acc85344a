import { z } from 'zod';
import { dataEnvelope } from './envelope.js';

/** Six digits, as authenticator apps show them. */
export const TotpCode = z
  .string()
  .trim()
  .regex(/^\d{6}$/);

/** GET /api/otp/generate and /api/admin/otp/generate: a new secret to enrol. */
export const OtpSecret = z.object({
  /** Base32 secret, for typing into an authenticator by hand. */
  Secret: z.string(),
  /** otpauth://totp/… URI, shown as a QR code. */
  URL: z.string(),
});
export type OtpSecret = z.infer<typeof OtpSecret>;
export const OtpGenerateResponse = dataEnvelope(OtpSecret);

/** POST /api/otp/verify */
export const OtpVerifyBody = z.object({ Code: TotpCode });
export type OtpVerifyBody = z.infer<typeof OtpVerifyBody>;

/** POST /api/admin/otp/verify: a code, or `deferEnrolment` to set up the authenticator next time. */
export const AdminOtpVerifyBody = z.union([
  z.object({ Code: TotpCode, deferEnrolment: z.literal(false).optional() }),
  z.object({ deferEnrolment: z.literal(true), Code: z.string().optional() }),
]);
export type AdminOtpVerifyBody = z.infer<typeof AdminOtpVerifyBody>;

/**
 * What a verification did: `Enrolled` after setting up an authenticator, `SignedIn` after a code
 * from the enrolled one, `Deferred` when an admin postponed enrolment. Each outcome leaves the
 * session fully signed in: the code that confirms an enrolment proves the authenticator as a
 * sign-in code does, so nobody is asked for a second code (the first is spent) right after.
 */
export const OtpVerifyResult = z.object({
  Outcome: z.enum(['Enrolled', 'SignedIn', 'Deferred']),
});
export type OtpVerifyResult = z.infer<typeof OtpVerifyResult>;
export const OtpVerifyResponse = dataEnvelope(OtpVerifyResult);
