import type { Logger } from 'pino';
import { HttpClient } from '../../http/http-client.js';
import type { RetryPolicy } from '../../http/retry.js';
import { escapeXml } from '../panos/panos-xml.js';
import type { XmlElement } from '../panos/panos-xml.js';
import { sophosBaseUrl } from '../sophos/sophos-base-url.js';
import {
  entityStatuses,
  groupsOf,
  hostsOf,
  isAlreadyPresent,
  isDone,
  parseSfosAnswer,
  sfosCallFailure,
  type SfosEntityStatus,
  type SfosGroup,
  type SfosHostContent,
} from './sophossfos-responses.js';

export interface SophosSfosClientOptions {
  /** The backend's Hostname (`host` or `host:port`; port 4444 when none). */
  hostname: string;
  insecure: boolean;
  username: string;
  password: string;
  logger: Logger;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

/** An IP host object to create: one address (`IP`) or a network (`Network`, with its mask). */
export interface SfosHost {
  name: string;
  family: 'IPv4' | 'IPv6';
  type: 'IP' | 'Network';
  address: string;
  /** The netmask: dotted for IPv4 (`255.255.0.0`), the prefix length for IPv6. */
  subnet?: string;
}

const PATH = '/webconsole/APIController';

/**
 * The IP host Postern keeps in an IP host group the firewall refuses to leave empty (or keeps full
 * when sent an empty HostList). The SFOS API documents neither; sophos-firewall-sdk reads groups that
 * have no HostList, so empty groups exist and this is only a fallback. Its name carries Postern's
 * `kk_` marker but no address, so it is never read as a grant; it opens nothing: IPv4 255.255.255.255
 * (limited broadcast, never a source, never forwarded: RFC 1122 3.2.1.3, RFC 1812 5.3.7), IPv6 `100::1`
 * (the discard-only prefix 100::/64, RFC 6666). It leaves the group with the next grant and is kept.
 */
export const SFOS_PLACEHOLDER = {
  IPv4: { name: 'kk_postern-placeholder', family: 'IPv4', type: 'IP', address: '255.255.255.255' },
  IPv6: { name: 'kk_postern-placeholder6', family: 'IPv6', type: 'IP', address: '100::1' },
} as const satisfies Record<'IPv4' | 'IPv6', SfosHost>;

/** Whether an IP host name is one of Postern's placeholders (never a grant). */
export function isSfosPlaceholder(name: string): boolean {
  return name === SFOS_PLACEHOLDER.IPv4.name || name === SFOS_PLACEHOLDER.IPv6.name;
}

/**
 * The Sophos Firewall (SFOS) XML API calls the driver needs (VENDORS.md 1.6): every call is one
 * form-encoded POST of `reqxml=<Request>` to /webconsole/APIController, the credentials inside each
 * request (`<Login>`; SFOS has no session), every value XML-escaped. A request may carry several
 * entities; each is given its position as `transactionid`, which SFOS echoes on its status, so one
 * refused host fails alone.
 *
 * Every request here is safe to repeat (an add of an existing name is "already exists", an update
 * sends the whole host list, a remove of a missing name is "not found"), so all are idempotent and
 * retried under throttling. The password travels in the body only, never in a URL or a log line.
 */
export class SophosSfosClient {
  readonly http: HttpClient;
  readonly #login: string;
  readonly #logger: Logger;

  constructor(options: SophosSfosClientOptions) {
    this.#logger = options.logger;
    this.#login = `<Login><Username>${escapeXml(options.username)}</Username><Password>${escapeXml(options.password)}</Password></Login>`;
    this.http = new HttpClient({
      name: 'sophossfos',
      baseUrl: sophosBaseUrl(options.hostname),
      insecure: options.insecure,
      secrets: [options.password, escapeXml(options.password)],
      logger: options.logger,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
  }

  /** The IP host group, or null when there is none of that name. Throws when it cannot be read. */
  async group(name: string): Promise<SfosGroup | null> {
    const root = await this.#call(
      `<Get><IPHostGroup><Filter><key name="Name" criteria="=">${escapeXml(name)}</key></Filter></IPHostGroup></Get>`,
      `read IP host group ${name}`,
    );
    return groupsOf(root).find((group) => group.name === name) ?? null;
  }

  /** Every IP host group (to tell whether a host is still used elsewhere before removing it). */
  async groups(): Promise<SfosGroup[]> {
    return groupsOf(await this.#call('<Get><IPHostGroup></IPHostGroup></Get>', 'read the IP host groups'));
  }

  /**
   * The IP hosts whose names contain `prefix` (criteria "like"; the caller checks that each name
   * starts with it), with what each opens. Throws when they cannot be read.
   */
  async hosts(prefix: string): Promise<SfosHostContent[]> {
    return hostsOf(
      await this.#call(
        `<Get><IPHost><Filter><key name="Name" criteria="like">${escapeXml(prefix)}</key></Filter></IPHost></Get>`,
        'read the IP hosts',
      ),
    );
  }

  /** Creates IP hosts in one request; each host's status, in order. */
  async addHosts(hosts: readonly SfosHost[]): Promise<SfosEntityStatus[]> {
    const entities = hosts.map(
      (host, index) =>
        `<IPHost transactionid="${index}"><Name>${escapeXml(host.name)}</Name><IPFamily>${host.family}</IPFamily>` +
        `<HostType>${host.type}</HostType><IPAddress>${escapeXml(host.address)}</IPAddress>` +
        `${host.subnet === undefined ? '' : `<Subnet>${escapeXml(host.subnet)}</Subnet>`}</IPHost>`,
    );
    return this.#entities(`<Set operation="add">${entities.join('')}</Set>`, 'IPHost', hosts.length, 'create IP hosts');
  }

  /**
   * Replaces the group's host list (read-modify-write: the caller holds the queue); its status.
   * `Set operation="update"` sends the whole group, so the HostList is replaced, not merged
   * (sophos-firewall-sdk `update_ip_hostgroup` builds the full list for add, remove and replace alike).
   * A placeholder leaves a list that has other hosts. An empty list is written as such; when the
   * firewall refuses it, or answers done but still holds hosts, the group gets the family's
   * placeholder instead (made when missing), never nothing.
   */
  async setHosts(group: SfosGroup, hosts: readonly string[]): Promise<SfosEntityStatus> {
    const list = hosts.some((host) => !isSfosPlaceholder(host))
      ? hosts.filter((host) => !isSfosPlaceholder(host))
      : [...hosts];
    const status = await this.#update(group, list);
    if (list.length > 0) return status;
    if (isDone(status) && ((await this.group(group.name))?.hosts ?? []).length === 0) return status;
    const placeholder = group.family === 'IPv6' ? SFOS_PLACEHOLDER.IPv6 : SFOS_PLACEHOLDER.IPv4;
    const made = await this.#placeholder(placeholder);
    if (made !== null) return made;
    this.#logger.info(
      {
        group: group.name,
        refusal: isDone(status) ? 'the empty HostList was not applied' : this.http.redact(status.text),
      },
      `sophossfos cannot empty an IP host group; Postern keeps its placeholder ${placeholder.name} (${placeholder.address}) in it`,
    );
    return this.#update(group, [placeholder.name]);
  }

  /** Makes the placeholder when missing: null when it is there as Postern makes it, else the refusal. */
  async #placeholder(host: SfosHost): Promise<SfosEntityStatus | null> {
    const found = (await this.hosts(host.name)).filter((other) => other.name === host.name);
    if (found.length === 0) {
      const [status] = await this.addHosts([host]);
      return status === undefined || isDone(status) || isAlreadyPresent(status)
        ? null
        : { code: status.code, text: `could not create IP host ${host.name}: ${status.text}` };
    }
    const own = found.every(
      (other) => other.type === host.type && other.address === host.address && other.family === host.family,
    );
    return own
      ? null
      : {
          code: '',
          text: `IP host ${host.name} exists but does not hold only ${host.address}; Postern keeps it in groups the firewall will not leave empty, so correct or delete it on the firewall`,
        };
  }

  async #update(group: SfosGroup, hosts: readonly string[]): Promise<SfosEntityStatus> {
    const list = hosts.map((host) => `<Host>${escapeXml(host)}</Host>`).join('');
    const body =
      `<Set operation="update"><IPHostGroup transactionid="0"><Name>${escapeXml(group.name)}</Name>` +
      `<Description>${escapeXml(group.description)}</Description><HostList>${list}</HostList>` +
      `<IPFamily>${escapeXml(group.family)}</IPFamily></IPHostGroup></Set>`;
    const [status] = await this.#entities(body, 'IPHostGroup', 1, `update IP host group ${group.name}`);
    return status ?? { code: '', text: 'no status' };
  }

  /** Removes IP hosts in one request; each one's status, in order. */
  async removeHosts(names: readonly string[]): Promise<SfosEntityStatus[]> {
    const entities = names.map(
      (name, index) => `<IPHost transactionid="${index}"><Name>${escapeXml(name)}</Name></IPHost>`,
    );
    return this.#entities(`<Remove>${entities.join('')}</Remove>`, 'IPHost', names.length, 'remove IP hosts');
  }

  close(): void {
    this.http.close();
  }

  /** A request's per-entity statuses by position; a missing one reads as a failure. */
  async #entities(body: string, tag: string, count: number, what: string): Promise<SfosEntityStatus[]> {
    const statuses = entityStatuses(await this.#call(body, what), tag);
    return Array.from(
      { length: count },
      (_, index) => statuses.get(String(index)) ?? { code: '', text: 'the firewall gave no status for it' },
    );
  }

  /** One request; the parsed answer. Throws when the call as a whole failed. */
  async #call(operation: string, what: string): Promise<XmlElement> {
    const response = await this.http.request({
      method: 'POST',
      path: PATH,
      form: { reqxml: `<Request>${this.#login}${operation}</Request>` },
      headers: { accept: 'application/xml' },
      idempotent: true,
    });
    if (response.status < 200 || response.status > 299)
      throw new Error(`sophossfos: could not ${what}: HTTP ${response.status}${this.http.snippet(response.body)}`);
    let root: XmlElement;
    try {
      root = parseSfosAnswer(response.body);
    } catch (error) {
      throw new Error(
        `sophossfos: could not ${what}: unexpected answer: ${this.http.redact(error instanceof Error ? error.message : String(error))}`,
        { cause: error },
      );
    }
    const failure = sfosCallFailure(root);
    if (failure !== null) throw new Error(`sophossfos: could not ${what}: ${this.http.redact(failure)}`);
    return root;
  }
}
