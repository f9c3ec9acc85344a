import type { HubContext } from '../app-context.js';

/**
 * Generations reserved in the store at once. A reconnect skips what its predecessor left unused, so
 * this bounds the waste: at a million reconnects a day the numbers last for longer than any agent.
 */
export const GENERATION_BLOCK = 1_000;

/**
 * The generations of one connection's messages to its agent. Generations are reserved in the store a
 * block at a time, so a message costs no write: the store always holds the highest generation any
 * connection may have used, and a new connection (a reconnect, another replica) reserves above it.
 */
export class Generations {
  /** The last generation used, and the highest this connection has reserved. */
  #next = 0;
  #reservedUpTo = 0;

  constructor(
    private readonly ctx: HubContext,
    private readonly agentId: string,
  ) {}

  /**
   * The next generation for a message to this agent. Called only from the connection's serial
   * queue, so messages leave in the order of their generations.
   */
  async take(): Promise<number> {
    if (this.#next >= this.#reservedUpTo) {
      const row = await this.ctx.db
        .updateTable('agents')
        .set((eb) => ({ generation: eb('generation', '+', GENERATION_BLOCK) }))
        .where('id', '=', this.agentId)
        .returning('generation')
        .executeTakeFirstOrThrow();
      this.#reservedUpTo = Number(row.generation);
      this.#next = this.#reservedUpTo - GENERATION_BLOCK;
    }
    this.#next += 1;
    return this.#next;
  }

  /**
   * Starts from a block reserved in the store by someone else (the admission's write): generations
   * above `reservedUpTo - GENERATION_BLOCK` up to `reservedUpTo` are this connection's.
   */
  startWith(reservedUpTo: number): void {
    this.#reservedUpTo = reservedUpTo;
    this.#next = reservedUpTo - GENERATION_BLOCK;
  }
}
