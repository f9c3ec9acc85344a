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
 *   the whole object: read-modify-write), `GET …/deployment/deployabledevices`, `POST
 *   …/deployment/deploymentrequests`.
 * - Errors in FMC's shape `{error:{category,messages:[{description}],severity}}`; 429 when
 *   rate-limited; bulk > 1,000 entries answers 400; payloads > 2 MB answer 413.
 *
 * Choices of this fake that the documentation does not fix: adding a mapping already present or
 * removing one that is absent succeeds silently (set semantics); a mappings request holding an invalid
 * value is refused whole (400, nothing changed); the 429 carries no Retry-After. Test switches:
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
}

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
  /** Devices whose policy uses a changed network group, until deployed. */
  readonly #pending = new Set<string>();
  readonly #devices = new Map<string, string>();
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

  /** A network group used by the policy of these devices (ids), with its literal values. */
  addNetworkGroup(id: string, name: string, values: readonly string[], devices: readonly string[] = ['dev-1']): void {
    this.#groups.set(id, {
      id,
      name,
      type: 'NetworkGroup',
      literals: values.map((value) => ({ type: value.includes('/') ? 'Network' : 'Host', value })),
      objects: [],
    });
    for (const device of devices) this.#devices.set(device, id);
  }

  /** A network group's literal values, or null. */
  groupValues(id: string): string[] | null {
    return this.#groups.get(id)?.literals.map((literal) => literal.value) ?? null;
  }

  /** Devices with changes not deployed yet. */
  pendingDevices(): string[] {
    return [...this.#pending];
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
    if (domain !== this.domainUuid) {
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
    } else if (route === 'deployment/deployabledevices' && method === 'GET') {
      const items = [...this.#pending].map((device) => ({
        type: 'DeployableDevice',
        name: device,
        device: { id: device, type: 'Device', name: device },
        canBeDeployed: true,
      }));
      answer(200, { items, paging: { offset: 0, limit: 25, count: items.length, pages: 1 } });
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
      DOMAINS: JSON.stringify([{ name: 'Global', uuid: this.domainUuid }]),
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
      answer(200, { ...group, literals: group.literals.map((l) => ({ ...l })), objects: [...group.objects] });
      return;
    }
    if (method !== 'PUT') {
      error(405, 'Method not allowed');
      return;
    }
    const next = payload as Partial<NetworkGroup> | null;
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
    if (literals.length + (next.objects?.length ?? 0) === 0) {
      // FMC refuses an empty group; an admin keeps a placeholder in it.
      error(400, 'A network group must have at least one object or literal');
      return;
    }
    group.name = next.name;
    group.literals = literals.map((l) => ({ type: l.type, value: l.value }));
    group.objects = [...(next.objects ?? [])];
    for (const [device, groupId] of this.#devices) if (groupId === id) this.#pending.add(device);
    answer(200, group);
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
