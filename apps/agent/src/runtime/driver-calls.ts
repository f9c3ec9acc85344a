import type { AgentKnoc } from '@postern/protocol';
import type { DriverEntry, DriverSet, EntryOutcome } from '../drivers/driver.js';
import { DEFAULT_CALL_BUDGET_MS, withCallBudget } from '../drivers/http/call-budget.js';
import { isPermanentFailure } from '../drivers/outcomes.js';

/**
 * How long one driver call may go without an answer from its device before its entries fail (and
 * are retried): about 10 s to the first visible error. See drivers/http/call-budget.ts.
 */
export const DRIVER_CALL_BUDGET_MS = DEFAULT_CALL_BUDGET_MS;

/** The protocol's limit on an entry result's error text. */
const MAX_ERROR_LENGTH = 4000;

/** What a result says about a knoc whose backend type this agent has no driver for. */
function noDriverError(knoc: AgentKnoc): string {
  return `this agent cannot drive ${knoc.backendType} backends`;
}

/** Entries for one driver call, grouped by the knoc configuration they run under. */
export class KnocBatches<T> {
  readonly #batches = new Map<AgentKnoc, T[]>();

  add(knoc: AgentKnoc, item: T): void {
    const batch = this.#batches.get(knoc);
    if (batch === undefined) this.#batches.set(knoc, [item]);
    else batch.push(item);
  }

  get size(): number {
    return this.#batches.size;
  }

  [Symbol.iterator](): IterableIterator<[AgentKnoc, T[]]> {
    return this.#batches.entries();
  }
}

/**
 * Runs a driver call (or anything that reaches a device: list, flush, remainingSeconds) under a
 * call budget that starts now, so time spent in a driver's per-target queue counts against it.
 */
export function withDriverBudget<R>(fn: () => Promise<R>, budgetMs: number = DRIVER_CALL_BUDGET_MS): Promise<R> {
  return withCallBudget(budgetMs, fn);
}

/**
 * One `apply` or `remove` driver call for a knoc, with one outcome per entry, in order, under a call
 * budget ({@link DRIVER_CALL_BUDGET_MS} unless `budgetMs` says). It never throws: a missing driver, a
 * driver that throws (it cannot work at all) or one that forgets an entry all become failed outcomes
 * with a message fit for the grant's Error. A failure is `permanent` when the driver said so, when
 * it threw a permanent error (outcomes.ts `isPermanentFailure`), or when there is no driver at all;
 * any other failure (a spent budget included) is transient.
 */
export async function callDriver(
  drivers: DriverSet,
  action: 'apply' | 'remove',
  knoc: AgentKnoc,
  entries: readonly DriverEntry[],
  budgetMs: number = DRIVER_CALL_BUDGET_MS,
): Promise<EntryOutcome[]> {
  const driver = drivers.get(knoc.backendType);
  if (driver === undefined) return failAll(entries, noDriverError(knoc), true);
  let outcomes: EntryOutcome[];
  try {
    outcomes = await withCallBudget(budgetMs, () =>
      action === 'apply' ? driver.apply(knoc, entries) : driver.remove(knoc, entries),
    );
  } catch (error) {
    return failAll(entries, `${knoc.backendType} ${action} failed: ${errorMessage(error)}`, isPermanentFailure(error));
  }
  const byIp = new Map(outcomes.map((outcome) => [outcome.ip, outcome]));
  return entries.map((entry): EntryOutcome => {
    const outcome = byIp.get(entry.ip);
    if (outcome === undefined)
      return { ip: entry.ip, ok: false, error: `the ${knoc.backendType} driver gave no outcome` };
    if (outcome.ok) return { ip: entry.ip, ok: true, error: '' };
    const error = truncate(outcome.error || 'failed');
    return outcome.permanent === true
      ? { ip: entry.ip, ok: false, error, permanent: true }
      : { ip: entry.ip, ok: false, error };
  });
}

/** The message of a thrown value, for logs and results. */
export function errorMessage(error: unknown): string {
  return truncate(error instanceof Error ? error.message : String(error));
}

function failAll(entries: readonly DriverEntry[], error: string, permanent: boolean): EntryOutcome[] {
  return entries.map((entry) =>
    permanent
      ? { ip: entry.ip, ok: false, error: truncate(error), permanent: true }
      : { ip: entry.ip, ok: false, error: truncate(error) },
  );
}

function truncate(text: string): string {
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 3)}...` : text;
}
