import type { Clock, ClockTimer } from '../runtime/clock.js';

interface PendingTimer {
  atMs: number;
  callback: () => void;
  cancelled: boolean;
}

/**
 * A clock that moves only when a test says so. Both clocks advance together, unless a test jumps
 * the wall clock alone (a changed system time, or the time a stopped agent was down).
 */
export class ManualClock implements Clock {
  #monotonic = 1_000;
  #wall: number;
  #timers: PendingTimer[] = [];

  constructor(wallMs = Date.UTC(2030, 0, 1)) {
    this.#wall = wallMs;
  }

  monotonicMs(): number {
    return this.#monotonic;
  }

  wallMs(): number {
    return this.#wall;
  }

  startTimer(delayMs: number, callback: () => void): ClockTimer {
    const timer: PendingTimer = { atMs: this.#monotonic + Math.max(0, delayMs), callback, cancelled: false };
    this.#timers.push(timer);
    return { cancel: () => (timer.cancelled = true) };
  }

  /** Moves both clocks forward, firing due timers in order (each at its own time). */
  advance(ms: number): void {
    const target = this.#monotonic + ms;
    for (;;) {
      this.#timers = this.#timers.filter((timer) => !timer.cancelled);
      const next = this.#timers.reduce<PendingTimer | null>(
        (earliest, timer) => (earliest === null || timer.atMs < earliest.atMs ? timer : earliest),
        null,
      );
      if (next === null || next.atMs > target) break;
      this.#wall += next.atMs - this.#monotonic;
      this.#monotonic = Math.max(this.#monotonic, next.atMs);
      next.cancelled = true;
      next.callback();
    }
    this.#wall += target - this.#monotonic;
    this.#monotonic = target;
  }

  /** Moves only the wall clock (the system time was changed, or the agent was down this long). */
  jumpWall(ms: number): void {
    this.#wall += ms;
  }

  /** Timers not yet fired. */
  get pendingTimers(): number {
    return this.#timers.filter((timer) => !timer.cancelled).length;
  }
}
