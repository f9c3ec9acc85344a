import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../lib/passwords.js';
import { DEFAULT_ADMIN_PASSWORD, DEFAULT_USER_PASSWORD, KNOWN_PASSWORD_HASHES } from './factories.js';

/** `$argon2id$v=19$m=…,t=…,p=…`: the algorithm, version and cost of an encoded hash, without salt and hash. */
const parameters = (encoded: string) => encoded.split('$').slice(0, 4).join('$');

// argon2id at the production cost: a few hashes, each 50-100 ms on a quiet machine, far more on a busy one.
describe('the password hashes the factories write down', { timeout: 60_000 }, () => {
  it('are hashes of the default passwords that verify', async () => {
    expect(Object.keys(KNOWN_PASSWORD_HASHES).sort()).toEqual([DEFAULT_ADMIN_PASSWORD, DEFAULT_USER_PASSWORD].sort());
    for (const [password, hash] of Object.entries(KNOWN_PASSWORD_HASHES)) {
      expect(await verifyPassword(hash, password)).toBe(true);
      expect(await verifyPassword(hash, `${password}!`)).toBe(false);
    }
  });

  it('have the algorithm and cost hashPassword uses now', async () => {
    const current = parameters(await hashPassword('any password'));
    expect(current).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+$/);
    for (const hash of Object.values(KNOWN_PASSWORD_HASHES)) expect(parameters(hash)).toBe(current);
  });
});
