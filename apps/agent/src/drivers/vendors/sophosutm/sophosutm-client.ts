import type { Logger } from 'pino';
import type { z } from 'zod';
import { staticToken } from '../../http/auth/static-token.js';
import { HttpClient, pathSegment, type HttpRequest } from '../../http/http-client.js';
import type { RetryPolicy } from '../../http/retry.js';
import { sophosBaseUrl } from '../sophos/sophos-base-url.js';
import { UtmGroup, UtmGroupList, UtmObject, UtmObjectList, utmErrorText } from './sophosutm-responses.js';

/** The two kinds of network object the driver writes: a single host, or a network with a prefix. */
export type UtmObjectKind = 'host' | 'network';

export interface SophosUtmClientOptions {
  /** The backend's Hostname (`host` or `host:port`; port 4444 when none). */
  hostname: string;
  insecure: boolean;
  apiKey: string;
  logger: Logger;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

/** A network object as the driver sees it. */
export type UtmObject = z.output<typeof UtmObject>;
export type UtmGroup = z.output<typeof UtmGroup>;

const OBJECTS = '/api/objects/network';

/**
 * The Sophos UTM 9 restd calls the driver needs (VENDORS.md 1.5): Basic auth with the user name
 * `token` and the API token as password (ansible's utm_utils), network host/network objects created
 * with POST (the answer carries `_ref`), the group's `members` array replaced with PATCH, objects
 * deleted with `X-Restd-Err-Ack: all`, which acknowledges restd's confirmations.
 *
 * restd allows two objects of one name, so a create is never repeated after it left the agent: the
 * driver looks objects up by name first, and a lost answer is found by name on the next call. A
 * PATCH of the whole member list and a DELETE are safe to repeat.
 */
export class SophosUtmClient {
  readonly http: HttpClient;

  constructor(options: SophosUtmClientOptions) {
    const basic = Buffer.from(`token:${options.apiKey}`).toString('base64');
    this.http = new HttpClient({
      name: 'sophosutm',
      baseUrl: sophosBaseUrl(options.hostname),
      insecure: options.insecure,
      // The header carries the key base64-encoded; both spellings are kept out of errors and logs.
      auth: staticToken({ token: basic, scheme: 'Basic' }),
      secrets: [options.apiKey],
      logger: options.logger,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
  }

  /** The group, or null when there is no group with this reference. Throws when it cannot be read. */
  async group(ref: string): Promise<UtmGroup | null> {
    const request: HttpRequest = { method: 'GET', path: `${OBJECTS}/group/${pathSegment(ref)}` };
    const response = await this.http.request(request);
    if (response.status === 404) return null;
    const parsed = this.http.parse(request, response, UtmGroup);
    if (!parsed.ok)
      throw new Error(this.#failure(`could not read network group ${ref}`, parsed.status, parsed.body, parsed.error));
    return parsed.data;
  }

  /** Every network group (to tell whether an object is still used elsewhere before deleting it). */
  async groups(): Promise<UtmGroup[]> {
    return this.#list('group/', UtmGroupList, 'could not read the network groups');
  }

  /** Every object of a kind. */
  async objects(kind: UtmObjectKind): Promise<UtmObject[]> {
    return this.#list(`${kind}/`, UtmObjectList, `could not read the network ${kind} objects`);
  }

  /** Creates an object; its `_ref`. Throws with restd's reason when refused. */
  async create(kind: UtmObjectKind, body: Record<string, unknown>, what: string): Promise<string> {
    const request: HttpRequest = { method: 'POST', path: `${OBJECTS}/${kind}/`, body };
    const response = await this.http.request(request);
    const parsed = this.http.parse(request, response, UtmObject);
    if (!parsed.ok)
      throw new Error(this.#failure(`could not create ${what}`, parsed.status, parsed.body, parsed.error));
    return parsed.data._ref;
  }

  /** Replaces the group's member list (read-modify-write: the caller holds the group's queue). */
  async setMembers(ref: string, members: readonly string[]): Promise<void> {
    const request: HttpRequest = {
      method: 'PATCH',
      path: `${OBJECTS}/group/${pathSegment(ref)}`,
      body: { members },
      idempotent: true,
    };
    const response = await this.http.request(request);
    const parsed = this.http.parse(request, response, UtmGroup);
    if (!parsed.ok)
      throw new Error(this.#failure(`could not update network group ${ref}`, parsed.status, parsed.body, parsed.error));
  }

  /** Deletes an object (absent is fine), acknowledging restd's confirmations. */
  async delete(kind: UtmObjectKind, ref: string): Promise<void> {
    const response = await this.http.request({
      method: 'DELETE',
      path: `${OBJECTS}/${kind}/${pathSegment(ref)}`,
      headers: { 'X-Restd-Err-Ack': 'all' },
    });
    if (response.status === 404 || (response.status >= 200 && response.status <= 299)) return;
    throw new Error(this.#failure(`could not delete network ${kind} ${ref}`, response.status, response.body));
  }

  close(): void {
    this.http.close();
  }

  async #list<S extends z.ZodType>(path: string, schema: S, what: string): Promise<z.output<S>> {
    const request: HttpRequest = { method: 'GET', path: `${OBJECTS}/${path}` };
    const response = await this.http.request(request);
    const parsed = this.http.parse(request, response, schema);
    if (!parsed.ok) throw new Error(this.#failure(what, parsed.status, parsed.body, parsed.error));
    return parsed.data;
  }

  /** A failed call's message: what failed, how restd answered, and what a 401/403 means. */
  #failure(what: string, status: number, body: unknown, detail?: string): string {
    if (status === 401)
      return `sophosutm: ${what}: the UTM refused the API token (HTTP 401); check the backend's ApiKey`;
    if (status === 403)
      return `sophosutm: ${what}: the API token may not do this (HTTP 403); its user needs write access to network objects`;
    if (detail !== undefined && status >= 200 && status <= 299) return `sophosutm: ${what}: ${detail}`;
    const text = this.http.redact(utmErrorText(body));
    return `sophosutm: ${what}: HTTP ${status}${text === '' ? '' : `: ${text}`}`;
  }
}
