import { describe, expect, it } from 'vitest';
import { useTestStore } from '../test-support/use-test-store.js';
import { bothStores } from '../test-support/store-kinds.js';
import {
  ACCOUNT_CEILING,
  PAIR_POLICY,
  blockedFor,
  ceilingMaximum,
  clearFailures,
  pruneThrottle,
  recordFailure,
  signInKeys,
  throttleSubject,
} from './throttle.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);

describe('sign-in throttle policy', () => {
  it('keys the account from one address, the address, and the account, without a realm', () => {
    const keys = signInKeys(' Ada ', '192.0.2.1');
    expect(keys.pair.key).toBe('pair:192.0.2.1 ada');
    expect(keys.address.key).toBe('address:192.0.2.1');
    expect(keys.account.key).toBe('account:ada');
    expect(keys.all.map((k) => k.key)).toEqual([keys.pair.key, keys.address.key, keys.account.key]);
  });

  it.each([
    ['an IPv4 address as it is', '192.0.2.1', '192.0.2.1'],
    ['an IPv4-mapped address as its IPv4 address', '::ffff:192.0.2.1', '192.0.2.1'],
    ['an IPv6 address as its /64', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['another spelling of the same /64 alike', '2001:0DB8:0001:0002::ffff', '2001:db8:1:2::/64'],
    ['something unparsable as itself', 'not-an-address', 'not-an-address'],
  ])('counts %s', (_case, address, subject) => {
    expect(throttleSubject(address)).toBe(subject);
  });

  it('lets no more than 100 failures an hour through the account ceiling (OWASP ASVS 2.2.1)', () => {
    expect(ceilingMaximum(ACCOUNT_CEILING, HOUR)).toBe(100);
  });

  it('slows the account by at most a minute per attempt', () => {
    expect(ACCOUNT_CEILING.intervalMs).toBeLessThanOrEqual(MINUTE);
  });

  it('puts the ceiling beyond what one address can reach: its pair blocks long before', () => {
    // One address on one account: at most maxFailures per block (and per window), so per hour:
    const perHourFromOneAddress =
      PAIR_POLICY.maxFailures * (HOUR / Math.min(PAIR_POLICY.blockMs, PAIR_POLICY.windowMs));
    expect(perHourFromOneAddress).toBeLessThan(HOUR / ACCOUNT_CEILING.intervalMs);
    expect(PAIR_POLICY.maxFailures).toBeLessThan(ACCOUNT_CEILING.burst);
  });
});

// On both stores: what is tested is the counters' SQL, concurrent updates included ('throttling').
// One store for the file, emptied before each test.
describe.each(bothStores())('sign-in throttle in the store (%s)', (kind) => {
  const t = useTestStore(kind);

  const keys = signInKeys('ada', '192.0.2.1');
  const fail = (at: number, which = keys.all) => recordFailure(t.store.db, which, at);
  const waitAt = (at: number, which = keys.all) => blockedFor(t.store.db, which, at);

  it('blocks an account from one address for 15 minutes at the fifth failure within 15 minutes', async () => {
    for (let i = 1; i <= 4; i += 1) {
      expect(await fail(T0 + i * MINUTE, [keys.pair])).toEqual({ blocked: false, slowed: false });
      expect(await waitAt(T0 + i * MINUTE)).toBe(0);
    }
    expect(await fail(T0 + 5 * MINUTE, [keys.pair])).toEqual({ blocked: true, slowed: false });
    expect(await waitAt(T0 + 5 * MINUTE)).toBe(15 * MINUTE);
    expect(await waitAt(T0 + 19 * MINUTE)).toBe(MINUTE);
    expect(await waitAt(T0 + 20 * MINUTE)).toBe(0);
  });

  it('does not block the same account from another address', async () => {
    for (let i = 0; i < 5; i += 1) await fail(T0);
    expect(await waitAt(T0)).toBe(15 * MINUTE);
    expect(await waitAt(T0, signInKeys('ada', '203.0.113.9').all)).toBe(0);
  });

  it('starts counting again after the window', async () => {
    for (let i = 0; i < 4; i += 1) await fail(T0, [keys.pair]);
    await fail(T0 + 16 * MINUTE, [keys.pair]);
    expect(await waitAt(T0 + 16 * MINUTE)).toBe(0);
  });

  it('blocks an address at twenty failures over any accounts', async () => {
    for (let i = 0; i < 19; i += 1) await fail(T0, signInKeys(`victim${i}`, '192.0.2.1').all);
    expect(await waitAt(T0, signInKeys('someone-else', '192.0.2.1').all)).toBe(0);
    expect(await fail(T0, signInKeys('victim19', '192.0.2.1').all)).toEqual({ blocked: true, slowed: false });
    expect(await waitAt(T0, signInKeys('someone-else', '192.0.2.1').all)).toBe(15 * MINUTE);
  });

  it('slows an account for a minute once 40 failures fill its ceiling, reporting it once', async () => {
    const from = (i: number) => signInKeys('ada', `10.0.${i}.1`).all;
    for (let i = 0; i < 39; i += 1) expect((await fail(T0, from(i))).slowed).toBe(false);
    expect(await waitAt(T0, from(99))).toBe(0);
    expect(await fail(T0, from(39))).toEqual({ blocked: false, slowed: true });
    expect(await waitAt(T0, from(99))).toBe(MINUTE);
    expect(await waitAt(T0 + MINUTE, from(99))).toBe(0);
    // Topped up again a minute later: still the same episode, slowed again for a minute.
    expect(await fail(T0 + MINUTE, from(40))).toEqual({ blocked: false, slowed: false });
    expect(await waitAt(T0 + MINUTE, from(99))).toBe(MINUTE);
  });

  it('reports a new episode only after the ceiling has drained empty', async () => {
    const burst = async (at: number) => {
      let slowed = 0;
      for (let i = 0; i < ACCOUNT_CEILING.burst; i += 1) {
        if ((await fail(at, [keys.account])).slowed) slowed += 1;
      }
      return slowed;
    };
    expect(await burst(T0)).toBe(1);
    // Twenty minutes later half has drained; refilling it is the same episode.
    expect(await burst(T0 + 20 * MINUTE)).toBe(0);
    // Once it has drained empty, filling it again is a new one.
    expect(await burst(T0 + 20 * MINUTE + 2 * HOUR)).toBe(1);
  });

  it('lets no more than 100 failures through the ceiling in any hour, however they are timed', async () => {
    const failures: number[] = [];
    let now = T0;
    while (now < T0 + 3 * HOUR) {
      const wait = await waitAt(now, [keys.account]);
      expect(wait).toBeLessThanOrEqual(MINUTE);
      if (wait > 0) {
        now += wait;
        continue;
      }
      await fail(now, [keys.account]);
      failures.push(now);
      // An attacker who strikes again as soon as let through, with a little jitter.
      now += failures.length % 7 === 0 ? 1_000 : 0;
    }
    const mostInAnHour = Math.max(
      ...failures.map((start) => failures.filter((at) => at >= start && at <= start + HOUR).length),
    );
    expect(mostInAnHour).toBeLessThanOrEqual(100);
    expect(failures.length).toBeGreaterThan(200);
  });

  it('does not lose counts under concurrent failures', async () => {
    await Promise.all(Array.from({ length: 5 }, () => fail(T0, [keys.pair])));
    await Promise.all(Array.from({ length: ACCOUNT_CEILING.burst }, () => fail(T0, [keys.account])));
    expect(await waitAt(T0, [keys.pair])).toBe(15 * MINUTE);
    expect(await waitAt(T0, [keys.account])).toBe(MINUTE);
  });

  it('clears only the pair after a success; the ceiling drains with time alone', async () => {
    for (let i = 0; i < 4; i += 1) await fail(T0);
    for (let i = 0; i < ACCOUNT_CEILING.burst - 5; i += 1) await fail(T0, [keys.account]);
    await clearFailures(t.store.db, keys.pair);
    expect(await fail(T0, [keys.pair])).toEqual({ blocked: false, slowed: false });
    expect(await fail(T0)).toEqual({ blocked: false, slowed: true });
    expect(await waitAt(T0)).toBe(MINUTE);
  });

  it('prunes rows that no longer hold anything back or count anything', async () => {
    for (let i = 0; i < 5; i += 1) await fail(T0);
    await pruneThrottle(t.store.db, T0 + 4 * MINUTE);
    expect(await t.store.db.selectFrom('loginThrottle').select('key').execute()).toHaveLength(2);
    expect(await t.store.db.selectFrom('loginCeiling').select('key').execute()).toHaveLength(1);

    // The window and block are over after 15 minutes, the five failures drained after five.
    await pruneThrottle(t.store.db, T0 + 16 * MINUTE);
    expect(await t.store.db.selectFrom('loginThrottle').selectAll().execute()).toEqual([]);
    expect(await t.store.db.selectFrom('loginCeiling').selectAll().execute()).toEqual([]);
  });
});
