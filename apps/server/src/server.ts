import type { FastifyInstance } from 'fastify';
import { startDiscoveryResponder, type DiscoveryResponder } from './ip-discovery/responder.js';
import { ipAttestor } from './ip-discovery/attestation.js';
import { AgentHub } from './agent-hub/agent-hub.js';
import { forwardEndedSessionsToAgents, startGrantSweeper } from './grants/grant-sweeper.js';
import type { Logger } from 'pino';
import type { AppContext, HubContext } from './app-context.js';
import { NO_AGENT_SYNC } from './grants/agent-sync.js';
import type { PosternConfig } from './config/config.js';
import { ConfigError } from './config/config-error.js';
import { prepareDataDir } from './config/data-dir.js';
import { looseFileWarnings } from './config/private-files.js';
import { openStore, type Store } from './store/store.js';
import { migrateToLatest } from './store/migrate.js';
import { whenStoreFree } from './store/start-up-wait.js';
import { takeProcessLock, type ProcessLock } from './store/single-process-lock.js';
import { buildApp } from './app.js';
import { loadWebApp } from './http/web-app.js';
import { ensureBootstrapAdmin } from './admins/admins.service.js';
import { startSessionSweeper } from './sessions/session-sweeper.js';
import { RuntimeSettings } from './settings/runtime-settings.js';
import { systemClock, systemMonotonicClock } from './lib/clock.js';
import { ClockWatch } from './health/clock-watch.js';
import { loadStoreSecretBox } from './key-check/store-secret-key.js';
import { UnreadableSecretReports } from './secrets/unreadable-secrets.js';
import { SessionEvents } from './sessions/session-events.js';
import { BOOTSTRAP_ADMIN_USERNAME } from '@postern/protocol';
import { ChangeListener } from './cluster/change-listener.js';
import { Lease } from './cluster/lease.js';
import { ServerMetrics } from './metrics/server-metrics.js';
import { startMetricsListener, type MetricsListener } from './metrics/metrics-listener.js';
import { NO_RELEASE_FEED, ReleaseFeedReader } from './releases/release-feed-source.js';

/**
 * How long a stopping server waits for the requests in flight before it cuts their connections off.
 * With the agents' own grace (AGENT_CLOSE_GRACE_MS, as long) well inside the 5 s a stop may take, and
 * far inside systemd's TimeoutStopSec.
 */
export const HTTP_STOP_GRACE_MS = 2_000;
/** How often a closing listener closes the connections that have gone idle meanwhile. */
const IDLE_SWEEP_MS = 100;

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  url: string;
  stop(): Promise<void>;
}

/**
 * Opens (and if needed migrates) the store, then the data directory and store are ready to use.
 * `asServer`: on the embedded SQLite store, first take the data directory's single-process lock (see
 * single-process-lock.ts), held until the store is closed; another holder stops us here.
 */
export async function openPreparedStore(config: PosternConfig, logger: Logger, asServer = false): Promise<Store> {
  const { warning } = prepareDataDir(config.dataDir);
  if (warning !== null) logger.warn(warning);
  const lock = asServer && config.store.kind === 'sqlite' ? takeProcessLock(config.dataDir, 'serve') : null;
  const store = await openStore(config.store, { logger }).then(
    (opened) => (lock === null ? opened : withLockReleasedOnClose(opened, lock)),
    (error: unknown) => {
      lock?.release();
      throw error;
    },
  );
  try {
    const applied = await whenStoreFree(() => migrateToLatest(store.db), { logger, store: store.description });
    if (applied.length > 0) logger.info({ migrations: applied, store: store.description }, 'store migrated');
  } catch (error) {
    await store.close();
    throw error;
  }
  // Now that the store's -wal and -shm exist too: every file there that others may read, once each.
  for (const loose of looseFileWarnings(config.dataDir))
    logger.warn({ file: loose.file, mode: loose.mode }, loose.message);
  return store;
}

function withLockReleasedOnClose(store: Store, lock: ProcessLock): Store {
  return {
    ...store,
    close: async () => {
      try {
        await store.close();
      } finally {
        lock.release();
      }
    },
  };
}

/**
 * The context services run in, on an opened store. Its secret key is proven to be the store's first
 * (see key-check/store-secret-key.ts): a lost or wrong key is a ConfigError here, before anything runs.
 */
export async function contextFor(config: PosternConfig, store: Store, logger: Logger): Promise<HubContext> {
  const { secrets, fromFile } = await whenStoreFree(
    () => loadStoreSecretBox(store.db, config.secretKey, config.dataDir),
    { logger, store: store.description },
  );
  if (fromFile && store.dialect === 'postgres') {
    logger.warn(
      'secrets are sealed with the key file in the data directory; set POSTERN_SECRET_KEY so every replica sharing this PostgreSQL can read them',
    );
  }
  return {
    db: store.db,
    dialect: store.dialect,
    clock: systemClock,
    logger,
    config,
    secrets,
    unreadableSecrets: new UnreadableSecretReports(),
    sessionEvents: new SessionEvents(logger),
    metrics: metricsFor(store, logger),
    writeHealth: store.writeHealth,
    // Read only once startServer starts it: the command line's commands never fetch it.
    releases:
      config.releaseFeed === null
        ? NO_RELEASE_FEED
        : new ReleaseFeedReader({ location: config.releaseFeed, logger: logger.child({ component: 'release-feed' }) }),
  };
}

/** The metrics of this process, their store gauges reading `store`. */
function metricsFor(store: Store, logger: Logger): ServerMetrics {
  const metrics = new ServerMetrics();
  metrics.watchStore(store.db, systemClock, logger);
  return metrics;
}

/** The context for work without agents (the command line's commands): nothing here has agents to tell. */
export async function contextWithoutAgents(config: PosternConfig, store: Store, logger: Logger): Promise<AppContext> {
  return { ...(await contextFor(config, store, logger)), agentSync: NO_AGENT_SYNC };
}

/** Starts the portal: store, first admin, background jobs, HTTP listener. */
export async function startServer(config: PosternConfig, logger: Logger): Promise<RunningServer> {
  const store = await openPreparedStore(config, logger, true);
  const base = await contextFor(config, store, logger).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const agentHub = new AgentHub(base);
  base.metrics.watchAgents(agentHub);
  base.metrics.collectProcessMetrics();
  const ctx: AppContext = { ...base, agentSync: agentHub };
  const clockWatch = new ClockWatch({ ...ctx, monotonic: systemMonotonicClock, agents: agentHub });
  ctx.metrics.watchClock(clockWatch);
  let clockChecks: { stop(): Promise<void> } | undefined;
  const runtime = new RuntimeSettings(ctx);
  let app: FastifyInstance | undefined;
  let sweeper: { stop(): Promise<void> } | undefined;
  let grantSweeper: { stop(): Promise<void> } | undefined;
  let discovery: DiscoveryResponder | undefined;
  let changeListener: ChangeListener | undefined;
  // The sweepers run on one server at a time: the one holding this lease (SQLite: always this one).
  const sweepLease = new Lease(ctx, 'sweepers', store.replicaId);
  let leaseKeeper: { stop(): Promise<void> } | undefined;
  let metricsListener: MetricsListener | undefined;
  const stopForwarding = forwardEndedSessionsToAgents(ctx);
  /**
   * Stops in the order that leaves nothing reading or writing the store once it closes: the timed
   * jobs (each awaits its pass in flight), giving up the sweepers' lease (another replica takes the
   * sweeps over at once, not at the lease's expiry), the agents (told goodbye, their disconnects
   * recorded), the HTTP listener (requests in flight finish, and may still tell agents or reapply
   * settings), then what those requests could still have started, and only then the store (and with
   * it the data directory's lock). No peer holds it up for long: an agent that does not answer the
   * close, or a request still running, is cut off after a grace of 2 s.
   */
  const stop = async () => {
    await ctx.releases.stop();
    await clockChecks?.stop();
    await grantSweeper?.stop();
    await sweeper?.stop();
    await leaseKeeper?.stop();
    await discovery?.stop();
    await changeListener?.stop();
    await metricsListener?.close();
    await agentHub.close();
    if (app !== undefined) await closeHttp(app, HTTP_STOP_GRACE_MS, logger);
    stopForwarding();
    await runtime.stop();
    await store.close();
  };
  try {
    const bootstrapPassword = await ensureBootstrapAdmin(ctx);
    const webApp = loadWebApp(config.webDir);
    if (webApp.current().indexHtml === null) {
      logger.warn({ dir: webApp.dir }, 'the web app is not built; run npm run build');
    }
    await runtime.applyOnce();
    runtime.start();
    // In the background: an unreachable feed host never holds up the start.
    ctx.releases.start();
    app = await buildApp(ctx, webApp, { onConfigChanged: () => runtime.applyOnce(), agentHub, clockWatch });
    changeListener = await listenForChanges(store, ctx, agentHub);
    await listen(app, config);
    await sweepLease
      .renew()
      .catch((error: unknown) => logger.warn({ err: error }, 'could not take the sweepers lease'));
    leaseKeeper = sweepLease.keep();
    sweeper = startSessionSweeper(ctx, undefined, () => sweepLease.held);
    grantSweeper = startGrantSweeper(ctx, undefined, () => sweepLease.held);
    await clockWatch.check();
    clockChecks = clockWatch.start();
    if (config.metrics !== null) metricsListener = await startMetricsListener(config.metrics, ctx.metrics, logger);
    const attestor = ipAttestor(ctx.secrets);
    discovery = await startDiscoveryResponder(config.host, config.ipDiscoveryPorts, logger, (ip, port) =>
      attestor.issue({ ip, port }, ctx.clock.now()),
    );
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
    logger.info({ url, store: store.description }, 'Postern is listening');
    if (bootstrapPassword !== null) printBootstrapPassword(bootstrapPassword, config.publicUrl ?? url);
    return { app, store, url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * On PostgreSQL, other servers may share the store: their changes reach the agents connected here
 * through the store's doorbells. SQLite is single-process, with nothing to listen for.
 */
async function listenForChanges(store: Store, ctx: AppContext, agents: AgentHub): Promise<ChangeListener | undefined> {
  if (store.openDedicatedClient === undefined) return undefined;
  const listener = new ChangeListener({
    db: ctx.db,
    logger: ctx.logger.child({ component: 'change-listener' }),
    replicaId: store.replicaId,
    openClient: store.openDedicatedClient,
    agents,
    counters: { notification: () => ctx.metrics.changeBusNotified(), resync: () => ctx.metrics.changeBusResynced() },
  });
  await listener.start();
  return listener;
}

/**
 * Closes the HTTP listener: requests in flight finish, each connection closing with its answer
 * (http/closing-rule.ts), idle ones at once. One that went idle in between is closed at the next
 * sweep; whatever is still open after `graceMs` (a request that does not finish, a client that does
 * not read its answer) is cut off then.
 */
async function closeHttp(app: FastifyInstance, graceMs: number, logger: Logger): Promise<void> {
  const sweep = setInterval(() => app.server.closeIdleConnections(), IDLE_SWEEP_MS);
  const cutOff = setTimeout(() => {
    logger.warn({ graceMs }, 'requests still running at the end of the stop grace; their connections are cut');
    app.server.closeAllConnections();
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(cutOff);
  }
}

async function listen(app: FastifyInstance, config: PosternConfig): Promise<void> {
  try {
    await app.listen({ host: config.host, port: config.port, backlog: config.listenBacklog });
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    if (code === 'EADDRINUSE') throw new ConfigError('POSTERN_PORT', `port ${config.port} is already in use`);
    if (code === 'EACCES') throw new ConfigError('POSTERN_PORT', `no permission to listen on port ${config.port}`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      throw new ConfigError('POSTERN_HOST', `cannot listen on ${config.host} (${code})`);
    }
    throw error;
  }
}

/** Shown on the terminal exactly once, when the store is new. */
function printBootstrapPassword(password: string, baseUrl: string): void {
  process.stdout.write(
    [
      '',
      `  Postern created the administrator account "${BOOTSTRAP_ADMIN_USERNAME}".`,
      `  Its password is shown only this once:`,
      '',
      `      ${password}`,
      '',
      `  Sign in at ${baseUrl}/admin and keep the password somewhere safe.`,
      `  Lost it? Run: npm run postern -- admin reset-password ${BOOTSTRAP_ADMIN_USERNAME}`,
      '',
      '',
    ].join('\n'),
  );
}
