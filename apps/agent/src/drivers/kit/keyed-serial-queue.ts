import { CallBudgetSpentError, currentCallBudget, type CallBudget } from '../http/call-budget.js';

/** What a job given up while waiting says: an earlier writer on the same device object held it up. */
const WAITED = 'an earlier call to the same device object did not finish';
const RAN = 'the device did not finish the call';
/** How long a running job whose budget ran out has to deliver its own error before the caller gets one. */
const RUNNING_GRACE_MS = 50;

/** One key's line: the last job queued, and the budgets of the jobs still waiting their turn. */
interface Lane {
  tail: Promise<unknown>;
  waiting: Set<CallBudget>;
  /** Stops passing the running job's answers on to the waiting jobs. */
  unfollow: () => void;
}

/**
 * One writer at a time per device object: jobs with the same key (a backend and its address group,
 * say) run one after another in the order queued; jobs with different keys run side by side. Two
 * grants on one group therefore never both read it, find an address missing and both write it.
 * A failed job does not stop the ones behind it. A key with nothing queued is forgotten.
 *
 * Under a call budget (call-budget.ts, set by the runtime for each driver call) the wait counts: a
 * job whose budget is spent before its turn fails with {@link CallBudgetSpentError} and never runs
 * (so never reaches the device), and a caller whose budget runs out while its job runs gets that
 * error at once (the job itself still holds the key until it ends: the next writer never overlaps
 * it). While the running job's device answers, the jobs waiting behind it have their budgets started
 * again too: they wait behind a slow device, not a silent one.
 */
export class KeyedSerialQueue {
  readonly #lanes = new Map<string, Lane>();

  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const budget = currentCallBudget();
    const lane = this.#lanes.get(key) ?? { tail: Promise.resolve(), waiting: new Set(), unfollow: () => undefined };
    if (budget !== undefined) lane.waiting.add(budget);
    // gaveUp: the caller has its error already, so the job must not start; started: it is running.
    const state = { gaveUp: false, started: false };
    const result = lane.tail.then(
      () => this.#start(lane, budget, job, state),
      () => this.#start(lane, budget, job, state),
    );
    lane.tail = result;
    this.#lanes.set(key, lane);
    const forget = () => {
      if (budget !== undefined) lane.waiting.delete(budget);
      if (this.#lanes.get(key) === lane && lane.tail === result) {
        lane.unfollow();
        this.#lanes.delete(key);
      }
    };
    result.then(forget, forget);
    if (budget === undefined) return result;
    return new Promise<T>((resolve, reject) => {
      let grace: NodeJS.Timeout | null = null;
      const stop = budget.onSpent(() => {
        if (!state.started) {
          state.gaveUp = true;
          reject(new CallBudgetSpentError(budget.spentMessage(WAITED)));
          return;
        }
        // A running job's own calls end with the budget too and say which call went unanswered:
        // that error, when it comes at once, is the better one.
        grace = setTimeout(() => reject(new CallBudgetSpentError(budget.spentMessage(RAN))), RUNNING_GRACE_MS);
        grace.unref();
      });
      const settle = () => {
        stop();
        if (grace !== null) clearTimeout(grace);
      };
      result.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /** Keys with a job queued or running. */
  get size(): number {
    return this.#lanes.size;
  }

  /** Settles once every job queued so far has finished. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#lanes.values()].map((lane) => lane.tail));
  }

  /** The job's turn: fail fast when its caller gave up or its budget is spent, else run it. */
  #start<T>(
    lane: Lane,
    budget: CallBudget | undefined,
    job: () => Promise<T>,
    state: { gaveUp: boolean; started: boolean },
  ): Promise<T> {
    if (budget !== undefined) lane.waiting.delete(budget);
    if (state.gaveUp || budget?.spent === true) {
      return Promise.reject(new CallBudgetSpentError(budget?.spentMessage(WAITED) ?? WAITED));
    }
    state.started = true;
    lane.unfollow();
    lane.unfollow =
      budget?.onAnswer(() => {
        for (const waiting of lane.waiting) waiting.answered();
      }) ?? (() => undefined);
    return job();
  }
}
