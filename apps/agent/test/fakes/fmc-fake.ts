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
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

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

interface Session {
  access: string;
  refresh: string;
  refreshes: number;
  expiresAt: number;
}

interface NetworkGroup {
  id: string;
  name: string;
  type: 'NetworkGroup';
  literals: { type: string; value: string }[];
  objects: { id: string; type: string; name?: string }[];
  description?: string;
  overridable?: boolean;
}

/** A Host or Network object. */
interface AddressObject {
  id: string;
  name: string;
  type: 'Host' | 'Network';
  value: string;
}

/** What a network group PUT may carry; anything else (links, metadata) is read-only. */
const WRITABLE_GROUP_FIELDS = new Set(['id', 'name', 'type', 'literals', 'objects', 'description', 'overridable']);
const OBJECT_NAME = /^[A-Za-z0-9_.+-]{1,64}$/;
const COLLECTION_TYPES: Record<string, 'Host' | 'Network'> = { hosts: 'Host', networks: 'Network' };

export const FMC_TOKEN_LIFE_MS = 30 * 60_000;
const MAX_REFRESHES = 3;
const MAX_BULK = 1000;
const MAX_BODY = 2 * 1024 * 1024;
const CONFIG = '/api/fmc_config/v1/domain/';

export class FmcFake {
  readonly requests: FmcFakeRequest[] = [];
  readonly domainUuid: string;
  /** Every token the fake issued (tests check none leaks). */
  readonly issuedTokens: string[] = [];
  /** generatetoken calls accepted. */
  logins = 0;
  /** refreshtoken calls accepted. */
  refreshes = 0;
  deployments: { deviceList: string[] }[] = [];
  /** When set, deployment requests are refused (400) with this description. */
  deployRefusal: string | null = null;
  /** How long a deployment request takes to be answered (a real FMC takes a while). */
  deployDelayMs = 0;
  password: string;
  readonly #username: string;
  readonly #now: () => number;
  #server: LoopbackServer | null = null;
  readonly #sessions: Session[] = [];
  readonly #dynamic = new Map<string, { name: string; mappings: string[] }>();
  readonly #groups = new Map<string, NetworkGroup>();
  readonly #objects = new Map<string, AddressObject>();
  /** The users whose changes wait on each device, one entry per change, until deployed. */
  readonly #pending = new Map<string, string[]>();
  /** Which network group each device's policy uses. */
  readonly #devices = new Map<string, string>();
  readonly #domains: { name: string; uuid: string }[];
  #throttle = 0;
  #perMinute = Number.POSITIVE_INFINITY;
  readonly #recent: number[] = [];
  #redirect: string | null = null;
  readonly #refused = new Set<string>();
  #serial = 0;

  private constructor(options: FmcFakeOptions) {
    this.#username = options.username;
    this.password = options.password;
    this.domainUuid = options.domainUuid ?? 'e276abec-e0f2-11e3-8169-6d9ed49b625f';
    this.#domains = [{ name: 'Global', uuid: this.domainUuid }, ...(options.domains ?? [])];
    this.#now = options.now ?? Date.now;
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

  addDynamicObject(id: string, name: string, mappings: readonly string[] = []): void {
    this.#dynamic.set(id, { name, mappings: [...mappings] });
  }

  /** A dynamic object's mappings as stored, or null when there is none. */
  mappings(id: string): string[] | null {
    const object = this.#dynamic.get(id);
    return object === undefined ? null : [...object.mappings];
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
    this.#groups.set(id, {
      id,
      name,
      type: 'NetworkGroup',
      literals: values.map((value) => ({ type: value.includes('/') ? 'Network' : 'Host', value })),
      objects: objectIds.map((objectId) => this.#ref(objectId)),
      description: `${name} (fake)`,
    });
    for (const device of devices) this.#devices.set(device, id);
  }

  /** A Host or Network object made by someone (an admin, or an impostor under Postern's name). */
  addAddressObject(name: string, type: 'Host' | 'Network', value: string): string {
    const id = `obj-${++this.#serial}`;
    this.#objects.set(id, { id, name, type, value });
    return id;
  }

  /** Puts an object into a group, as an admin would. */
  addToGroup(groupId: string, objectId: string): void {
    this.#groups.get(groupId)?.objects.push(this.#ref(objectId));
  }

  /** A network group's literal values, or null. */
  groupValues(id: string): string[] | null {
    return this.#groups.get(id)?.literals.map((literal) => literal.value) ?? null;
  }

  /** A network group's member objects (name and value), or null. */
  groupObjects(id: string): { name: string; value: string }[] | null {
    const group = this.#groups.get(id);
    if (group === undefined) return null;
    return group.objects.map((ref) => {
      const object = this.#objects.get(ref.id);
      return { name: object?.name ?? ref.id, value: object?.value ?? '' };
    });
  }

  /** Every Host and Network object. */
  addressObjects(): AddressObject[] {
    return [...this.#objects.values()].map((object) => ({ ...object }));
  }

  /** Devices with changes not deployed yet. */
  pendingDevices(): string[] {
    return [...this.#pending.keys()];
  }

  /** Another admin's unfinished change waiting on a device. */
  addPendingChange(device: string, user: string): void {
    this.#pending.set(device, [...(this.#pending.get(device) ?? []), user]);
  }

  /** An admin deployed the device themselves: nothing waits on it any more. */
  clearPending(device: string): void {
    this.#pending.delete(device);
  }

  #ref(objectId: string): { id: string; type: string; name: string } {
    const object = this.#objects.get(objectId);
    if (object === undefined) throw new Error(`the FMC fake has no object ${objectId}`);
    return { id: object.id, type: object.type, name: object.name };
  }

  /** The current access tokens stop working (401 "Access token invalid"); refresh still works. */
  expireAccessTokens(): void {
    for (const session of this.#sessions) session.expiresAt = 0;
  }

  /** Every session ends: access and refresh tokens both refused; only a new login works. */
  endSessions(): void {
    this.#sessions.length = 0;
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
    this.#refused.add(value);
  }

  #handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const record = { method, path: url.pathname, status: 0 };
    this.requests.push(record);
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      if (payload === null) {
        res.writeHead(status, headers).end();
      } else {
        sendJson(res, status, payload, headers);
      }
    };
    const error = (status: number, description: string) =>
      answer(status, { error: { category: 'FRAMEWORK', messages: [{ description }], severity: 'ERROR' } });

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
      this.#login(req, answer, error);
      return;
    }
    if (url.pathname === '/api/fmc_platform/v1/auth/refreshtoken' && method === 'POST') {
      this.#refresh(req, answer, error);
      return;
    }
    const access = req.headers['x-auth-access-token'];
    const session = this.#sessions.find((s) => s.access === access);
    if (session === undefined || session.expiresAt <= now) {
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
    const route = rest.join('/');
    const [kind, id, sub, ...more] = rest;
    if (route === 'object/dynamicobjectmappings' && method === 'POST') {
      this.#changeMappings(payload, answer, error);
    } else if (kind === 'object' && id === 'dynamicobjects' && sub !== undefined && more.length <= 1) {
      const object = this.#dynamic.get(sub);
      if (object === undefined) error(404, `Dynamic object ${sub} not found`);
      else if (more.length === 0 && method === 'GET')
        answer(200, { id: sub, name: object.name, type: 'DynamicObject', objectType: 'IP' });
      else if (more[0] === 'mappings' && method === 'GET') this.#listMappings(url, object.mappings, answer, error);
      else error(405, 'Method not allowed');
    } else if (kind === 'object' && id === 'networkgroups' && sub !== undefined && more.length === 0) {
      this.#networkGroup(method, sub, payload, answer, error);
    } else if (kind === 'object' && id !== undefined && id in COLLECTION_TYPES && more.length === 0) {
      this.#addressObjects(method, COLLECTION_TYPES[id] ?? 'Host', sub, url, payload, answer, error);
    } else if (route === 'deployment/deployabledevices' && method === 'GET') {
      const items = [...this.#pending.keys()].map((device) => ({
        type: 'DeployableDevice',
        name: device,
        device: { id: device, type: 'Device', name: device },
        canBeDeployed: true,
      }));
      answer(200, { items, paging: { offset: 0, limit: 25, count: items.length, pages: 1 } });
    } else if (
      kind === 'deployment' &&
      id === 'deployabledevices' &&
      more[0] === 'pendingchanges' &&
      method === 'GET'
    ) {
      const filter = /^UserList:(.*)$/.exec(url.searchParams.get('filter') ?? '');
      const users = filter === null ? null : (filter[1] ?? '').split(',').map((u) => u.trim());
      const changes = (this.#pending.get(sub ?? '') ?? []).filter((user) => users === null || users.includes(user));
      const items = changes.slice(0, 1).map((user) => ({ type: 'PendingChange', user: { name: user } }));
      answer(200, { items, paging: { offset: 0, limit: 1, count: changes.length, pages: changes.length } });
    } else if (route === 'deployment/deploymentrequests' && method === 'POST') {
      const list = (payload as { deviceList?: unknown } | null)?.deviceList;
      if (!Array.isArray(list) || list.length === 0 || !list.every((d) => typeof d === 'string')) {
        error(400, 'deviceList is required');
        return;
      }
      if (this.deployRefusal !== null) {
        error(400, this.deployRefusal);
        return;
      }
      for (const device of list) this.#pending.delete(device);
      const accept = () => {
        this.deployments.push({ deviceList: [...list] });
        answer(202, {
          type: 'DeploymentRequest',
          metadata: { task: { id: `task-${++this.#serial}`, type: 'TaskStatus' } },
        });
      };
      if (this.deployDelayMs > 0) setTimeout(accept, this.deployDelayMs);
      else accept();
    } else {
      error(404, 'The requested resource could not be found.');
    }
  }

  #login(
    req: IncomingMessage,
    answer: (status: number, payload: unknown, headers?: Record<string, string>) => void,
    error: (status: number, description: string) => void,
  ): void {
    const expected = `Basic ${Buffer.from(`${this.#username}:${this.password}`).toString('base64')}`;
    if (req.headers.authorization !== expected) {
      error(401, 'Authentication failed');
      return;
    }
    this.logins++;
    const session: Session = {
      access: this.#token('access'),
      refresh: this.#token('refresh'),
      refreshes: 0,
      expiresAt: this.#now() + FMC_TOKEN_LIFE_MS,
    };
    this.#sessions.push(session);
    answer(204, null, this.#tokenHeaders(session));
  }

  #refresh(
    req: IncomingMessage,
    answer: (status: number, payload: unknown, headers?: Record<string, string>) => void,
    error: (status: number, description: string) => void,
  ): void {
    const session = this.#sessions.find(
      (s) => s.access === req.headers['x-auth-access-token'] && s.refresh === req.headers['x-auth-refresh-token'],
    );
    if (session === undefined || session.refreshes >= MAX_REFRESHES) {
      error(401, 'Invalid refresh token');
      return;
    }
    this.refreshes++;
    session.refreshes++;
    session.access = this.#token('access');
    session.expiresAt = this.#now() + FMC_TOKEN_LIFE_MS;
    answer(204, null, this.#tokenHeaders(session));
  }

  #tokenHeaders(session: Session): Record<string, string> {
    return {
      'X-auth-access-token': session.access,
      'X-auth-refresh-token': session.refresh,
      DOMAIN_UUID: this.domainUuid,
      DOMAINS: JSON.stringify(this.#domains),
    };
  }

  #token(kind: string): string {
    const token = `fmc-${kind}-${++this.#serial}-${Math.random().toString(36).slice(2, 12)}`;
    this.issuedTokens.push(token);
    return token;
  }

  #listMappings(
    url: URL,
    mappings: readonly string[],
    answer: (status: number, payload: unknown) => void,
    error: (status: number, description: string) => void,
  ): void {
    const offset = Number(url.searchParams.get('offset') ?? '0');
    const limit = Number(url.searchParams.get('limit') ?? '25');
    if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(limit) || limit < 1 || limit > MAX_BULK) {
      error(400, 'Invalid offset or limit');
      return;
    }
    const items = mappings.slice(offset, offset + limit).map((mapping) => ({ mapping }));
    answer(200, {
      items,
      paging: { offset, limit, count: mappings.length, pages: Math.ceil(mappings.length / limit) },
    });
  }

  #changeMappings(
    payload: unknown,
    answer: (status: number, payload: unknown) => void,
    error: (status: number, description: string) => void,
  ): void {
    const request = payload as { add?: unknown; remove?: unknown } | null;
    const changes: { op: 'add' | 'remove'; id: string; values: string[] }[] = [];
    for (const op of ['add', 'remove'] as const) {
      const list = request?.[op];
      if (list === undefined) continue;
      if (!Array.isArray(list)) {
        error(400, `${op} must be a list`);
        return;
      }
      for (const item of list as { dynamicObject?: { id?: unknown }; mappings?: unknown }[]) {
        const id = item.dynamicObject?.id;
        const values = item.mappings;
        if (typeof id !== 'string' || !Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
          error(400, 'Each entry needs dynamicObject.id and mappings');
          return;
        }
        if (!this.#dynamic.has(id)) {
          error(400, `Invalid dynamic object ID ${id}`);
          return;
        }
        changes.push({ op, id, values: values });
      }
    }
    const total = changes.reduce((sum, change) => sum + change.values.length, 0);
    if (changes.length === 0 || total > MAX_BULK) {
      error(400, total > MAX_BULK ? `At most ${MAX_BULK} mappings per request` : 'Nothing to add or remove');
      return;
    }
    const bad = changes.flatMap((c) => c.values).find((value) => this.#refused.has(value) || !validValue(value));
    if (bad !== undefined) {
      error(400, `Invalid IP address or network: ${bad}`);
      return;
    }
    for (const change of changes) {
      const object = this.#dynamic.get(change.id);
      if (object === undefined) continue;
      for (const value of change.values) {
        const index = object.mappings.indexOf(value);
        if (change.op === 'add' && index < 0) object.mappings.push(value);
        if (change.op === 'remove' && index >= 0) object.mappings.splice(index, 1);
      }
    }
    answer(201, payload);
  }

  #networkGroup(
    method: string,
    id: string,
    payload: unknown,
    answer: (status: number, payload: unknown) => void,
    error: (status: number, description: string) => void,
  ): void {
    const group = this.#groups.get(id);
    if (group === undefined) {
      error(404, `Network group ${id} not found`);
      return;
    }
    if (method === 'GET') {
      answer(200, {
        ...group,
        literals: group.literals.map((l) => ({ ...l })),
        objects: group.objects.map((o) => ({ ...o })),
        links: { self: `https://fmc.fake/api/fmc_config/v1/domain/${this.domainUuid}/object/networkgroups/${id}` },
        metadata: { readOnly: { state: false }, lastUser: { name: 'admin' }, timestamp: this.#now() },
      });
      return;
    }
    if (method !== 'PUT') {
      error(405, 'Method not allowed');
      return;
    }
    const next = payload as (Partial<NetworkGroup> & Record<string, unknown>) | null;
    const readOnly = Object.keys(next ?? {}).filter((key) => !WRITABLE_GROUP_FIELDS.has(key));
    if (readOnly.length > 0) {
      error(400, `Invalid field(s) in the request: ${readOnly.join(', ')}`);
      return;
    }
    if (next?.id !== id || typeof next.name !== 'string' || !Array.isArray(next.literals)) {
      error(400, 'A network group needs id, name and literals');
      return;
    }
    const literals = next.literals;
    const bad = literals.find((l) => typeof l.value !== 'string' || this.#refused.has(l.value) || !validValue(l.value));
    if (bad !== undefined) {
      error(400, `Invalid IP address or network: ${String(bad.value)}`);
      return;
    }
    const refs = next.objects ?? [];
    const unknown = refs.find((ref) => typeof ref.id !== 'string' || !this.#objects.has(ref.id));
    if (unknown !== undefined) {
      error(400, `Invalid object ID ${String(unknown.id)}`);
      return;
    }
    if (literals.length + refs.length === 0) {
      error(400, 'A network group must have at least one object or literal');
      return;
    }
    group.name = next.name;
    group.literals = literals.map((l) => ({ type: l.type, value: l.value }));
    group.objects = refs.map((ref) => this.#ref(ref.id));
    if (typeof next.description === 'string') group.description = next.description;
    for (const [device, groupId] of this.#devices) if (groupId === id) this.addPendingChange(device, this.#username);
    answer(200, group);
  }

  #addressObjects(
    method: string,
    type: 'Host' | 'Network',
    id: string | undefined,
    url: URL,
    payload: unknown,
    answer: (status: number, payload: unknown) => void,
    error: (status: number, description: string) => void,
  ): void {
    if (method === 'GET' && id !== undefined) {
      const object = this.#objects.get(id);
      if (object === undefined || object.type !== type) error(404, `${type} object ${id} not found`);
      else answer(200, { ...object, links: { self: `fake/${id}` } });
      return;
    }
    if (method === 'GET') {
      const filter = /^nameOrValue:(.*)$/.exec(url.searchParams.get('filter') ?? '')?.[1]?.toLowerCase() ?? null;
      const all = [...this.#objects.values()].filter(
        (o) =>
          o.type === type &&
          (filter === null || o.name.toLowerCase().includes(filter) || o.value.toLowerCase().includes(filter)),
      );
      const offset = Number(url.searchParams.get('offset') ?? '0');
      const limit = Number(url.searchParams.get('limit') ?? '25');
      const expanded = url.searchParams.get('expanded') === 'true';
      const items = all
        .slice(offset, offset + limit)
        .map((o) => (expanded ? { ...o } : { id: o.id, name: o.name, type: o.type }));
      answer(200, { items, paging: { offset, limit, count: all.length, pages: Math.ceil(all.length / limit) } });
      return;
    }
    if (method !== 'POST' || id !== undefined) {
      error(405, 'Method not allowed');
      return;
    }
    const body = payload as { name?: unknown; type?: unknown; value?: unknown } | null;
    const { name, value } = body ?? {};
    if (typeof name !== 'string' || !OBJECT_NAME.test(name) || typeof value !== 'string') {
      error(400, 'An object needs a name of at most 64 letters, digits or _ . + - and a value');
      return;
    }
    if (
      body?.type !== type ||
      this.#refused.has(value) ||
      !validValue(value) ||
      value.includes('/') !== (type === 'Network')
    ) {
      error(400, `Input type mismatch. You have entered an invalid value ${value} for selected type ${type}.`);
      return;
    }
    if ([...this.#objects.values()].some((o) => o.name === name)) {
      error(400, `Duplicate Name: an object named ${name} already exists`);
      return;
    }
    const created = { id: `obj-${++this.#serial}`, name, type, value };
    this.#objects.set(created.id, created);
    answer(201, { ...created, links: { self: `fake/${created.id}` } });
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** An IPv4/IPv6 address or network, as FMC accepts in a mapping or literal. */
function validValue(value: string): boolean {
  return /^(\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?|[0-9a-f:.]*:[0-9a-f:.]*(\/\d{1,3})?)$/i.test(value);
}
