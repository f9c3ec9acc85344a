import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestStore, testStoreKinds, type TestStore } from '../test-support/test-app.js';
import { blockedFor, clearFailures, pruneThrottle, recordFailure, signInKeys, type ThrottleKey } from './throttle.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

describe.each(testStoreKinds())('sign-in throttle (%s)', (kind) => {
  let t: TestStore;
  beforeEach(async () => {
    t = await createTestStore(kind);
  });
  afterEach(async () => {
    await t.dispose();
  });

  const [account, address] = signInKeys('user', ' Ada ', '192.0.2.1') as [ThrottleKey, ThrottleKey];

  it('names the account case-insensitively and the address as given', () => {
    expect(account.key).toBe('account:user:ada');
    expect(address.key).toBe('address:192.0.2.1');
  });

  it('blocks an account for 15 minutes at the fifth failure within 15 minutes', async () => {
    for (let i = 1; i <= 4; i += 1) {
      expect(await recordFailure(t.store.db, [account], T0 + i * MINUTE)).toBe(false);
      expect(await blockedFor(t.store.db, [account], T0 + i * MINUTE)).toBe(0);
    }
    expect(await recordFailure(t.store.db, [account], T0 + 5 * MINUTE)).toBe(true);
    expect(await blockedFor(t.store.db, [account], T0 + 5 * MINUTE)).toBe(15 * MINUTE);
    expect(await blockedFor(t.store.db, [account], T0 + 19 * MINUTE)).toBe(MINUTE);
    expect(await blockedFor(t.store.db, [account], T0 + 20 * MINUTE)).toBe(0);
  });

  it('starts counting again after the window', async () => {
    for (let i = 0; i < 4; i += 1) await recordFailure(t.store.db, [account], T0);
    await recordFailure(t.store.db, [account], T0 + 16 * MINUTE);
    expect(await blockedFor(t.store.db, [account], T0 + 16 * MINUTE)).toBe(0);
  });

  it('allows twenty failures per address', async () => {
    for (let i = 0; i < 19; i += 1) await recordFailure(t.store.db, [address], T0);
    expect(await blockedFor(t.store.db, [address], T0)).toBe(0);
    await recordFailure(t.store.db, [address], T0);
    expect(await blockedFor(t.store.db, [address], T0)).toBe(15 * MINUTE);
  });

  it('does not lose counts under concurrent failures', async () => {
    await Promise.all(Array.from({ length: 5 }, () => recordFailure(t.store.db, [account], T0)));
    expect(await blockedFor(t.store.db, [account], T0)).toBe(15 * MINUTE);
  });

  it('clears an account after a success and prunes finished rows', async () => {
    for (let i = 0; i < 4; i += 1) await recordFailure(t.store.db, [account, address], T0);
    await clearFailures(t.store.db, account);
    await recordFailure(t.store.db, [account], T0);
    expect(await blockedFor(t.store.db, [account], T0)).toBe(0);

    await pruneThrottle(t.store.db, T0 + 16 * MINUTE);
    expect(await t.store.db.selectFrom('loginThrottle').selectAll().execute()).toEqual([]);
  });
});
