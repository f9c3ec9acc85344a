import type { HubContext } from '../app-context.js';
import { inBatches } from '../store/batches.js';
import { StoreOutageLog } from '../store/store-outage-log.js';

/**
 * How often the agents heard from are written as seen. Every replica reads LastSeen to tell an agent
 * online (AGENT_OFFLINE_AFTER_SECONDS, 60 s): a heartbeat every 15 s plus this keeps it well within.
 */
export const LAST_SEEN_FLUSH_MS = 10_000;

/**
 * Writes when the agents connected to this server were last heard from (LastSeen), for all of them
 * at once every few seconds: one statement per few hundred agents, where a write per heartbeat cost
 * a fleet of thousands hundreds of transactions a second, and changed the admin agent list (and its
 * ETag) many times a second. A connection's admission writes its LastSeen at once; this carries it
 * forward. When the store is out of reach the agents stay marked and the next flush writes them.
 */
export class LastSeenRecorder {
  #heard = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> = Promise.resolve();
  readonly #outage: StoreOutageLog;

  constructor(
    private readonly ctx: HubContext,
    private readonly intervalMs = LAST_SEEN_FLUSH_MS,
  ) {
    this.#outage = new StoreOutageLog(ctx.logger, 'recording when agents were last seen');
  }

  /** Starts the periodic flush. */
  start(): void {
    if (this.#timer !== null) return;
    this.#timer = setInterval(() => void this.flush(), this.intervalMs);
    this.#timer.unref();
  }

  /** The agent sent something: it is written as seen at the next flush. */
  heard(agentId: string): void {
    this.#heard.add(agentId);
  }

  /** Writes the agents heard from since the last flush as seen now; one flush at a time. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  /** Stops the timer and writes what is left (server shutdown, before the store closes). */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.flush();
  }

  async #write(): Promise<void> {
    if (this.#heard.size === 0) return;
    const agentIds = [...this.#heard];
    this.#heard = new Set();
    const now = this.ctx.clock.now();
    try {
      for (const batch of inBatches(agentIds)) {
        await this.ctx.db.updateTable('agents').set({ lastSeen: now }).where('id', 'in', batch).execute();
      }
      this.#outage.succeeded();
    } catch (error) {
      // Heard from all the same: the next flush writes them (with its own time).
      for (const agentId of agentIds) this.#heard.add(agentId);
      if (!this.#outage.failed(error))
        this.ctx.logger.error({ err: error }, 'could not record when agents were last seen');
    }
  }
}
