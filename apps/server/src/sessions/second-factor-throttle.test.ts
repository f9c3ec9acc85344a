import { describe, expect, it } from 'vitest';
import { useTestStore } from '../test-support/use-test-store.js';
import { bothStores } from '../test-support/store-kinds.js';
import {
  beginSecondFactorAttempt,
  clearSecondFactorFailures,
  SECOND_FACTOR_POLICY,
  waitAfterAttempt,
} from './second-factor-throttle.js';

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0);

describe('the second-factor policy', () => {
  it('lets three attempts through, then doubles the wait from one second, then allows one a day', () => {
    const waits = Array.from({ length: 12 }, (_, i) => waitAfterAttempt(SECOND_FACTOR_POLICY, i + 1) / 1000);
    expect(waits).toEqual([0, 0, 1, 2, 4, 8, 16, 32, 64, 86_400, 86_400, 86_400]);
  });
});

// On both stores: the attempts are counted in the store under concurrency ('throttling'). One store
// for the file, emptied before each test.
describe.each(bothStores())('second-factor attempts (%s)', (kind) => {
  const t = useTestStore(kind);

  it('lets only three of twenty concurrent guesses be checked', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 20 }, () => beginSecondFactorAttempt(t.store.db, 'alice', T0)),
    );
    const allowed = attempts.filter((attempt) => attempt.allowed);
    expect(allowed).toHaveLength(3);
    expect(attempts.filter((attempt) => !attempt.allowed)).toEqual(
      Array.from({ length: 17 }, () => ({ allowed: false, retryAfterMs: 1000 })),
    );
  });

  it('counts an account under one name whatever its spelling, until cleared', async () => {
    for (const name of ['Alice', ' alice', 'ALICE']) await beginSecondFactorAttempt(t.store.db, name, T0);
    expect(await beginSecondFactorAttempt(t.store.db, 'alice', T0)).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(await beginSecondFactorAttempt(t.store.db, 'bob', T0)).toMatchObject({ allowed: true, attempt: 1 });

    await clearSecondFactorFailures(t.store.db, 'ALICE');
    expect(await beginSecondFactorAttempt(t.store.db, 'alice', T0)).toMatchObject({ allowed: true, attempt: 1 });
  });

  it('marks the attempt that stops guessing, and waits a day after it', async () => {
    let now = T0;
    await beginSecondFactorAttempt(t.store.db, 'alice', now);
    for (let attempt = 2; attempt <= SECOND_FACTOR_POLICY.stopAt; attempt += 1) {
      now += waitAfterAttempt(SECOND_FACTOR_POLICY, attempt - 1);
      const counted = await beginSecondFactorAttempt(t.store.db, 'alice', now);
      expect(counted).toMatchObject({ allowed: true, attempt, stopsGuessing: attempt === SECOND_FACTOR_POLICY.stopAt });
    }
    expect(await beginSecondFactorAttempt(t.store.db, 'alice', now + 1000)).toEqual({
      allowed: false,
      retryAfterMs: SECOND_FACTOR_POLICY.stopMs - 1000,
    });
    expect(await beginSecondFactorAttempt(t.store.db, 'alice', now + SECOND_FACTOR_POLICY.stopMs)).toMatchObject({
      allowed: true,
      attempt: SECOND_FACTOR_POLICY.stopAt + 1,
      stopsGuessing: false,
    });
  });
});
