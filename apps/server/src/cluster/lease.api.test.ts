import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock.js';
import { createTestStore, type TestStore } from '../test-support/test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { storeReset } from '../test-support/store-reset.js';
import { LEASE_RENEW_MS, LEASE_TTL_MS, Lease } from './lease.js';

describe.each(bothStores())('the sweepers lease (%s)', (kind) => {
  let store: TestStore;
  let clock: ManualClock;
  let serverA: Lease;
  let serverB: Lease;
  let reset: () => Promise<void>;

  // One store for the file, emptied before each case (the lease row with the rest).
  beforeAll(async () => {
    store = await createTestStore(kind);
    reset = await storeReset(store);
  });
  afterAll(() => store.dispose());

  beforeEach(async () => {
    await reset();
    clock = new ManualClock(Date.UTC(2026, 10, 25, 9, 0, 0));
    const ctx = { db: store.store.db, clock, logger: pino({ level: 'silent' }) };
    serverA = new Lease(ctx, 'sweepers', 'server-a');
    serverB = new Lease(ctx, 'sweepers', 'server-b');
  });

  it('is held by one server at a time, and renewed by its holder', async () => {
    expect(await serverA.renew()).toBe(true);
    expect(await serverB.renew()).toBe(false);
    clock.advance(LEASE_RENEW_MS);
    expect(await serverA.renew()).toBe(true);
    expect(await serverB.renew()).toBe(false);
    expect([serverA.held, serverB.held]).toEqual([true, false]);
  });

  it('passes to another server once its holder stops renewing it, and the old holder stops first', async () => {
    await serverA.renew();
    // The holder counts it as held a renewal period short of its expiry ...
    clock.advance(LEASE_TTL_MS - LEASE_RENEW_MS);
    expect(serverA.held).toBe(false);
    // ... while the store still refuses it to anyone else until it expires.
    expect(await serverB.renew()).toBe(false);
    clock.advance(LEASE_RENEW_MS + 1);
    expect(await serverB.renew()).toBe(true);
    expect(await serverA.renew()).toBe(false);
  });

  it('passes at once when its holder gives it up (a server stopping)', async () => {
    await serverA.renew();
    await serverA.release();
    expect(serverA.held).toBe(false);
    expect(await serverB.renew()).toBe(true);
  });
});
