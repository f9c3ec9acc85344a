import { currentCallBudget, type CallBudget } from './call-budget.js';

/**
 * When a vendor API call is tried again. Only answers that say "not now" (429, 502, 503, 504) and
 * transport failures are retried, and only for calls that are safe to repeat: GET, PUT and DELETE,
 * or a POST its caller marks idempotent (because a repeat is answered "already exists" and counted
 * as success). A plain POST whose request left the agent is never sent twice: the device may have
 * done it already. A connection that never opened is safe to retry for any call.
 */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  maxAttempts: number;
  /** The first retry waits up to this long (full jitter: a random time between 0 and the ceiling). */
  baseMs: number;
  /** No back-off waits longer than this. */
  capMs: number;
  /** A Retry-After longer than this is cut to it, so one answer cannot stall a grant for hours. */
  maxRetryAfterMs: number;
  random: () => number;
  /** Waits; tests pass one that records the delay instead of sleeping. */
  sleep: (ms: number) => Promise<void>;
}

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseMs: 250,
  capMs: 5_000,
  maxRetryAfterMs: 30_000,
  random: Math.random,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The wait before retry number `retry` (0 for the first retry): exponential with full jitter. */
export function backoffDelay(policy: Pick<RetryPolicy, 'baseMs' | 'capMs' | 'random'>, retry: number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(retry, 30));
  return Math.round(policy.random() * ceiling);
}

/**
 * A Retry-After header in milliseconds (delta-seconds or an HTTP date), or null when absent or
 * unreadable. Past dates count as 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return null;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** What one try produced: an answer with its status, or a transport failure. */
export type AttemptResult<R> =
  | { kind: 'answer'; value: R; status: number; retryAfter: string | string[] | undefined }
  | { kind: 'failure'; error: unknown; sent: boolean; retryable: boolean };

/** How a retry loop reports its waits (the client logs them). */
export type RetryListener = (event: { retry: number; delayMs: number; reason: string }) => void;

/** How a retry loop learns of the call budget it runs under (see call-budget.ts). */
export interface RetryBudgetOptions {
  /** Default: the budget of the driver call this runs in, if any. */
  budget?: CallBudget;
  /**
   * The error to throw instead of the last failure when the loop stops because the budget cannot
   * cover the next wait (default: the last failure as it is).
   */
  spent?: (budget: CallBudget, lastError: unknown) => unknown;
}

/**
 * Runs `attempt` until it gives an answer that is not worth retrying, the attempts are used up, a
 * failure may not be retried, or the call budget (when the call runs under one) would be spent
 * before the next try: the loop never sleeps past the budget. Returns the last answer; rethrows the
 * last failure.
 */
export async function withRetry<R>(
  attempt: () => Promise<AttemptResult<R>>,
  idempotent: boolean,
  policy: RetryPolicy,
  onRetry: RetryListener = () => undefined,
  options: RetryBudgetOptions = {},
): Promise<R> {
  const budget = options.budget ?? currentCallBudget();
  // A wait that would end after the budget is spent leaves no time for the try after it.
  const outOfBudget = (delayMs: number) => budget !== undefined && delayMs >= budget.remainingMs();
  for (let tries = 1; ; tries++) {
    const result = await attempt();
    const last = tries >= policy.maxAttempts;
    if (result.kind === 'answer') {
      if (last || !idempotent || !RETRYABLE_STATUSES.has(result.status)) return result.value;
      const retryAfter = parseRetryAfter(result.retryAfter);
      const delayMs =
        retryAfter === null ? backoffDelay(policy, tries - 1) : Math.min(retryAfter, policy.maxRetryAfterMs);
      if (outOfBudget(delayMs)) return result.value;
      onRetry({ retry: tries, delayMs, reason: `HTTP ${result.status}` });
      await policy.sleep(delayMs);
      continue;
    }
    // A failure before the request left is safe to repeat for any call; after it, only when idempotent.
    const repeatable = result.retryable && (idempotent || !result.sent);
    if (last || !repeatable) throw result.error;
    const delayMs = backoffDelay(policy, tries - 1);
    if (budget !== undefined && outOfBudget(delayMs)) {
      throw options.spent === undefined ? result.error : options.spent(budget, result.error);
    }
    onRetry({ retry: tries, delayMs, reason: result.error instanceof Error ? result.error.message : 'failed' });
    await policy.sleep(delayMs);
  }
}
