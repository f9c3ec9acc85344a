import type { AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import { parseAddress, type ParsedAddress } from '../../addresses.js';
import type { Driver, DriverEntry, EntryOutcome } from '../../driver.js';
import { ClientCache } from '../../http/client-cache.js';
import { KeyedSerialQueue } from '../../keyed-serial-queue.js';
import { errorMessage, failed, succeeded } from '../../outcomes.js';
import { CoalescingRunner } from '../../coalescing-runner.js';
import { FirepowerClient, FMC_BULK_LIMIT, type ChangeResult } from './firepower-client.js';
import type { FmcNetworkGroup } from './firepower-responses.js';
import { type VendorDriverOptions, clientTuning, requiredSecret, requiredText } from '../../vendor-driver-kit.js';
import { logFailedEntries } from '../../vendor-outcome.js';

export interface FirepowerDriverOptions extends VendorDriverOptions {
  /** The clock token expiry is judged by (tests move it). */
  now?: () => number;
}

/** What a knoc's configuration resolves to. */
interface FirepowerTarget {
  client: FirepowerClient;
  /** The knoc's GroupUUID: a dynamic object (preferred) or a network group. */
  uuid: string;
  /** The serial-queue key: one writer at a time per backend and object. */
  key: string;
  backendId: string;
}

/** One parsed entry: its position in the call and the value FMC stores for it. */
interface Item {
  index: number;
  ip: string;
  value: string;
}

/**
 * Cisco FMC (VENDORS.md 1.4). The knoc's `GroupUUID` names the object Postern owns, whole:
 *
 * - **A dynamic object** (FMC ≥ 7.0, the recommended mode): its IP mappings change with
 *   `POST …/dynamicobjectmappings` and take effect on the managed devices without a deployment.
 *   apply = read the mappings, add the missing ones in one call (≤ 1,000 per call), read back: an
 *   entry is ok only when FMC lists it. remove = one `remove` call (absent is fine) and read back.
 * - **A network group** (legacy; detected with a GET when the UUID is not a dynamic object): its
 *   literals are read, changed and written back whole (FMC has no partial update), read back, and
 *   then the change is deployed. Deploys run one at a time per backend and coalesce: every change
 *   made while a deployment request is being sent goes out with the next one, so a burst of grants
 *   costs one or two deployments, never one per grant. An entry is ok once its literal is read back
 *   and FMC accepted the deployment request (the deployment itself takes minutes; it is not polled).
 *   A failed deployment is tried again on the next change. The deployment covers every device FMC
 *   lists as having changes waiting, other admins' included: that is why this mode is the fallback.
 *   Postern owns the group's literals (addresses); named objects in the group are never touched, so
 *   one of them can keep the group from being empty (FMC refuses an empty group).
 *
 * Both modes write one object one call at a time (the keyed serial queue), so two grants never both
 * read the group and overwrite each other's change.
 */
export class FirepowerDriver implements Driver<'firepower'> {
  readonly type = 'firepower' as const;
  readonly #options: FirepowerDriverOptions;
  readonly #logger: Logger;
  readonly #clients = new ClientCache<FirepowerClient>();
  readonly #queue = new KeyedSerialQueue();
  /** What each backend's UUID turned out to be (it does not change kind). */
  readonly #kinds = new Map<string, 'dynamic' | 'group'>();
  readonly #deployers = new Map<string, CoalescingRunner>();
  /** Backends whose last deployment failed: deployed again on the next call. */
  readonly #undeployed = new Set<string>();

  constructor(options: FirepowerDriverOptions) {
    this.#options = options;
    this.#logger = options.logger;
  }

  async apply(knoc: AgentKnocOf<'firepower'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, items } = parseEntries(entries);
    if (items.length === 0) return outcomes;
    const kind = await this.#kind(target);
    const changed = await this.#queue.run(target.key, () =>
      kind === 'dynamic' ? this.#applyDynamic(target, items, outcomes) : this.#applyGroup(target, items, outcomes),
    );
    if (kind === 'group') await this.#deployIfNeeded(target, changed, items, outcomes);
    logFailedEntries(this.#logger, this.type, knoc, 'apply', outcomes);
    return outcomes;
  }

  async remove(knoc: AgentKnocOf<'firepower'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, items } = parseEntries(entries);
    if (items.length === 0) return outcomes;
    const kind = await this.#kind(target);
    const changed = await this.#queue.run(target.key, () =>
      kind === 'dynamic' ? this.#removeDynamic(target, items, outcomes) : this.#removeGroup(target, items, outcomes),
    );
    if (kind === 'group') await this.#deployIfNeeded(target, changed, items, outcomes);
    logFailedEntries(this.#logger, this.type, knoc, 'remove', outcomes);
    return outcomes;
  }

  async list(knoc: AgentKnocOf<'firepower'>): Promise<string[]> {
    const target = this.#target(knoc);
    const kind = await this.#kind(target);
    return this.#queue.run(target.key, async () => canonicalSet(await this.#values(target, kind)));
  }

  async flush(knoc: AgentKnocOf<'firepower'>): Promise<void> {
    const held = await this.list(knoc);
    if (held.length === 0) return;
    const outcomes = await this.remove(
      knoc,
      held.map((ip) => ({ ip, ttlSeconds: 1, userName: '' })),
    );
    const failure = outcomes.find((outcome) => !outcome.ok);
    if (failure !== undefined) throw new Error(`firepower: could not remove ${failure.ip}: ${failure.error}`);
  }

  async close(): Promise<void> {
    await this.#queue.idle();
    await Promise.allSettled([...this.#deployers.values()].map((deployer) => deployer.idle()));
    this.#clients.closeAll();
  }

  /** Dynamic object: add what is missing in bulk, then read back. True when something was written. */
  async #applyDynamic(target: FirepowerTarget, items: readonly Item[], outcomes: EntryOutcome[]): Promise<boolean> {
    let present: Set<string>;
    try {
      present = canonicalValues(await target.client.mappings(target.uuid));
    } catch (error) {
      for (const item of items) outcomes[item.index] = failed(item.ip, errorMessage(error));
      return false;
    }
    const missing = items.filter((item) => !present.has(item.value));
    if (missing.length === 0) return false;
    await this.#writeInBulk(missing, outcomes, (values) => target.client.changeMappings('add', target.uuid, values));
    await this.#readBack(target, missing, outcomes, true);
    return true;
  }

  async #removeDynamic(target: FirepowerTarget, items: readonly Item[], outcomes: EntryOutcome[]): Promise<boolean> {
    await this.#writeInBulk(items, outcomes, (values) => target.client.changeMappings('remove', target.uuid, values));
    await this.#readBack(target, items, outcomes, false);
    return true;
  }

  /**
   * Sends the items in calls of up to 1,000; a call FMC refuses as a whole (one bad value refuses
   * the batch) is split into one call per item, so one bad entry fails alone.
   */
  async #writeInBulk(
    items: readonly Item[],
    outcomes: EntryOutcome[],
    write: (values: string[]) => Promise<ChangeResult>,
  ): Promise<void> {
    for (let start = 0; start < items.length; start += FMC_BULK_LIMIT) {
      const chunk = items.slice(start, start + FMC_BULK_LIMIT);
      const result = await this.#attempt(() => write(chunk.map((item) => item.value)));
      if (result.error === '') continue;
      if (chunk.length === 1 || result.outcome !== 'fatal') {
        for (const item of chunk) outcomes[item.index] = failed(item.ip, result.error);
        continue;
      }
      for (const item of chunk) {
        const one = await this.#attempt(() => write([item.value]));
        if (one.error !== '') outcomes[item.index] = failed(item.ip, one.error);
      }
    }
  }

  /** Marks the items not (or, for a removal, still) on the FMC as failed; the rest keep their outcome. */
  async #readBack(target: FirepowerTarget, items: readonly Item[], outcomes: EntryOutcome[], wanted: boolean) {
    const pending = items.filter((item) => outcomes[item.index]?.ok === true);
    if (pending.length === 0) return;
    let values: Set<string>;
    try {
      values = canonicalValues(await this.#values(target, this.#kinds.get(kindKey(target)) ?? 'dynamic'));
    } catch (error) {
      for (const item of pending) outcomes[item.index] = failed(item.ip, errorMessage(error));
      return;
    }
    for (const item of pending) {
      if (values.has(item.value) === wanted) continue;
      outcomes[item.index] = failed(
        item.ip,
        `firepower: ${item.value} was ${wanted ? 'added to' : 'removed from'} ${target.uuid} but is ${wanted ? 'not there' : 'still there'} when read back`,
      );
    }
  }

  /** Network group: add the missing literals in one read-modify-write, then read back. */
  async #applyGroup(target: FirepowerTarget, items: readonly Item[], outcomes: EntryOutcome[]): Promise<boolean> {
    return this.#rewriteGroup(target, items, outcomes, 'add');
  }

  async #removeGroup(target: FirepowerTarget, items: readonly Item[], outcomes: EntryOutcome[]): Promise<boolean> {
    return this.#rewriteGroup(target, items, outcomes, 'remove');
  }

  async #rewriteGroup(
    target: FirepowerTarget,
    items: readonly Item[],
    outcomes: EntryOutcome[],
    op: 'add' | 'remove',
  ): Promise<boolean> {
    const rewrite = async (batch: readonly Item[]): Promise<ChangeResult & { changed: boolean }> => {
      const group = await target.client.networkGroup(target.uuid);
      const next = changeLiterals(group, batch, op);
      if (next === null) return { outcome: 'applied', error: '', changed: false };
      const what = `${op} ${batch.length === 1 ? batch[0]?.value : `${batch.length} addresses`}`;
      return { ...(await target.client.putNetworkGroup(next, what)), changed: true };
    };
    let changed = false;
    const result = await this.#attempt(() => rewrite(items));
    if (result.error === '') changed = 'changed' in result && result.changed === true;
    else if (items.length === 1 || result.outcome !== 'fatal') {
      for (const item of items) outcomes[item.index] = failed(item.ip, result.error);
    } else {
      for (const item of items) {
        const one = await this.#attempt(() => rewrite([item]));
        if (one.error !== '') outcomes[item.index] = failed(item.ip, one.error);
        else if ('changed' in one && one.changed === true) changed = true;
      }
    }
    if (changed) await this.#readBack(target, items, outcomes, op === 'add');
    return changed;
  }

  /** Deploys (coalesced, one at a time per backend) after a group change or a failed earlier deploy. */
  async #deployIfNeeded(
    target: FirepowerTarget,
    changed: boolean,
    items: readonly Item[],
    outcomes: EntryOutcome[],
  ): Promise<void> {
    if (!changed && !this.#undeployed.has(target.backendId)) return;
    let deployer = this.#deployers.get(target.backendId);
    if (deployer === undefined) {
      deployer = new CoalescingRunner();
      this.#deployers.set(target.backendId, deployer);
    }
    try {
      const devices = await deployer.run(() => target.client.deploy());
      this.#undeployed.delete(target.backendId);
      this.#logger.info({ backendId: target.backendId, devices }, 'firepower deployment requested');
    } catch (error) {
      this.#undeployed.add(target.backendId);
      const message = `firepower: the change is on the FMC but not deployed: ${errorMessage(error)}`;
      for (const item of items) if (outcomes[item.index]?.ok === true) outcomes[item.index] = failed(item.ip, message);
    }
  }

  /** The object's current values as FMC spells them. */
  async #values(target: FirepowerTarget, kind: 'dynamic' | 'group'): Promise<string[]> {
    if (kind === 'dynamic') return target.client.mappings(target.uuid);
    return (await target.client.networkGroup(target.uuid)).literals.map((literal) => literal.value);
  }

  /** Whether the UUID is a dynamic object or a network group, asked once per backend and UUID. */
  async #kind(target: FirepowerTarget): Promise<'dynamic' | 'group'> {
    const key = kindKey(target);
    const known = this.#kinds.get(key);
    if (known !== undefined) return known;
    const kind = await target.client.objectKind(target.uuid);
    if (kind === null)
      throw new Error(`firepower: ${target.uuid} is neither a dynamic object nor a network group on the FMC`);
    this.#kinds.set(key, kind);
    return kind;
  }

  /** A write whose thrown failure (no answer, login refused) becomes a fatal result. */
  async #attempt<R extends ChangeResult>(write: () => Promise<R>): Promise<R | ChangeResult> {
    try {
      return await write();
    } catch (error) {
      return { outcome: 'fatal', error: errorMessage(error) };
    }
  }

  /** The knoc's client and object; throws when the configuration cannot work at all. */
  #target(knoc: AgentKnocOf<'firepower'>): FirepowerTarget {
    const { Hostname, Insecure, Username, Password } = knoc.backend;
    const hostname = requiredText(Hostname, 'firepower: the backend has no Hostname');
    const username = requiredText(Username, 'firepower: the backend has no Username');
    const password = requiredSecret(Password, 'firepower: the backend has no Password');
    const uuid = requiredText(knoc.acl.GroupUUID, `firepower: knoc ${knoc.aclId} names no object (GroupUUID)`);
    const client = this.#clients.get(knoc.backendId, knoc.backend, () => {
      // A new client (new credentials or host) may see other objects: forget what the old one found.
      for (const key of [...this.#kinds.keys()]) if (key.startsWith(`${knoc.backendId}\n`)) this.#kinds.delete(key);
      return new FirepowerClient({
        hostname,
        insecure: Insecure === true,
        username,
        password,
        logger: this.#logger,
        ...clientTuning(this.#options),
        ...(this.#options.now === undefined ? {} : { now: this.#options.now }),
      });
    });
    return { client, uuid, key: JSON.stringify([knoc.backendId, uuid]), backendId: knoc.backendId };
  }
}

function kindKey(target: FirepowerTarget): string {
  return `${target.backendId}\n${target.uuid}`;
}

/** The group with the items' literals added or removed, or null when nothing would change. */
function changeLiterals(group: FmcNetworkGroup, items: readonly Item[], op: 'add' | 'remove'): FmcNetworkGroup | null {
  const wanted = new Set(items.map((item) => item.value));
  if (op === 'remove') {
    const literals = group.literals.filter((literal) => !wanted.has(canonical(literal.value)));
    return literals.length === group.literals.length ? null : { ...group, literals };
  }
  const present = new Set(group.literals.map((literal) => canonical(literal.value)));
  const added = items.filter(
    (item, i) => !present.has(item.value) && items.findIndex((o) => o.value === item.value) === i,
  );
  if (added.length === 0) return null;
  const literals = [
    ...group.literals,
    ...added.map((item) => ({ type: item.value.includes('/') ? 'Network' : 'Host', value: item.value })),
  ];
  return { ...group, literals };
}

/** FMC's spelling of an address as Postern's canonical one (unparsable values kept as they are). */
function canonical(value: string): string {
  return parseAddress(value.trim())?.canonical ?? value;
}

function canonicalValues(values: readonly string[]): Set<string> {
  return new Set(values.map(canonical));
}

/** The addresses among the values, canonical, each once (anything else on the object is ignored). */
function canonicalSet(values: readonly string[]): string[] {
  const held = new Set<string>();
  for (const value of values) {
    const parsed = parseAddress(value.trim());
    if (parsed !== null) held.add(parsed.canonical);
  }
  return [...held];
}

/** The entries FMC can take (canonical values), and outcomes with the unparsable ones already failed. */
function parseEntries(entries: readonly DriverEntry[]): { outcomes: EntryOutcome[]; items: Item[] } {
  const outcomes = entries.map((entry) => succeeded(entry.ip));
  const items: Item[] = [];
  entries.forEach((entry, index) => {
    const parsed: ParsedAddress | null = parseAddress(entry.ip);
    if (parsed === null) outcomes[index] = failed(entry.ip, `${entry.ip} is not an IPv4 or IPv6 address`);
    else items.push({ index, ip: entry.ip, value: parsed.canonical });
  });
  return { outcomes, items };
}
