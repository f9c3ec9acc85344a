import type { Logger } from 'pino';
import type { AgentKnoc, DesiredEntry, EntryResult } from '@postern/protocol';
import { Backoff, type BackoffSettings } from './backoff.js';
import type { Clock, ClockTimer } from './clock.js';
import { entryKey } from './entry-store.js';

/** Failed applies are retried after up to 2 s, doubling to at most 2 minutes (full jitter). */
export const APPLY_RETRY_BACKOFF: BackoffSettings = { baseMs: 2_000, capMs: 120_000 };

/** How the runtime runs and reports apply retries (agent-runtime.ts wires them). */
export interface ApplyRetryOptions {
  /** Runs a retry round in the runtime's one queue, so it never interleaves with a message or an expiry. */
  enqueue: (job: () => Promise<void>) => void;
  /** Reports a round's results to the server (when connected), exactly like an apply's results. */
  report: (results: EntryResult[]) => void;
  /** Default {@link APPLY_RETRY_BACKOFF}. */
  backoff?: Partial<BackoffSettings>;
  random?: () => number;
}

/** A desired entry whose apply failed and will be tried again. */
export interface PendingApply {
  entry: DesiredEntry;
  knoc: AgentKnoc;
  /** The generation of the message that asked for it: a newer change to the entry supersedes the retry. */
  generation: number;
  /** Monotonic: when the grant ends as the server sent it. No retry after; never moved later. */
  endsAtMs: number;
}

/** One knoc's retries: one timer and one back-off for all its failed entries, so a round is one driver call. */
interface KnocRetry {
  pending: Map<string, PendingApply>;
  backoff: Backoff;
  timer: ClockTimer | null;
  /** Rounds run since the knoc's entries last all succeeded. */
  rounds: number;
}

/**
 * The failed applies the agent keeps trying (issue: a grant that failed on a passing device error
 * must not stay GrantError once the device is back). Per knoc, one back-off timer; when it fires,
 * `onDue(aclId, pending)` runs a round through the runtime's queue. A newer message for an entry
 * (added again, removed, no longer in the desired state), its grant's end, or a permanent failure
 * ends its retries; shutdown ends them all.
 */
export class ApplyRetries {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #settings: BackoffSettings;
  readonly #random: (() => number) | undefined;
  readonly #onDue: (aclId: string) => void;
  readonly #byKnoc = new Map<string, KnocRetry>();
  #stopped = false;

  constructor(options: {
    clock: Clock;
    logger: Logger;
    backoff?: Partial<BackoffSettings>;
    random?: () => number;
    onDue: (aclId: string) => void;
  }) {
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#settings = { ...APPLY_RETRY_BACKOFF, ...options.backoff };
    this.#random = options.random;
    this.#onDue = options.onDue;
  }

  /** Entries waiting for a retry. */
  get size(): number {
    let size = 0;
    for (const retry of this.#byKnoc.values()) size += retry.pending.size;
    return size;
  }

  /** The entries waiting for a retry, by knoc, for tests and diagnostics. */
  pendingOf(aclId: string): PendingApply[] {
    return [...(this.#byKnoc.get(aclId)?.pending.values() ?? [])];
  }

  /** Retries `pending` at the knoc's next round (replacing an earlier retry of the entry). */
  schedule(pending: PendingApply): void {
    if (this.#stopped) return;
    const aclId = pending.entry.aclId;
    let retry = this.#byKnoc.get(aclId);
    if (retry === undefined) {
      retry = { pending: new Map(), backoff: new Backoff(this.#settings, this.#random), timer: null, rounds: 0 };
      this.#byKnoc.set(aclId, retry);
    }
    retry.pending.set(entryKey(aclId, pending.entry.ip), pending);
    if (retry.timer === null) {
      const delayMs = retry.backoff.next();
      const armed = retry;
      armed.timer = this.#clock.startTimer(delayMs, () => {
        armed.timer = null;
        this.#onDue(aclId);
      });
      this.#logger.debug(
        { aclId, backendType: pending.knoc.backendType, entries: retry.pending.size, retryInMs: delayMs },
        'failed applies will be retried',
      );
    }
  }

  /** Ends the retry of one entry: a newer message (or the retry's own outcome) decided it. */
  cancel(aclId: string, ip: string): void {
    const retry = this.#byKnoc.get(aclId);
    if (retry === undefined) return;
    retry.pending.delete(entryKey(aclId, ip));
    if (retry.pending.size === 0 && retry.timer !== null) this.#forget(aclId, retry);
  }

  /** Keeps only the retries `keep` accepts (a desired state drops the entries it no longer lists). */
  retain(keep: (pending: PendingApply) => boolean): void {
    for (const [aclId, retry] of this.#byKnoc) {
      for (const [key, pending] of retry.pending) if (!keep(pending)) retry.pending.delete(key);
      if (retry.pending.size === 0 && retry.timer !== null) this.#forget(aclId, retry);
    }
  }

  /**
   * The knoc's entries due for this round, taken out (a failure schedules them again). The round
   * number (1 for the first retry) is for the log.
   */
  take(aclId: string): { pending: PendingApply[]; round: number } {
    const retry = this.#byKnoc.get(aclId);
    if (retry === undefined) return { pending: [], round: 0 };
    const pending = [...retry.pending.values()];
    retry.pending.clear();
    retry.rounds++;
    return { pending, round: retry.rounds };
  }

  /** After a round: a knoc with nothing left to retry starts from the first back-off step again. */
  roundDone(aclId: string): void {
    const retry = this.#byKnoc.get(aclId);
    if (retry !== undefined && retry.pending.size === 0 && retry.timer === null) this.#byKnoc.delete(aclId);
  }

  /** Stops every timer (shutdown): nothing is retried from here on. */
  stop(): void {
    this.#stopped = true;
    for (const retry of this.#byKnoc.values()) retry.timer?.cancel();
    this.#byKnoc.clear();
  }

  #forget(aclId: string, retry: KnocRetry): void {
    retry.timer?.cancel();
    retry.timer = null;
    this.#byKnoc.delete(aclId);
  }
}
