import type { BackendType } from '@postern/protocol';
import type { Logger } from 'pino';
import type { Driver, DriverEntry, DriverKnoc, EntryOutcome } from '../driver.js';
import { ClientCache } from '../http/client-cache.js';
import type { RetryPolicy } from '../http/retry.js';
import { KeyedSerialQueue } from './keyed-serial-queue.js';
import { ConfigurationError, errorMessage, PermanentDriverError } from '../outcomes.js';
import { logFailedEntries } from './vendor-outcome.js';
import { EntryBatch } from './entry-batch.js';

/** What every HTTP vendor driver is built with; some add their own settings. */
export interface VendorDriverOptions {
  logger: Logger;
  /** One HTTP try taking longer than this is given up (default: the client's). */
  timeoutMs?: number;
  /** Tests shorten the back-off. */
  retry?: Partial<RetryPolicy>;
}

/** What a knoc's configuration resolves to: at least the backend's client and the serial-queue key. */
export interface VendorTarget<C> {
  client: C;
  /**
   * One writer at a time per key (a backend and its address group, say): two grants never both read
   * the object, find an address missing and both write it. Null for calls that need no order (a
   * list refresh the device coalesces).
   */
  key: string | null;
}

export type VendorAction = 'apply' | 'remove';

/**
 * The frame of every appliance and cloud driver: the type, the logger, one client per backend, one
 * writer at a time per device object, and the skeleton of apply/remove/list/flush/close. A driver
 * says how a knoc resolves to its device object (`target`) and what adding, removing and listing
 * mean on its vendor; the frame parses the entries (an entry that is not an address never reaches a
 * device), runs the hook in the object's queue, turns a throw inside it into failed entries, and
 * logs the failures once per call.
 */
export abstract class VendorDriver<
  T extends BackendType,
  C extends { close(): void },
  Target extends VendorTarget<C>,
  O extends VendorDriverOptions = VendorDriverOptions,
> implements Driver<T> {
  abstract readonly type: T;
  protected readonly options: O;
  protected readonly logger: Logger;
  protected readonly clients = new ClientCache<C>();
  readonly #queue = new KeyedSerialQueue();

  constructor(options: O) {
    this.options = options;
    this.logger = options.logger;
  }

  /** The knoc's client, device object and queue key; throws when its configuration cannot work at all. */
  protected abstract target(knoc: DriverKnoc<T>): Target;

  /**
   * Adds the batch's pending items on the device (or refreshes them); marks in the batch what failed.
   * Returns whether the device changed, for {@link afterChange}. A throw fails every pending item.
   */
  protected abstract add(target: Target, batch: EntryBatch, knoc: DriverKnoc<T>): Promise<boolean | void>;

  /** Removes the batch's items (an absent one is a success); as {@link add}. */
  protected abstract delete(target: Target, batch: EntryBatch, knoc: DriverKnoc<T>): Promise<boolean | void>;

  /** The addresses the device holds for the knoc under Postern's marker, canonical. */
  protected abstract held(target: Target, knoc: DriverKnoc<T>): Promise<string[]>;

  /**
   * Optional: runs after a change, outside the object's queue, so that changes to several objects
   * share one step (a deployment, a policy install). `changed` says whether this call wrote anything.
   */
  protected afterChange?(target: Target, batch: EntryBatch, changed: boolean): Promise<void>;

  /** Optional: what `close` waits for besides the queue (a deployment in flight). */
  protected idle(): Promise<void> {
    return Promise.resolve();
  }

  async apply(knoc: DriverKnoc<T>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    return this.#change('apply', knoc, entries);
  }

  async remove(knoc: DriverKnoc<T>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    return this.#change('remove', knoc, entries);
  }

  async list(knoc: DriverKnoc<T>): Promise<string[]> {
    const target = this.resolve(knoc);
    return this.queued(target, () => this.held(target, knoc));
  }

  /** Removes everything the device holds for the knoc; throws on the first address that stays. */
  async flush(knoc: DriverKnoc<T>): Promise<void> {
    const held = await this.list(knoc);
    if (held.length === 0) return;
    const outcomes = await this.remove(
      knoc,
      held.map((ip) => ({ ip, ttlSeconds: 1, userName: '' })),
    );
    const failure = outcomes.find((outcome) => !outcome.ok);
    if (failure !== undefined) throw new Error(`${this.type}: could not remove ${failure.ip}: ${failure.error}`);
  }

  async close(): Promise<void> {
    await this.#queue.idle();
    await this.idle();
    this.clients.closeAll();
  }

  /**
   * The knoc's target. What `target` throws is the knoc's configuration failing (a field missing, a
   * URL unusable): retrying the same configuration cannot help, so it is thrown as permanent.
   */
  protected resolve(knoc: DriverKnoc<T>): Target {
    try {
      return this.target(knoc);
    } catch (error) {
      if (error instanceof PermanentDriverError) throw error;
      throw new ConfigurationError(errorMessage(error));
    }
  }

  /** Runs `job` as the target's writer (at once when the target needs no order). */
  protected queued<R>(target: Target, job: () => Promise<R>): Promise<R> {
    return target.key === null ? job() : this.#queue.run(target.key, job);
  }

  async #change(action: VendorAction, knoc: DriverKnoc<T>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.resolve(knoc);
    const batch = new EntryBatch(entries);
    if (batch.items.length === 0) return batch.outcomes;
    const changed = await this.queued(target, async () => {
      try {
        const wrote = action === 'apply' ? this.add(target, batch, knoc) : this.delete(target, batch, knoc);
        return (await wrote) === true;
      } catch (error) {
        batch.failPending(batch.items, error);
        return false;
      }
    });
    if (this.afterChange !== undefined) await this.afterChange(target, batch, changed);
    return logFailedEntries(this.logger, this.type, knoc, action, batch.outcomes);
  }
}

/** The options a driver hands on to its vendor client, leaving out the ones not set. */
export function clientTuning(options: VendorDriverOptions): Pick<VendorDriverOptions, 'timeoutMs' | 'retry'> {
  return {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
  };
}
