import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createTestStore, type TestStore, type TestStoreKind } from './test-app.js';
import { storeReset } from './store-reset.js';
import { liveView } from './test-world.js';

/** What a test of store code gets: the store, and where it is (for a second connection to it). */
export type LiveTestStore = Pick<TestStore, 'store' | 'location' | 'postgresSchema'>;

/**
 * One migrated store for the test file (or the `describe` it is called in), emptied before each
 * test to what the migrations left (storeReset, as useTestApp does): for tests of store code that
 * need no app, such as the throttles' counters. Making the store costs 40-150 ms once (on
 * PostgreSQL a schema replayed from the template), building an app beside it as much again; the
 * reset ~1 ms a test (PostgreSQL ~5 ms). Its fields are valid inside tests and hooks registered
 * after it:
 *
 *     const t = useTestStore(kind);
 *     it('counts a failure', async () => {
 *       await recordFailure(t.store.db, keys, T0);
 *     });
 */
export function useTestStore(kind: TestStoreKind): LiveTestStore {
  let file: { testStore: TestStore; reset: () => Promise<void> } | undefined;
  const now = (): TestStore => {
    if (file === undefined) throw new Error('useTestStore: the store exists only inside a test or hook');
    return file.testStore;
  };

  beforeAll(async () => {
    const testStore = await createTestStore(kind);
    file = { testStore, reset: await storeReset(testStore) };
  });
  beforeEach(async () => {
    await file?.reset();
  });
  afterAll(async () => {
    await file?.testStore.dispose();
    file = undefined;
  });

  return liveView(now, ['store', 'location', 'postgresSchema'] as const);
}
