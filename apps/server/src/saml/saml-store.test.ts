import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock.js';
import { useTestStore } from '../test-support/use-test-store.js';
import { bothStores } from '../test-support/store-kinds.js';
import { openStore, type Store } from '../store/store.js';
import { SAML_REQUEST_LIFETIME_MS, SamlRequestCache, spendResponse } from './saml-store.js';

const HOUR_MS = 60 * 60_000;

describe.each(bothStores())('SAML request and assertion store (%s)', (kind) => {
  const store = useTestStore(kind);
  let clock: ManualClock;
  beforeEach(() => {
    clock = new ManualClock();
  });

  const spend = (requestId: string, assertionId: string, db = store.store.db) =>
    spendResponse(db, clock, { realm: 'user', requestId, assertionId, keepUntil: clock.now() + HOUR_MS });

  it('remembers a request for its realm only, until it expires', async () => {
    const users = new SamlRequestCache(store.store.db, clock, 'user');
    const admins = new SamlRequestCache(store.store.db, clock, 'admin');
    await users.saveAsync('_r1', 'ignored');
    expect(await users.getAsync('_r1')).toBe(new Date(clock.now()).toISOString());
    expect(await admins.getAsync('_r1')).toBeNull();
    expect(await users.getAsync('_unknown')).toBeNull();
    clock.advance(SAML_REQUEST_LIFETIME_MS);
    expect(await users.getAsync('_r1')).toBeNull();
  });

  it('spends a response once: the request goes, the assertion id stays', async () => {
    await new SamlRequestCache(store.store.db, clock, 'user').saveAsync('_r1', '');
    expect(await spend('_r1', '_a1')).toBe('spent');
    expect(await spend('_r1', '_a1')).toBe('request-unknown');
    await new SamlRequestCache(store.store.db, clock, 'user').saveAsync('_r2', '');
    expect(await spend('_r2', '_a1')).toBe('assertion-replayed');
    // The refused spend left its request in place.
    expect(await new SamlRequestCache(store.store.db, clock, 'user').getAsync('_r2')).not.toBeNull();
  });

  it('does not spend a request of the other realm, or an expired one', async () => {
    await new SamlRequestCache(store.store.db, clock, 'admin').saveAsync('_admin', '');
    expect(await spend('_admin', '_a1')).toBe('request-unknown');
    await new SamlRequestCache(store.store.db, clock, 'user').saveAsync('_old', '');
    clock.advance(SAML_REQUEST_LIFETIME_MS);
    expect(await spend('_old', '_a2')).toBe('request-unknown');
  });

  // Replicas share PostgreSQL (SQLite is the single-node store: one process, one connection).
  it.runIf(kind === 'postgres')(
    'lets exactly one of two replicas spend the same response at the same moment',
    async () => {
      const second: Store = await openStore(store.location, {
        ...(store.postgresSchema === null ? {} : { postgresSchema: store.postgresSchema }),
      });
      try {
        await new SamlRequestCache(store.store.db, clock, 'user').saveAsync('_r1', '');
        const outcomes = await Promise.all([spend('_r1', '_a1'), spend('_r1', '_a1', second.db)]);
        expect(outcomes.filter((outcome) => outcome === 'spent')).toHaveLength(1);
      } finally {
        await second.close();
      }
    },
  );
});
