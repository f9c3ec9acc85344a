/**
 * FAKE Sophos Firewall (SFOS/XGS) XML API: a contract fake for the agent's Sophos SFOS driver tests,
 * NOT a firewall. Written from the documented behaviour in ../shared/VENDORS.md section 1.6
 * (sophos/sophos-firewall-sdk `api_client.py` and its `createiphost.j2` / `updateiphostgroup.j2`
 * request shapes), never from captured device traffic. What it models:
 *
 * - One endpoint, `POST /webconsole/APIController`, the request as the form field `reqxml`.
 * - `<Login><Username/><Password/></Login>` in every request (no session); wrong credentials answer
 *   `<Login><status>Authentication Failure</status></Login>` and nothing else runs.
 * - A caller outside the API allow list gets a top-level `<Status code="534">`.
 * - `<Set operation="add"><IPHost>` (HostType IP or Network, IPFamily IPv4/IPv6) creates hosts; a
 *   name that exists is refused ("already exists"); `<Set operation="update"><IPHostGroup>` replaces
 *   the group's HostList (every host must exist and be of the group's family);
 *   `<Get><IPHostGroup>` with an optional `<Filter><key name="Name" criteria="=">`; `<Get><IPHost>` with
 *   an optional filter on the name, criteria `=` or `like` (contains);
 *   `<Remove><IPHost>` removes a host. Each entity is answered with its `transactionid` and a
 *   `<Status code="…">`; a Get that finds nothing says "Number of records Zero.".
 *
 * Choices of this fake that the documentation does not fix: the codes 502 (already exists), 541
 * (referenced by a group / not found) and 500 (invalid value), the texts, and that an update with an
 * empty HostList empties the group (sophos-firewall-sdk reads groups with no HostList, so empty groups
 * exist; what an update to empty does is not documented). Test switches: answer HTTP 503 for the next
 * N calls, redirect every call to another host, refuse one address, change the password, refuse the
 * caller (534), and what an empty HostList does (`emptyHostList`: empty the group, refuse with 500,
 * or answer done and keep the old list).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { escapeXml, find, findAll, parseXml, type XmlElement } from '../../src/drivers/vendors/panos/panos-xml.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

export interface SfosFakeHost {
  name: string;
  family: string;
  type: string;
  address: string;
  subnet: string;
}

export interface SfosFakeGroup {
  name: string;
  description: string;
  family: string;
  hosts: string[];
}

export interface SophosSfosFakeOptions {
  username: string;
  password: string;
  tls?: { key: string; cert: string };
}

const PATH = '/webconsole/APIController';

export class SophosSfosFake {
  username: string;
  password: string;
  /** The `reqxml` of every request received, in order. */
  readonly requests: string[] = [];
  /** Answer 534 (IP not allowed in the API access list) to everything. */
  denyCaller = false;
  #server: LoopbackServer | null = null;
  readonly #hosts = new Map<string, SfosFakeHost>();
  readonly #groups = new Map<string, SfosFakeGroup>();
  #throttle = 0;
  #redirect: string | null = null;
  readonly #refused = new Set<string>();
  #emptyHostList: 'clear' | 'refuse' | 'ignore' = 'clear';

  private constructor(options: SophosSfosFakeOptions) {
    this.username = options.username;
    this.password = options.password;
  }

  static async start(options: SophosSfosFakeOptions): Promise<SophosSfosFake> {
    const fake = new SophosSfosFake(options);
    fake.#server = await startLoopbackServer((req, res, body) => fake.#handle(req, res, body), options.tls);
    return fake;
  }

  get url(): string {
    if (this.#server === null) throw new Error('the Sophos SFOS fake is not running');
    return this.#server.url;
  }

  /** `127.0.0.1:<port>`: what a backend's Hostname holds. */
  get hostname(): string {
    return new URL(this.url).host;
  }

  async close(): Promise<void> {
    await this.#server?.close();
    this.#server = null;
  }

  /** An IP host made by an admin: one address, or with `network` a Network host ("0.0.0.0", "0.0.0.0"). */
  addHost(name: string, address: string, network?: { subnet: string }): void {
    const family = address.includes(':') ? 'IPv6' : 'IPv4';
    this.#hosts.set(name, {
      name,
      family,
      type: network === undefined ? 'IP' : 'Network',
      address,
      subnet: network?.subnet ?? '',
    });
  }

  /** An IP host group of one family holding these existing hosts. */
  addGroup(name: string, family: 'IPv4' | 'IPv6' = 'IPv4', hosts: readonly string[] = []): void {
    this.#groups.set(name, { name, description: `${name} (admin)`, family, hosts: [...hosts] });
  }

  /** The group's host names, or null. */
  hosts(group: string): string[] | null {
    const found = this.#groups.get(group);
    return found === undefined ? null : [...found.hosts];
  }

  group(name: string): SfosFakeGroup | undefined {
    return this.#groups.get(name);
  }

  host(name: string): SfosFakeHost | undefined {
    return this.#hosts.get(name);
  }

  allHosts(): SfosFakeHost[] {
    return [...this.#hosts.values()];
  }

  /** The next `count` calls answer HTTP 503. */
  throttle(count: number): void {
    this.#throttle = count;
  }

  redirectTo(url: string | null): void {
    this.#redirect = url;
  }

  /** What an update with an empty HostList does: empty the group (default), refuse it, or keep the old list. */
  emptyHostList(mode: 'clear' | 'refuse' | 'ignore'): void {
    this.#emptyHostList = mode;
  }

  /** Creating a host with this address (as sent) is refused. */
  refuseAddress(address: string): void {
    this.#refused.add(address);
  }

  #handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const send = (status: number, xml: string) => {
      res.writeHead(status, { 'content-type': 'text/xml; charset=utf-8' });
      res.end(xml);
    };
    const reqxml =
      req.method === 'POST' && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
        ? (new URLSearchParams(body).get('reqxml') ?? '')
        : '';
    this.requests.push(reqxml);
    if (this.#redirect !== null) {
      res.writeHead(302, { location: `${this.#redirect}${req.url ?? '/'}` });
      res.end();
      return;
    }
    if (this.#throttle > 0) {
      this.#throttle--;
      send(503, '<html><body>Service Unavailable</body></html>');
      return;
    }
    if (new URL(req.url ?? '/', 'http://fake').pathname !== PATH || req.method !== 'POST') {
      send(404, '<html><body>Not Found</body></html>');
      return;
    }
    const head = '<?xml version="1.0" encoding="UTF-8"?>\n<Response APIVersion="2000.1" IPS_CAT_VER="1">';
    if (this.denyCaller) {
      send(
        200,
        `${head}<Status code="534">API operations are not allowed from the requester IP address.</Status></Response>`,
      );
      return;
    }
    let request: XmlElement;
    try {
      request = parseXml(reqxml);
    } catch {
      send(200, `${head}<Status code="529">Input request file is invalid.</Status></Response>`);
      return;
    }
    const user = find(request, 'Login/Username')?.text;
    const password = find(request, 'Login/Password')?.text;
    if (request.name !== 'Request' || user !== this.username || password !== this.password) {
      send(200, `${head}<Login><status>Authentication Failure</status></Login></Response>`);
      return;
    }
    const parts: string[] = ['<Login><status>Authentication Successful</status></Login>'];
    for (const operation of request.children) {
      if (operation.name === 'Login') continue;
      for (const entity of operation.children) parts.push(this.#entity(operation, entity));
    }
    send(200, `${head}${parts.join('')}</Response>`);
  }

  #entity(operation: XmlElement, entity: XmlElement): string {
    const id = entity.attributes.transactionid ?? '';
    const status = (code: number, text: string) =>
      `<${entity.name} transactionid="${escapeXml(id)}"><Status code="${code}">${escapeXml(text)}</Status></${entity.name}>`;
    const text = (path: string) => find(entity, path)?.text.trim() ?? '';
    const kind = `${operation.name}:${operation.attributes.operation ?? ''}:${entity.name}`;
    switch (kind) {
      case 'Get::IPHostGroup': {
        const filter = find(entity, 'Filter/key');
        const groups = [...this.#groups.values()].filter(
          (group) => filter === undefined || (filter.attributes.name === 'Name' && group.name === filter.text.trim()),
        );
        if (groups.length === 0)
          return `<IPHostGroup transactionid="${escapeXml(id)}"><Status>Number of records Zero.</Status></IPHostGroup>`;
        return groups
          .map(
            (group) =>
              `<IPHostGroup transactionid="${escapeXml(id)}"><Name>${escapeXml(group.name)}</Name>` +
              `<Description>${escapeXml(group.description)}</Description><HostList>` +
              group.hosts.map((host) => `<Host>${escapeXml(host)}</Host>`).join('') +
              `</HostList><IPFamily>${group.family}</IPFamily></IPHostGroup>`,
          )
          .join('');
      }
      case 'Get::IPHost': {
        // Filter criteria "=" (the name) or "like" (the name contains the text), as the API offers.
        const filter = find(entity, 'Filter/key');
        const value = filter?.text.trim() ?? '';
        const hosts = [...this.#hosts.values()].filter(
          (host) =>
            filter === undefined ||
            (filter.attributes.name === 'Name' &&
              (filter.attributes.criteria === 'like' ? host.name.includes(value) : host.name === value)),
        );
        if (hosts.length === 0)
          return `<IPHost transactionid="${escapeXml(id)}"><Status>Number of records Zero.</Status></IPHost>`;
        return hosts
          .map(
            (host) =>
              `<IPHost transactionid="${escapeXml(id)}"><Name>${escapeXml(host.name)}</Name>` +
              `<IPFamily>${host.family}</IPFamily><HostType>${escapeXml(host.type)}</HostType>` +
              `<IPAddress>${escapeXml(host.address)}</IPAddress>` +
              (host.subnet === '' ? '' : `<Subnet>${escapeXml(host.subnet)}</Subnet>`) +
              `</IPHost>`,
          )
          .join('');
      }
      case 'Set:add:IPHost': {
        const name = text('Name');
        const host: SfosFakeHost = {
          name,
          family: text('IPFamily'),
          type: text('HostType'),
          address: text('IPAddress'),
          subnet: text('Subnet'),
        };
        if (this.#hosts.has(name)) return status(502, 'Operation failed. Entity having same name already exists.');
        if (name === '' || this.#refused.has(host.address) || !validHost(host))
          return status(500, 'Operation could not be performed on Entity.');
        this.#hosts.set(name, host);
        return status(200, 'Configuration applied successfully.');
      }
      case 'Set:update:IPHostGroup': {
        const group = this.#groups.get(text('Name'));
        if (group === undefined) return status(541, 'Operation failed. Entity not found.');
        const hosts = findAll(entity, 'HostList/Host').map((host) => host.text.trim());
        if (hosts.some((host) => this.#hosts.get(host)?.family !== group.family))
          return status(500, 'Operation could not be performed on Entity.');
        if (hosts.length === 0 && this.#emptyHostList === 'refuse')
          return status(500, 'Operation could not be performed on Entity.');
        if (hosts.length > 0 || this.#emptyHostList === 'clear') group.hosts = hosts;
        group.description = find(entity, 'Description')?.text ?? '';
        return status(200, 'Configuration applied successfully.');
      }
      case 'Remove::IPHost': {
        const name = text('Name');
        if (!this.#hosts.has(name)) return status(541, 'Operation failed. Entity not found.');
        if ([...this.#groups.values()].some((group) => group.hosts.includes(name)))
          return status(541, 'Operation could not be performed on Entity. Entity is referenced by other entities.');
        this.#hosts.delete(name);
        return status(200, 'Configuration applied successfully.');
      }
      default:
        return status(500, 'Operation not supported by this fake.');
    }
  }
}

function validHost(host: SfosFakeHost): boolean {
  const v4 = /^\d{1,3}(\.\d{1,3}){3}$/;
  if (host.family === 'IPv4') {
    if (!v4.test(host.address)) return false;
    return host.type === 'IP' || (host.type === 'Network' && v4.test(host.subnet));
  }
  if (host.family !== 'IPv6' || !/^[0-9a-f:.]+$/i.test(host.address) || !host.address.includes(':')) return false;
  return host.type === 'IP' || (host.type === 'Network' && /^\d{1,3}$/.test(host.subnet));
}
