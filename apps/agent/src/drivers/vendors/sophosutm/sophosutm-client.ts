import type { Logger } from 'pino';
import type { z } from 'zod';
import { staticToken } from '../../http/auth/static-token.js';
import { HttpStatusError } from '../../http/http-status-error.js';
import { HttpClient, pathSegment, type HttpRequest } from '../../http/http-client.js';
import type { VendorClientOptions } from '../../kit/vendor-client-options.js';
import { sophosBaseUrl } from '../sophos/sophos-base-url.js';
import { UtmGroup, UtmGroupList, UtmObject, UtmObjectList, utmErrorText } from './sophosutm-responses.js';

/** The two kinds of network object the driver writes: a single host, or a network with a prefix. */
export type UtmObjectKind = 'host' | 'network';

export interface SophosUtmClientOptions extends VendorClientOptions {
  /** The backend's Hostname (`host` or `host:port`; port 4444 when none). */
  hostname: string;
  apiKey: string;
}

/** A network object as the driver sees it. */
export type UtmObject = z.output<typeof UtmObject>;
export type UtmGroup = z.output<typeof UtmGroup>;

const OBJECTS = '/api/objects/network';

/**
 * The member Postern keeps in a network group the UTM refuses to leave empty (no documentation says
 * whether restd accepts `members: []`; this is used only when it refuses). Its name carries Postern's
 * `kk_` marker but no address, so it is never read as a grant; it is a host at 255.255.255.255, the
 * limited broadcast address, which is never a packet's source and is never forwarded (RFC 1122
 * 3.2.1.3, RFC 1812 5.3.7), so it opens nothing. It leaves the group with the next grant and is kept
 * on the UTM for reuse.
 */
export const UTM_PLACEHOLDER = { name: 'kk_postern-placeholder', address: '255.255.255.255' } as const;

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
  readonly #logger: Logger;
  /** The placeholder's `_ref`, once seen in a listing or made. */
  #placeholder: string | null = null;

  constructor(options: SophosUtmClientOptions) {
    this.#logger = options.logger;
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
      throw new HttpStatusError(
        this.#failure(`could not read network group ${ref}`, parsed.status, parsed.body, parsed.error),
        parsed.status,
      );
    return parsed.data;
  }

  /** Every network group (to tell whether an object is still used elsewhere before deleting it). */
  async groups(): Promise<UtmGroup[]> {
    return this.#list('group/', UtmGroupList, 'could not read the network groups');
  }

  /** Every object of a kind (the placeholder among them; `isUtmPlaceholder` tells it). */
  async objects(kind: UtmObjectKind): Promise<UtmObject[]> {
    const objects = await this.#list(`${kind}/`, UtmObjectList, `could not read the network ${kind} objects`);
    if (kind === 'host') this.#placeholder = objects.find(isOwnPlaceholder)?._ref ?? this.#placeholder;
    return objects;
  }

  /** The placeholder's `_ref` when this client has seen it (in `objects('host')`, or by making it). */
  get placeholderRef(): string | null {
    return this.#placeholder;
  }

  /** Creates an object; its `_ref`. Throws with restd's reason when refused. */
  async create(kind: UtmObjectKind, body: Record<string, unknown>, what: string): Promise<string> {
    const request: HttpRequest = { method: 'POST', path: `${OBJECTS}/${kind}/`, body };
    const response = await this.http.request(request);
    const parsed = this.http.parse(request, response, UtmObject);
    if (!parsed.ok)
      throw new HttpStatusError(
        this.#failure(`could not create ${what}`, parsed.status, parsed.body, parsed.error),
        parsed.status,
      );
    return parsed.data._ref;
  }

  /**
   * Replaces the group's member list (read-modify-write: the caller holds the group's queue) with
   * PATCH, which restd documents as changing parts of an object (PUT "creates or updates the
   * complete object", so it would need every attribute of the group). The members actually written:
   * the placeholder leaves a list that has other members; and when the UTM refuses an empty list
   * (400/422), the group gets the placeholder instead (made once, found by name), never nothing.
   */
  async setMembers(ref: string, members: readonly string[]): Promise<string[]> {
    const placeholder = this.#placeholder;
    let list = [...members];
    if (placeholder !== null && list.some((member) => member !== placeholder))
      list = list.filter((member) => member !== placeholder);
    let answer = await this.#patchMembers(ref, list);
    if (!answer.ok && list.length === 0 && (answer.status === 400 || answer.status === 422)) {
      const refusal = this.http.redact(utmErrorText(answer.body));
      list = [await this.placeholder()];
      this.#logger.info(
        { group: ref, refusal },
        `sophosutm refuses an empty network group; Postern keeps its placeholder ${UTM_PLACEHOLDER.name} (${UTM_PLACEHOLDER.address}) in it`,
      );
      answer = await this.#patchMembers(ref, list);
    }
    if (!answer.ok)
      throw new HttpStatusError(
        this.#failure(`could not update network group ${ref}`, answer.status, answer.body, answer.error),
        answer.status,
      );
    return list;
  }

  /** The placeholder host's `_ref`: found by name, else made. */
  async placeholder(): Promise<string> {
    if (this.#placeholder !== null) return this.#placeholder;
    const named = (await this.objects('host')).filter(isUtmPlaceholder);
    if (this.#placeholder !== null) return this.#placeholder;
    // One under the name that opens something else was not made by Postern: never put it in a group.
    if (named.length > 0)
      throw new Error(
        `sophosutm: network host ${UTM_PLACEHOLDER.name} exists but does not hold only ${UTM_PLACEHOLDER.address}; Postern keeps it in groups the UTM refuses to leave empty, so correct or delete it on the UTM`,
      );
    this.#placeholder = await this.create(
      'host',
      {
        name: UTM_PLACEHOLDER.name,
        address: UTM_PLACEHOLDER.address,
        comment: 'Postern: keeps this group from being empty; opens nothing',
      },
      `network host ${UTM_PLACEHOLDER.name}`,
    );
    return this.#placeholder;
  }

  async #patchMembers(ref: string, members: readonly string[]) {
    const request: HttpRequest = {
      method: 'PATCH',
      path: `${OBJECTS}/group/${pathSegment(ref)}`,
      body: { members },
      idempotent: true,
    };
    return this.http.parse(request, await this.http.request(request), UtmGroup);
  }

  /** Deletes an object (absent is fine), acknowledging restd's confirmations. */
  async delete(kind: UtmObjectKind, ref: string): Promise<void> {
    const response = await this.http.request({
      method: 'DELETE',
      path: `${OBJECTS}/${kind}/${pathSegment(ref)}`,
      headers: { 'X-Restd-Err-Ack': 'all' },
    });
    if (response.status === 404 || (response.status >= 200 && response.status <= 299)) return;
    throw new HttpStatusError(
      this.#failure(`could not delete network ${kind} ${ref}`, response.status, response.body),
      response.status,
    );
  }

  close(): void {
    this.http.close();
  }

  async #list<S extends z.ZodType>(path: string, schema: S, what: string): Promise<z.output<S>> {
    const request: HttpRequest = { method: 'GET', path: `${OBJECTS}/${path}` };
    const response = await this.http.request(request);
    const parsed = this.http.parse(request, response, schema);
    if (!parsed.ok)
      throw new HttpStatusError(this.#failure(what, parsed.status, parsed.body, parsed.error), parsed.status);
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

/** Whether an object is Postern's placeholder (by name: `kk_postern-placeholder`, never a grant). */
export function isUtmPlaceholder(object: Pick<UtmObject, 'name'>): boolean {
  return object.name === UTM_PLACEHOLDER.name;
}

/** The placeholder as Postern makes it: the name, IPv4 255.255.255.255, no IPv6 address. */
function isOwnPlaceholder(object: UtmObject): boolean {
  const { address, address6 } = object as { address?: unknown; address6?: unknown };
  return isUtmPlaceholder(object) && address === UTM_PLACEHOLDER.address && (address6 ?? '::') === '::';
}
