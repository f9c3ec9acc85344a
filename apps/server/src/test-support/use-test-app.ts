import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import {
  appOn,
  closeReplicas,
  createTestStore,
  testSeed,
  type AppMemory,
  type ReplicaSeed,
  type TestApp,
  type TestAppOptions,
  type TestStore,
  type TestStoreKind,
} from './test-app.js';
import { emptyDataDir, storeReset } from './store-reset.js';
import { liveView } from './test-world.js';

export interface UseTestAppOptions extends TestAppOptions {
  /** Listen on a loopback port once for the file (agents, HTTP clients); its address is `t.baseUrl`. */
  listen?: boolean;
  /**
   * Build a new app for every test (on the file's store, still emptied before each test): for files
   * whose subject is memory a reset cannot reach, inside the routes (the README lists it). ~40 ms
   * a test instead of ~2.
   */
  appPerTest?: boolean;
}

/** The running test's app. Its `close` refuses: useTestApp closes the app after the file. */
export interface LiveTestApp extends TestApp {
  /** Where the app listens (`listen: true` only). */
  readonly baseUrl: string;
}

const LIVE_FIELDS = ['app', 'ctx', 'hub', 'clock', 'clockWatch', 'replicaSeed', 'close', 'baseUrl'] as const;

/** What a test gets for `t.close()`: the app is the file's, and the next test needs it. */
const refuseClose = () =>
  Promise.reject(new Error('useTestApp closes the app after the file; a test that closes it uses createTestApp'));

/**
 * One test app for the test file (or the `describe` it is called in), put back before each test as
 * if it were new: the store emptied to its migrated state, the data directory emptied, the clock
 * back at TEST_CLOCK_START, metrics at zero, the context, config and in-memory reports as built, no
 * agent connection, no listener or replica a test added. Building it costs ~350 ms once; the reset
 * ~2 ms a test. Call it at the top of a `describe` (or the file) and read its fields in tests and
 * hooks registered after it:
 *
 *     const t = useTestApp('sqlite');
 *     it('lists users', async () => {
 *       const admin = adminClient(t.app, await givenAdminSession(t));
 *       expect((await admin.get('/api/admin/users')).status).toBe(200);
 *     });
 *
 * Its hooks run before the file's own beforeEach and after its own afterEach (vitest runs afterEach
 * hooks last-registered first), so a FakeAgent the test disconnects in afterEach is gone before the
 * hub is settled.
 */
export function useTestApp(kind: TestStoreKind, options: UseTestAppOptions = {}): LiveTestApp {
  let file: { testStore: TestStore; seed: ReplicaSeed; resetStore: () => Promise<void> } | undefined;
  let current: { testApp: TestApp; memory: AppMemory; baseUrl: string | null } | undefined;

  const build = async (): Promise<NonNullable<typeof current>> => {
    if (file === undefined) throw new Error('useTestApp: the store is not open');
    // The store outlives the app (appPerTest builds several); afterAll disposes of it.
    const { testApp, memory } = await appOn(file.testStore.store, file.seed, options, () => Promise.resolve());
    await testApp.app.ready();
    const baseUrl = options.listen ? await testApp.app.listen({ host: '127.0.0.1', port: 0 }) : null;
    return { testApp, memory, baseUrl };
  };

  beforeAll(async () => {
    const testStore = await createTestStore(kind);
    file = { testStore, seed: testSeed(testStore, options), resetStore: await storeReset(testStore) };
    if (!options.appPerTest) current = await build();
  });
  beforeEach(async () => {
    if (file === undefined) throw new Error('useTestApp: the store is not open');
    await file.resetStore();
    emptyDataDir(file.testStore);
    if (options.appPerTest) current = await build();
    current?.memory.reset();
  });
  afterEach(async () => {
    if (file !== undefined) await closeReplicas(file.seed);
    await current?.memory.settle();
    if (options.appPerTest) {
      await current?.testApp.close();
      current = undefined;
    }
  });
  afterAll(async () => {
    await current?.testApp.close();
    current = undefined;
    await file?.testStore.dispose();
    file = undefined;
  });

  const now = () => {
    if (current === undefined) throw new Error('useTestApp: the app exists only inside a test or hook');
    const { testApp, baseUrl } = current;
    return {
      ...testApp,
      close: refuseClose,
      get baseUrl(): string {
        if (baseUrl === null) throw new Error('useTestApp: pass { listen: true } to listen');
        return baseUrl;
      },
    };
  };
  return liveView(now, LIVE_FIELDS);
}
