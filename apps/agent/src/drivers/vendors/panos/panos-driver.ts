import type { AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import { parseAddress, type ParsedAddress } from '../../addresses.js';
import type { Driver, DriverEntry, EntryOutcome } from '../../driver.js';
import { ClientCache } from '../../http/client-cache.js';
import type { RetryPolicy } from '../../http/retry.js';
import { KeyedSerialQueue } from '../../keyed-serial-queue.js';
import { errorMessage, failed, succeeded } from '../../outcomes.js';
import { PanosClient, type PanosScope } from './panos-client.js';
import { isAlreadyAbsent, isAlreadyPresent, type UidEntryMessage } from './panos-responses.js';
import { escapeXml } from './panos-xml.js';
import { RefreshCoalescer } from './refresh-coalescer.js';

export interface PanosDriverOptions {
  logger: Logger;
  /** One HTTP try taking longer than this is given up (default: the client's 15 s). */
  timeoutMs?: number;
  /** Tests shorten the back-off. */
  retry?: Partial<RetryPolicy>;
}

/** Marks the tags Postern registers (VENDORS.md 1.3: `kk-<knoc>`): the driver owns only its own tag. */
export const PANOS_TAG_PREFIX = 'kk-';
/** PAN-OS's longest tag timeout (30 days); 0 would mean "never", which the driver never sends. */
export const PANOS_MAX_TAG_TIMEOUT = 2_592_000;
/** PAN-OS tag names are at most 127 characters. */
const MAX_TAG_LENGTH = 127;

type Mode = { kind: 'active'; tag: string } | { kind: 'passive'; edl: string };

interface PanosTarget {
  client: PanosClient;
  scope: PanosScope;
  mode: Mode;
  mapUser: boolean;
  /** One writer at a time per backend, firewall, vsys and tag (or list). */
  key: string;
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
export class PanosDriver implements Driver<'panos'> {
  readonly type = 'panos' as const;
  readonly #options: PanosDriverOptions;
  readonly #logger: Logger;
  readonly #clients = new ClientCache<PanosClient>();
  readonly #queue = new KeyedSerialQueue();
  readonly #refreshes = new RefreshCoalescer();

  constructor(options: PanosDriverOptions) {
    this.#options = options;
    this.#logger = options.logger;
  }

  async apply(knoc: AgentKnocOf<'panos'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, addresses } = parseEntries(entries);
    if (addresses.size === 0) return outcomes;
    const { mode } = target;
    if (mode.kind === 'passive') await this.#refresh(target, mode.edl, entries, addresses, outcomes);
    else await this.#queue.run(target.key, () => this.#register(target, mode.tag, entries, addresses, outcomes));
    this.#logFailures(knoc, 'apply', outcomes);
    return outcomes;
  }

  async remove(knoc: AgentKnocOf<'panos'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const target = this.#target(knoc);
    const { outcomes, addresses } = parseEntries(entries);
    if (addresses.size === 0) return outcomes;
    const { mode } = target;
    if (mode.kind === 'passive') await this.#refresh(target, mode.edl, entries, addresses, outcomes);
    else await this.#queue.run(target.key, () => this.#unregister(target, mode.tag, entries, addresses, outcomes));
    this.#logFailures(knoc, 'remove', outcomes);
    return outcomes;
  }

  async list(knoc: AgentKnocOf<'panos'>): Promise<string[]> {
    const target = this.#target(knoc);
    const { mode } = target;
    if (mode.kind === 'passive') return [];
    return this.#queue.run(target.key, () => this.#held(target, mode.tag));
  }

  /** Passive+: the list is the server's allowlist, which the firewall fetches; nothing to read here. */
  readsBack(knoc: AgentKnocOf<'panos'>): boolean {
    return (knoc.acl.EDLName ?? '').trim() === '';
  }

  async flush(knoc: AgentKnocOf<'panos'>): Promise<void> {
    const target = this.#target(knoc);
    const { mode } = target;
    if (mode.kind === 'passive') {
      // Nothing on the firewall is Postern's; a last refresh lets it drop the list's entries soon.
      try {
        await this.#refreshes.run(target.key, () => target.client.refreshEdl(target.scope, mode.edl));
      } catch (error) {
        this.#logger.warn({ aclId: knoc.aclId, error: errorMessage(error) }, 'panos list refresh on flush failed');
      }
      return;
    }
    const held = await this.list(knoc);
    const outcomes = await this.remove(
      knoc,
      held.map((ip) => ({ ip, ttlSeconds: 1, userName: '' })),
    );
    const failure = outcomes.find((outcome) => !outcome.ok);
    if (failure !== undefined) throw new Error(`panos: could not remove ${failure.ip}: ${failure.error}`);
  }

  async close(): Promise<void> {
    await this.#queue.idle();
    this.#clients.closeAll();
  }

  /** Registers the addresses with the tag (and maps users), then reads the tag back. */
  async #register(
    target: PanosTarget,
    tag: string,
    entries: readonly DriverEntry[],
    addresses: ReadonlyMap<number, ParsedAddress>,
    outcomes: EntryOutcome[],
  ): Promise<void> {
    const registers = new Map<string, string>();
    const logins: string[] = [];
    for (const [index, address] of addresses) {
      const entry = entries[index];
      if (entry === undefined || registers.has(address.canonical)) continue;
      const timeout = clamp(Math.ceil(entry.ttlSeconds), 1, PANOS_MAX_TAG_TIMEOUT);
      const ip = escapeXml(address.canonical);
      registers.set(
        address.canonical,
        `<entry ip="${ip}"><tag><member timeout="${timeout}">${escapeXml(tag)}</member></tag></entry>`,
      );
      if (target.mapUser && entry.userName !== '') {
        const minutes = Math.max(1, Math.ceil(timeout / 60));
        logins.push(`<entry name="${escapeXml(entry.userName)}" ip="${ip}" timeout="${minutes}"/>`);
      }
    }
    const payload =
      `<register>${[...registers.values()].join('')}</register>` +
      (logins.length === 0 ? '' : `<login>${logins.join('')}</login>`);
    let messages: UidEntryMessage[];
    try {
      messages = await target.client.userId(target.scope, payload, `register the addresses with tag ${tag}`);
    } catch (error) {
      failAll(entries, addresses, outcomes, errorMessage(error));
      return;
    }
    const refused = this.#entryFailures(target, messages, 'register', isAlreadyPresent);
    for (const [index, address] of addresses) {
      const reason = refused.get(address.canonical);
      if (reason !== undefined) outcomes[index] = failed(entries[index]?.ip ?? address.canonical, reason);
    }
    if (![...addresses.keys()].some((index) => outcomes[index]?.ok === true)) return;
    let held: Set<string>;
    try {
      held = new Set(await this.#held(target, tag));
    } catch (error) {
      for (const [index] of addresses) {
        if (outcomes[index]?.ok === true) outcomes[index] = failed(entries[index]?.ip ?? '', errorMessage(error));
      }
      return;
    }
    for (const [index, address] of addresses) {
      if (outcomes[index]?.ok === true && !held.has(address.canonical)) {
        outcomes[index] = failed(
          entries[index]?.ip ?? address.canonical,
          `panos: ${address.canonical} was registered with tag ${tag} but is not listed when read back`,
        );
      }
    }
  }

  /** Unregisters the addresses from the tag (and logs mapped users out); absent is fine. */
  async #unregister(
    target: PanosTarget,
    tag: string,
    entries: readonly DriverEntry[],
    addresses: ReadonlyMap<number, ParsedAddress>,
    outcomes: EntryOutcome[],
  ): Promise<void> {
    const unregisters = new Map<string, string>();
    const logouts: string[] = [];
    for (const [index, address] of addresses) {
      const entry = entries[index];
      if (entry === undefined || unregisters.has(address.canonical)) continue;
      const ip = escapeXml(address.canonical);
      unregisters.set(address.canonical, `<entry ip="${ip}"><tag><member>${escapeXml(tag)}</member></tag></entry>`);
      if (target.mapUser && entry.userName !== '') {
        logouts.push(`<entry name="${escapeXml(entry.userName)}" ip="${ip}"/>`);
      }
    }
    const payload =
      `<unregister>${[...unregisters.values()].join('')}</unregister>` +
      (logouts.length === 0 ? '' : `<logout>${logouts.join('')}</logout>`);
    let messages: UidEntryMessage[];
    try {
      messages = await target.client.userId(target.scope, payload, `unregister the addresses from tag ${tag}`);
    } catch (error) {
      failAll(entries, addresses, outcomes, errorMessage(error));
      return;
    }
    const refused = this.#entryFailures(target, messages, 'unregister', isAlreadyAbsent);
    for (const [index, address] of addresses) {
      const reason = refused.get(address.canonical);
      if (reason !== undefined) outcomes[index] = failed(entries[index]?.ip ?? address.canonical, reason);
    }
  }

  /**
   * One refresh of the list for the whole call (shared with the calls that arrive while one runs);
   * every valid entry gets its outcome.
   */
  async #refresh(
    target: PanosTarget,
    edl: string,
    entries: readonly DriverEntry[],
    addresses: ReadonlyMap<number, ParsedAddress>,
    outcomes: EntryOutcome[],
  ): Promise<void> {
    try {
      await this.#refreshes.run(target.key, () => target.client.refreshEdl(target.scope, edl));
    } catch (error) {
      failAll(entries, addresses, outcomes, errorMessage(error));
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
        this.#logger.warn(
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
  #target(knoc: AgentKnocOf<'panos'>): PanosTarget {
    const { Hostname, ApiKey, Insecure, VSys, DeviceGroup, MapUser } = knoc.backend;
    if (Hostname === undefined || Hostname.trim() === '') throw new Error('panos: the backend has no Hostname');
    if (ApiKey === undefined || ApiKey === '') throw new Error('panos: the backend has no ApiKey');
    const vsys = (VSys ?? '').trim() || 'vsys1';
    const serial = (knoc.acl.SerialNumber ?? '').trim();
    const deviceGroup = (DeviceGroup ?? '').trim();
    if (deviceGroup !== '' && serial === '') {
      throw new Error(
        `panos: the backend is a Panorama (device group ${deviceGroup}): knoc ${knoc.aclId} needs the SerialNumber of the firewall to change`,
      );
    }
    const edl = (knoc.acl.EDLName ?? '').trim();
    const group = (knoc.acl.GroupName ?? '').trim();
    let mode: Mode;
    if (edl !== '') mode = { kind: 'passive', edl };
    else {
      if (group === '') throw new Error(`panos: knoc ${knoc.aclId} names no tag (GroupName) and no list (EDLName)`);
      const tag = `${PANOS_TAG_PREFIX}${group}`;
      if (tag.length > MAX_TAG_LENGTH) {
        throw new Error(`panos: the tag ${tag} is longer than PAN-OS allows (${MAX_TAG_LENGTH} characters)`);
      }
      mode = { kind: 'active', tag };
    }
    const client = this.#clients.get(knoc.backendId, knoc.backend, () => {
      return new PanosClient({
        hostname: Hostname.trim(),
        insecure: Insecure === true,
        apiKey: ApiKey,
        logger: this.#logger,
        ...(this.#options.timeoutMs === undefined ? {} : { timeoutMs: this.#options.timeoutMs }),
        ...(this.#options.retry === undefined ? {} : { retry: this.#options.retry }),
      });
    });
    const object = mode.kind === 'active' ? `tag:${mode.tag}` : `edl:${mode.edl}`;
    return {
      client,
      scope: { vsys, target: serial },
      mode,
      mapUser: MapUser === true || knoc.acl.MapUser === true,
      key: JSON.stringify([knoc.backendId, serial, vsys, object]),
    };
  }

  #logFailures(knoc: AgentKnocOf<'panos'>, action: string, outcomes: readonly EntryOutcome[]): void {
    const failures = outcomes.filter((outcome) => !outcome.ok);
    if (failures.length > 0) {
      // Outcome errors come from the client, which has already redacted the key.
      this.#logger.warn(
        { aclId: knoc.aclId, action, failed: failures.length, first: failures[0]?.error },
        'panos entries failed',
      );
    }
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Number.isFinite(value) ? value : min));
}

/** Every parsed entry fails with one reason (the call as a whole failed). */
function failAll(
  entries: readonly DriverEntry[],
  addresses: ReadonlyMap<number, ParsedAddress>,
  outcomes: EntryOutcome[],
  reason: string,
): void {
  for (const [index, address] of addresses) outcomes[index] = failed(entries[index]?.ip ?? address.canonical, reason);
}

/** The entries' addresses by position, and outcomes with the unparsable ones already failed. */
function parseEntries(entries: readonly DriverEntry[]): {
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
