import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './store/schema.js';
import type { StoreDialect } from './store/store.js';
import type { Clock } from './lib/clock.js';
import type { PosternConfig } from './config/config.js';
import type { SecretBox } from './secrets/secret-box.js';
import type { UnreadableSecretReports } from './secrets/unreadable-secrets.js';
import type { SessionEvents } from './sessions/session-events.js';
import type { AgentSync } from './grants/agent-sync.js';
import type { ServerMetrics } from './metrics/server-metrics.js';
import type { StoreWriteHealth } from './store/write-health.js';
import type { ReleaseSource } from './releases/release-feed-source.js';

/** What every service needs: the store, the time and the settings that shape behaviour. */
export interface AppContext {
  db: Kysely<Database>;
  dialect: StoreDialect;
  clock: Clock;
  logger: Logger;
  config: Pick<
    PosternConfig,
    | 'insecureHttp'
    | 'trustedProxies'
    | 'publicUrl'
    | 'dataDir'
    | 'licencePublicKeys'
    | 'ipDiscoveryPorts'
    | 'supportUrl'
    | 'supportEmail'
    | 'licensingUrl'
    | 'experimentalFeatures'
  >;
  /** Seals and opens secrets stored in the database. */
  secrets: SecretBox;
  /** Which secrets that could not be opened this process has reported lately (one audit entry an hour each). */
  unreadableSecrets: UnreadableSecretReports;
  /** Announces ended user sessions (the grant engine revokes their grants). */
  sessionEvents: SessionEvents;
  /** The Prometheus counters (metrics/server-metrics.ts), counted where their events happen. */
  metrics: ServerMetrics;
  /** Whether this process's writes to the store are failing for want of room (readiness). */
  writeHealth: StoreWriteHealth;
  /** The releases the operator's feed announces (POSTERN_RELEASE_FEED), for the admin status. */
  releases: ReleaseSource;
  /** Tells connected agents about committed changes to grants, knocs and backends. */
  agentSync: AgentSync;
}

/**
 * The context before the agent hub exists: what the hub itself is built from. The hub is the
 * AgentSync of the full context, so it cannot need one.
 */
export type HubContext = Omit<AppContext, 'agentSync'>;

/** Who is asking, as far as the network can tell. */
export interface RequestMeta {
  ipAddress: string;
  userAgent: string;
}
