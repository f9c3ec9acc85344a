import type { ParsedAddress } from '../addresses.js';
import { FAMILIES, type BatchItem, type EntryBatch } from './entry-batch.js';

/**
 * Runs `change` once per address family the batch has items of (IPv4 first), for vendors that keep
 * the families in separate groups or tables. A family whose change throws fails its own pending
 * items and no others. True when any change wrote to the device.
 */
export async function forEachFamily(
  batch: EntryBatch,
  change: (family: ParsedAddress['family'], items: BatchItem[]) => Promise<boolean>,
): Promise<boolean> {
  let changed = false;
  for (const family of FAMILIES) {
    const items = batch.ofFamily(family);
    if (items.length === 0) continue;
    try {
      if (await change(family, items)) changed = true;
    } catch (error) {
      batch.failPending(items, error);
    }
  }
  return changed;
}
