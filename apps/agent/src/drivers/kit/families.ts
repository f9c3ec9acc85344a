import type { ParsedAddress } from '../addresses.js';
import type { AddressGroup, GroupShare } from './address-group.js';
import { FAMILIES, type BatchItem } from './entry-batch.js';

/** The items by family (IPv4 first), each with the group `groupOf` names for it: for vendors that keep the families apart. */
export function sharesByFamily(
  items: readonly BatchItem[],
  groupOf: (family: ParsedAddress['family']) => AddressGroup | { none: string },
): GroupShare[] {
  return FAMILIES.map((family) => [groupOf(family), items.filter((item) => item.address.family === family)] as const);
}
