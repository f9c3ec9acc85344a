/** How a retry loop spaces its attempts: the first wait, and the ceiling the doubling stops at. */
export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/**
 * The wait before retry `attempt` (from 0): `initialMs` doubling up to `maxMs`, less up to half as
 * jitter, so that many waiters released by the same event do not all come back at the same instant.
 */
export function backoffDelay(
  attempt: number,
  { initialMs, maxMs }: Backoff,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return ceiling * (1 - random() / 2);
}
