import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createTestStore, type TestStore, type TestStoreKind } from './test-app.js';
import { emptyDataDir, storeReset } from './store-reset.js';
import { liveView } from './test-world.js';

/** The running test's store. Its `dispose` is useTestStore's, after the file. */
export type LiveTestStore = Omit<TestStore, 'dispose'>;

/**
 * One migrated store for the test file (or the `describe` it is called in), for tests of code that
 * works on the store alone (no app): emptied before each test to what the migrations left, with its
 * data directory emptied too, as useTestApp does for an app's store. A new store costs 40-150 ms
 * (SQLite) or a schema replay (PostgreSQL); the reset ~1-5 ms.
 *
 *     const t = useTestStore(kind);
 *     it('reads defaults', async () => expect(await readSettings(t.store.db)).toEqual(DEFAULTS));
 */
export function useTestStore(kind: TestStoreKind): LiveTestStore {
  let current: { testStore: TestStore; reset: () => Promise<void> } | undefined;
  beforeAll(async () => {
    const testStore = await createTestStore(kind);
    current = { testStore, reset: await storeReset(testStore) };
  });
  beforeEach(async () => {
    if (current === undefined) throw new Error('useTestStore: the store is not open');
    await current.reset();
    emptyDataDir(current.testStore);
  });
  afterAll(async () => {
    await current?.testStore.dispose();
    current = undefined;
  });
  const now = () => {
    if (current === undefined) throw new Error('useTestStore: the store exists only inside a test or hook');
    return current.testStore;
  };
  return liveView(now, ['store', 'location', 'dataDir', 'postgresSchema']);
}
