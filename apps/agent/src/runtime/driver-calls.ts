import type { AgentKnoc } from '@postern/protocol';
import type { DriverEntry, DriverSet, EntryOutcome } from '../drivers/driver.js';

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
 * One `apply` or `remove` driver call for a knoc, with one outcome per entry, in order. It never
 * throws: a missing driver, a driver that throws (it cannot work at all) or one that forgets an
 * entry all become failed outcomes with a message fit for the grant's Error.
 */
export async function callDriver(
  drivers: DriverSet,
  action: 'apply' | 'remove',
  knoc: AgentKnoc,
  entries: readonly DriverEntry[],
): Promise<EntryOutcome[]> {
  const driver = drivers.get(knoc.backendType);
  if (driver === undefined) return failAll(entries, noDriverError(knoc));
  let outcomes: EntryOutcome[];
  try {
    outcomes = await (action === 'apply' ? driver.apply(knoc, entries) : driver.remove(knoc, entries));
  } catch (error) {
    return failAll(entries, `${knoc.backendType} ${action} failed: ${errorMessage(error)}`);
  }
  const byIp = new Map(outcomes.map((outcome) => [outcome.ip, outcome]));
  return entries.map((entry) => {
    const outcome = byIp.get(entry.ip);
    if (outcome === undefined)
      return { ip: entry.ip, ok: false, error: `the ${knoc.backendType} driver gave no outcome` };
    return { ip: entry.ip, ok: outcome.ok, error: outcome.ok ? '' : truncate(outcome.error || 'failed') };
  });
}

/** The message of a thrown value, for logs and results. */
export function errorMessage(error: unknown): string {
  return truncate(error instanceof Error ? error.message : String(error));
}

function failAll(entries: readonly DriverEntry[], error: string): EntryOutcome[] {
  return entries.map((entry) => ({ ip: entry.ip, ok: false, error: truncate(error) }));
}

function truncate(text: string): string {
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 3)}...` : text;
}
