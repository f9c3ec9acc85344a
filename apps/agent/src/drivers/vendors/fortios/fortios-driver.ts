import type { AgentKnocOf } from '@postern/protocol';
import type { ParsedAddress } from '../../addresses.js';
import type { AddressGroup, CreateResult, GroupShare } from '../../kit/address-group.js';
import { AddressGroupDriver } from '../../kit/address-group-driver.js';
import type { BatchItem } from '../../kit/entry-batch.js';
import { sharesByFamily } from '../../kit/families.js';
import { requiredSecret, requiredText } from '../../kit/knoc-fields.js';
import { clientTuning, type VendorDriverOptions, type VendorTarget } from '../../kit/vendor-driver.js';
import { FortiosClient, type FortiosFamily } from './fortios-client.js';

export type FortiosDriverOptions = VendorDriverOptions;

/** The default object name prefix (the spec's, and Knocknoc's). */
export const DEFAULT_FORTIOS_PREFIX = 'kk_';

/** What a knoc's configuration resolves to; the key is one writer per backend, VDOM and group. */
interface FortiosTarget extends VendorTarget<FortiosClient> {
  prefix: string;
  group: string;
}

const FAMILY: Readonly<Record<ParsedAddress['family'], FortiosFamily>> = { inet: 'ipv4', inet6: 'ipv6' };

/**
 * FortiGate address groups through the REST API (VENDORS.md 1.1). Each granted address is an address
 * object named `<Prefix><address>` (`kk_203.0.113.7`, `kk_2001:db8::7`, `kk_10.0.0.0/24`) and a member
 * of the knoc's group (`Name`; IPv6 addresses go to the `addrgrp6` group of the same name), in the
 * backend's VDOM. Only names with the prefix are Postern's: `list` and `flush` never see or touch
 * anything else.
 *
 * The change itself is the shared address-group routine (kit/address-group.ts): read the group and
 * Postern's objects (what each opens, never trusted by name), create the missing objects, add the
 * memberships, read the group back. Membership goes through the group's `member` sub-table, one call
 * per name, never a whole-group write that would replace others' members. remove = delete the
 * membership (absent is fine) and read back; the address object is kept for reuse, as Knocknoc does,
 * because another knoc's group may still use it. FortiOS keeps no timers: the agent's own expiry
 * removes entries.
 *
 * Writes to one group run one call at a time (FortiOS serialises configuration changes; VENDORS
 * recommends at most one or two in flight per device).
 */
export class FortiosDriver extends AddressGroupDriver<'fortios', FortiosClient, FortiosTarget> {
  readonly type = 'fortios' as const;

  protected groups(target: FortiosTarget, items: readonly BatchItem[]): GroupShare[] {
    return sharesByFamily(items, (family) => this.#group(target, FAMILY[family]));
  }

  protected listedGroups(target: FortiosTarget): AddressGroup[] {
    return [this.#group(target, 'ipv4'), this.#group(target, 'ipv6')];
  }

  /** One family's group on the FortiGate, as the address-group routine sees it. */
  #group(target: FortiosTarget, family: FortiosFamily): AddressGroup {
    const { client, group, prefix } = target;
    return {
      vendor: this.type,
      label: `address group ${group}`,
      objectKind: 'address object',
      device: 'the FortiGate',
      prefix,
      // FortiOS refuses an empty address group; its built-in `none` object opens nothing.
      placeholder: 'none',
      missing: `fortios: address group ${group} does not exist${family === 'ipv6' ? ' as an IPv6 group (addrgrp6)' : ''} on the FortiGate`,
      members: () => client.groupMembers(family, group),
      objects: () => client.addressObjects(family, prefix),
      create: (items: readonly BatchItem[]) =>
        Promise.all(
          items.map(async ({ address }): Promise<CreateResult> => {
            const created = await client.createAddress(family, `${prefix}${address.canonical}`, address.cidr);
            if (created.error !== '') return { error: created.error };
            return created.outcome === 'alreadyPresent' ? { exists: true } : { created: true };
          }),
        ),
      writeMembers: async ({ add, remove }) => {
        const errors = new Map<string, string>();
        for (const name of add) {
          const added = await client.addMember(family, group, name);
          if (added.error !== '') errors.set(name, added.error);
        }
        for (const name of remove) {
          const removed = await client.deleteMember(family, group, name);
          if (removed.error !== '') errors.set(name, removed.error);
        }
        return errors;
      },
    };
  }

  /** The knoc's client, prefix and group; throws when the configuration cannot work at all. */
  protected target(knoc: AgentKnocOf<'fortios'>): FortiosTarget {
    const { Url, Bearer, Insecure, VDOM } = knoc.backend;
    const prefix = (knoc.backend.Prefix ?? DEFAULT_FORTIOS_PREFIX).trim();
    const url = requiredText(Url, 'fortios: the backend has no Url');
    const bearer = requiredSecret(Bearer, 'fortios: the backend has no Bearer token');
    const group = requiredText(knoc.acl.Name, `fortios: knoc ${knoc.aclId} names no address group (Name)`);
    // Without a prefix every object in the group would look like Postern's, and flush would empty it.
    if (prefix === '')
      throw new Error('fortios: the backend Prefix must not be empty: it marks the objects Postern owns');
    const vdom = (VDOM ?? '').trim();
    const client = this.clients.get(
      knoc.backendId,
      knoc.backend,
      () =>
        new FortiosClient({
          url,
          insecure: Insecure === true,
          token: bearer,
          vdom,
          logger: this.logger,
          ...clientTuning(this.options),
        }),
    );
    return { client, prefix, group, key: JSON.stringify([knoc.backendId, vdom, group]) };
  }
}
