import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as the spec and every authenticator app expect: SHA-1, 6 digits, 30-second steps. */
const TOTP_PARAMETERS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** One step either side, for clocks that drift a little. */
const ACCEPTED_DRIFT_STEPS = 1;
const ISSUER = 'Postern';

/** A new random secret (160 bits, the RFC's recommendation for SHA-1), base32 encoded. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, accountName: string): string {
  return new TOTP({
    ...TOTP_PARAMETERS,
    issuer: ISSUER,
    label: accountName,
    secret: Secret.fromBase32(secret),
  }).toString();
}

/**
 * Checks a code at `nowMs`. Returns the time step it belongs to when it is valid and newer than
 * `lastUsedStep` (so each code is accepted once), otherwise null.
 */
export function verifyTotp(secret: string, code: string, nowMs: number, lastUsedStep: number | null): number | null {
  const step = totpStep(secret, code, nowMs);
  return step === null || isSpentStep(step, lastUsedStep) ? null : step;
}

/** The time step a code belongs to at `nowMs` (within the accepted drift), used or not; null when wrong. */
export function totpStep(secret: string, code: string, nowMs: number): number | null {
  const totp = new TOTP({ ...TOTP_PARAMETERS, secret: Secret.fromBase32(secret) });
  const delta = totp.validate({ token: code, timestamp: nowMs, window: ACCEPTED_DRIFT_STEPS });
  return delta === null ? null : totp.counter({ timestamp: nowMs }) + delta;
}

/** Whether a code of `step` was accepted already: its step is not after the last one used. */
export function isSpentStep(step: number, lastUsedStep: number | null): boolean {
  return lastUsedStep !== null && step <= lastUsedStep;
}

/** The code for `nowMs`; for tests and tools, never sent anywhere by the server. */
export function totpCodeAt(secret: string, nowMs: number): string {
  return new TOTP({ ...TOTP_PARAMETERS, secret: Secret.fromBase32(secret) }).generate({ timestamp: nowMs });
}
