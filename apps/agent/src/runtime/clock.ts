import { performance } from 'node:perf_hooks';

/** A timer started through a {@link Clock}. */
export interface ClockTimer {
  cancel(): void;
}

/**
 * Time as the runtime sees it. Deadlines use the monotonic clock, so a wall-clock jump (NTP, an
 * operator's `date -s`) neither ends access early nor extends it; the wall clock is used only for the
 * state file, because the monotonic clock does not survive a restart. Tests inject a manual clock.
 */
export interface Clock {
  /** Milliseconds on a clock that never goes backwards; its origin is arbitrary. */
  monotonicMs(): number;
  /** Milliseconds since the Unix epoch. */
  wallMs(): number;
  /** Calls `callback` once after `delayMs` on the monotonic clock. The timer does not keep the process alive. */
  startTimer(delayMs: number, callback: () => void): ClockTimer;
}

/** The real clocks. */
export const systemClock: Clock = {
  monotonicMs: () => performance.now(),
  wallMs: () => Date.now(),
  startTimer(delayMs, callback) {
    const handle = setTimeout(callback, Math.max(0, delayMs));
    // The agent stays alive through its connection and run.ts; a pending expiry alone must not.
    handle.unref();
    return { cancel: () => clearTimeout(handle) };
  },
};
