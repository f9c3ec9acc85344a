import { useEffect, useState } from 'react';

/**
 * One shared clock per period: every component that shows time left (the session countdown, each
 * ACL's badge) reads the same tick, so a page with a hundred badges still runs one timer a second.
 */
interface Clock {
  listeners: Set<(now: number) => void>;
  timer: ReturnType<typeof setInterval> | undefined;
}

const clocks = new Map<number, Clock>();

function subscribe(periodMs: number, listener: (now: number) => void): () => void {
  let clock = clocks.get(periodMs);
  if (clock === undefined) {
    clock = { listeners: new Set(), timer: undefined };
    clocks.set(periodMs, clock);
  }
  const ticking = clock;
  ticking.listeners.add(listener);
  ticking.timer ??= setInterval(() => {
    const now = Date.now();
    for (const notify of [...ticking.listeners]) notify(now);
  }, periodMs);
  return () => {
    ticking.listeners.delete(listener);
    if (ticking.listeners.size === 0) {
      clearInterval(ticking.timer);
      ticking.timer = undefined;
    }
  };
}

/** The current time in epoch milliseconds, re-rendering the caller every `periodMs`. */
export function useNow(periodMs = 1_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => subscribe(periodMs, setNow), [periodMs]);
  return now;
}
