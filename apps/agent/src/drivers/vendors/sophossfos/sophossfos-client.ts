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

  constructor(options: SophosSfosClientOptions) {
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

  /** Replaces the group's host list (read-modify-write: the caller holds the queue); its status. */
  async setHosts(group: SfosGroup, hosts: readonly string[]): Promise<SfosEntityStatus> {
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
