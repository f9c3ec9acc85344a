import type { Logger } from 'pino';
import { parseAddress, type ParsedAddress } from './addresses.js';
import type { Driver, DriverEntry, DriverKnoc, EntryOutcome } from './driver.js';
import type { RetryPolicy } from './http/retry.js';
import { failed, succeeded } from './outcomes.js';
import type { BackendType } from '@postern/protocol';

/** What every HTTP vendor driver is built with; some add their own settings. */
export interface VendorDriverOptions {
  logger: Logger;
  /** One HTTP try taking longer than this is given up (default: the client's 15 s). */
  timeoutMs?: number;
  /** Tests shorten the back-off. */
  retry?: Partial<RetryPolicy>;
}

/** The options a driver hands on to its vendor client, leaving out the ones not set. */
export function clientTuning(options: VendorDriverOptions): Pick<VendorDriverOptions, 'timeoutMs' | 'retry'> {
  return {
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.retry === undefined ? {} : { retry: options.retry }),
  };
}

/**
 * A configuration field a knoc cannot work without, trimmed; throws `missing` when it is absent or
 * blank (the error reaches the grant, so it names the field).
 */
export function requiredText(value: string | undefined, missing: string): string {
  const text = (value ?? '').trim();
  if (text === '') throw new Error(missing);
  return text;
}

/** A secret the backend must have, as given (never trimmed: spaces may be part of it); throws `missing` when empty. */
export function requiredSecret(value: string | undefined, missing: string): string {
  if (value === undefined || value === '') throw new Error(missing);
  return value;
}

/** The entries' addresses by position, and outcomes with the unparsable ones already failed. */
export function parseEntries(entries: readonly DriverEntry[]): {
  outcomes: EntryOutcome[];
  addresses: Map<number, ParsedAddress>;
} {
  const outcomes = entries.map((entry) => succeeded(entry.ip));
  const addresses = new Map<number, ParsedAddress>();
  entries.forEach((entry, index) => {
    const parsed = parseAddress(entry.ip);
    if (parsed === null) outcomes[index] = failed(entry.ip, `${entry.ip} is not an IPv4 or IPv6 address`);
    else addresses.set(index, parsed);
  });
  return { outcomes, addresses };
}

/** flush for drivers that can list what they hold: remove all of it, and throw on the first entry that stays. */
export async function removeAllListed<T extends BackendType>(driver: Driver<T>, knoc: DriverKnoc<T>): Promise<void> {
  const held = await driver.list(knoc);
  const outcomes = await driver.remove(
    knoc,
    held.map((ip) => ({ ip, ttlSeconds: 1, userName: '' })),
  );
  const failure = outcomes.find((outcome) => !outcome.ok);
  if (failure !== undefined) throw new Error(`${driver.type}: could not remove ${failure.ip}: ${failure.error}`);
}
