import type { Clock, ClockTimer } from './clock.js';

// setTimeout fires at once for delays above 2^31-1 ms (about 24.8 days); longer waits re-arm.
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

interface Deadline {
  atMs: number;
  key: string;
  /** Matches the key's current stamp while this deadline is the key's live one. */
  stamp: number;
}

/**
 * Deadlines for many keys behind one timer: a binary min-heap ordered by time, armed for its
 * earliest deadline. Rescheduling or cancelling a key does not search the heap; it gives the key a
 * new stamp, and deadlines with an old stamp are skipped when they surface (and dropped in bulk when
 * they outnumber the live ones). Ten thousand entries cost one timer, not ten thousand.
 */
export class ExpiryQueue {
  readonly #clock: Clock;
  readonly #onDue: () => void;
  #heap: Deadline[] = [];
  readonly #stamps = new Map<string, number>();
  #nextStamp = 1;
  #timer: ClockTimer | null = null;
  #timerAtMs = Number.POSITIVE_INFINITY;
  #stopped = false;

  /** `onDue` is called (never re-entrantly) when a deadline has passed; it should call {@link takeDue}. */
  constructor(clock: Clock, onDue: () => void) {
    this.#clock = clock;
    this.#onDue = onDue;
  }

  /** Number of keys with a deadline. */
  get size(): number {
    return this.#stamps.size;
  }

  /** Deadlines stored, stale ones included (they are compacted when they outnumber the live ones). */
  get storedDeadlines(): number {
    return this.#heap.length;
  }

  /** Sets (or moves) the deadline of `key` to `atMs` on the monotonic clock. */
  schedule(key: string, atMs: number): void {
    const stamp = this.#nextStamp++;
    this.#stamps.set(key, stamp);
    this.#push({ atMs, key, stamp });
    if (this.#heap.length > 2 * this.#stamps.size + 1024) this.#compact();
    this.#arm();
  }

  /** Removes the deadline of `key`, if any. */
  cancel(key: string): void {
    this.#stamps.delete(key);
  }

  /** The keys whose deadline is at or before `nowMs`, earliest first; they leave the queue. */
  takeDue(nowMs: number): string[] {
    const due: string[] = [];
    for (;;) {
      const top = this.#liveTop();
      if (top === undefined || top.atMs > nowMs) break;
      this.#pop();
      this.#stamps.delete(top.key);
      due.push(top.key);
    }
    this.#arm();
    return due;
  }

  /** Cancels the timer for good; deadlines are forgotten. */
  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = null;
    this.#heap = [];
    this.#stamps.clear();
  }

  /** Arms the timer for the earliest live deadline, unless it already fires by then. */
  #arm(): void {
    if (this.#stopped) return;
    const top = this.#liveTop();
    if (top === undefined) return;
    if (this.#timer !== null && this.#timerAtMs <= top.atMs) return;
    this.#timer?.cancel();
    const delay = Math.min(MAX_TIMER_DELAY_MS, Math.max(0, top.atMs - this.#clock.monotonicMs()));
    this.#timerAtMs = this.#clock.monotonicMs() + delay;
    this.#timer = this.#clock.startTimer(delay, () => {
      this.#timer = null;
      this.#timerAtMs = Number.POSITIVE_INFINITY;
      const next = this.#liveTop();
      if (next !== undefined && next.atMs <= this.#clock.monotonicMs()) this.#onDue();
      else this.#arm();
    });
  }

  /** The earliest deadline that is still its key's live one, dropping stale ones on the way. */
  #liveTop(): Deadline | undefined {
    for (;;) {
      const top = this.#heap[0];
      if (top === undefined || this.#stamps.get(top.key) === top.stamp) return top;
      this.#pop();
    }
  }

  #compact(): void {
    const live = this.#heap.filter((item) => this.#stamps.get(item.key) === item.stamp);
    this.#heap = [];
    for (const item of live) this.#push(item);
  }

  #push(item: Deadline): void {
    const heap = this.#heap;
    heap.push(item);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const parentItem = heap[parent] as Deadline;
      if (parentItem.atMs <= item.atMs) break;
      heap[index] = parentItem;
      index = parent;
    }
    heap[index] = item;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const leftItem = heap[left] as Deadline;
      const rightItem = heap[right];
      const child = rightItem !== undefined && rightItem.atMs < leftItem.atMs ? right : left;
      const childItem = heap[child] as Deadline;
      if (childItem.atMs >= last.atMs) break;
      heap[index] = childItem;
      index = child;
    }
    heap[index] = last;
  }
}
