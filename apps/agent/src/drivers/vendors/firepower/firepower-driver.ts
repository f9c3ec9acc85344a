import type { AgentKnocOf, FirepowerDeployMode } from '@postern/protocol';
import { parseAddress } from '../../addresses.js';
import type { AddressGroup, GroupShare } from '../../kit/address-group.js';
import { AddressGroupDriver } from '../../kit/address-group-driver.js';
import { CoalescingRunner } from '../../kit/coalescing-runner.js';
import type { BatchItem, EntryBatch } from '../../kit/entry-batch.js';
import { requiredSecret, requiredText } from '../../kit/knoc-fields.js';
import { clientTuning, type VendorDriverOptions, type VendorTarget } from '../../kit/vendor-driver.js';
import { errorMessage } from '../../outcomes.js';
import { FirepowerClient, FMC_BULK_LIMIT, type ChangeResult } from './firepower-client.js';
import { canonical, fmcNetworkGroup } from './firepower-group.js';

export interface FirepowerDriverOptions extends VendorDriverOptions {
  /** The clock token expiry is judged by (tests move it). */
  now?: () => number;
}

/** What a knoc's configuration resolves to; the key is one writer at a time per backend and object. */
interface FirepowerTarget extends VendorTarget<FirepowerClient> {
  /** The knoc's GroupUUID: a dynamic object (preferred) or a network group. */
  uuid: string;
  key: string;
  backendId: string;
  /** The backend's Deploy setting (network groups only). */
  deploy: FirepowerDeployMode;
}

type ObjectKind = 'dynamic' | 'group';

/**
 * Cisco FMC (VENDORS.md 1.4). The knoc's `GroupUUID` names a dynamic object or a network group:
 *
 * - **A dynamic object** (FMC ≥ 7.0, the recommended mode) is Postern's, whole, by configuration:
 *   the admin dedicates it to the knoc (a mapping has no name or description Postern could mark).
 *   Its IP mappings change with `POST …/dynamicobjectmappings` and take effect on the managed devices
 *   without a deployment. apply = read the mappings, add the missing ones in one call (≤ 1,000 per
 *   call), read back: an entry is ok only when FMC lists it. remove = one `remove` call (absent is
 *   fine) and read back.
 * - **A network group** (legacy; detected with a GET when the UUID is not a dynamic object) is
 *   shared with the admin: Postern owns only its `kk_<address>` Host/Network objects in it (see
 *   firepower-group.ts), never a literal or another object. The change is the shared address-group
 *   routine (kit/address-group.ts): the group is read, changed and written back whole with its
 *   writable fields only, then read back. An object under Postern's name that opens something else
 *   fails its grant and is taken out of the group. The last address is replaced by the placeholder
 *   object (FMC refuses an empty group). Objects are kept on the FMC for reuse. Then the change is
 *   deployed as the backend's Deploy says (see FIREPOWER_DEPLOY_MODES): coalesced, one at a time per
 *   backend, so a burst of grants costs one or two deployments; a deployment that failed or was held
 *   is tried again on the next change. An entry is ok once its object is read back in the group and
 *   FMC accepted the deployment request (or, with `manual`, once it is in the group).
 *
 * Both modes write one object one call at a time (the frame's serial queue), so two grants never
 * both read the group and overwrite each other's change.
 */
export class FirepowerDriver extends AddressGroupDriver<
  'firepower',
  FirepowerClient,
  FirepowerTarget,
  FirepowerDriverOptions
> {
  readonly type = 'firepower' as const;
  /** What each backend's UUID turned out to be (it does not change kind). */
  readonly #kinds = new Map<string, ObjectKind>();
  readonly #deployers = new Map<string, CoalescingRunner>();
  /** Backends whose last deployment failed: deployed again on the next call. */
  readonly #undeployed = new Set<string>();

  /** A network group holds both families: one read-modify-write for the whole call. */
  protected groups(target: FirepowerTarget, items: readonly BatchItem[]): GroupShare[] {
    return [[fmcNetworkGroup(target.client, target.uuid), items]];
  }

  protected listedGroups(target: FirepowerTarget): AddressGroup[] {
    return [fmcNetworkGroup(target.client, target.uuid)];
  }

  protected override async add(target: FirepowerTarget, batch: EntryBatch): Promise<boolean> {
    if ((await this.#kind(target)) === 'group') return super.add(target, batch);
    const present = canonicalValues(await target.client.mappings(target.uuid));
    const missing = batch.items.filter((item) => !present.has(item.address.canonical));
    if (missing.length === 0) return false;
    await this.#writeMappings(target, 'add', batch, missing);
    return true;
  }

  protected override async delete(target: FirepowerTarget, batch: EntryBatch): Promise<boolean> {
    if ((await this.#kind(target)) === 'group') return super.delete(target, batch);
    await this.#writeMappings(target, 'remove', batch, batch.items);
    return true;
  }

  protected override async held(target: FirepowerTarget): Promise<string[]> {
    if ((await this.#kind(target)) === 'group') return super.held(target);
    const held = new Set<string>();
    for (const value of await target.client.mappings(target.uuid)) {
      const parsed = parseAddress(value.trim());
      if (parsed !== null) held.add(parsed.canonical);
    }
    return [...held];
  }

  /**
   * Deploys as the backend's Deploy says (coalesced, one at a time per backend) after a group change
   * or a deployment that failed or was held before. `manual` leaves it to the admin: a warning only.
   */
  protected override async afterChange(target: FirepowerTarget, batch: EntryBatch, changed: boolean): Promise<void> {
    if (this.#kinds.get(kindKey(target)) !== 'group') return;
    const { backendId, uuid: group, deploy: mode } = target;
    if (mode === 'manual') {
      if (changed)
        this.logger.warn(
          { backendId, group },
          'firepower change saved on the FMC; deployment is left to the admin (Deploy: manual)',
        );
      return;
    }
    if (!changed && !this.#undeployed.has(backendId)) return;
    let deployer = this.#deployers.get(backendId);
    if (deployer === undefined) {
      deployer = new CoalescingRunner();
      this.#deployers.set(backendId, deployer);
    }
    let failure: string | Error | null = null;
    try {
      const { deployed, held } = await deployer.run(() => target.client.deploy(mode));
      this.logger.info({ backendId, deployed, held }, 'firepower deployment requested');
      if (held.length > 0)
        failure = `firepower: the change is on the FMC but not deployed: ${held.join(', ')} also has other users' changes waiting (Deploy: onlyWhenOnlyPostern); deploy on the FMC, or set the backend's Deploy to automatic`;
      else if (deployed.length === 0 && changed)
        this.logger.warn(
          { backendId, group },
          "firepower: no device lists the API user's change as waiting; is the group used by a deployed policy?",
        );
    } catch (error) {
      // The cause keeps whether retrying can help (a refused login cannot).
      failure = new Error(`firepower: the change is on the FMC but not deployed: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    if (failure === null) this.#undeployed.delete(backendId);
    else {
      this.#undeployed.add(backendId);
      batch.failPending(batch.items, failure);
    }
  }

  protected override async idle(): Promise<void> {
    await Promise.allSettled([...this.#deployers.values()].map((deployer) => deployer.idle()));
  }

  /**
   * Adds or removes the items' mappings in calls of up to 1,000, then reads the object back: an entry
   * is ok only when its mapping is there (or, removed, gone). A call FMC refuses as a whole (one bad
   * value refuses the batch) is split into one call per item, so one bad entry fails alone.
   */
  async #writeMappings(
    target: FirepowerTarget,
    op: 'add' | 'remove',
    batch: EntryBatch,
    items: readonly BatchItem[],
  ): Promise<void> {
    const write = async (chunk: readonly BatchItem[]): Promise<ChangeResult | null> => {
      try {
        const result = await target.client.changeMappings(
          op,
          target.uuid,
          chunk.map((item) => item.address.canonical),
        );
        if (result.error === '') return null;
        if (chunk.length === 1 || result.outcome !== 'fatal') batch.fail(chunk, result.error);
        return result;
      } catch (error) {
        // No answer, or the login refused: not a value FMC refused, so not worth a call per item.
        batch.fail(chunk, error);
        return null;
      }
    };
    for (let start = 0; start < items.length; start += FMC_BULK_LIMIT) {
      const chunk = items.slice(start, start + FMC_BULK_LIMIT);
      const refused = await write(chunk);
      if (refused !== null && refused.outcome === 'fatal' && chunk.length > 1)
        for (const item of chunk) await write([item]);
    }
    const pending = batch.pending(items);
    if (pending.length === 0) return;
    const values = canonicalValues(await target.client.mappings(target.uuid));
    const wanted = op === 'add';
    for (const item of pending) {
      const value = item.address.canonical;
      if (values.has(value) !== wanted)
        batch.fail(
          [item],
          `firepower: ${value} was ${wanted ? 'added to' : 'removed from'} ${target.uuid} but is ${wanted ? 'not there' : 'still there'} when read back`,
        );
    }
  }

  /** Whether the UUID is a dynamic object or a network group, asked once per backend and UUID. */
  async #kind(target: FirepowerTarget): Promise<ObjectKind> {
    const key = kindKey(target);
    const known = this.#kinds.get(key);
    if (known !== undefined) return known;
    const kind = await target.client.objectKind(target.uuid);
    if (kind === null)
      throw new Error(`firepower: ${target.uuid} is neither a dynamic object nor a network group on the FMC`);
    this.#kinds.set(key, kind);
    return kind;
  }

  /** The knoc's client and object; throws when the configuration cannot work at all. */
  protected target(knoc: AgentKnocOf<'firepower'>): FirepowerTarget {
    const { Hostname, Insecure, Username, Password, Domain, Deploy } = knoc.backend;
    const hostname = requiredText(Hostname, 'firepower: the backend has no Hostname');
    const username = requiredText(Username, 'firepower: the backend has no Username');
    const password = requiredSecret(Password, 'firepower: the backend has no Password');
    const uuid = requiredText(knoc.acl.GroupUUID, `firepower: knoc ${knoc.aclId} names no object (GroupUUID)`);
    const client = this.clients.get(knoc.backendId, knoc.backend, () => {
      // A new client (new credentials or host) may see other objects: forget what the old one found.
      for (const key of [...this.#kinds.keys()]) if (key.startsWith(`${knoc.backendId}\n`)) this.#kinds.delete(key);
      return new FirepowerClient({
        hostname,
        insecure: Insecure === true,
        username,
        password,
        domain: (Domain ?? '').trim(),
        logger: this.logger,
        ...clientTuning(this.options),
        ...(this.options.now === undefined ? {} : { now: this.options.now }),
      });
    });
    return {
      client,
      uuid,
      key: JSON.stringify([knoc.backendId, uuid]),
      backendId: knoc.backendId,
      deploy: Deploy ?? 'automatic',
    };
  }
}

function kindKey(target: FirepowerTarget): string {
  return `${target.backendId}\n${target.uuid}`;
}

function canonicalValues(values: readonly string[]): Set<string> {
  return new Set(values.map(canonical));
}
