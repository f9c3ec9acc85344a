import { AuditActions } from '@postern/protocol';
import type { HubContext } from '../app-context.js';
import { recordAudits } from '../audit/audit.js';
import { inBatches } from '../store/batches.js';
import { StoreOutageLog } from '../store/store-outage-log.js';

/** An admitted connection that has closed: its agent and the connection id the store holds for it. */
export interface Disconnect {
  agentId: string;
  agentName: string;
  connectionId: string;
}

interface Waiting extends Disconnect {
  done: () => void;
}

/**
 * Writes agents' disconnects to the store in batches. A network blip drops thousands of agents at
 * once; a transaction each kept the store busy for seconds (and, on SQLite, the event loop with it).
 * Disconnects that arrive while one batch is written wait for the next, which takes all of them, a
 * few hundred per transaction, with a turn of the event loop between transactions so requests (a
 * grant) are never stuck behind the whole burst.
 */
export class DisconnectRecorder {
  #waiting: Waiting[] = [];
  #running = false;
  /** An unavailable store (locked, out of reach, full) is logged once per outage, not per batch. */
  readonly #outage: StoreOutageLog;

  constructor(private readonly ctx: HubContext) {
    this.#outage = new StoreOutageLog(ctx.logger, 'recording agent disconnects');
  }

  /** Records the disconnect; resolves once written (or once the failure is logged). Never rejects. */
  record(disconnect: Disconnect): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push({ ...disconnect, done: resolve });
      if (!this.#running) {
        this.#running = true;
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length > 0) {
      const taken = this.#waiting;
      this.#waiting = [];
      for (const batch of inBatches(taken)) {
        await this.#write(batch);
        for (const disconnect of batch) disconnect.done();
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    this.#running = false;
  }

  /**
   * One transaction: each agent's connection id cleared where it is still this connection's (a
   * newer connection, here or on another server, may hold the agent already), and one audit entry
   * per disconnect.
   */
  async #write(batch: readonly Disconnect[]): Promise<void> {
    const now = this.ctx.clock.now();
    try {
      await this.ctx.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('agents')
          .set({ connectionId: null })
          .where(
            'connectionId',
            'in',
            batch.map((disconnect) => disconnect.connectionId),
          )
          .execute();
        await recordAudits(
          trx,
          now,
          batch.map((disconnect) => ({
            action: AuditActions.AgentDisconnected,
            detail: { AgentName: disconnect.agentName },
          })),
        );
      });
      this.#outage.succeeded();
    } catch (error) {
      // Not retried: the agent's next admission replaces the connection id, and the audit misses these.
      if (!this.#outage.failed(error)) {
        this.ctx.logger.warn({ err: error, disconnects: batch.length }, 'could not record agent disconnects');
      }
    }
  }
}
