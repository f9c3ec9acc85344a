import type pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AgentEntryKey } from '../grants/agent-sync.js';
import { backoffDelay } from '../lib/backoff.js';
import { inBatches } from '../store/batches.js';
import type { Database } from '../store/schema.js';

/**
 * What the change listener asks of this server's agent connections (the AgentHub): each call acts
 * only on agents connected here, and reads what to send from the store.
 */
export interface LocalAgents {
  entriesChanged(keys: readonly AgentEntryKey[]): void;
  agentsChanged(agentIds: readonly string[]): void;
  disconnectAgent(agentId: string, reason: string): void;
  /** Another server admitted a connection of the agent: close this server's, if the store agrees it is stale. */
  connectedElsewhere(agentId: string): void;
  /** Changes may have been missed: send every agent connected here its whole state again. */
  resendAll(): void;
}

/** Counts for the metrics (postern_change_bus_*). */
export interface ChangeBusCounters {
  notification(): void;
  resync(): void;
}

export interface ChangeListenerOptions {
  db: Kysely<Database>;
  logger: Logger;
  /** This server's replica id: the writer its own doorbells name. */
  replicaId: string;
  /** A connection of its own, outside the pool: LISTEN holds it for the listener's lifetime. */
  openClient: () => pg.Client;
  agents: LocalAgents;
  counters?: ChangeBusCounters;
  /** How often the listener checks that notifications still arrive (a doorbell it rings itself). */
  pingEveryMs?: number;
  /** How long that doorbell may take before the connection counts as dead and is replaced. */
  pingTimeoutMs?: number;
}

const RECONNECT = { initialMs: 100, maxMs: 5_000 };

/**
 * One server's ear on the store's doorbells (migrations/0012-cluster.ts): a change committed by
 * another server, to a grant, a knoc, a backend or an agent, reaches the agents connected here
 * within milliseconds. The doorbell carries only what changed; the agents are sent what the store
 * holds, read afresh, as for a change made here.
 *
 * Notifications sent while the listener is not connected are lost, so each time it connects again
 * every agent connected here is sent its whole state (a resync). It also rings its own doorbell every
 * few seconds: one that does not come back in time means the connection silently stopped delivering,
 * and it is replaced (and the agents resynced), which bounds how stale an agent can get.
 */
export class ChangeListener {
  readonly #options: Required<Omit<ChangeListenerOptions, 'counters'>> & Pick<ChangeListenerOptions, 'counters'>;
  #client: pg.Client | null = null;
  #stopping = false;
  #connectedOnce = false;
  #attempt = 0;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #pingTimer: NodeJS.Timeout | null = null;
  #pingDeadline: NodeJS.Timeout | null = null;
  #pingSent = 0;
  /** Entry changes gathered until the next turn of the event loop: one store read per burst. */
  #pendingEntries = new Map<string, { aclId: string; ip: string }>();
  #flushQueued = false;
  #channel = '';

  constructor(options: ChangeListenerOptions) {
    this.#options = { pingEveryMs: 10_000, pingTimeoutMs: 5_000, ...options };
  }

  /** Connects and listens; resolves once listening (later losses reconnect on their own). */
  async start(): Promise<void> {
    await this.#connect();
    this.#pingTimer = setInterval(() => void this.#ping(), this.#options.pingEveryMs);
    this.#pingTimer.unref();
  }

  /** Stops listening and closes the connection. */
  async stop(): Promise<void> {
    this.#stopping = true;
    for (const timer of [this.#reconnectTimer, this.#pingDeadline]) if (timer !== null) clearTimeout(timer);
    if (this.#pingTimer !== null) clearInterval(this.#pingTimer);
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const client = this.#options.openClient();
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, null));
    client.on('notification', (message) => this.#heard(message.payload ?? ''));
    try {
      await client.connect();
      const schema = await client.query<{ schema: string }>('select current_schema() as schema');
      this.#channel = `postern_${schema.rows[0]?.schema ?? 'public'}`;
      await client.query(`listen ${client.escapeIdentifier(this.#channel)}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#stopping) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
    this.#attempt = 0;
    if (this.#connectedOnce) {
      // Whatever was rung while the connection was down is lost: every agent here gets its state.
      this.#options.logger.info('change notifications listening again; resending every agent its state');
      this.#options.counters?.resync();
      this.#options.agents.resendAll();
    }
    this.#connectedOnce = true;
  }

  /** The connection ended or failed: replace it after a short back-off. */
  #lost(client: pg.Client, error: Error | null): void {
    if (this.#client !== client && this.#client !== null) return;
    if (this.#client === client) this.#client = null;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    if (this.#stopping || this.#reconnectTimer !== null) return;
    this.#options.logger.warn({ err: error ?? undefined }, 'change notification connection lost; reconnecting');
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    const delay = backoffDelay(this.#attempt, RECONNECT);
    this.#attempt += 1;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      this.#connect().catch((error: unknown) => {
        if (this.#stopping) return;
        this.#options.logger.warn({ err: error }, 'cannot listen for change notifications yet; retrying');
        this.#scheduleReconnect();
      });
    }, delay);
    this.#reconnectTimer.unref();
  }

  /** Rings this server's own doorbell; if it does not come back in time, the connection is replaced. */
  async #ping(): Promise<void> {
    const client = this.#client;
    if (client === null || this.#pingDeadline !== null) return;
    const sent = ++this.#pingSent;
    this.#pingDeadline = setTimeout(() => {
      this.#pingDeadline = null;
      if (this.#client !== client) return;
      this.#options.logger.warn('change notifications stopped arriving; replacing the connection');
      this.#lost(client, null);
    }, this.#options.pingTimeoutMs);
    this.#pingDeadline.unref();
    try {
      await sql`select pg_notify(${this.#channel}, ${`p ${this.#options.replicaId} ${sent}`})`.execute(
        this.#options.db,
      );
    } catch {
      // The store is out of reach: nothing to learn about the listener; try again next time.
      if (this.#pingDeadline !== null) clearTimeout(this.#pingDeadline);
      this.#pingDeadline = null;
    }
  }

  #heard(payload: string): void {
    const [kind, writer, ...args] = payload.split(' ');
    if (kind === 'p') {
      if (writer === this.#options.replicaId && this.#pingDeadline !== null) {
        clearTimeout(this.#pingDeadline);
        this.#pingDeadline = null;
      }
      return;
    }
    // This server's own changes reached its agents when they were made.
    if (writer === this.#options.replicaId) return;
    this.#options.counters?.notification();
    const [first = '', second = ''] = args;
    const { agents } = this.#options;
    switch (kind) {
      case 'e':
        this.#pendingEntries.set(`${first} ${second}`, { aclId: first, ip: second });
        this.#queueEntryFlush();
        return;
      case 's':
        agents.agentsChanged([first]);
        return;
      case 'd':
        agents.disconnectAgent(first, second === 'deleted' ? 'agent deleted' : 'token rotated');
        return;
      case 't':
        agents.connectedElsewhere(first);
        return;
      default:
        this.#options.logger.debug({ payload }, 'unknown change notification ignored');
    }
  }

  #queueEntryFlush(): void {
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    setImmediate(() => {
      this.#flushQueued = false;
      const entries = [...this.#pendingEntries.values()];
      this.#pendingEntries = new Map();
      this.#deliverEntries(entries).catch((error: unknown) => {
        // The agents' next full state (reconnect, resync) carries what this could not.
        this.#options.logger.warn({ err: error, entries: entries.length }, 'could not forward grant changes');
      });
    });
  }

  /** The agents enforcing the changed entries' knocs, read from the store, told of them. */
  async #deliverEntries(entries: readonly { aclId: string; ip: string }[]): Promise<void> {
    const agentOf = new Map<string, string>();
    for (const aclIds of inBatches([...new Set(entries.map((entry) => entry.aclId))])) {
      const rows = await this.#options.db
        .selectFrom('knocs')
        .innerJoin('backends', 'backends.id', 'knocs.backendId')
        .select(['knocs.id as aclId', 'backends.agentId'])
        .where('knocs.id', 'in', aclIds)
        .execute();
      for (const row of rows) if (row.agentId !== null) agentOf.set(row.aclId, row.agentId);
    }
    const keys = entries.flatMap((entry) => {
      const agentId = agentOf.get(entry.aclId);
      return agentId === undefined ? [] : [{ agentId, aclId: entry.aclId, ip: entry.ip }];
    });
    if (keys.length > 0) this.#options.agents.entriesChanged(keys);
  }
}
