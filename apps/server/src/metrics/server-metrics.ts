import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../store/schema.js';
import type { Clock } from '../lib/clock.js';
import { activeGrantsByBackendType, activeSessionsByRole } from './store-gauges.js';

/**
 * How a person proved who they are. `oidc` and `passkey` are the spec's names for sign-ins Postern
 * does not offer yet; they are listed so dashboards can be built once.
 */
export type SignInMethod = 'local' | 'ldap' | 'saml' | 'apikey' | 'oidc' | 'passkey';
/** `banned`: refused by the sign-in throttle before the password was looked at. */
export type SignInResult = 'success' | 'failure' | 'banned';
/** `applied`: the agent confirmed the entry; `error`: the device refused it; `denied`: the request was refused. */
export type GrantResult = 'applied' | 'error' | 'denied';

/** What the scrape reads from the agent hub of this replica. */
export interface ConnectedAgentsView {
  /** Agents connected to this replica, by their admin-given name, with when each last spoke. */
  connectedAgents(): { name: string; lastMessageAt: number }[];
}

/** What the scrape reads of the clock checks (health/clock-watch.ts). */
export interface ClockOffsetsView {
  /** The offsets of the last check: reference minus this server, in seconds. */
  offsets(): { reference: string; seconds: number }[];
}

/** The store the scrape-time gauges read, with the clock that says which grants and sessions still run. */
interface WatchedStore {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
}

/** Seconds from a grant request to the agent's confirmation: one millisecond to thirty seconds. */
const APPLY_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A backend type label when the request was refused before its knoc was known. */
export const UNKNOWN_BACKEND_TYPE = 'unknown';

/**
 * The server's Prometheus metrics (SCALE-OUT.md, "Metrics"), in a registry of its own so every test
 * app gets fresh counters. Counters are counted where their events happen, in this replica; the
 * gauges the store knows (active grants, active sessions) are read with one aggregate query each at
 * scrape time, so every replica reports the same, current figure. Labels are bounded by
 * configuration: never a user, address, session or grant id.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly #grants: Counter<'result' | 'backend_type'>;
  readonly #revokes: Counter<'reason' | 'backend_type'>;
  readonly #applyDuration: Histogram<'backend_type'>;
  readonly #allowlistFetches: Counter<'acl' | 'result'>;
  readonly #allowlistLastFetch: Gauge<'acl'>;
  readonly #signIns: Counter<'method' | 'result'>;
  readonly #changeBusNotifications: Counter;
  readonly #changeBusResyncs: Counter;
  readonly #clockSteps: Counter<'reference'>;
  #store: WatchedStore | null = null;
  #agents: ConnectedAgentsView | null = null;
  #clock: ClockOffsetsView | null = null;

  constructor() {
    const registers = [this.registry];
    this.#grants = new Counter({
      name: 'postern_grants_total',
      help: 'Grants by outcome: applied (confirmed by the agent), error (the device refused the entry), denied (the grant request was refused).',
      labelNames: ['result', 'backend_type'],
      registers,
    });
    this.#revokes = new Counter({
      name: 'postern_revokes_total',
      help: 'Ended grants whose entry the agent confirmed removed, by why they ended.',
      labelNames: ['reason', 'backend_type'],
      registers,
    });
    this.#applyDuration = new Histogram({
      name: 'postern_grant_apply_duration_seconds',
      help: 'Seconds from a grant being requested to its agent confirming the entry.',
      labelNames: ['backend_type'],
      buckets: APPLY_DURATION_BUCKETS,
      registers,
    });
    this.#allowlistFetches = new Counter({
      name: 'postern_allowlist_fetches_total',
      help: 'Allowlist downloads by knoc and result (served or refused).',
      labelNames: ['acl', 'result'],
      registers,
    });
    this.#allowlistLastFetch = new Gauge({
      name: 'postern_allowlist_last_fetch_timestamp_seconds',
      help: 'When this replica last served each allowlist (Unix seconds); alert on its age.',
      labelNames: ['acl'],
      registers,
    });
    this.#signIns = new Counter({
      name: 'postern_auth_attempts_total',
      help: 'Sign-in attempts by method and result.',
      labelNames: ['method', 'result'],
      registers,
    });
    this.#changeBusNotifications = new Counter({
      name: 'postern_change_bus_notifications_total',
      help: 'Change notifications this replica received from the others.',
      registers,
    });
    this.#changeBusResyncs = new Counter({
      name: 'postern_change_bus_resyncs_total',
      help: 'Full resynchronisations after the change bus lost notifications.',
      registers,
    });
    this.#clockSteps = new Counter({
      name: 'postern_clock_steps_total',
      help: "Steps of this server's clock (over 5 s between two checks) against a reference: monotonic (its own), store (PostgreSQL), agents (their median).",
      labelNames: ['reference'],
      registers,
    });
    this.#registerScrapeTimeGauges(registers);
  }

  /**
   * Adds prom-client's process metrics (CPU, memory, event loop lag, …) as postern_*. Only the
   * running server does: each set starts its own event-loop monitor.
   */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry, prefix: 'postern_' });
  }

  /** The store the scrape-time gauges read. */
  watchStore(db: Kysely<Database>, clock: Clock, logger: Logger): void {
    this.#store = { db, clock, logger };
  }

  /** The agent hub whose connections the scrape-time gauges report. */
  watchAgents(agents: ConnectedAgentsView): void {
    this.#agents = agents;
  }

  /** The clock checks whose offsets the scrape-time gauge reports. */
  watchClock(clock: ClockOffsetsView): void {
    this.#clock = clock;
  }

  /** The clock stepped against `reference` (health/clock-watch.ts). */
  clockStepped(reference: string): void {
    this.#clockSteps.inc({ reference });
  }

  /** Grants refused (denied) or failed on their device (error); applied ones go through {@link grantApplied}. */
  countGrants(result: Exclude<GrantResult, 'applied'>, backendType: string, count = 1): void {
    if (count > 0) this.#grants.inc({ result, backend_type: backendType }, count);
  }

  /** An agent confirmed a grant's entry `seconds` after the grant was requested. */
  grantApplied(backendType: string, seconds: number): void {
    this.#grants.inc({ result: 'applied', backend_type: backendType });
    this.#applyDuration.observe({ backend_type: backendType }, Math.max(0, seconds));
  }

  grantsEnded(reason: string, backendType: string, count = 1): void {
    if (count > 0) this.#revokes.inc({ reason, backend_type: backendType }, count);
  }

  allowlistFetched(acl: string, result: 'served' | 'refused', now: number): void {
    this.#allowlistFetches.inc({ acl, result });
    if (result === 'served') this.#allowlistLastFetch.set({ acl }, now / 1000);
  }

  signIn(method: SignInMethod, result: SignInResult): void {
    this.#signIns.inc({ method, result });
  }

  /** The change bus delivered a notification from another replica. */
  changeBusNotified(): void {
    this.#changeBusNotifications.inc();
  }

  /** The change bus lost notifications and state was read afresh. */
  changeBusResynced(): void {
    this.#changeBusResyncs.inc();
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  #registerScrapeTimeGauges(registers: Registry[]): void {
    // `collect` runs on every scrape, with the gauge as `this`.
    const fromStore = <T>(read: (store: WatchedStore) => Promise<T[]>) => this.#fromStore(read);
    const connectedAgents = () => this.#agents?.connectedAgents() ?? [];
    const clockOffsets = () => this.#clock?.offsets() ?? [];
    new Gauge({
      name: 'postern_clock_offset_seconds',
      help: "A reference's clock minus this server's at the last check (positive: the server is behind): store (PostgreSQL only), agents (median of the connected ones).",
      labelNames: ['reference'],
      registers,
      collect() {
        this.reset();
        for (const offset of clockOffsets()) this.set({ reference: offset.reference }, offset.seconds);
      },
    });
    new Gauge({
      name: 'postern_active_grants',
      help: 'Running grants by backend type (from the store: the same on every replica).',
      labelNames: ['backend_type'],
      registers,
      async collect() {
        this.reset();
        const rows = await fromStore((store) => activeGrantsByBackendType(store.db, store.clock.now()));
        for (const row of rows) this.set({ backend_type: row.backendType }, row.count);
      },
    });
    new Gauge({
      name: 'postern_sessions_active',
      help: 'Signed-in sessions by role (user or admin; from the store: the same on every replica).',
      labelNames: ['role'],
      registers,
      async collect() {
        this.reset();
        const rows = await fromStore((store) => activeSessionsByRole(store.db, store.clock.now()));
        for (const row of rows) this.set({ role: row.role }, row.count);
      },
    });
    new Gauge({
      name: 'postern_agents_connected',
      help: 'Agents connected to this replica (sum over replicas for the total).',
      registers,
      collect() {
        this.set(connectedAgents().length);
      },
    });
    new Gauge({
      name: 'postern_agent_heartbeat_age_seconds',
      help: 'Seconds since each agent connected to this replica last sent anything (heartbeats every few seconds).',
      labelNames: ['agent'],
      registers,
      collect() {
        this.reset();
        const now = Date.now();
        for (const agent of connectedAgents()) {
          this.set({ agent: agent.name }, Math.max(0, (now - agent.lastMessageAt) / 1000));
        }
      },
    });
  }

  /**
   * A store read for a gauge; when the store cannot answer the gauge is left empty for this scrape
   * (the rest of the scrape still succeeds, and /readyz reports the store).
   */
  async #fromStore<T>(read: (store: WatchedStore) => Promise<T[]>): Promise<T[]> {
    const store = this.#store;
    if (store === null) return [];
    try {
      return await read(store);
    } catch (error) {
      store.logger.warn({ err: error }, 'a metric could not be read from the store');
      return [];
    }
  }
}
