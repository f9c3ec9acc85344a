import { ServerMetrics } from '../../apps/server/src/metrics/server-metrics.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BACKEND_CONFIG_SCHEMAS, RECORDED } from '@postern/protocol';
import { REPO_ROOT } from '@postern/test-support';
import { loadConfig, type PosternConfig } from '../../apps/server/src/config/config.js';
import { openStore } from '../../apps/server/src/store/store.js';
import { migrateTo } from '../../apps/server/src/store/migrate.js';
import { MIGRATION_NAMES } from '../../apps/server/src/store/migrations/index.js';
import { SecretBox } from '../../apps/server/src/secrets/secret-box.js';
import { systemClock } from '../../apps/server/src/lib/clock.js';
import { NO_AGENT_SYNC } from '../../apps/server/src/grants/agent-sync.js';
import { NO_RELEASE_FEED } from '../../apps/server/src/releases/release-feed-source.js';
import { UnreadableSecretReports } from '../../apps/server/src/secrets/unreadable-secrets.js';
import { SessionEvents } from '../../apps/server/src/sessions/session-events.js';
import type { AppContext } from '../../apps/server/src/app-context.js';
import { givenAdmin, givenUser } from '../../apps/server/src/test-support/factories.js';
import { givenAgent } from '../../apps/server/src/test-support/agent-factories.js';
import { givenBackend, givenEnforcedKnoc } from '../../apps/server/src/test-support/knoc-factories.js';
import { insertBackendRow } from '../../apps/server/src/backends/backends.repo.js';
import { uuidv7 } from '../../apps/server/src/lib/ids.js';
import { givenSessionRow } from '../../apps/server/src/test-support/v1-rows.js';
import { AdminApi } from './support/admin-api.js';
import { createPostgresSchema, spawnPosternServer, type PosternServer } from './support/postern-server.js';
import { missingBuild, requireTool } from './support/requirements.js';

/**
 * Issue 17 item 6: a store written by the previous release is migrated and served. There is no
 * release tag yet, so the previous release is the store as of migration 0009-store-meta (the last
 * before 0010-agent-sealing-keys): made here by running the migrations up to it and writing rows
 * the way that release wrote them (an agent without a sealing key, a vendor secret sealed with the
 * server key). Then the built server of this release starts on it, migrates it and serves the rows.
 * When a release adds a migration, PREVIOUS_RELEASE moves to the last migration of the release before.
 */
const PREVIOUS_RELEASE = '0009-store-meta';
const ADMIN_PASSWORD = 'previous release admin';

interface WrittenStore {
  userId: string;
  userName: string;
  knoc: string;
  backend: string;
  agent: string;
}

/** The previous release's store with one of everything an operator would miss after an upgrade. */
async function writePreviousReleaseStore(config: PosternConfig): Promise<WrittenStore> {
  const store = await openStore(config.store);
  try {
    await migrateTo(store.db, PREVIOUS_RELEASE);
    // The operator's key, given as POSTERN_SECRET_KEY. Not this release's key check: it walks every
    // table that holds sealed values, some of which the previous release did not have yet. The built
    // server's first start on this store proves the key opens what was sealed, and records its check.
    if (config.secretKey === null) throw new Error('the previous release store is written with POSTERN_SECRET_KEY');
    const secrets = new SecretBox([config.secretKey]);
    const logger = pino({ level: 'silent' });
    const ctx: AppContext = {
      db: store.db,
      dialect: store.dialect,
      clock: systemClock,
      logger,
      config,
      secrets,
      unreadableSecrets: new UnreadableSecretReports(),
      sessionEvents: new SessionEvents(logger),
      metrics: new ServerMetrics(),
      writeHealth: store.writeHealth,
      agentSync: NO_AGENT_SYNC,
      releases: NO_RELEASE_FEED,
    };
    // As the first start makes it: two-factor on, to be enrolled at the first sign-in.
    await givenAdmin(ctx, {
      userName: 'postern-admin',
      password: ADMIN_PASSWORD,
      totpEnabled: true,
      totpVerified: false,
    });
    const user = await givenUser(ctx, { userName: 'alice' });
    await givenSessionRow(ctx, user.id);
    const agent = await givenAgent(ctx, { name: 'edge-agent', sealing: false });
    const backend = await givenServerSealedBackend(ctx, agent.id);
    const allowlist = await givenBackend(ctx, { type: 'allowlist', name: 'partner-allowlist' });
    const knoc = await givenEnforcedKnoc(ctx, {
      backendId: allowlist.id,
      type: 'allowlist',
      options: { Description: 'Intranet of the previous release' },
    });
    return {
      userId: user.id,
      userName: user.userName,
      knoc: knoc.description,
      backend: backend.name,
      agent: agent.name,
    };
  } finally {
    await store.close();
  }
}

/** PostgreSQL too when POSTERN_TEST_DATABASE_URL names a server (CI sets it). */
const STORES = process.env.POSTERN_TEST_DATABASE_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const);

/**
 * A FortiOS backend as the previous release stored it: its bearer token sealed with the server key
 * (this release seals to the agent's key instead, and re-seals such values when the agent registers one).
 */
async function givenServerSealedBackend(ctx: AppContext, agentId: string): Promise<{ name: string }> {
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const secret = 'bearer-of-the-previous-release';
  const fields = BACKEND_CONFIG_SCHEMAS.fortios.parse({ Url: 'https://fw.example.net', Bearer: secret, VDOM: 'root' });
  const bearer = ctx.secrets.seal(secret, { table: 'backends', column: 'config.Bearer', rowId: id });
  const name = 'edge-fortigate';
  await insertBackendRow(ctx.db, {
    id,
    name,
    agentId,
    type: 'fortios',
    config: { ...fields, Bearer: bearer },
    createdAt: now,
    updatedAt: now,
    lastModifiedBy: 'previous release',
  });
  return { name };
}

describe.each(STORES)('a store of the previous release (%s)', (kind) => {
  const missing = missingBuild(REPO_ROOT);
  let dataDir: string;
  let dropSchema: (() => Promise<void>) | null = null;
  let stopServer: (() => Promise<unknown>) | null = null;

  beforeEach((context) => {
    requireTool(context, missing);
    dataDir = mkdtempSync(path.join(tmpdir(), 'postern-previous-release-'));
  });
  afterEach(async () => {
    await stopServer?.();
    await dropSchema?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is migrated by the built server of this release, which serves what it holds', async () => {
    const schema = kind === 'postgres' ? await createPostgresSchema() : null;
    dropSchema = schema === null ? null : () => schema.drop();
    const settings = {
      POSTERN_DATA_DIR: dataDir,
      POSTERN_SECRET_KEY: randomBytes(32).toString('base64'),
      ...(schema === null ? {} : { DATABASE_URL: schema.url }),
    };
    const written = await writePreviousReleaseStore(loadConfig(settings));

    const { process: server, url } = await spawnPosternServer(dataDir, { ...settings, POSTERN_LOG_LEVEL: 'info' });
    stopServer = () => server.stop();
    await server.waitForOutput(/Postern is listening/, 30_000);
    const migrated = MIGRATION_NAMES.slice(MIGRATION_NAMES.indexOf(PREVIOUS_RELEASE) + 1);
    expect(migrated.length).toBeGreaterThan(0);
    expect(server.stdout()).toContain(`"migrations":${JSON.stringify(migrated)}`);
    // The admin existed: no first-admin password is made or printed.
    expect(server.stdout()).not.toMatch(/shown only this once/);

    const admin = await AdminApi.signIn({ url, adminPassword: ADMIN_PASSWORD } as PosternServer);
    const users = await admin.call<{ ID: string; UserName: string }[]>('GET', '/api/admin/users');
    expect(users.map((user) => user.UserName)).toContain(written.userName);
    const sessions = await admin.call<{ EndedAt: unknown }[]>('GET', `/api/admin/users/${written.userId}/sessions`);
    expect(sessions).toHaveLength(1);
    const knocs = await admin.call<{ Description: string }[]>('GET', '/api/admin/knocs');
    expect(knocs.map((knoc) => knoc.Description)).toContain(written.knoc);
    const agents = await admin.call<{ Name: string }[]>('GET', '/api/admin/agents');
    expect(agents.map((agent) => agent.Name)).toEqual([written.agent]);
    const backends = await admin.call<{ Name: string; Config: Record<string, Record<string, unknown>> }[]>(
      'GET',
      '/api/admin/backends',
    );
    const backend = backends.find((candidate) => candidate.Name === written.backend);
    // The vendor secret sealed with the server key is still there, and still never shown.
    expect(backend?.Config.fortios).toMatchObject({ Url: 'https://fw.example.net', Bearer: RECORDED });
  });
});
