/**
 * FAKE Cisco Secure Firewall Management Center (FMC REST API): a contract fake for the agent's
 * firepower driver tests, NOT an FMC. Written from the documented behaviour in ../shared/VENDORS.md
 * section 1.4 (Cisco 215918 for the token login, kaisero/fireREST for refresh and errors, the FMC
 * Ansible reference and fmcapi for dynamic object mappings), never from captured device traffic.
 * What it models:
 *
 * - `POST /api/fmc_platform/v1/auth/generatetoken` with Basic auth and an empty body: 204 whose
 *   headers carry `X-auth-access-token`, `X-auth-refresh-token`, `DOMAIN_UUID` and `DOMAINS`.
 * - `POST /api/fmc_platform/v1/auth/refreshtoken` with both tokens as headers: a new access token,
 *   at most 3 times per login; then 401 (a full login is needed).
 * - Every other call needs `X-auth-access-token`; an unknown or expired one answers 401 with
 *   "Access token invalid" in the body (what fireREST detects as expiry). Access tokens last 30 min.
 * - Dynamic objects (FMC ≥ 7.0, no deployment): `GET …/object/dynamicobjects/{id}`,
 *   `GET …/object/dynamicobjects/{id}/mappings` (paged: `offset`, `limit` ≤ 1000, `paging.count`),
 *   `POST …/object/dynamicobjectmappings` with `{add:[{dynamicObject:{id},mappings:[…]}], remove:[…]}`.
 * - Network groups (legacy, need a deploy): `GET`/`PUT …/object/networkgroups/{id}` (the PUT replaces
 *   the whole object: read-modify-write). The GET answers with the read-only `links` and `metadata`
 *   a real FMC adds; a PUT carrying them (or any field but id, name, type, literals, objects,
 *   description, overridable) is refused with 400: fireREST strips them because "fmc api cannot
 *   handle json objects with some fields that are received via get operations (e.g. link, metadata)".
 *   A group left with neither literals nor objects is refused (FMC has no empty network group).
 *   Group `objects` are references `{type, id}` to existing Host/Network objects.
 * - Host and Network objects: `POST …/object/hosts|networks` with `{name, type, value}` (a Host holds
 *   one address, a Network a prefix; names `[A-Za-z0-9_.+-]{1,64}`; a name in use answers 400
 *   "Duplicate Name", as fireREST maps it), `GET …/object/hosts|networks?filter=nameOrValue:X&expanded=true`
 *   (paged) and `GET …/object/hosts|networks/{id}`.
 * - Deployment: `GET …/deployment/deployabledevices` (the devices with changes waiting),
 *   `GET …/deployment/deployabledevices/{id}/pendingchanges` (FMC ≥ 6.6; `filter=UserList:a,b` keeps
 *   the changes those users made; `paging.count` is the total), `POST …/deployment/deploymentrequests`
 *   (deploys every change waiting on the listed devices, whoever made it).
 * - Domains: the login names its default `DOMAIN_UUID` and every domain in `DOMAINS`
 *   (`[{name, uuid}]`); a config call under any other domain answers 400.
 * - Errors in FMC's shape `{error:{category,messages:[{description}],severity}}`; 429 when
 *   rate-limited; bulk > 1,000 entries answers 400; payloads > 2 MB answer 413.
 *
 * Choices of this fake that the documentation does not fix: adding a mapping already present or
 * removing one that is absent succeeds silently (set semantics); a mappings request holding an invalid
 * value is refused whole (400, nothing changed); the 429 carries no Retry-After; `nameOrValue` keeps
 * objects whose name or value contains the text (any case); every object lives in every domain; a
 * group change is one pending change by the API user on each device using the group. Test switches:
 * expire the current access token or the whole session, refuse deployments, answer 429 for the next N calls or above a
 * per-minute rate, redirect every call to another host, refuse one mapping value.
 *
 * This file holds the HTTP front (throttling, redirects, size limit, token check, domains, routing);
 * the parts live in fmc/: auth.ts (login, refresh, sessions), objects.ts (dynamic objects and their
 * mappings, Host and Network objects), policies.ts (network groups and the devices whose policies use
 * them), deployment.ts (pending changes and deployment requests), reply.ts (what they share).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';
import { FmcAuth } from './fmc/auth.js';
import { FmcDeployment } from './fmc/deployment.js';
import { FmcObjects, type AddressObject } from './fmc/objects.js';
import { FmcPolicies } from './fmc/policies.js';
import { decodeSegment, type Reply } from './fmc/reply.js';

export { FMC_TOKEN_LIFE_MS } from './fmc/auth.js';

export interface FmcFakeOptions {
  username: string;
  password: string;
  /** Serve HTTPS with this key and certificate (the driver always speaks https to a Hostname). */
  tls?: { key: string; cert: string };
  domainUuid?: string;
  /** Further domains the user may work in (besides the default one, named Global). */
  domains?: { name: string; uuid: string }[];
  now?: () => number;
}

/** One request the fake received. */
export interface FmcFakeRequest {
  method: string;
  path: string;
  status: number;
}

const COLLECTION_TYPES: Record<string, 'Host' | 'Network'> = { hosts: 'Host', networks: 'Network' };
const MAX_BODY = 2 * 1024 * 1024;
const CONFIG = '/api/fmc_config/v1/domain/';

export class FmcFake {
  readonly requests: FmcFakeRequest[] = [];
  readonly domainUuid: string;
  readonly #now: () => number;
  #server: LoopbackServer | null = null;
  readonly #domains: { name: string; uuid: string }[];
  readonly #auth: FmcAuth;
  readonly #objects: FmcObjects;
  readonly #policies: FmcPolicies;
  readonly #deployment: FmcDeployment;
  #throttle = 0;
  #perMinute = Number.POSITIVE_INFINITY;
  readonly #recent: number[] = [];
  #redirect: string | null = null;

  private constructor(options: FmcFakeOptions) {
    this.domainUuid = options.domainUuid ?? 'e276abec-e0f2-11e3-8169-6d9ed49b625f';
    this.#domains = [{ name: 'Global', uuid: this.domainUuid }, ...(options.domains ?? [])];
    this.#now = options.now ?? Date.now;
    let serial = 0;
    const ids = { next: () => ++serial };
    const domainHeaders = () => ({ DOMAIN_UUID: this.domainUuid, DOMAINS: JSON.stringify(this.#domains) });
    this.#auth = new FmcAuth(options.username, options.password, domainHeaders, this.#now, ids);
    this.#objects = new FmcObjects(ids);
    this.#deployment = new FmcDeployment(ids);
    this.#policies = new FmcPolicies(this.#objects, this.#deployment, options.username, this.domainUuid, this.#now);
  }

  static async start(options: FmcFakeOptions): Promise<FmcFake> {
    const fake = new FmcFake(options);
    fake.#server = await startLoopbackServer((req, res, body) => fake.#handle(req, res, body), options.tls);
    return fake;
  }

  /** `https://127.0.0.1:<port>`. */
  get url(): string {
    if (this.#server === null) throw new Error('the FMC fake is not running');
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

  /** Every token the fake issued (tests check none leaks). */
  get issuedTokens(): string[] {
    return this.#auth.issuedTokens;
  }

  /** generatetoken calls accepted. */
  get logins(): number {
    return this.#auth.logins;
  }

  /** refreshtoken calls accepted. */
  get refreshes(): number {
    return this.#auth.refreshes;
  }

  /** The password the login accepts (a test changes it to make the stored one wrong). */
  get password(): string {
    return this.#auth.password;
  }

  set password(password: string) {
    this.#auth.password = password;
  }

  /** The deployment requests accepted, in order. */
  get deployments(): { deviceList: string[] }[] {
    return this.#deployment.deployments;
  }

  /** When set, deployment requests are refused (400) with this description. */
  get deployRefusal(): string | null {
    return this.#deployment.deployRefusal;
  }

  set deployRefusal(description: string | null) {
    this.#deployment.deployRefusal = description;
  }

  /** How long a deployment request takes to be answered (a real FMC takes a while). */
  get deployDelayMs(): number {
    return this.#deployment.deployDelayMs;
  }

  set deployDelayMs(ms: number) {
    this.#deployment.deployDelayMs = ms;
  }

  addDynamicObject(id: string, name: string, mappings: readonly string[] = []): void {
    this.#objects.addDynamicObject(id, name, mappings);
  }

  /** A dynamic object's mappings as stored, or null when there is none. */
  mappings(id: string): string[] | null {
    return this.#objects.mappings(id);
  }

  /**
   * A network group used by the policy of these devices (ids), with the admin's literal values and
   * object ids. (An admin could not save it empty; tests may, to start from nothing.)
   */
  addNetworkGroup(
    id: string,
    name: string,
    values: readonly string[],
    devices: readonly string[] = ['dev-1'],
    objectIds: readonly string[] = [],
  ): void {
    this.#policies.addNetworkGroup(id, name, values, devices, objectIds);
  }

  /** A Host or Network object made by someone (an admin, or an impostor under Postern's name). */
  addAddressObject(name: string, type: 'Host' | 'Network', value: string): string {
    return this.#objects.addAddressObject(name, type, value);
  }

  /** Puts an object into a group, as an admin would. */
  addToGroup(groupId: string, objectId: string): void {
    this.#policies.addToGroup(groupId, objectId);
  }

  /** A network group's literal values, or null. */
  groupValues(id: string): string[] | null {
    return this.#policies.groupValues(id);
  }

  /** A network group's member objects (name and value), or null. */
  groupObjects(id: string): { name: string; value: string }[] | null {
    return this.#policies.groupObjects(id);
  }

  /** Every Host and Network object. */
  addressObjects(): AddressObject[] {
    return this.#objects.all();
  }

  /** Devices with changes not deployed yet. */
  pendingDevices(): string[] {
    return this.#deployment.pendingDevices();
  }

  /** Another admin's unfinished change waiting on a device. */
  addPendingChange(device: string, user: string): void {
    this.#deployment.addPendingChange(device, user);
  }

  /** An admin deployed the device themselves: nothing waits on it any more. */
  clearPending(device: string): void {
    this.#deployment.clearPending(device);
  }

  /** The current access tokens stop working (401 "Access token invalid"); refresh still works. */
  expireAccessTokens(): void {
    this.#auth.expireAccessTokens();
  }

  /** Every session ends: access and refresh tokens both refused; only a new login works. */
  endSessions(): void {
    this.#auth.endSessions();
  }

  /** The next `count` calls answer 429. */
  throttle(count: number): void {
    this.#throttle = count;
  }

  /** More than `count` calls within a minute answer 429 (Cisco documents 120 per minute). */
  rateLimit(count: number): void {
    this.#perMinute = count;
  }

  /** Every call answers 302 to this URL (another host), or normally again with null. */
  redirectTo(url: string | null): void {
    this.#redirect = url;
  }

  /** A mappings or network group write holding this value is refused (400). */
  refuseValue(value: string): void {
    this.#objects.refused.add(value);
  }

  #handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const record = { method, path: url.pathname, status: 0 };
    this.requests.push(record);
    const reply: Reply = {
      answer: (status, payload, headers = {}) => {
        record.status = status;
        if (payload === null) {
          res.writeHead(status, headers).end();
        } else {
          sendJson(res, status, payload, headers);
        }
      },
      error: (status, description) =>
        reply.answer(status, { error: { category: 'FRAMEWORK', messages: [{ description }], severity: 'ERROR' } }),
    };
    const { error } = reply;

    if (this.#redirect !== null) {
      record.status = 302;
      res.writeHead(302, { location: `${this.#redirect}${req.url ?? '/'}` }).end();
      return;
    }
    const now = this.#now();
    this.#recent.push(now);
    while (this.#recent.length > 0 && (this.#recent[0] ?? now) <= now - 60_000) this.#recent.shift();
    if (this.#throttle > 0 || this.#recent.length > this.#perMinute) {
      this.#throttle = Math.max(0, this.#throttle - 1);
      error(429, 'Too Many Requests');
      return;
    }
    if (Buffer.byteLength(body) > MAX_BODY) {
      error(413, 'Payload exceeds 2 MB');
      return;
    }
    if (url.pathname === '/api/fmc_platform/v1/auth/generatetoken' && method === 'POST') {
      this.#auth.login(req, reply);
      return;
    }
    if (url.pathname === '/api/fmc_platform/v1/auth/refreshtoken' && method === 'POST') {
      this.#auth.refresh(req, reply);
      return;
    }
    if (!this.#auth.valid(req.headers['x-auth-access-token'], now)) {
      error(401, 'Access token invalid.');
      return;
    }
    if (!url.pathname.startsWith(CONFIG)) {
      error(404, 'The requested resource could not be found.');
      return;
    }
    const [domain, ...rest] = url.pathname.slice(CONFIG.length).split('/').map(decodeSegment);
    if (!this.#domains.some((d) => d.uuid === domain)) {
      error(400, 'Invalid domain UUID');
      return;
    }
    let payload: unknown = null;
    if (body !== '') {
      try {
        payload = JSON.parse(body);
      } catch {
        error(400, 'Invalid JSON');
        return;
      }
    }
    this.#route(method, rest, url, payload, reply);
  }

  /** The config API under a domain: `rest` is the path after the domain's uuid. */
  #route(method: string, rest: string[], url: URL, payload: unknown, reply: Reply): void {
    const route = rest.join('/');
    const [kind, id, sub, ...more] = rest;
    if (route === 'object/dynamicobjectmappings' && method === 'POST') {
      this.#objects.changeMappings(payload, reply);
    } else if (kind === 'object' && id === 'dynamicobjects' && sub !== undefined && more.length <= 1) {
      this.#objects.dynamicObject(method, sub, more, url, reply);
    } else if (kind === 'object' && id === 'networkgroups' && sub !== undefined && more.length === 0) {
      this.#policies.networkGroup(method, sub, payload, reply);
    } else if (kind === 'object' && id !== undefined && id in COLLECTION_TYPES && more.length === 0) {
      this.#objects.addressObjects(method, COLLECTION_TYPES[id] ?? 'Host', sub, url, payload, reply);
    } else if (route === 'deployment/deployabledevices' && method === 'GET') {
      this.#deployment.deployableDevices(reply);
    } else if (
      kind === 'deployment' &&
      id === 'deployabledevices' &&
      more[0] === 'pendingchanges' &&
      method === 'GET'
    ) {
      this.#deployment.pendingChanges(sub ?? '', url, reply);
    } else if (route === 'deployment/deploymentrequests' && method === 'POST') {
      this.#deployment.deploymentRequest(payload, reply);
    } else {
      reply.error(404, 'The requested resource could not be found.');
    }
  }
}
