import { mkdtempSync, rmSync } from 'node:fs';
import { NO_RELEASE_FEED, type ReleaseSource } from '../releases/release-feed-source.js';
import { AgentHub } from '../agent-hub/agent-hub.js';
import { forwardEndedSessionsToAgents } from '../grants/grant-sweeper.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext, HubContext } from '../app-context.js';
import type { PosternConfig } from '../config/config.js';
import { openStore, type Store } from '../store/store.js';
import { migrateToLatest } from '../store/migrate.js';
import { replayMigratedSchema } from './postgres-template.js';
import { buildApp } from '../app.js';
import type { WebApp } from '../http/web-app.js';
import { ManualClock } from '../lib/clock.js';
import { SecretBox } from '../secrets/secret-box.js';
import { UnreadableSecretReports } from '../secrets/unreadable-secrets.js';
import { SessionEvents, type UserSessionsEndedListener } from '../sessions/session-events.js';
import { randomBytes } from 'node:crypto';
import { vi } from 'vitest';
import { ServerMetrics } from '../metrics/server-metrics.js';
import { ClockWatch } from '../health/clock-watch.js';
import type { LogoCodec } from '../settings/logo-codec.js';

export type TestStoreKind = 'sqlite' | 'postgres';

export interface TestStore {
  store: Store;
  location: PosternConfig['store'];
  /** A private temporary data directory (SQLite keeps its file here). */
  dataDir: string;
  /** PostgreSQL schema the store lives in (tests get one each), or null for SQLite. */
  postgresSchema: string | null;
  dispose(): Promise<void>;
}

/** A fresh, empty store: a SQLite file in a temporary directory, or a new PostgreSQL schema. */
export async function createTestStore(kind: TestStoreKind, { migrate = true } = {}): Promise<TestStore> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-test-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (kind === 'sqlite') {
    const location = { kind: 'sqlite' as const, file: path.join(dataDir, 'postern.db') };
    const store = await openStore(location);
    if (migrate) await migrateToLatest(store.db);
    return {
      store,
      location,
      dataDir,
      postgresSchema: null,
      dispose: async () => {
        await store.close();
        removeDataDir();
      },
    };
  }
  const url = process.env.POSTERN_TEST_DATABASE_URL ?? '';
  const schema = `postern_test_${randomBytes(6).toString('hex')}`;
  const admin = await openStore({ kind: 'postgres', url });
  const replayed = migrate && (await replayMigratedSchema(admin, url, schema));
  if (!replayed) await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  const location = { kind: 'postgres' as const, url };
  const store = await openStore(location, { postgresSchema: schema });
  if (migrate && !replayed) await migrateToLatest(store.db);
  return {
    store,
    location,
    dataDir,
    postgresSchema: schema,
    dispose: async () => {
      await store.close();
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
      removeDataDir();
    },
  };
}

/** API tests need no web build: a directory that does not exist and a fixed bundle hash. */
const NO_WEB_APP: WebApp = {
  dir: path.join(tmpdir(), 'postern-test-no-web-app'),
  current: () => ({ indexHtml: null, bundleHash: 'test-bundle' }),
};

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  /** The agent hub; agents connect when the app listens (see listen in agent tests). */
  hub: AgentHub;
  clock: ManualClock;
  /** The clock checks /readyz and the metrics report; tests run `check()` themselves (no timer here). */
  clockWatch: ClockWatch;
  /** What another replica of this app shares with it (see createTestReplica). */
  replicaSeed: ReplicaSeed;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<AppContext['config']>;
  webApp?: WebApp;
  /** The app's logger; silent (or POSTERN_TEST_LOG_LEVEL) by default. */
  logger?: AppContext['logger'];
  /** The logo worker (tests that watch it or shorten its limits); the app's own by default. */
  logoCodec?: LogoCodec;
  /** The releases the admin status reports; none by default. */
  releases?: ReleaseSource;
}

/**
 * What the replicas of one installation share: the store, the secret key (POSTERN_SECRET_KEY) and
 * the configuration; and, in tests, one clock, so that moving it moves every replica's time alike.
 */
export interface ReplicaSeed {
  location: PosternConfig['store'];
  postgresSchema: string | null;
  secretKey: Buffer;
  config: AppContext['config'];
  clock: ManualClock;
  /** Closes the replicas still open, before the store they use goes away. */
  replicas: Set<() => Promise<void>>;
}

/** Where every test app's clock starts (and where useTestApp turns it back to before each test). */
export const TEST_CLOCK_START = Date.UTC(2026, 10, 22, 9, 0, 0);

/**
 * The real HTTP app on a real, empty, migrated store, with a clock the test moves: a new store and
 * app each call (~350 ms on SQLite). Most tests want useTestApp (use-test-app.ts) instead: one app
 * per file, reset before each test. This stays for tests of the app's own life (start, close).
 */
export async function createTestApp(kind: TestStoreKind, options: TestAppOptions = {}): Promise<TestApp> {
  const testStore = await createTestStore(kind);
  const seed = testSeed(testStore, options);
  const { testApp } = await appOn(testStore.store, seed, options, async () => {
    await closeReplicas(seed);
    await testStore.dispose();
  });
  return testApp;
}

/** What the replicas of an app on `testStore` share: a fresh secret key and clock, the test config. */
export function testSeed(testStore: TestStore, options: TestAppOptions): ReplicaSeed {
  return {
    location: testStore.location,
    postgresSchema: testStore.postgresSchema,
    secretKey: randomBytes(32),
    config: {
      insecureHttp: false,
      trustedProxies: [],
      publicUrl: null,
      dataDir: testStore.dataDir,
      licencePublicKeys: [],
      ipDiscoveryPorts: [],
      supportUrl: null,
      supportEmail: null,
      licensingUrl: null,
      experimentalFeatures: [],
      ...options.config,
    },
    clock: new ManualClock(TEST_CLOCK_START),
    replicas: new Set(),
  };
}

/** Closes the replicas of the seed's installation that are still open. */
export async function closeReplicas(seed: ReplicaSeed): Promise<void> {
  for (const closeReplica of [...seed.replicas]) await closeReplica();
}

/**
 * A second server process of `primary`'s installation: its own connection to the same store (the
 * same SQLite file, or the same PostgreSQL schema), its own data directory, the same secret key.
 * It is built from a fresh copy of the server's modules, so it shares no module-level state with
 * the primary either: whatever one replica knows that the other must know has to be in the store.
 * Closed by its own close(), or at the latest by the primary's. (It empties vitest's module registry:
 * a dynamic import later in the same test file loads a fresh copy too.)
 */
export async function createTestReplica(
  primary: Pick<TestApp, 'replicaSeed'>,
  options: TestAppOptions = {},
): Promise<TestApp> {
  vi.resetModules();
  const fresh = await import('./test-app.js');
  return fresh.replicaOf(primary.replicaSeed, options);
}

/** A replica on the seed's store, built by this copy of the modules (see createTestReplica). */
export async function replicaOf(seed: ReplicaSeed, options: TestAppOptions): Promise<TestApp> {
  const store = await openStore(
    seed.location,
    seed.postgresSchema === null ? {} : { postgresSchema: seed.postgresSchema },
  );
  const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-test-replica-'));
  const replicaSeed = { ...seed, config: { ...seed.config, dataDir, ...options.config } };
  let closing: Promise<void> | null = null;
  const closeStore = () => {
    seed.replicas.delete(close);
    return store.close().finally(() => rmSync(dataDir, { recursive: true, force: true }));
  };
  const { testApp: replica } = await appOn(store, replicaSeed, options, closeStore);
  const close = () => (closing ??= replica.close());
  seed.replicas.add(close);
  return { ...replica, close };
}

/**
 * What an app keeps in memory between requests, and how useTestApp puts it back as it was built:
 * everything a test could observe that is not in the store. What it cannot reach (state inside a
 * route's closure: the SAML metadata cache, the allowlist refusal gate) is listed in the README;
 * files that test those build an app per test (useTestApp's appPerTest).
 */
export interface AppMemory {
  /** Before a test: the clock, clock checks, metrics, unreadable-secret reports and context as built. */
  reset(): void;
  /** After a test: its agent connections closed (and what they started finished), its listeners removed. */
  settle(): Promise<void>;
}

/**
 * Session events that remember which listeners came after the app was built, so that useTestApp can
 * remove a test's listeners and keep the app's own (the grant engine's).
 */
class TestSessionEvents extends SessionEvents {
  readonly #added = new Set<() => void>();
  #tracking = false;

  override onUserSessionsEnded(listener: UserSessionsEndedListener): () => void {
    const remove = super.onUserSessionsEnded(listener);
    if (!this.#tracking) return remove;
    const removeTracked = () => {
      this.#added.delete(removeTracked);
      remove();
    };
    this.#added.add(removeTracked);
    return removeTracked;
  }

  /** From now on listeners are a test's. */
  track(): void {
    this.#tracking = true;
  }

  /** Removes every listener added since track(). */
  forgetTestListeners(): void {
    for (const remove of [...this.#added]) remove();
  }
}

/**
 * An object that stands for the latest of the values `make` makes: the app keeps the stand-in, and
 * renew() replaces what it stands for. For in-memory parts the app holds from its build (the clock
 * checks) that have no reset of their own.
 */
function renewable<T extends object>(make: () => T): { view: T; renew(): void } {
  let current = make();
  const view = new Proxy(Object.create(Object.getPrototypeOf(current) as object) as T, {
    get: (_target, key) => {
      const value: unknown = Reflect.get(current, key);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  });
  return {
    view,
    renew: () => {
      current = make();
    },
  };
}

/** The app on `store`, as server.ts builds it (no timers: tests move the clock and run checks). */
export async function appOn(
  store: Store,
  seed: ReplicaSeed,
  options: TestAppOptions,
  closeStore: () => Promise<void>,
): Promise<{ testApp: TestApp; memory: AppMemory }> {
  const logger = options.logger ?? pino({ level: process.env.POSTERN_TEST_LOG_LEVEL ?? 'silent' });
  const sessionEvents = new TestSessionEvents(logger);
  const base: HubContext = {
    db: store.db,
    dialect: store.dialect,
    clock: seed.clock,
    logger,
    config: seed.config,
    secrets: new SecretBox([seed.secretKey]),
    unreadableSecrets: new UnreadableSecretReports(),
    sessionEvents,
    metrics: new ServerMetrics(),
    writeHealth: store.writeHealth,
    releases: options.releases ?? NO_RELEASE_FEED,
  };
  base.metrics.watchStore(store.db, seed.clock, logger);
  const hub = new AgentHub(base);
  base.metrics.watchAgents(hub);
  // One object for the hub's context and the app's (server.ts makes two), so that the hub and its
  // connections see what a reset puts back into the context.
  const ctx: AppContext = Object.assign(base, { agentSync: hub });
  const clockWatch = renewable(() => new ClockWatch({ ...ctx, monotonic: seed.clock, agents: hub }));
  base.metrics.watchClock(clockWatch.view);
  const stopForwarding = forwardEndedSessionsToAgents(ctx);
  const app = await buildApp(ctx, options.webApp ?? NO_WEB_APP, {
    agentHub: hub,
    clockWatch: clockWatch.view,
    logoCodec: options.logoCodec,
  });
  sessionEvents.track();
  const builtContext = { ...ctx };
  const builtConfig = { ...ctx.config };
  const memory: AppMemory = {
    reset: () => {
      for (const key of Object.keys(ctx))
        if (!(key in builtContext)) delete (ctx as unknown as Record<string, unknown>)[key];
      Object.assign(ctx, builtContext);
      const config = ctx.config as unknown as Record<string, unknown>;
      for (const key of Object.keys(config)) if (!(key in builtConfig)) delete config[key];
      Object.assign(config, builtConfig);
      ctx.unreadableSecrets = new UnreadableSecretReports();
      ctx.metrics.registry.resetMetrics();
      seed.clock.reset(TEST_CLOCK_START);
      clockWatch.renew();
    },
    settle: async () => {
      sessionEvents.forgetTestListeners();
      await hub.closeConnections();
    },
  };
  const testApp: TestApp = {
    app,
    ctx,
    hub,
    clock: seed.clock,
    clockWatch: clockWatch.view,
    replicaSeed: seed,
    close: async () => {
      await hub.close();
      await app.close();
      stopForwarding();
      await closeStore();
    },
  };
  return { testApp, memory };
}
