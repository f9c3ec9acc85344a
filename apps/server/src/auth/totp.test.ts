import { describe, expect, it } from 'vitest';
import { isSpentStep, newTotpSecret, totpCodeAt, totpStep, totpUri, verifyTotp } from './totp.js';

const STEP = 30_000;
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

describe('TOTP (RFC 6238)', () => {
  it('matches the RFC 6238 SHA-1 test vector', () => {
    // RFC 6238 appendix B: secret "12345678901234567890", T = 59 s → 94287082 (8 digits); 6 digits: 287082.
    const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(totpCodeAt(rfcSecret, 59_000)).toBe('287082');
    expect(totpCodeAt(rfcSecret, 1_111_111_109_000)).toBe('081804');
  });

  it('accepts the current code and one step of drift either way, nothing further', () => {
    const secret = newTotpSecret();
    expect(verifyTotp(secret, totpCodeAt(secret, T0), T0, null)).toBe(T0 / STEP);
    expect(verifyTotp(secret, totpCodeAt(secret, T0 - STEP), T0, null)).toBe(T0 / STEP - 1);
    expect(verifyTotp(secret, totpCodeAt(secret, T0 + STEP), T0, null)).toBe(T0 / STEP + 1);
    expect(verifyTotp(secret, totpCodeAt(secret, T0 - 2 * STEP), T0, null)).toBeNull();
    expect(verifyTotp(secret, totpCodeAt(secret, T0 + 2 * STEP), T0, null)).toBeNull();
  });

  it('accepts each code once', () => {
    const secret = newTotpSecret();
    const code = totpCodeAt(secret, T0);
    const step = verifyTotp(secret, code, T0, null);
    expect(step).not.toBeNull();
    expect(verifyTotp(secret, code, T0 + 5_000, step)).toBeNull();
    // An older code inside the drift window is refused too once a newer step was used.
    expect(verifyTotp(secret, totpCodeAt(secret, T0 - STEP), T0, step)).toBeNull();
    expect(verifyTotp(secret, totpCodeAt(secret, T0 + STEP), T0 + STEP, step)).toBe((step ?? 0) + 1);
  });

  it('tells the step of a right code whether used or not, so a spent code can be told from a wrong one', () => {
    const secret = newTotpSecret();
    const code = totpCodeAt(secret, T0);
    expect(totpStep(secret, code, T0 + 5_000)).toBe(T0 / STEP);
    expect(totpStep(secret, totpCodeAt(newTotpSecret(), T0), T0)).toBeNull();
    expect(isSpentStep(T0 / STEP, T0 / STEP)).toBe(true);
    expect(isSpentStep(T0 / STEP - 1, T0 / STEP)).toBe(true);
    expect(isSpentStep(T0 / STEP + 1, T0 / STEP)).toBe(false);
    expect(isSpentStep(T0 / STEP, null)).toBe(false);
  });

  it('refuses codes from another secret and malformed codes', () => {
    const secret = newTotpSecret();
    expect(verifyTotp(secret, totpCodeAt(newTotpSecret(), T0), T0, null)).toBeNull();
    expect(verifyTotp(secret, '12345', T0, null)).toBeNull();
    expect(verifyTotp(secret, 'abcdef', T0, null)).toBeNull();
  });

  it('describes the account in an otpauth URI with the issuer', () => {
    const uri = totpUri('JBSWY3DPEHPK3PXP', 'ada@example.com');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Postern:ada%40example\.com\?/);
    expect(uri).toContain('secret=JBSWY3DPEHPK3PXP');
    expect(uri).toContain('issuer=Postern');
    expect(uri).toContain('digits=6');
    expect(uri).toContain('period=30');
  });

  it('makes 160-bit base32 secrets', () => {
    expect(newTotpSecret()).toMatch(/^[A-Z2-7]{32}$/);
  });
});
