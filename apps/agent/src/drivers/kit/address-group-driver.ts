import type { BackendType } from '@postern/protocol';
import { addToGroup, heldInGroup, removeFromGroup, type AddressGroup, type GroupShare } from './address-group.js';
import type { BatchItem, EntryBatch } from './entry-batch.js';
import { VendorDriver, type VendorDriverOptions, type VendorTarget } from './vendor-driver.js';

/**
 * The frame of the appliances that keep grants as named address objects in a group (FortiOS,
 * FortiManager, Sophos UTM and SFOS): apply, remove and list are the shared address-group routine
 * over the groups the driver names for a call. A driver says only how its knoc resolves (`target`)
 * and how its vendor's group looks (`groups`).
 */
export abstract class AddressGroupDriver<
  T extends BackendType,
  C extends { close(): void },
  Target extends VendorTarget<C>,
  O extends VendorDriverOptions = VendorDriverOptions,
> extends VendorDriver<T, C, Target, O> {
  /**
   * The groups the items go through, each with its share of them: one per family for vendors that
   * keep the families apart, or one for all. A share whose group cannot be used (no IPv6 group
   * named) carries the error its items fail with. One call's groups may share what they read.
   */
  protected abstract groups(target: Target, items: readonly BatchItem[]): GroupShare[];

  /** The groups `list` reads (every family the knoc has a group for). */
  protected abstract listedGroups(target: Target): AddressGroup[];

  protected async add(target: Target, batch: EntryBatch): Promise<boolean> {
    return this.#each(target, batch, 'add', (group, items) => addToGroup(group, batch, items));
  }

  protected async delete(target: Target, batch: EntryBatch): Promise<boolean> {
    return this.#each(target, batch, 'delete', (group, items) => removeFromGroup(group, batch, items));
  }

  protected async held(target: Target): Promise<string[]> {
    const held: string[] = [];
    for (const group of this.listedGroups(target)) held.push(...(await heldInGroup(group)));
    return held;
  }

  /** Runs the change per group; a group whose change throws fails its own pending items only. */
  async #each(
    target: Target,
    batch: EntryBatch,
    action: 'add' | 'delete',
    change: (group: AddressGroup, items: readonly BatchItem[]) => Promise<boolean>,
  ): Promise<boolean> {
    let changed = false;
    for (const [group, items] of this.groups(target, batch.items)) {
      if (items.length === 0) continue;
      if ('none' in group) {
        if (action === 'add') batch.fail(items, group.none);
        continue;
      }
      try {
        if (await change(group, items)) changed = true;
      } catch (error) {
        batch.failPending(items, error);
      }
    }
    return changed;
  }
}
