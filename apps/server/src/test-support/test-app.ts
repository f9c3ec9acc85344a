import { mkdtempSync, rmSync } from 'node:fs';
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
import { SessionEvents } from '../sessions/session-events.js';
import { randomBytes } from 'node:crypto';
import { vi } from 'vitest';
import { ServerMetrics } from '../metrics/server-metrics.js';
import { ClockWatch } from '../health/clock-watch.js';
import type { LogoCodec } from '../settings/logo-codec.js';

export type TestStoreKind = 'sqlite' | 'postgres';

/** SQLite always; PostgreSQL too when POSTERN_TEST_DATABASE_URL names a server (CI sets it). */
export function testStoreKinds(): TestStoreKind[] {
  return process.env.POSTERN_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

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

/** The real HTTP app on a real, empty, migrated store, with a clock the test moves. */
export async function createTestApp(kind: TestStoreKind, options: TestAppOptions = {}): Promise<TestApp> {
  const testStore = await createTestStore(kind);
  const seed: ReplicaSeed = {
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
      licensingUrl: null,
      experimentalFeatures: [],
      ...options.config,
    },
    clock: new ManualClock(Date.UTC(2026, 10, 22, 9, 0, 0)),
    replicas: new Set(),
  };
  return appOn(testStore.store, seed, options, async () => {
    for (const closeReplica of [...seed.replicas]) await closeReplica();
    await testStore.dispose();
  });
}

/**
 * A second server process of `primary`'s installation: its own connection to the same store (the
 * same SQLite file, or the same PostgreSQL schema), its own data directory, the same secret key.
 * It is built from a fresh copy of the server's modules, so it shares no module-level state with
 * the primary either: whatever one replica knows that the other must know has to be in the store.
 * Closed by its own close(), or at the latest by the primary's. (It empties vitest's module registry:
 * a dynamic import later in the same test file loads a fresh copy too.)
 */
export async function createTestReplica(primary: TestApp, options: TestAppOptions = {}): Promise<TestApp> {
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
  const replica = await appOn(store, replicaSeed, options, closeStore);
  const close = () => (closing ??= replica.close());
  seed.replicas.add(close);
  return { ...replica, close };
}

async function appOn(
  store: Store,
  seed: ReplicaSeed,
  options: TestAppOptions,
  closeStore: () => Promise<void>,
): Promise<TestApp> {
  const logger = options.logger ?? pino({ level: process.env.POSTERN_TEST_LOG_LEVEL ?? 'silent' });
  const base: HubContext = {
    db: store.db,
    dialect: store.dialect,
    clock: seed.clock,
    logger,
    config: seed.config,
    secrets: new SecretBox([seed.secretKey]),
    unreadableSecrets: new UnreadableSecretReports(),
    sessionEvents: new SessionEvents(logger),
    metrics: new ServerMetrics(),
    writeHealth: store.writeHealth,
  };
  base.metrics.watchStore(store.db, seed.clock, logger);
  const hub = new AgentHub(base);
  base.metrics.watchAgents(hub);
  const ctx: AppContext = { ...base, agentSync: hub };
  const clockWatch = new ClockWatch({ ...ctx, monotonic: seed.clock, agents: hub });
  base.metrics.watchClock(clockWatch);
  const stopForwarding = forwardEndedSessionsToAgents(ctx);
  const app = await buildApp(ctx, options.webApp ?? NO_WEB_APP, {
    agentHub: hub,
    clockWatch,
    logoCodec: options.logoCodec,
  });
  return {
    app,
    ctx,
    hub,
    clock: seed.clock,
    clockWatch,
    replicaSeed: seed,
    close: async () => {
      await hub.close();
      await app.close();
      stopForwarding();
      await closeStore();
    },
  };
}
