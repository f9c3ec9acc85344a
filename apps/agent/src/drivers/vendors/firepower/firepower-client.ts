import type { Logger } from 'pino';
import { SessionLogin, type LoginResult } from '../../http/auth/session-login.js';
import { HttpClient, pathSegment, type HttpRequest, type HttpResponse } from '../../http/http-client.js';
import type { RetryPolicy } from '../../http/retry.js';
import { classifyVendorAnswer, type VendorIntent, type VendorOutcome } from '../../vendor-outcome.js';
import {
  describeFmcAnswer,
  FMC_RULES,
  FmcDeployableDevices,
  FmcMappingsPage,
  FmcNetworkGroup,
  FmcObject,
} from './firepower-responses.js';

export interface FirepowerClientOptions {
  /** The backend's Hostname (`host` or `host:port`); the API is always https. */
  hostname: string;
  insecure: boolean;
  username: string;
  password: string;
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

const PLATFORM = '/api/fmc_platform/v1/auth';
/** FMC's access tokens last 30 minutes (Cisco 215918). */
const TOKEN_LIFE_MS = 30 * 60_000;
/** A refresh token serves 3 refreshes; then a new login (fireREST's refresh counter). */
const MAX_REFRESHES = 3;
/** At most 1,000 entries per bulk request (Cisco 215972); also the largest page FMC serves. */
export const FMC_BULK_LIMIT = 1000;

/**
 * The FMC REST calls the driver needs (VENDORS.md 1.4). Auth: `POST …/generatetoken` with Basic auth
 * gives `X-auth-access-token` (30 min), `X-auth-refresh-token` and `DOMAIN_UUID`; a token close to
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
  #domain: string | null = null;
  #refreshToken: string | null = null;
  #accessToken: string | null = null;
  #refreshes = 0;

  constructor(options: FirepowerClientOptions) {
    const baseUrl = `https://${options.hostname}`;
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
      if (!parsed.ok) throw new Error(this.#failure(`could not look up object ${uuid}`, response, parsed.error));
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
      if (!parsed.ok) throw new Error(this.#failure(`could not read dynamic object ${uuid}`, response, parsed.error));
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
    if (!parsed.ok) throw new Error(this.#failure(`could not read network group ${uuid}`, response, parsed.error));
    return parsed.data;
  }

  /** Writes the whole network group back (FMC has no partial update for its literals). */
  async putNetworkGroup(group: FmcNetworkGroup, what: string): Promise<ChangeResult> {
    const request = await this.#request('PUT', `/object/networkgroups/${pathSegment(group.id)}`);
    return this.#change('add', `${what} in network group ${group.id}`, { ...request, body: group });
  }

  /**
   * Deploys every device FMC lists as having changes waiting. Resolves once FMC accepted the request
   * (the deployment itself takes minutes and is not waited for). Throws with the reason otherwise.
   */
  async deploy(): Promise<number> {
    const list = await this.#request('GET', '/deployment/deployabledevices', { expanded: 'true' });
    const response = await this.http.request(list);
    const parsed = this.http.parse(list, response, FmcDeployableDevices);
    if (!parsed.ok) throw new Error(this.#failure('could not list deployable devices', response, parsed.error));
    const devices = parsed.data.items.map((item) => item.device.id);
    if (devices.length === 0) return 0;
    const versions = parsed.data.items.map((item) => Number(item.version ?? 0)).filter((v) => Number.isFinite(v));
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
      throw new Error(this.#failure(`could not deploy to ${devices.length} device(s)`, deployed));
    return devices.length;
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
      throw new Error(
        `firepower: the FMC refused the login (HTTP ${response.status}); check the backend's Username and Password`,
      );
    const token = response.status >= 200 && response.status <= 299 ? this.#take(response) : null;
    if (token === null) throw new Error(this.#failure('could not log in', response));
    this.#refreshes = 0;
    return { token, expiresInMs: TOKEN_LIFE_MS };
  }

  /** Takes the tokens and domain from a login or refresh answer: the access token, or null when missing. */
  #take(response: HttpResponse): string | null {
    const access = header(response, 'x-auth-access-token');
    const refresh = header(response, 'x-auth-refresh-token');
    const domain = header(response, 'domain_uuid');
    if (access === null) return null;
    this.#accessToken = access;
    if (refresh !== null) this.#refreshToken = refresh;
    if (domain !== null) this.#domain = domain;
    this.#loginSecrets.splice(2, this.#loginSecrets.length, access, ...(refresh === null ? [] : [refresh]));
    return this.#domain === null ? null : access;
  }

  async #change(intent: VendorIntent, what: string, request: HttpRequest): Promise<ChangeResult> {
    const response = await this.http.request(request);
    const outcome = classifyVendorAnswer(intent, response, FMC_RULES);
    if (outcome === 'applied' || outcome === 'alreadyPresent' || outcome === 'alreadyAbsent')
      return { outcome, error: '' };
    return { outcome, error: this.#failure(`could not ${what}`, response) };
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

  /** A config call under the domain the login named (logging in first when needed). */
  async #request(method: HttpRequest['method'], path: string, query?: Record<string, string>): Promise<HttpRequest> {
    if (this.#domain === null) await this.session.authorize();
    if (this.#domain === null) throw new Error('firepower: the FMC login named no domain (DOMAIN_UUID)');
    return {
      method,
      path: `/api/fmc_config/v1/domain/${pathSegment(this.#domain)}${path}`,
      ...(query === undefined ? {} : { query }),
    };
  }
}

function header(response: HttpResponse, name: string): string | null {
  const value = response.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? null : text;
}

function describeValues(values: readonly string[]): string {
  return values.length === 1 ? (values[0] ?? '') : `${values.length} addresses`;
}
