import { createHash } from 'node:crypto';
import { generateToken } from '../lib/random-secret.js';

/** A new bearer token and the hash under which the store keeps it. */
export function newSessionToken(): { token: string; tokenHash: string } {
  const token = generateToken();
  return { token, tokenHash: hashSessionToken(token) };
}

/**
 * SHA-256 is enough for 256-bit random tokens (nothing to brute-force) and lets the store look a
 * token up by its hash; a stolen store therefore holds no usable session.
 */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
