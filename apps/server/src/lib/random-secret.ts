import { randomBytes, randomInt } from 'node:crypto';

/** Letters and digits without look-alikes (0/O, 1/l/I), so a printed password can be typed. */
const READABLE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** A password a person can copy from a terminal: 24 characters, about 139 bits. */
export function generatePassword(length = 24): string {
  let password = '';
  for (let i = 0; i < length; i += 1) password += READABLE_ALPHABET[randomInt(READABLE_ALPHABET.length)];
  return password;
}

/** 256 random bits, URL-safe: session tokens and similar bearer secrets. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}
