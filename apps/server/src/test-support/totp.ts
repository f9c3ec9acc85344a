import type { TestApp } from './test-app.js';
import { storePendingSecret, confirmEnrolment } from '../sessions/totp-store.js';
import { newTotpSecret, totpCodeAt } from '../auth/totp.js';

/** Gives an existing user or admin an enrolled authenticator and returns its secret. */
export async function givenEnrolledTotp(t: TestApp, table: 'users' | 'admins', id: string): Promise<string> {
  const secret = newTotpSecret();
  await storePendingSecret(t.ctx.db, t.ctx.secrets, table, id, secret);
  await confirmEnrolment(t.ctx.db, t.ctx.secrets, table, id, secret, 0);
  return secret;
}

/** A six-digit code that is certainly not valid for `secret` around `nowMs` (±1 step). */
export function wrongCode(secret: string, nowMs: number, salt = 0): string {
  const valid = new Set([-1, 0, 1].map((step) => totpCodeAt(secret, nowMs + step * 30_000)));
  for (let candidate = 100_000 + salt; ; candidate += 1) {
    const code = String(candidate).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}
