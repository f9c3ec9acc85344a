import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';

/**
 * How long a driver call may go without an answer from its device (the runtime's apply budget): a
 * device that stops answering shows as the grant's error after about this long, not after every
 * try's timeout has run out.
 */
export const DEFAULT_CALL_BUDGET_MS = 10_000;

/** A job whose call budget ran out before it could start (or finish): transient, retried later. */
export class CallBudgetSpentError extends Error {
  readonly permanent = false as const;

  constructor(message: string) {
    super(message);
    this.name = 'CallBudgetSpentError';
  }
}

type Listener = () => void;

/**
 * The time one driver call may still wait for its device. It bounds silence, not work: every answer
 * the device gives (whatever its status) starts the budget again, so a long operation that the device
 * keeps answering (an install polled every 2 s, an ARM operation) is not cut short, while a device
 * that answers nothing fails the call once the budget is spent. Spent, the HTTP client sends nothing
 * more, its retry loop stops, a try in flight is given up, and a job waiting in a
 * `KeyedSerialQueue` fails without reaching the device. Closed (the call returned), it counts as spent.
 */
export class CallBudget {
  readonly ms: number;
  readonly #now: () => number;
  #deadline: number;
  #closed = false;
  readonly #answerListeners = new Set<Listener>();
  readonly #spentListeners = new Set<Listener>();
  #timer: NodeJS.Timeout | null = null;

  constructor(ms: number, now: () => number = () => performance.now()) {
    this.ms = ms;
    this.#now = now;
    this.#deadline = now() + ms;
  }

  /** Milliseconds left before the budget is spent (0 once spent or closed). */
  remainingMs(): number {
    return this.#closed ? 0 : Math.max(0, this.#deadline - this.#now());
  }

  get spent(): boolean {
    return this.remainingMs() <= 0;
  }

  /** The device answered: the budget counts from now again (never shortened). */
  answered(): void {
    if (this.spent) return;
    this.#deadline = Math.max(this.#deadline, this.#now() + this.ms);
    for (const listener of [...this.#answerListeners]) listener();
    if (this.#timer !== null) this.#arm();
  }

  /** Calls `listener` on every {@link answered}; returns the unsubscribe. */
  onAnswer(listener: Listener): () => void {
    this.#answerListeners.add(listener);
    return () => this.#answerListeners.delete(listener);
  }

  /**
   * Calls `listener` once when the budget is spent or closed (at once, asynchronously, when it is
   * already); returns the unsubscribe.
   */
  onSpent(listener: Listener): () => void {
    if (this.spent) {
      let cancelled = false;
      queueMicrotask(() => {
        if (!cancelled) listener();
      });
      return () => (cancelled = true);
    }
    this.#spentListeners.add(listener);
    if (this.#timer === null) this.#arm();
    return () => {
      this.#spentListeners.delete(listener);
      if (this.#spentListeners.size === 0) this.#disarm();
    };
  }

  /** "<what>: no answer within 10 s (call budget spent)": the error of a call the budget ended. */
  spentMessage(what: string): string {
    return `${what}: no answer within ${formatSeconds(this.ms)} (call budget spent)`;
  }

  /** The call is over: whatever of it still runs is given up (listeners told, timers cleared). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#fireSpent();
    this.#answerListeners.clear();
  }

  #arm(): void {
    this.#disarm();
    if (this.#spentListeners.size === 0) return;
    const timer = setTimeout(() => {
      this.#timer = null;
      if (this.spent) this.#fireSpent();
      else this.#arm();
    }, this.remainingMs());
    timer.unref();
    this.#timer = timer;
  }

  #disarm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #fireSpent(): void {
    this.#disarm();
    const listeners = [...this.#spentListeners];
    this.#spentListeners.clear();
    for (const listener of listeners) listener();
  }
}

const storage = new AsyncLocalStorage<CallBudget>();

/** The budget of the driver call this code runs in, if any. */
export function currentCallBudget(): CallBudget | undefined {
  return storage.getStore();
}

/**
 * Runs `fn` under a fresh budget of `ms` (see {@link CallBudget}): every HTTP call and serial-queue
 * job it starts, however deep, honours it without being handed it. Closed when `fn` settles.
 */
export function withCallBudget<R>(ms: number, fn: () => Promise<R>): Promise<R> {
  return runWithCallBudget(new CallBudget(ms), fn);
}

/** {@link withCallBudget} with a budget made by the caller (tests give it a clock of their own). */
export async function runWithCallBudget<R>(budget: CallBudget, fn: () => Promise<R>): Promise<R> {
  try {
    return await storage.run(budget, fn);
  } finally {
    budget.close();
  }
}

/** "10 s", "250 ms". */
function formatSeconds(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}
