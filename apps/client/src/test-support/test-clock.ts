import { waitFor } from '@postern/test-support';
import type { Clock } from '../clock.js';

interface PendingSleep {
  ms: number;
  resolve: () => void;
}

/**
 * A clock for tests. `auto`: every sleep moves the time on at once (the poll loops run through
 * minutes in milliseconds). `manual`: a sleep waits until the test calls `wake()`, so a test can
 * look at the world between two rounds of the persist loop. Every requested sleep is recorded.
 */
export class TestClock implements Clock {
  readonly sleeps: number[] = [];
  #now: number;
  #pending: PendingSleep | null = null;

  constructor(
    readonly mode: 'auto' | 'manual',
    startMs = Date.UTC(2030, 0, 1, 12),
  ) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  /** Moves the time on without anyone sleeping (time passing while a request runs). */
  advance(ms: number): void {
    this.#now += ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (this.mode === 'auto') {
      this.#now += Math.max(0, ms);
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve) => {
      const done = () => {
        if (this.#pending?.resolve === done) this.#pending = null;
        signal?.removeEventListener('abort', done);
        resolve();
      };
      if (signal?.aborted === true) return done();
      this.#pending = { ms, resolve: done };
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Waits (with a deadline) until the code under test sleeps; returns how long it asked for. */
  async nextSleep(): Promise<number> {
    await waitFor(() => this.#pending !== null, 'the loop to sleep', 5_000);
    return this.#pending?.ms ?? 0;
  }

  /** Ends the pending sleep, moving the time on by its length. */
  wake(): void {
    const pending = this.#pending;
    if (pending === null) throw new Error('nothing is sleeping');
    this.#pending = null;
    this.#now += Math.max(0, pending.ms);
    pending.resolve();
  }

  /** Wakes the sleeper round after round until `check` holds when it next sleeps (at most `rounds`). */
  async runUntil(check: () => boolean, rounds = 1000): Promise<void> {
    for (let round = 0; round < rounds; round += 1) {
      await this.nextSleep();
      if (check()) return;
      this.wake();
    }
    throw new Error(`the condition did not hold within ${rounds} rounds`);
  }
}
