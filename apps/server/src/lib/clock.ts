import { performance } from 'node:perf_hooks';

/** The time source; tests pass their own to move time without sleeping. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that never steps (its origin is arbitrary): what the server measures its wall clock
 * against to notice a step (health/clock-watch.ts). Tests pass a {@link ManualClock}.
 */
export interface MonotonicClock {
  /** Milliseconds since an arbitrary origin; never goes backwards, whatever the wall clock does. */
  monotonicMs(): number;
}

export const systemMonotonicClock: MonotonicClock = { monotonicMs: () => performance.now() };

/** A clock that only moves when told to: both clocks with {@link advance}, the wall clock alone with {@link step}. */
export class ManualClock implements Clock, MonotonicClock {
  #monotonic = 0;

  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  monotonicMs(): number {
    return this.#monotonic;
  }

  advance(milliseconds: number): void {
    this.current += milliseconds;
    this.#monotonic += milliseconds;
  }

  /** Sets the wall clock by `milliseconds` (negative: back), as `date -s` or a jumping NTP client does. */
  step(milliseconds: number): void {
    this.current += milliseconds;
  }

  /**
   * Back to `instant`, the monotonic clock back to zero: as `new ManualClock(instant)` starts. A test
   * app that lives for a whole test file turns its clock back with it before each test.
   */
  reset(instant: number): void {
    this.current = instant;
    this.#monotonic = 0;
  }
}
