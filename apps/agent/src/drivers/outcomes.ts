import type { EntryOutcome } from './driver.js';

/** An entry that worked. */
export function succeeded(ip: string): EntryOutcome {
  return { ip, ok: true, error: '' };
}

/** An entry that failed, with what the device (or the driver) said. */
export function failed(ip: string, error: string): EntryOutcome {
  return { ip, ok: false, error };
}

/** A thrown value as one line for an entry's error. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
