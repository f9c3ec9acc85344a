import { StoreBusyError } from './store-unavailable.js';

interface Waiter {
  /** performance.now() by which the waiter wants the gate. */
  deadline: number;
  /** Asked for at this performance.now(), for the error's "waited" figure. */
  since: number;
  /** The deadline has passed; the waiter gives up as soon as an outside lock is what holds it up. */
  overdue: boolean;
  timer: NodeJS.Timeout;
  enter(): void;
  giveUp(error: StoreBusyError): void;
}

/**
 * Lets one task at a time use the SQLite writer connection (a statement that writes, or a whole
 * transaction), the rest waiting in arrival order, without ever blocking the event loop.
 *
 * A waiter has a deadline, but it only gives up on it while the holder is waiting for a lock held
 * outside this process (reported through waitingForOutsideLock). Then the whole queue is stuck
 * behind that lock, and every queued write should fail fast with a 503 rather than each waiting its
 * turn to wait again. Time spent queued behind this process's own work, which is making progress,
 * never fails a request: under load writes get slower, never refused.
 */
export class WriterGate {
  #held = false;
  #holderWaitsForOutsideLock = false;
  readonly #queue: Waiter[] = [];

  /** Resolves once the caller holds the gate; it must call release() exactly once afterwards. */
  acquire(deadline: number): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        deadline,
        since: performance.now(),
        overdue: false,
        timer: setTimeout(
          () => {
            waiter.overdue = true;
            if (this.#holderWaitsForOutsideLock) this.#giveUp(waiter);
          },
          Math.max(0, deadline - performance.now()),
        ),
        enter: resolve,
        giveUp: reject,
      };
      this.#queue.push(waiter);
    });
  }

  /** Hands the gate to the next waiter (even an overdue one: it may still find the lock free). */
  release(): void {
    this.#holderWaitsForOutsideLock = false;
    const next = this.#queue.shift();
    if (next === undefined) {
      this.#held = false;
      return;
    }
    clearTimeout(next.timer);
    next.enter();
  }

  /** The holder tells whether it is now waiting for a lock held outside this process. */
  waitingForOutsideLock(waiting: boolean): void {
    this.#holderWaitsForOutsideLock = waiting;
    if (!waiting) return;
    for (const waiter of this.#queue.filter((queued) => queued.overdue)) this.#giveUp(waiter);
  }

  /** Whether a task holds the writer: a transaction is open, or a write runs or waits for a lock. */
  get held(): boolean {
    return this.#held;
  }

  /** How many tasks wait for the gate (tests). */
  get waiting(): number {
    return this.#queue.length;
  }

  #giveUp(waiter: Waiter): void {
    const index = this.#queue.indexOf(waiter);
    if (index === -1) return;
    this.#queue.splice(index, 1);
    clearTimeout(waiter.timer);
    waiter.giveUp(new StoreBusyError(performance.now() - waiter.since));
  }
}
