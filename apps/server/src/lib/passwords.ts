import { hash, verify, type Algorithm } from '@node-rs/argon2';
import { Semaphore } from './semaphore.js';

/**
 * argon2id with the OWASP-recommended floor (m = 46 MiB, t = 1, p = 1). Each hash takes ~46 MiB,
 * so at most two run at once: a burst of sign-ins queues instead of exhausting memory.
 */
/** `Algorithm.Argon2id`; the package exports it as a const enum, which isolated modules cannot read. */
const ARGON2ID = 2 as Algorithm;

const ARGON2_OPTIONS = {
  algorithm: ARGON2ID,
  memoryCost: 47_104,
  timeCost: 1,
  parallelism: 1,
} as const;

const hashingSlots = new Semaphore(2);

export function hashPassword(password: string): Promise<string> {
  return hashingSlots.run(() => hash(password, ARGON2_OPTIONS));
}

/** True when `password` matches `storedHash`; false for a wrong password or an unreadable hash. */
export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  return hashingSlots.run(async () => {
    try {
      return await verify(storedHash, password);
    } catch {
      return false;
    }
  });
}

let decoyHash: Promise<string> | undefined;

/**
 * Spends the same work as a real check when there is no account (or no password) to check, so the
 * response time does not reveal which user names exist.
 */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoyHash ??= hashPassword('postern-decoy-password-that-matches-nothing');
  await verifyPassword(await decoyHash, password);
  return false;
}
