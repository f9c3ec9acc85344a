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
import { buildApp } from '../app.js';
import type { WebApp } from '../http/web-app.js';
import { ManualClock } from '../lib/clock.js';
import { SecretBox } from '../secrets/secret-box.js';
import { UnreadableSecretReports } from '../secrets/unreadable-secrets.js';
import { SessionEvents } from '../sessions/session-events.js';
import { randomBytes } from 'node:crypto';
import { ServerMetrics } from '../metrics/server-metrics.js';

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
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  const location = { kind: 'postgres' as const, url };
  const store = await openStore(location, { postgresSchema: schema });
  if (migrate) await migrateToLatest(store.db);
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
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<AppContext['config']>;
  webApp?: WebApp;
  /** The app's logger; silent (or POSTERN_TEST_LOG_LEVEL) by default. */
  logger?: AppContext['logger'];
}

/** The real HTTP app on a real, empty, migrated store, with a clock the test moves. */
export async function createTestApp(kind: TestStoreKind, options: TestAppOptions = {}): Promise<TestApp> {
  const testStore = await createTestStore(kind);
  const clock = new ManualClock(Date.UTC(2026, 10, 22, 9, 0, 0));
  const logger = options.logger ?? pino({ level: process.env.POSTERN_TEST_LOG_LEVEL ?? 'silent' });
  const base: HubContext = {
    db: testStore.store.db,
    dialect: testStore.store.dialect,
    clock,
    logger,
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
    secrets: new SecretBox([randomBytes(32)]),
    unreadableSecrets: new UnreadableSecretReports(),
    sessionEvents: new SessionEvents(logger),
    metrics: new ServerMetrics(),
  };
  base.metrics.watchStore(testStore.store.db, clock, logger);
  const hub = new AgentHub(base);
  base.metrics.watchAgents(hub);
  const ctx: AppContext = { ...base, agentSync: hub };
  const stopForwarding = forwardEndedSessionsToAgents(ctx);
  const app = await buildApp(ctx, options.webApp ?? NO_WEB_APP, { agentHub: hub });
  return {
    app,
    ctx,
    hub,
    clock,
    close: async () => {
      await hub.close();
      await app.close();
      stopForwarding();
      await testStore.dispose();
    },
  };
}
