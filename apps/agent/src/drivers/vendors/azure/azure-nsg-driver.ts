import { createHash } from 'node:crypto';
import type { AgentKnocOf } from '@postern/protocol';
import { parseAddress, type ParsedAddress } from '../../addresses.js';
import type { DriverEntry } from '../../driver.js';
import type { BatchItem, EntryBatch } from '../../kit/entry-batch.js';
import { requiredSecret, requiredText } from '../../kit/knoc-fields.js';
import { clientTuning, VendorDriver, type VendorDriverOptions, type VendorTarget } from '../../kit/vendor-driver.js';
import { errorMessage } from '../../outcomes.js';
import { AzureClient, NsgNotFoundError, nsgPath, type NsgPath } from './azure-client.js';
import { AZURE_PRIORITY_CONFLICT, type AzureSecurityRule } from './azure-responses.js';

/** The public cloud; Azure China and Government set the agent's azure.* settings. */
export const AZURE_PUBLIC_AUTHORITY = 'https://login.microsoftonline.com';
export const AZURE_PUBLIC_MANAGEMENT = 'https://management.azure.com';
/** The priorities Postern's rules take by default (100–4096 are valid; admins keep theirs elsewhere). */
export const DEFAULT_AZURE_PRIORITY_BAND = { from: 3000, to: 3999 } as const;

/** Tries at a new priority after ARM refused one as taken (SecurityRuleConflict), before the grant fails. */
export const AZURE_PRIORITY_RETRIES = 3;

/** Every rule Postern writes is named `postern-<knoc>-<port>-<address>`: list finds only its own. */
export const AZURE_RULE_MARKER = 'postern-';

export interface AzureNsgDriverOptions extends VendorDriverOptions {
  authorityHost?: string;
  managementEndpoint?: string;
  /** The priorities Postern's rules may take, per direction (inclusive). */
  priorityBand?: { from: number; to: number };
  pollIntervalMs?: number;
}

/** The key is one writer at a time per NSG. */
interface AzureTarget extends VendorTarget<AzureClient> {
  resourceGroup: string;
  nsgName: string;
  direction: 'Inbound' | 'Outbound';
  port: number;
  /** `postern-<knoc8>-`: the names of this knoc's rules begin so. */
  knocPrefix: string;
}

/**
 * Azure network security groups through ARM (VENDORS.md 1.8, design (b)): one security rule per
 * granted address, named `postern-<knoc8>-<port>-<address>` (knoc8: a hash of the knoc's id, so two
 * knocs on one NSG never share a rule), with a priority from the configured band that no other rule
 * of that direction uses (a priority taken between the listing and the write, which ARM refuses as
 * `SecurityRuleConflict`, is retried at the next free one after a new listing, a bounded number of
 * times). Inbound rules allow the address as source to NsgPort over TCP; outbound
 * ones allow it as destination. Rules without the knoc's name prefix are never touched.
 *
 * The subscription is not in the backend's config: it is discovered from the credentials (the one
 * subscription among those visible that holds ResourceGroup/NsgName) and cached. Every write to one
 * NSG runs one at a time (Azure refuses concurrent NSG writes, "another operation … is ongoing");
 * each PUT/DELETE is followed to the end of its long-running operation, and an added rule is ok only
 * when read back with the address and Succeeded.
 */
export class AzureNsgDriver extends VendorDriver<'azure', AzureClient, AzureTarget, AzureNsgDriverOptions> {
  readonly type = 'azure' as const;
  /** Discovered NSG paths per client (a new client, after a config change, discovers again). */
  readonly #located = new WeakMap<AzureClient, Map<string, NsgPath>>();
  readonly #band: { from: number; to: number };

  constructor(options: AzureNsgDriverOptions) {
    super(options);
    this.#band = options.priorityBand ?? DEFAULT_AZURE_PRIORITY_BAND;
  }

  protected async add(target: AzureTarget, batch: EntryBatch): Promise<void> {
    const nsg = await this.#locate(target);
    const rules = await this.#rules(target, nsg);
    const byName = new Map(rules.map((rule) => [rule.name, rule]));
    const used = new Set(
      rules.filter((rule) => rule.properties.direction === target.direction).map((rule) => rule.properties.priority),
    );
    for (const item of batch.items) {
      const name = ruleName(target, item.address);
      const existing = byName.get(name);
      // The listing above is the read-back for a rule already there as wanted.
      if (existing !== undefined && holds(existing, target, item.address)) continue;
      const kept = existing?.properties.priority;
      const priority =
        kept !== undefined && existing?.properties.direction === target.direction && this.#inBand(kept)
          ? kept
          : this.#freePriority(used);
      if (priority === null) batch.fail([item], this.#bandFull(target));
      else {
        const error = await this.#applyAtFreePriority(target, nsg, used, kept, priority, { name, item });
        if (error !== '') batch.fail([item], error);
      }
    }
  }

  protected async delete(target: AzureTarget, batch: EntryBatch): Promise<void> {
    const nsg = await this.#locate(target);
    // Every rule of this knoc for the address (an older NsgPort's too), or the name it would have.
    const own = ownRules(await this.#rules(target, nsg), target);
    for (const item of batch.items) {
      const names = own.filter((rule) => rule.address === item.address.canonical).map((rule) => rule.name);
      if (names.length === 0) names.push(ruleName(target, item.address));
      try {
        for (const name of names) {
          const result = await target.client.deleteRule(nsg, name);
          if (result.error !== '') throw new Error(result.error);
        }
      } catch (error) {
        batch.fail([item], error);
      }
    }
  }

  protected async held(target: AzureTarget): Promise<string[]> {
    const nsg = await this.#locate(target);
    return [...new Set(ownRules(await this.#rules(target, nsg), target).map((rule) => rule.address))];
  }

  /**
   * Writes the rule at `priority`; when ARM answers that another rule of the direction has it
   * (`SecurityRuleConflict`: the portal, Terraform or another backend took it after the listing),
   * lists the rules again and tries the next free priority, at most AZURE_PRIORITY_RETRIES times.
   * `used` is kept up to date for the entries after this one.
   */
  async #applyAtFreePriority(
    target: AzureTarget,
    nsg: NsgPath,
    used: Set<number | undefined>,
    kept: number | undefined,
    first: number,
    rule: { name: string; item: BatchItem },
  ): Promise<string> {
    const taken: number[] = [];
    let priority = first;
    for (;;) {
      used.add(priority);
      const { error, conflict } = await this.#applyOne(target, nsg, rule, priority);
      if (error === '') return '';
      if (priority !== kept) used.delete(priority);
      if (!conflict) return error;
      taken.push(priority);
      if (taken.length > AZURE_PRIORITY_RETRIES) {
        return `azure: the priority Postern chose for ${rule.name} was taken by another rule every time (${taken.join(', ')}): something else writes rules with priorities in ${this.#band.from}–${this.#band.to} on network security group ${target.nsgName}; give Postern a band of its own (azure.priorityFrom/azure.priorityTo)`;
      }
      try {
        const fresh = await this.#rules(target, nsg);
        used.clear();
        for (const other of fresh) {
          if (other.properties.direction === target.direction) used.add(other.properties.priority);
        }
      } catch (failure) {
        return errorMessage(failure);
      }
      // A listing that does not show the other rule yet must not offer its priority again.
      for (const refused of taken) used.add(refused);
      const next = this.#freePriority(used);
      if (next === null) return this.#bandFull(target);
      priority = next;
    }
  }

  /** One PUT and its read-back: the error ('' when held); `conflict` when ARM refused the priority as another rule's. */
  async #applyOne(
    target: AzureTarget,
    nsg: NsgPath,
    { name, item }: { name: string; item: BatchItem },
    priority: number,
  ): Promise<{ error: string; conflict: boolean }> {
    const { address, entry } = item;
    try {
      const result = await target.client.putRule(nsg, name, ruleProperties(target, address, priority, entry));
      if (result.error !== '') return { error: result.error, conflict: result.code === AZURE_PRIORITY_CONFLICT };
      const back = await target.client.rule(nsg, name);
      if (back === null || !holds(back, target, address)) {
        return {
          error: `azure: security rule ${name} was written but does not hold ${address.cidr} when read back`,
          conflict: false,
        };
      }
      return { error: '', conflict: false };
    } catch (error) {
      return { error: errorMessage(error), conflict: false };
    }
  }

  #bandFull(target: AzureTarget): string {
    return `azure: no free priority left in ${this.#band.from}–${this.#band.to} for ${target.direction} rules on network security group ${target.nsgName} (one rule per address); widen azure.priorityFrom/azure.priorityTo or shorten grants`;
  }

  /** The lowest priority of the band no rule of the direction uses, or null when the band is full. */
  #freePriority(used: ReadonlySet<number | undefined>): number | null {
    for (let priority = this.#band.from; priority <= this.#band.to; priority++) {
      if (!used.has(priority)) return priority;
    }
    return null;
  }

  #inBand(priority: number): boolean {
    return priority >= this.#band.from && priority <= this.#band.to;
  }

  /** The NSG's rules; when the NSG is no longer where it was found, it is looked for again next time. */
  async #rules(target: AzureTarget, nsg: NsgPath): Promise<AzureSecurityRule[]> {
    try {
      return await target.client.rules(nsg);
    } catch (error) {
      if (error instanceof NsgNotFoundError) this.#located.get(target.client)?.delete(locationKey(target));
      throw error;
    }
  }

  /** The NSG's path: discovered once per client among the subscriptions the credentials see. */
  async #locate(target: AzureTarget): Promise<NsgPath> {
    let located = this.#located.get(target.client);
    if (located === undefined) {
      located = new Map();
      this.#located.set(target.client, located);
    }
    const key = locationKey(target);
    const known = located.get(key);
    if (known !== undefined) return known;
    const subscriptions = await target.client.subscriptions();
    const found: NsgPath[] = [];
    for (const subscription of subscriptions) {
      const path = nsgPath(subscription, target.resourceGroup, target.nsgName);
      if (await target.client.nsgExists(path)) found.push(path);
    }
    const where = `network security group ${target.nsgName} in resource group ${target.resourceGroup}`;
    if (found.length === 0) {
      throw new Error(
        `azure: ${where} is in none of the ${subscriptions.length} subscription(s) the service principal can see`,
      );
    }
    if (found.length > 1) {
      throw new Error(
        `azure: ${where} exists in ${found.length} subscriptions; Postern cannot tell which one is meant`,
      );
    }
    const path = found[0] as NsgPath;
    located.set(key, path);
    return path;
  }

  /** The knoc's client and NSG; throws when the configuration cannot work at all. */
  protected target(knoc: AgentKnocOf<'azure'>): AzureTarget {
    const { ClientId, ClientSecret, TenantId, NoCache } = knoc.backend;
    const tenantId = requiredText(TenantId, 'azure: the backend has no TenantId');
    const clientId = requiredText(ClientId, 'azure: the backend has no ClientId');
    const clientSecret = requiredSecret(ClientSecret, 'azure: the backend has no ClientSecret');
    const resourceGroup = requiredText(knoc.acl.ResourceGroup, `azure: knoc ${knoc.aclId} names no ResourceGroup`);
    const nsgName = requiredText(
      knoc.acl.NsgName,
      `azure: knoc ${knoc.aclId} names no network security group (NsgName)`,
    );
    const port = Number(knoc.acl.NsgPort ?? 443);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`azure: NsgPort ${port} is not a port`);
    const direction = knoc.acl.NsgDirection === 'Outbound' ? 'Outbound' : 'Inbound';
    const { authorityHost, managementEndpoint, pollIntervalMs } = this.options;
    const client = this.clients.get(
      knoc.backendId,
      knoc.backend,
      () =>
        new AzureClient({
          authorityHost: authorityHost ?? AZURE_PUBLIC_AUTHORITY,
          managementEndpoint: managementEndpoint ?? AZURE_PUBLIC_MANAGEMENT,
          tenantId,
          clientId,
          clientSecret,
          noCache: NoCache === true,
          logger: this.logger,
          ...clientTuning(this.options),
          ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
        }),
    );
    const knoc8 = createHash('sha256').update(knoc.aclId).digest('hex').slice(0, 8);
    return {
      client,
      resourceGroup,
      nsgName,
      direction,
      port,
      knocPrefix: `${AZURE_RULE_MARKER}${knoc8}-`,
      key: JSON.stringify([knoc.backendId, resourceGroup.toLowerCase(), nsgName.toLowerCase()]),
    };
  }
}

function locationKey(target: Pick<AzureTarget, 'resourceGroup' | 'nsgName'>): string {
  return `${target.resourceGroup.toLowerCase()}/${target.nsgName.toLowerCase()}`;
}

/**
 * `postern-<knoc8>-<port>-<address>`: ARM names allow letters, digits, `_`, `.` and `-` (≤ 80, ending
 * in a letter, digit or `_`), so `:` becomes `-` and `/` becomes `_`; the prefix length is always
 * there, so a name never ends in `-`.
 */
export function ruleName(target: Pick<AzureTarget, 'knocPrefix' | 'port'>, address: ParsedAddress): string {
  return `${target.knocPrefix}${target.port}-${address.cidr.replace(/:/g, '-').replace('/', '_')}`;
}

/** The address a rule of ours is for: the one its name spells, when the rule's prefix agrees. */
function ownRules(
  rules: readonly AzureSecurityRule[],
  target: Pick<AzureTarget, 'knocPrefix' | 'direction'>,
): { name: string; address: string }[] {
  const own: { name: string; address: string }[] = [];
  for (const rule of rules) {
    if (!rule.name.startsWith(target.knocPrefix)) continue;
    const prefix =
      rule.properties.direction === 'Outbound'
        ? rule.properties.destinationAddressPrefix
        : rule.properties.sourceAddressPrefix;
    const address = parseAddress(prefix ?? '');
    if (address === null) continue;
    const port = rule.name.slice(target.knocPrefix.length).split('-')[0] ?? '';
    // Only a name this driver would have written for that address counts as Postern's.
    if (ruleName({ knocPrefix: target.knocPrefix, port: Number(port) }, address) === rule.name) {
      own.push({ name: rule.name, address: address.canonical });
    }
  }
  return own;
}

function ruleProperties(
  target: AzureTarget,
  address: ParsedAddress,
  priority: number,
  entry: DriverEntry,
): Record<string, unknown> {
  const inbound = target.direction === 'Inbound';
  const who = entry.userName ? ` for ${entry.userName}` : '';
  return {
    description: `Postern grant${who}`.slice(0, 140),
    protocol: 'Tcp',
    sourceAddressPrefix: inbound ? address.cidr : '*',
    sourcePortRange: '*',
    destinationAddressPrefix: inbound ? '*' : address.cidr,
    destinationPortRange: String(target.port),
    access: 'Allow',
    priority,
    direction: target.direction,
  };
}

/** Whether a rule read from ARM allows the address as this knoc wants, and is provisioned. */
function holds(rule: AzureSecurityRule, target: AzureTarget, address: ParsedAddress): boolean {
  const p = rule.properties;
  const prefix = target.direction === 'Inbound' ? p.sourceAddressPrefix : p.destinationAddressPrefix;
  return (
    p.direction === target.direction &&
    p.access === 'Allow' &&
    p.destinationPortRange === String(target.port) &&
    (p.provisioningState ?? 'Succeeded') === 'Succeeded' &&
    parseAddress(prefix ?? '')?.canonical === address.canonical
  );
}
