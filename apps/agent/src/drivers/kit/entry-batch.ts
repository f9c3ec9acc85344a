import { parseAddress, type ParsedAddress } from '../addresses.js';
import type { DriverEntry, EntryOutcome } from '../driver.js';
import { failed, failureFrom, succeeded } from '../outcomes.js';

/** One entry of a driver call that parsed as an address: where its outcome goes, and what it is. */
export interface BatchItem {
  /** Its position in the call's entries (and outcomes). */
  index: number;
  /** The address as the runtime sent it (outcomes name it so). */
  ip: string;
  address: ParsedAddress;
  /** The entry itself: its remaining time and user, for devices that take them. */
  entry: DriverEntry;
}

/**
 * The entries of one apply or remove call and their outcomes, which start as succeeded: a driver
 * marks what fails, once per entry, and the first reason an entry failed for is the one kept unless
 * it fails again on purpose (`fail`). Entries that are not addresses are failed at construction and
 * never reach a device (a host name, a newline or a `;` never does).
 */
export class EntryBatch {
  readonly outcomes: EntryOutcome[];
  /** The entries that parsed, in order. */
  readonly items: readonly BatchItem[];

  constructor(entries: readonly DriverEntry[]) {
    this.outcomes = entries.map((entry) => succeeded(entry.ip));
    const items: BatchItem[] = [];
    entries.forEach((entry, index) => {
      const address = parseAddress(entry.ip);
      if (address === null) this.outcomes[index] = failed(entry.ip, `${entry.ip} is not an IPv4 or IPv6 address`);
      else items.push({ index, ip: entry.ip, address, entry });
    });
    this.items = items;
  }

  /**
   * Marks the items as failed with `error`: a message (worth retrying), or a caught value, whose
   * kind says whether retrying can help (a refused credential, a configuration error: see
   * outcomes.ts `isPermanentFailure`).
   */
  fail(items: Iterable<BatchItem>, error: unknown): void {
    for (const item of items)
      this.outcomes[item.index] = typeof error === 'string' ? failed(item.ip, error) : failureFrom(item.ip, error);
  }

  /** Marks every item as failed: the call could not reach the device, or the device object is missing. */
  failAll(error: unknown): void {
    this.fail(this.items, error);
  }

  /** Marks the items that are still ok as failed; the ones already failed keep their own reason. */
  failPending(items: Iterable<BatchItem>, error: unknown): void {
    this.fail(this.pending(items), error);
  }

  isOk(item: BatchItem): boolean {
    return this.outcomes[item.index]?.ok === true;
  }

  /** The items that have not failed so far. */
  pending(items: Iterable<BatchItem> = this.items): BatchItem[] {
    return [...items].filter((item) => this.isOk(item));
  }

  /** The items of one address family (the vendors keep IPv4 and IPv6 in separate groups or tables). */
  ofFamily(family: ParsedAddress['family']): BatchItem[] {
    return this.items.filter((item) => item.address.family === family);
  }
}

/** Both families, in the order every driver handles them. */
export const FAMILIES: readonly ParsedAddress['family'][] = ['inet', 'inet6'];
