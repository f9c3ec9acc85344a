import type { Logger } from 'pino';
import { staticToken } from '../../http/auth/static-token.js';
import { HttpClient, pathSegment, type HttpRequest } from '../../http/http-client.js';
import { HttpStatusError } from '../../http/http-status-error.js';
import type { RetryPolicy } from '../../http/retry.js';
import { classifyVendorAnswer, type VendorIntent, type VendorOutcome } from '../../kit/vendor-outcome.js';
import { netmaskPrefixLength, parseAddress } from '../../addresses.js';
import {
  describeFortiosAnswer,
  FORTIOS_RULES,
  FortiosAddressListAnswer,
  FortiosGroupAnswer,
  FortiosWriteAnswer,
} from './fortios-responses.js';

export type FortiosFamily = 'ipv4' | 'ipv6';

const ADDRESS_TABLE: Readonly<Record<FortiosFamily, string>> = { ipv4: 'address', ipv6: 'address6' };
const GROUP_TABLE: Readonly<Record<FortiosFamily, string>> = { ipv4: 'addrgrp', ipv6: 'addrgrp6' };
const CMDB = '/api/v2/cmdb/firewall';

export interface FortiosClientOptions {
  url: string;
  insecure: boolean;
  token: string;
  /** '' for the default VDOM (no vdom parameter). */
  vdom: string;
  logger: Logger;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

/** What one change did: its outcome, and for anything but done a message fit for the grant's Error. */
export interface ChangeResult {
  outcome: VendorOutcome;
  error: string;
}

/** A group's members, or null when the group does not exist. */
export type GroupMembers = string[] | null;

/**
 * The FortiGate REST calls the driver needs (VENDORS.md 1.1): address objects in `address` /
 * `address6`, membership through the group's `member` sub-table (never a whole-group PUT, which
 * replaces every member), names percent-encoded, the VDOM as a query parameter, and the API token
 * as a bearer header (never the `access_token` parameter, which ends up in logs).
 *
 * Creating an object or a membership is safe to repeat (a repeat is answered -5, "already exists",
 * and counts as done), so those POSTs are marked idempotent and may be retried under throttling.
 */
export class FortiosClient {
  readonly http: HttpClient;
  readonly #vdom: string;

  constructor(options: FortiosClientOptions) {
    this.#vdom = options.vdom;
    this.http = new HttpClient({
      name: 'fortios',
      baseUrl: options.url,
      insecure: options.insecure,
      auth: staticToken({ token: options.token }),
      logger: options.logger,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
  }

  /** The group's member names; null when there is no such group. Throws when the device cannot be read. */
  async groupMembers(family: FortiosFamily, group: string): Promise<GroupMembers> {
    const request = this.#request('GET', `/${GROUP_TABLE[family]}/${pathSegment(group)}`);
    const response = await this.http.request(request);
    if (response.status === 404) return null;
    const parsed = this.http.parse(request, response, FortiosGroupAnswer);
    if (!parsed.ok)
      throw new HttpStatusError(
        this.#failure(`could not read address group ${group}`, response.status, response.body, parsed.error),
        response.status,
      );
    return parsed.data.results[0]?.member.map((member) => member.name) ?? [];
  }

  /**
   * The address objects whose names contain `prefix` (FortiOS's `=@` filter; the caller checks that
   * each name starts with it), each with the network it opens (`cidr`, canonical, always with its
   * prefix length), or null for an object that is not one plain address or network (a range, an
   * FQDN, a wildcard). Throws when the table cannot be read.
   */
  async addressObjects(family: FortiosFamily, prefix: string): Promise<Map<string, string | null>> {
    const table = this.#request('GET', `/${ADDRESS_TABLE[family]}`);
    const request: HttpRequest = { ...table, query: { ...table.query, filter: `name=@${prefix}` } };
    const response = await this.http.request(request);
    const parsed = this.http.parse(request, response, FortiosAddressListAnswer);
    if (!parsed.ok)
      throw new HttpStatusError(
        this.#failure('could not read the address objects', response.status, response.body, parsed.error),
        response.status,
      );
    const objects = new Map<string, string | null>();
    for (const object of parsed.data.results) objects.set(object.name, openedNetwork(family, object));
    return objects;
  }

  /** Creates an address object for one address or network (`cidr` always with its prefix). */
  createAddress(family: FortiosFamily, name: string, cidr: string): Promise<ChangeResult> {
    const body = family === 'ipv4' ? { name, type: 'ipmask', subnet: cidr } : { name, ip6: cidr };
    return this.#change('add', `create address object ${name}`, {
      ...this.#request('POST', `/${ADDRESS_TABLE[family]}`),
      body,
      idempotent: true,
    });
  }

  /** Adds an existing address object to the group's member sub-table. */
  addMember(family: FortiosFamily, group: string, name: string): Promise<ChangeResult> {
    return this.#change('add', `add ${name} to address group ${group}`, {
      ...this.#request('POST', `/${GROUP_TABLE[family]}/${pathSegment(group)}/member`),
      body: { name },
      idempotent: true,
    });
  }

  /** Removes one member from the group (the address object is kept for reuse). */
  deleteMember(family: FortiosFamily, group: string, name: string): Promise<ChangeResult> {
    return this.#change('remove', `remove ${name} from address group ${group}`, {
      ...this.#request('DELETE', `/${GROUP_TABLE[family]}/${pathSegment(group)}/member/${pathSegment(name)}`),
    });
  }

  close(): void {
    this.http.close();
  }

  async #change(intent: VendorIntent, what: string, request: HttpRequest): Promise<ChangeResult> {
    const response = await this.http.request(request);
    const outcome = classifyVendorAnswer(intent, response, FORTIOS_RULES);
    if (outcome === 'applied') {
      const parsed = this.http.parse(request, response, FortiosWriteAnswer);
      if (!parsed.ok) return { outcome: 'fatal', error: `fortios: could not ${what}: ${parsed.error}` };
    }
    if (outcome === 'applied' || outcome === 'alreadyPresent' || outcome === 'alreadyAbsent')
      return { outcome, error: '' };
    const error = this.#failure(`could not ${what}`, response.status, response.body);
    // A refused token fails every change of the call alike, and no retry helps until it is replaced.
    if (response.status === 401 || response.status === 403) throw new HttpStatusError(error, response.status);
    return { outcome, error };
  }

  /** A failed call's message: what failed, how FortiOS answered, and what a 401 means. */
  #failure(what: string, status: number, body: unknown, detail?: string): string {
    if (status === 401)
      return `fortios: ${what}: the FortiGate refused the API token (HTTP 401); check the backend's Bearer token`;
    if (status === 403)
      return `fortios: ${what}: the API token may not do this (HTTP 403); its admin profile needs firewall address read/write`;
    const answer = describeFortiosAnswer({ status, body });
    return `fortios: ${what}: ${detail !== undefined && status >= 200 && status <= 299 ? detail : answer}`;
  }

  #request(method: HttpRequest['method'], path: string): HttpRequest {
    return { method, path: `${CMDB}${path}`, ...(this.#vdom === '' ? {} : { query: { vdom: this.#vdom } }) };
  }
}

/**
 * The network an address object opens, canonical with its prefix length ("203.0.113.7/32"), or null
 * when it is not one plain address or network. FortiOS shows an IPv4 subnet as address and netmask
 * ("203.0.113.7 255.255.255.255"); the slash form is what a write sends.
 */
function openedNetwork(family: FortiosFamily, object: { type?: string; subnet?: string; ip6?: string }): string | null {
  if (family === 'ipv6') return object.ip6 === undefined ? null : (parseAddress(object.ip6)?.cidr ?? null);
  if ((object.type ?? 'ipmask') !== 'ipmask' || object.subnet === undefined) return null;
  const [address, mask, ...rest] = object.subnet.trim().split(/\s+/);
  if (address === undefined || rest.length > 0) return null;
  if (mask === undefined) return address.includes('/') ? (parseAddress(address)?.cidr ?? null) : null;
  const length = netmaskPrefixLength(mask);
  return length === null ? null : (parseAddress(`${address}/${length}`)?.cidr ?? null);
}
