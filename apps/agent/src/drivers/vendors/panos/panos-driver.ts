import type { AgentKnocOf } from '@postern/protocol';
import { parseAddress } from '../../addresses.js';
import type { EntryBatch } from '../../kit/entry-batch.js';
import { requiredSecret, requiredText } from '../../kit/knoc-fields.js';
import { clientTuning, VendorDriver, type VendorDriverOptions, type VendorTarget } from '../../kit/vendor-driver.js';
import { errorMessage } from '../../outcomes.js';
import { PanosClient, type PanosScope } from './panos-client.js';
import { isAlreadyAbsent, isAlreadyPresent, type UidEntryMessage } from './panos-responses.js';
import { escapeXml } from './panos-xml.js';
import { RefreshCoalescer } from './refresh-coalescer.js';

export type PanosDriverOptions = VendorDriverOptions;

/** Marks the tags Postern registers (VENDORS.md 1.3: `kk-<knoc>`): the driver owns only its own tag. */
export const PANOS_TAG_PREFIX = 'kk-';
/** PAN-OS's longest tag timeout (30 days); 0 would mean "never", which the driver never sends. */
export const PANOS_MAX_TAG_TIMEOUT = 2_592_000;
/** PAN-OS tag names are at most 127 characters. */
const MAX_TAG_LENGTH = 127;

type Mode = { kind: 'active'; tag: string } | { kind: 'passive'; edl: string };

/** The key is one writer at a time per backend, firewall, vsys and tag; none for a list refresh. */
interface PanosTarget extends VendorTarget<PanosClient> {
  scope: PanosScope;
  mode: Mode;
  mapUser: boolean;
  /** The backend, firewall, vsys and tag or list: what one refresh covers. */
  object: string;
}

/**
 * PAN-OS through the XML API (VENDORS.md 1.3), in the two ways a knoc can use it:
 *
 * - **Active** (EDLName empty): each granted address is registered with the knoc's tag
 *   `kk-<GroupName>` through the User-ID API, with the grant's remaining time as the tag timeout, so
 *   the firewall itself drops it when it runs out even if the agent is gone; a dynamic address group
 *   matching the tag puts it into policy. No commit. One `<uid-message>` per call, however many
 *   entries; then the tag is read back (`show object registered-ip`) and an entry is ok only when the
 *   firewall lists it. With MapUser (backend or knoc) the same message also maps the address to the
 *   user (`<login>`), and a remove logs it out. remove = unregister (absent is fine); list = the
 *   addresses with the tag; flush = unregister them all. Other tags are never touched.
 * - **Passive+** (EDLName set: the hidden child of an allowlist knoc): the firewall polls the
 *   allowlist as an external dynamic list; every apply and remove asks it to refresh that list now
 *   (one refresh per call at most: calls arriving while a refresh runs share the next one), and each
 *   entry's outcome is that refresh's, so a refused refresh shows on the grant with the firewall's
 *   reason. `list` is empty: the list itself is the server's allowlist.
 *
 * `VSys` goes with every call; a Panorama backend (DeviceGroup set) needs the knoc's SerialNumber,
 * sent as `target=` so Panorama passes the call to that firewall.
 */
export class PanosDriver extends VendorDriver<'panos', PanosClient, PanosTarget> {
  readonly type = 'panos' as const;
  readonly #refreshes = new RefreshCoalescer();

  protected async add(target: PanosTarget, batch: EntryBatch): Promise<void> {
    const { mode } = target;
    if (mode.kind === 'passive') await this.#refresh(target, mode.edl);
    else await this.#register(target, mode.tag, batch);
  }

  protected async delete(target: PanosTarget, batch: EntryBatch): Promise<void> {
    const { mode } = target;
    if (mode.kind === 'passive') await this.#refresh(target, mode.edl);
    else await this.#sendUserId(USER_ID_OPERATIONS.unregister, target, mode.tag, batch);
  }

  protected async held(target: PanosTarget): Promise<string[]> {
    const { mode } = target;
    return mode.kind === 'passive' ? [] : this.#held(target, mode.tag);
  }

  /** Passive+: the list is the server's allowlist, which the firewall fetches; nothing to read here. */
  readsBack(knoc: AgentKnocOf<'panos'>): boolean {
    return (knoc.acl.EDLName ?? '').trim() === '';
  }

  override async flush(knoc: AgentKnocOf<'panos'>): Promise<void> {
    const target = this.resolve(knoc);
    const { mode } = target;
    if (mode.kind === 'active') return super.flush(knoc);
    // Nothing on the firewall is Postern's; a last refresh lets it drop the list's entries soon.
    try {
      await this.#refresh(target, mode.edl);
    } catch (error) {
      this.logger.warn({ aclId: knoc.aclId, error: errorMessage(error) }, 'panos list refresh on flush failed');
    }
  }

  /**
   * Passive+: one refresh of the list for the whole call, shared with the calls that arrive while one
   * runs (so these calls take no serial queue); every entry gets its outcome.
   */
  async #refresh(target: PanosTarget, edl: string): Promise<void> {
    await this.#refreshes.run(target.object, () => target.client.refreshEdl(target.scope, edl));
  }

  /** Registers the addresses with the tag (and maps users), then reads the tag back. */
  async #register(target: PanosTarget, tag: string, batch: EntryBatch): Promise<void> {
    await this.#sendUserId(USER_ID_OPERATIONS.register, target, tag, batch);
    const pending = batch.pending();
    if (pending.length === 0) return;
    const held = new Set(await this.#held(target, tag));
    for (const item of pending) {
      if (!held.has(item.address.canonical))
        batch.fail(
          [item],
          `panos: ${item.address.canonical} was registered with tag ${tag} but is not listed when read back`,
        );
    }
  }

  /**
   * One `<uid-message>` doing `operation` for every address (one entry per address, however often it
   * is given), with the user mapping section when MapUser is on; the entries the firewall refuses
   * fail. A call that fails as a whole throws (and so fails every entry).
   */
  async #sendUserId(operation: UserIdOperation, target: PanosTarget, tag: string, batch: EntryBatch): Promise<void> {
    const tagEntries = new Map<string, string>();
    const userEntries: string[] = [];
    for (const { address, entry } of batch.items) {
      if (tagEntries.has(address.canonical)) continue;
      const timeout = clamp(Math.ceil(entry.ttlSeconds), 1, PANOS_MAX_TAG_TIMEOUT);
      const ip = escapeXml(address.canonical);
      tagEntries.set(
        address.canonical,
        `<entry ip="${ip}"><tag>${operation.tagMember(escapeXml(tag), timeout)}</tag></entry>`,
      );
      if (target.mapUser && entry.userName !== '') {
        userEntries.push(`<entry name="${escapeXml(entry.userName)}" ip="${ip}"${operation.userTimeout(timeout)}/>`);
      }
    }
    const { section, userSection } = operation;
    const payload =
      `<${section}>${[...tagEntries.values()].join('')}</${section}>` +
      (userEntries.length === 0 ? '' : `<${userSection}>${userEntries.join('')}</${userSection}>`);
    const messages = await target.client.userId(target.scope, payload, operation.describe(tag));
    const refused = this.#entryFailures(target, messages, section, operation.fine);
    for (const item of batch.items) {
      const reason = refused.get(item.address.canonical);
      if (reason !== undefined) batch.fail([item], reason);
    }
  }

  /**
   * The per-entry failures of `section` by address (what is `fine` is dropped); failures of the
   * login/logout sections only go to the log: the tag is what grants access, the user mapping only
   * names the user in the firewall's logs.
   */
  #entryFailures(
    target: PanosTarget,
    messages: readonly UidEntryMessage[],
    section: string,
    fine: (message: string) => boolean,
  ): Map<string, string> {
    const failures = new Map<string, string>();
    for (const message of messages) {
      if (fine(message.message)) continue;
      const text = target.client.http.redact(message.message);
      if (message.section !== section) {
        this.logger.warn(
          { section: message.section, ip: message.ip, message: text },
          'panos user mapping was refused (the tag was still sent)',
        );
        continue;
      }
      const canonical = parseAddress(message.ip)?.canonical ?? message.ip;
      failures.set(canonical, `panos: the firewall refused ${message.ip} (${section}): ${text}`);
    }
    return failures;
  }

  /** The canonical addresses the firewall lists with the tag. */
  async #held(target: PanosTarget, tag: string): Promise<string[]> {
    const held = new Set<string>();
    for (const ip of await target.client.registeredIps(target.scope, tag)) {
      const address = parseAddress(ip);
      if (address !== null) held.add(address.canonical);
    }
    return [...held];
  }

  /** The knoc's client, scope and mode; throws when the configuration cannot work at all. */
  protected target(knoc: AgentKnocOf<'panos'>): PanosTarget {
    const { Hostname, ApiKey, Insecure, VSys, DeviceGroup, MapUser } = knoc.backend;
    const hostname = requiredText(Hostname, 'panos: the backend has no Hostname');
    const apiKey = requiredSecret(ApiKey, 'panos: the backend has no ApiKey');
    const vsys = (VSys ?? '').trim() || 'vsys1';
    const serial = (knoc.acl.SerialNumber ?? '').trim();
    const deviceGroup = (DeviceGroup ?? '').trim();
    if (deviceGroup !== '' && serial === '') {
      throw new Error(
        `panos: the backend is a Panorama (device group ${deviceGroup}): knoc ${knoc.aclId} needs the SerialNumber of the firewall to change`,
      );
    }
    const edl = (knoc.acl.EDLName ?? '').trim();
    let mode: Mode;
    if (edl !== '') mode = { kind: 'passive', edl };
    else {
      const group = requiredText(
        knoc.acl.GroupName,
        `panos: knoc ${knoc.aclId} names no tag (GroupName) and no list (EDLName)`,
      );
      const tag = `${PANOS_TAG_PREFIX}${group}`;
      if (tag.length > MAX_TAG_LENGTH) {
        throw new Error(`panos: the tag ${tag} is longer than PAN-OS allows (${MAX_TAG_LENGTH} characters)`);
      }
      mode = { kind: 'active', tag };
    }
    const client = this.clients.get(
      knoc.backendId,
      knoc.backend,
      () =>
        new PanosClient({
          hostname,
          insecure: Insecure === true,
          apiKey,
          logger: this.logger,
          ...clientTuning(this.options),
        }),
    );
    const object = JSON.stringify([
      knoc.backendId,
      serial,
      vsys,
      mode.kind === 'active' ? `tag:${mode.tag}` : `edl:${mode.edl}`,
    ]);
    return {
      client,
      scope: { vsys, target: serial },
      mode,
      mapUser: MapUser === true || knoc.acl.MapUser === true,
      object,
      key: mode.kind === 'active' ? object : null,
    };
  }
}

/** How a User-ID message spells adding an address to a tag, and taking it off. */
interface UserIdOperation {
  section: 'register' | 'unregister';
  /** The user mapping that goes with it: a login adds the user, a logout removes it. */
  userSection: 'login' | 'logout';
  /** The tag's `<member>`; only a register carries the timeout (the grant's remaining time). */
  tagMember: (tag: string, timeoutSeconds: number) => string;
  /** A login's timeout attribute (in minutes, at least one); none for a logout. */
  userTimeout: (timeoutSeconds: number) => string;
  /** What the call does, for its error messages. */
  describe: (tag: string) => string;
  /** The per-entry answers that leave the address as wanted. */
  fine: (message: string) => boolean;
}

const USER_ID_OPERATIONS: Readonly<Record<UserIdOperation['section'], UserIdOperation>> = {
  register: {
    section: 'register',
    userSection: 'login',
    tagMember: (tag, timeout) => `<member timeout="${timeout}">${tag}</member>`,
    userTimeout: (timeout) => ` timeout="${Math.max(1, Math.ceil(timeout / 60))}"`,
    describe: (tag) => `register the addresses with tag ${tag}`,
    fine: isAlreadyPresent,
  },
  unregister: {
    section: 'unregister',
    userSection: 'logout',
    tagMember: (tag) => `<member>${tag}</member>`,
    userTimeout: () => '',
    describe: (tag) => `unregister the addresses from tag ${tag}`,
    fine: isAlreadyAbsent,
  },
};

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Number.isFinite(value) ? value : min));
}
