import { HttpStatusError } from '../../http/http-status-error.js';
import type { Logger } from 'pino';
import { SessionLogin, type LoginResult } from '../../http/auth/session-login.js';
import { HttpClient, pathSegment, type HttpRequest, type HttpResponse } from '../../http/http-client.js';
import type { RetryPolicy } from '../../http/retry.js';
import { classifyVendorAnswer, type VendorIntent, type VendorOutcome } from '../../kit/vendor-outcome.js';
import type { FirepowerDeployMode } from '@postern/protocol';
import { chooseDomain, parseDomainsHeader } from './firepower-domain.js';
import {
  describeFmcAnswer,
  FMC_RULES,
  FmcAddressObject,
  FmcAddressObjectPage,
  FmcDeployableDevices,
  FmcMappingsPage,
  FmcNetworkGroup,
  FmcObject,
  FmcPendingChanges,
  type FmcDomains,
  type FmcNetworkGroupWrite,
} from './firepower-responses.js';

export interface FirepowerClientOptions {
  /** The backend's Hostname (`host` or `host:port`); the API is always https. */
  hostname: string;
  insecure: boolean;
  username: string;
  password: string;
  /** The backend's Domain (name or UUID); '' for the login's default domain. */
  domain?: string;
  logger: Logger;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  now?: () => number;
}

/** What one change did, and for anything but done a message fit for the grant's Error. */
export interface ChangeResult {
  outcome: VendorOutcome;
  error: string;
}

/** What a GroupUUID names on the FMC. */
export type FirepowerObjectKind = 'dynamic' | 'group' | null;

/** The two address object collections Postern writes: a Host (one address) or a Network (a prefix). */
export type AddressObjectType = 'Host' | 'Network';

/** A created (or found) address object's id, or why it could not be made. */
export type CreateResult = { id: string } | ChangeResult;

/** What a deployment did: the devices sent and those left (with the reason) for an admin. */
export interface DeployResult {
  deployed: string[];
  held: string[];
}

const COLLECTIONS: Record<AddressObjectType, string> = { Host: 'hosts', Network: 'networks' };

const PLATFORM = '/api/fmc_platform/v1/auth';
/** FMC's access tokens last 30 minutes (Cisco 215918). */
const TOKEN_LIFE_MS = 30 * 60_000;
/** A refresh token serves 3 refreshes; then a new login (fireREST's refresh counter). */
const MAX_REFRESHES = 3;
/** At most 1,000 entries per bulk request (Cisco 215972); also the largest page FMC serves. */
export const FMC_BULK_LIMIT = 1000;

/**
 * The FMC REST calls the driver needs (VENDORS.md 1.4). Auth: `POST …/generatetoken` with Basic auth
 * gives `X-auth-access-token` (30 min), `X-auth-refresh-token`, `DOMAIN_UUID` (the default domain)
 * and `DOMAINS` (every domain the user may use: the backend's Domain picks one); a token close to
 * expiry or refused with a 401 is replaced by `…/refreshtoken` (up to 3 times), then by a new login.
 * The session-login helper makes sure concurrent calls share one login and a 401 costs exactly one.
 *
 * Mapping changes are POSTs, but they are set operations (adding a mapping twice or removing an
 * absent one changes nothing), so they are marked idempotent and retried under throttling (429).
 */
export class FirepowerClient {
  readonly http: HttpClient;
  readonly session: SessionLogin;
  readonly #login: HttpClient;
  /** Tokens the login client may see in its own calls (kept redacted there too). */
  readonly #loginSecrets: string[];
  /** The login's default domain (`DOMAIN_UUID`) and the domains it may use (`DOMAINS`). */
  #loginDomain: string | null = null;
  #domains: FmcDomains = [];
  readonly #wantedDomain: string;
  readonly #username: string;
  #refreshToken: string | null = null;
  #accessToken: string | null = null;
  #refreshes = 0;

  constructor(options: FirepowerClientOptions) {
    const baseUrl = `https://${options.hostname}`;
    this.#wantedDomain = (options.domain ?? '').trim();
    this.#username = options.username;
    const basic = Buffer.from(`${options.username}:${options.password}`).toString('base64');
    this.#loginSecrets = [options.password, basic];
    const common = {
      name: 'firepower',
      baseUrl,
      insecure: options.insecure,
      logger: options.logger,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      // FMC answers 429 without Retry-After; fireREST waits 10 s between its 6 tries. A longer back-off
      // than the kit's default keeps a burst under FMC's rate limit instead of burning the tries.
      retry: { maxAttempts: 6, baseMs: 2_000, capMs: 10_000, ...options.retry },
    };
    this.#login = new HttpClient({ ...common, secrets: this.#loginSecrets });
    this.session = new SessionLogin({
      login: () => this.#newToken(basic),
      headers: (token) => ({ 'X-auth-access-token': token }),
      secrets: [options.password, basic],
      ...(options.now === undefined ? {} : { now: options.now }),
    });
    this.http = new HttpClient({ ...common, auth: this.session });
  }

  /** Whether the UUID is a dynamic object, a network group, or neither. */
  async objectKind(uuid: string): Promise<FirepowerObjectKind> {
    for (const [kind, collection] of [
      ['dynamic', 'dynamicobjects'],
      ['group', 'networkgroups'],
    ] as const) {
      const request = await this.#request('GET', `/object/${collection}/${pathSegment(uuid)}`);
      const response = await this.http.request(request);
      if (response.status === 404) continue;
      const parsed = this.http.parse(request, response, FmcObject);
      if (!parsed.ok) throw this.#error(`could not look up object ${uuid}`, response, parsed.error);
      return kind;
    }
    return null;
  }

  /** Every mapping of a dynamic object, as FMC spells them, reading every page. */
  async mappings(uuid: string): Promise<string[]> {
    const values: string[] = [];
    for (let offset = 0; ;) {
      const request = await this.#request('GET', `/object/dynamicobjects/${pathSegment(uuid)}/mappings`, {
        offset: String(offset),
        limit: String(FMC_BULK_LIMIT),
      });
      const response = await this.http.request(request);
      const parsed = this.http.parse(request, response, FmcMappingsPage);
      if (!parsed.ok) throw this.#error(`could not read dynamic object ${uuid}`, response, parsed.error);
      values.push(...parsed.data.items);
      offset += parsed.data.items.length;
      const count = parsed.data.paging?.count ?? offset;
      if (parsed.data.items.length === 0 || offset >= count) return values;
    }
  }

  /** Adds or removes up to 1,000 mappings of one dynamic object in one call. */
  async changeMappings(op: 'add' | 'remove', uuid: string, values: readonly string[]): Promise<ChangeResult> {
    const request = await this.#request('POST', '/object/dynamicobjectmappings');
    return this.#change(op === 'add' ? 'add' : 'remove', `${op} ${describeValues(values)} on dynamic object ${uuid}`, {
      ...request,
      body: { [op]: [{ dynamicObject: { id: uuid }, mappings: values }] },
      idempotent: true,
    });
  }

  /** The whole network group (read half of read-modify-write). */
  async networkGroup(uuid: string): Promise<FmcNetworkGroup> {
    const request = await this.#request('GET', `/object/networkgroups/${pathSegment(uuid)}`);
    const response = await this.http.request(request);
    const parsed = this.http.parse(request, response, FmcNetworkGroup);
    if (!parsed.ok) throw this.#error(`could not read network group ${uuid}`, response, parsed.error);
    return parsed.data;
  }

  /** Writes the whole network group back, writable fields only (FMC has no partial update). */
  async putNetworkGroup(group: FmcNetworkGroupWrite, what: string): Promise<ChangeResult> {
    const request = await this.#request('PUT', `/object/networkgroups/${pathSegment(group.id)}`);
    return this.#change('add', `${what} in network group ${group.id}`, { ...request, body: group });
  }

  /**
   * Postern's Host and Network objects: those whose name or value holds `prefix` (FMC's `nameOrValue`
   * filter), or every one when `prefix` is null; the caller keeps the exact names it owns.
   */
  async addressObjects(prefix: string | null): Promise<FmcAddressObject[]> {
    const all: FmcAddressObject[] = [];
    for (const type of ['Host', 'Network'] as const) all.push(...(await this.#listObjects(type, prefix)));
    return all;
  }

  /** One Host or Network object by id, or null when FMC has none. */
  async addressObject(type: AddressObjectType, id: string): Promise<FmcAddressObject | null> {
    const request = await this.#request('GET', `/object/${COLLECTIONS[type]}/${pathSegment(id)}`);
    const response = await this.http.request(request);
    if (response.status === 404) return null;
    const parsed = this.http.parse(request, response, FmcAddressObject);
    if (!parsed.ok) throw this.#error(`could not read object ${id}`, response, parsed.error);
    return parsed.data;
  }

  /** Creates a Host or Network object; a name FMC already has answers `alreadyPresent` (no id). */
  async createAddressObject(type: AddressObjectType, name: string, value: string): Promise<CreateResult> {
    const request = await this.#request('POST', `/object/${COLLECTIONS[type]}`);
    const response = await this.http.request({
      ...request,
      body: { name, type, value, description: 'Postern grant (managed by the Postern agent)' },
    });
    if (isRefused(response)) throw this.#error(`could not create object ${name} (${value})`, response);
    const outcome = classifyVendorAnswer('add', response, FMC_RULES);
    if (outcome === 'applied') {
      const created = FmcObject.safeParse(response.body);
      if (created.success) return { id: created.data.id };
      return { outcome: 'fatal', error: `firepower: FMC created object ${name} but named no id` };
    }
    if (outcome === 'alreadyPresent') return { outcome, error: '' };
    return { outcome, error: this.#failure(`could not create object ${name} (${value})`, response) };
  }

  /**
   * Deploys what Postern changed (network groups only). `automatic`: every device on which a change by
   * the API user waits, with whatever else waits there. `onlyWhenOnlyPostern`: only the devices on
   * which every waiting change is the API user's; the others are held for an admin. FMC counts a
   * device's waiting changes (`pendingchanges`, FMC ≥ 6.6) in total and by user (`UserList`).
   * Resolves once FMC accepted the request (the deployment itself takes minutes and is not waited for).
   */
  async deploy(mode: Exclude<FirepowerDeployMode, 'manual'>): Promise<DeployResult> {
    const list = await this.#request('GET', '/deployment/deployabledevices', { expanded: 'true' });
    const response = await this.http.request(list);
    const parsed = this.http.parse(list, response, FmcDeployableDevices);
    if (!parsed.ok) throw this.#error('could not list deployable devices', response, parsed.error);
    const result: DeployResult = { deployed: [], held: [] };
    const devices: string[] = [];
    const versions: number[] = [];
    for (const item of parsed.data.items) {
      const name = item.device.name ?? item.device.id;
      const mine = await this.#pendingCount(item.device.id, `UserList:${this.#username}`);
      if (mine === 0) continue;
      if (mode === 'onlyWhenOnlyPostern' && (await this.#pendingCount(item.device.id, null)) > mine) {
        result.held.push(name);
        continue;
      }
      devices.push(item.device.id);
      result.deployed.push(name);
      const version = Number(item.version ?? 0);
      if (Number.isFinite(version)) versions.push(version);
    }
    if (devices.length === 0) return result;
    const request = await this.#request('POST', '/deployment/deploymentrequests');
    const deployed = await this.http.request({
      ...request,
      body: {
        type: 'DeploymentRequest',
        version: String(Math.max(0, ...versions)),
        forceDeploy: false,
        ignoreWarning: true,
        deviceList: devices,
      },
    });
    if (deployed.status < 200 || deployed.status > 299)
      throw this.#error(`could not deploy to ${devices.length} device(s)`, deployed);
    return result;
  }

  /** How many changes wait on a device, all or those a filter (`UserList:<user>`) keeps. */
  async #pendingCount(device: string, filter: string | null): Promise<number> {
    const request = await this.#request('GET', `/deployment/deployabledevices/${pathSegment(device)}/pendingchanges`, {
      expanded: 'true',
      limit: '1',
      ...(filter === null ? {} : { filter }),
    });
    const response = await this.http.request(request);
    const parsed = this.http.parse(request, response, FmcPendingChanges);
    if (!parsed.ok) throw this.#error(`could not read the changes waiting on device ${device}`, response, parsed.error);
    return parsed.data.paging?.count ?? parsed.data.items.length;
  }

  /** Every page of one collection (`expanded` for the values), filtered by name or value when asked. */
  async #listObjects(type: AddressObjectType, filter: string | null): Promise<FmcAddressObject[]> {
    const objects: FmcAddressObject[] = [];
    for (let offset = 0; ;) {
      const request = await this.#request('GET', `/object/${COLLECTIONS[type]}`, {
        expanded: 'true',
        offset: String(offset),
        limit: String(FMC_BULK_LIMIT),
        ...(filter === null ? {} : { filter: `nameOrValue:${filter}` }),
      });
      const response = await this.http.request(request);
      const parsed = this.http.parse(request, response, FmcAddressObjectPage);
      if (!parsed.ok) throw this.#error(`could not list ${COLLECTIONS[type]}`, response, parsed.error);
      objects.push(...parsed.data.items);
      offset += parsed.data.items.length;
      const count = parsed.data.paging?.count ?? offset;
      if (parsed.data.items.length === 0 || offset >= count) return objects;
    }
  }

  close(): void {
    this.http.close();
    this.#login.close();
  }

  /** A new access token: a refresh while the refresh token has uses left, else a login. */
  async #newToken(basic: string): Promise<LoginResult> {
    if (this.#refreshToken !== null && this.#accessToken !== null && this.#refreshes < MAX_REFRESHES) {
      const refreshed = await this.#login.request({
        method: 'POST',
        path: `${PLATFORM}/refreshtoken`,
        headers: { 'X-auth-access-token': this.#accessToken, 'X-auth-refresh-token': this.#refreshToken },
        idempotent: true,
      });
      const token = refreshed.status >= 200 && refreshed.status <= 299 ? this.#take(refreshed) : null;
      if (token !== null) {
        this.#refreshes++;
        return { token, expiresInMs: TOKEN_LIFE_MS };
      }
      // A refused refresh (the session ended): log in again below.
    }
    const response = await this.#login.request({
      method: 'POST',
      path: `${PLATFORM}/generatetoken`,
      headers: { Authorization: `Basic ${basic}` },
      // A repeated login only opens another session: safe to retry under throttling.
      idempotent: true,
    });
    if (response.status === 401 || response.status === 403)
      throw new HttpStatusError(
        `firepower: the FMC refused the login (HTTP ${response.status}); check the backend's Username and Password`,
        response.status,
      );
    const token = response.status >= 200 && response.status <= 299 ? this.#take(response) : null;
    if (token === null) throw this.#error('could not log in', response);
    this.#refreshes = 0;
    return { token, expiresInMs: TOKEN_LIFE_MS };
  }

  /** Takes the tokens and domain from a login or refresh answer: the access token, or null when missing. */
  #take(response: HttpResponse): string | null {
    const access = header(response, 'x-auth-access-token');
    const refresh = header(response, 'x-auth-refresh-token');
    const domain = header(response, 'domain_uuid');
    const domains = parseDomainsHeader(header(response, 'domains'));
    if (access === null) return null;
    this.#accessToken = access;
    if (refresh !== null) this.#refreshToken = refresh;
    if (domain !== null) this.#loginDomain = domain;
    if (domains.length > 0) this.#domains = domains;
    this.#loginSecrets.splice(2, this.#loginSecrets.length, access, ...(refresh === null ? [] : [refresh]));
    return this.#loginDomain === null && this.#domains.length === 0 ? null : access;
  }

  async #change(intent: VendorIntent, what: string, request: HttpRequest): Promise<ChangeResult> {
    const response = await this.http.request(request);
    if (isRefused(response)) throw this.#error(`could not ${what}`, response);
    const outcome = classifyVendorAnswer(intent, response, FMC_RULES);
    if (outcome === 'applied' || outcome === 'alreadyPresent' || outcome === 'alreadyAbsent')
      return { outcome, error: '' };
    return { outcome, error: this.#failure(`could not ${what}`, response) };
  }

  /**
   * A failed call as the error to throw: an HttpStatusError for a refused session or permission
   * (401/403: retrying cannot help until the backend's credentials or role change), else an Error.
   */
  #error(what: string, response: HttpResponse, detail?: string): Error {
    const message = this.#failure(what, response, detail);
    return isRefused(response) ? new HttpStatusError(message, response.status) : new Error(message);
  }

  /** A failed call's message: what failed and how the FMC answered (redacted). */
  #failure(what: string, response: HttpResponse, detail?: string): string {
    if (response.status === 401)
      return `firepower: ${what}: the FMC refused the session (HTTP 401) even after a new login`;
    if (response.status === 403)
      return `firepower: ${what}: the API user may not do this (HTTP 403); give it a role that can modify objects`;
    const text =
      detail !== undefined && response.status >= 200 && response.status <= 299
        ? detail
        : describeFmcAnswer({ status: response.status, body: response.body });
    return `firepower: ${what}: ${this.http.redact(text)}`;
  }

  /** A config call under the backend's domain, or the login's default (logging in first when needed). */
  async #request(method: HttpRequest['method'], path: string, query?: Record<string, string>): Promise<HttpRequest> {
    if (this.#loginDomain === null && this.#domains.length === 0) await this.session.authorize();
    const domain = chooseDomain(this.#wantedDomain, this.#domains, this.#loginDomain);
    return {
      method,
      path: `/api/fmc_config/v1/domain/${pathSegment(domain)}${path}`,
      ...(query === undefined ? {} : { query }),
    };
  }
}

/** The FMC refused the session (after the client's own new login) or the API user's permission. */
function isRefused(response: HttpResponse): boolean {
  return response.status === 401 || response.status === 403;
}

function header(response: HttpResponse, name: string): string | null {
  const value = response.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? null : text;
}

function describeValues(values: readonly string[]): string {
  return values.length === 1 ? (values[0] ?? '') : `${values.length} addresses`;
}
