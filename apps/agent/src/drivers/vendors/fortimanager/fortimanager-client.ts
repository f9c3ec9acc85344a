import { HttpStatusError } from '../../http/http-status-error.js';
import { staticToken } from '../../http/auth/static-token.js';
import { HttpClient } from '../../http/http-client.js';
import { netmaskPrefixLength, parseAddress } from '../../addresses.js';
import type { VendorClientOptions } from '../../kit/vendor-client-options.js';
import type { VendorOutcome } from '../../kit/vendor-outcome.js';
import {
  describeFmgStatus,
  FMG_ALREADY_EXISTS,
  FMG_NOT_FOUND,
  type FmgAddress,
  FmgAddressList,
  FmgAnswer,
  FmgGlobal,
  FmgGroup,
  FmgPackages,
  type FmgResult,
  FmgTask,
  FmgTaskStarted,
} from './fortimanager-responses.js';

export type FmgFamily = 'ipv4' | 'ipv6';
export type FmgMethod = 'get' | 'add' | 'set' | 'update' | 'delete' | 'exec';

/** One operation of a call: a URL, its data, and for a `get` of a table an optional filter. */
export interface FmgParam {
  url: string;
  data?: unknown;
  filter?: readonly unknown[];
}

export interface FortimanagerClientOptions extends VendorClientOptions {
  apiKey: string;
  /** How often an install task is polled, and for how long at most. */
  pollMs?: number;
  installTimeoutMs?: number;
}

/** One operation's outcome, with a message fit for the grant's Error when it failed. */
export interface ChangeResult {
  outcome: VendorOutcome;
  error: string;
}

const ADDRESS_TABLE: Readonly<Record<FmgFamily, string>> = { ipv4: 'address', ipv6: 'address6' };
const GROUP_TABLE: Readonly<Record<FmgFamily, string>> = { ipv4: 'addrgrp', ipv6: 'addrgrp6' };

/** A name inside a JSON-RPC url: FortiManager writes a `/` in a name as `\/`. */
export function urlName(name: string): string {
  return name.replace(/\\/g, '\\\\').replace(/\//g, '\\/');
}

/**
 * FortiManager's JSON-RPC API (VENDORS.md 1.2): every call is `POST /jsonrpc` with a method and a
 * list of params, each answered with its own status. The API key goes as `Authorization: Bearer`
 * (FMG ≥ 7.2.2; never the removed `?access_token=`). A batch of addresses is one HTTP call with one
 * param per address, so each address gets its own answer and one bad one fails alone.
 *
 * Object and member adds are safe to repeat (a repeat is answered -2 "already exists" or changes
 * nothing), so they are marked idempotent and retried under throttling; exec calls (lock, commit,
 * install) are not.
 */
export class FortimanagerClient {
  readonly http: HttpClient;
  readonly #pollMs: number;
  readonly #installTimeoutMs: number;
  #id = 0;

  constructor(options: FortimanagerClientOptions) {
    this.#pollMs = options.pollMs ?? 2_000;
    this.#installTimeoutMs = options.installTimeoutMs ?? 10 * 60_000;
    this.http = new HttpClient({
      name: 'fortimanager',
      baseUrl: `https://${options.hostname}`,
      insecure: options.insecure,
      auth: staticToken({ token: options.apiKey }),
      logger: options.logger,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
  }

  /** Sends one JSON-RPC call; returns one result per param. Throws when no usable answer came. */
  async rpc(method: FmgMethod, params: readonly FmgParam[], what: string): Promise<FmgResult[]> {
    const request = {
      method: 'POST' as const,
      path: '/jsonrpc',
      body: { id: ++this.#id, method, params },
      idempotent: method !== 'exec',
    };
    const response = await this.http.request(request);
    if (response.status === 401)
      throw new HttpStatusError(
        `fortimanager: ${what}: the FortiManager refused the API key (HTTP 401); check the backend's ApiKey`,
        401,
      );
    const parsed = this.http.parse(request, response, FmgAnswer);
    if (!parsed.ok) throw new Error(`fortimanager: ${what}: ${parsed.error}`);
    if (parsed.data.result.length !== params.length)
      throw new Error(`fortimanager: ${what}: ${parsed.data.result.length} results for ${params.length} operations`);
    return parsed.data.result;
  }

  /** Whether the FortiManager runs in workspace mode (changes need an ADOM lock and a commit). */
  async workspaceMode(): Promise<boolean> {
    const [result] = await this.rpc('get', [{ url: '/cli/global/system/global' }], 'read the workspace mode');
    const data = FmgGlobal.safeParse(result?.data);
    const mode = data.success ? data.data['workspace-mode'] : undefined;
    return mode !== undefined && mode !== 'disabled' && mode !== 0;
  }

  /** The group's member names; null when there is no such group. */
  async groupMembers(family: FmgFamily, adom: string, group: string): Promise<string[] | null> {
    const what = `read address group ${group}`;
    const [result] = await this.rpc('get', [{ url: this.#groupUrl(family, adom, group) }], what);
    if (result === undefined || result.status.code === FMG_NOT_FOUND) return null;
    this.#check(result, what);
    const parsed = FmgGroup.safeParse(result.data);
    if (!parsed.success) throw new Error(`fortimanager: ${what}: unexpected answer`);
    return parsed.data.member;
  }

  /**
   * The ADOM's address objects whose names start with `prefix` (JSON-RPC `filter` with `like`), each
   * with the network it opens, canonical with its prefix length, or null for an object that is not
   * one plain address or network (a range, an FQDN, a wildcard). Throws when the table cannot be read.
   */
  async addressObjects(family: FmgFamily, adom: string, prefix: string): Promise<Map<string, string | null>> {
    const what = 'read the address objects';
    const url = `/pm/config/adom/${urlName(adom)}/obj/firewall/${ADDRESS_TABLE[family]}`;
    const [result] = await this.rpc('get', [{ url, filter: ['name', 'like', `${prefix}%`] }], what);
    if (result === undefined) throw new Error(`fortimanager: could not ${what}: no answer`);
    this.#check(result, what);
    const parsed = FmgAddressList.safeParse(result.data);
    if (!parsed.success) throw new Error(`fortimanager: could not ${what}: unexpected answer`);
    const objects = new Map<string, string | null>();
    for (const object of parsed.data) {
      if (object.name.startsWith(prefix)) objects.set(object.name, openedNetwork(family, object));
    }
    return objects;
  }

  /** Creates address objects, one param each: one result per object (-2 "already exists" is fine). */
  async createAddresses(
    family: FmgFamily,
    adom: string,
    objects: readonly { name: string; address: string; prefix: number }[],
  ): Promise<ChangeResult[]> {
    const url = `/pm/config/adom/${urlName(adom)}/obj/firewall/${ADDRESS_TABLE[family]}`;
    const params = objects.map((object) => ({
      url,
      data:
        family === 'ipv4'
          ? { name: object.name, subnet: [object.address, ipv4Mask(object.prefix)] }
          : { name: object.name, ip6: `${object.address}/${object.prefix}` },
    }));
    const results = await this.rpc('add', params, `create ${objects.length} address object(s)`);
    return results.map((result, i) => this.#change(result, 'add', `create address object ${objects[i]?.name ?? ''}`));
  }

  /** Adds members to the group's member sub-table (others kept), one param per name. */
  async addMembers(family: FmgFamily, adom: string, group: string, names: readonly string[]): Promise<ChangeResult[]> {
    return this.#members('add', family, adom, group, names);
  }

  /** Removes members (absent ones are fine), one param per name; the address objects are kept. */
  async deleteMembers(
    family: FmgFamily,
    adom: string,
    group: string,
    names: readonly string[],
  ): Promise<ChangeResult[]> {
    return this.#members('delete', family, adom, group, names);
  }

  /** `exec /dvmdb/adom/{adom}/workspace/{lock|commit|unlock}`; throws naming a lock held by someone else. */
  async workspace(adom: string, action: 'lock' | 'commit' | 'unlock'): Promise<void> {
    const what = `${action} ADOM ${adom}`;
    const [result] = await this.rpc('exec', [{ url: `/dvmdb/adom/${urlName(adom)}/workspace/${action}` }], what);
    if (result === undefined || result.status.code === 0) return;
    if (action === 'lock')
      throw new Error(
        `fortimanager: ADOM ${adom} is locked by another administrator (${describeFmgStatus(result.status)}); the change waits until it is unlocked`,
      );
    this.#check(result, what);
  }

  /** The ADOM's policy packages that are installed somewhere, with their scope. */
  async installedPackages(adom: string): Promise<{ name: string; scope: { name: string; vdom: string }[] }[]> {
    const what = `list the policy packages of ADOM ${adom}`;
    const [result] = await this.rpc('get', [{ url: `/pm/pkg/adom/${urlName(adom)}` }], what);
    if (result === undefined) return [];
    this.#check(result, what);
    const parsed = FmgPackages.safeParse(result.data ?? []);
    if (!parsed.success) throw new Error(`fortimanager: ${what}: unexpected answer`);
    return parsed.data
      .map((pkg) => ({
        name: pkg.name,
        scope: (pkg['scope member'] ?? []).map((member) => ({ name: member.name, vdom: member.vdom ?? 'root' })),
      }))
      .filter((pkg) => pkg.scope.length > 0);
  }

  /** Installs one policy package on its devices and waits for the task; throws with the reason. */
  async installPackage(adom: string, pkg: string, scope: readonly { name: string; vdom: string }[]): Promise<void> {
    const what = `install policy package ${pkg} of ADOM ${adom}`;
    const [started] = await this.rpc(
      'exec',
      [{ url: '/securityconsole/install/package', data: { adom, pkg, scope, flags: ['none'] } }],
      what,
    );
    if (started === undefined) throw new Error(`fortimanager: ${what}: no answer`);
    this.#check(started, what);
    const task = FmgTaskStarted.safeParse(started.data);
    if (!task.success) throw new Error(`fortimanager: ${what}: no task id in the answer`);
    const deadline = Date.now() + this.#installTimeoutMs;
    for (;;) {
      const [polled] = await this.rpc('get', [{ url: `/task/task/${String(task.data.task)}` }], `${what}: poll`);
      if (polled === undefined) throw new Error(`fortimanager: ${what}: no answer`);
      this.#check(polled, what);
      const state = FmgTask.safeParse(polled.data);
      if (!state.success) throw new Error(`fortimanager: ${what}: unexpected task answer`);
      if (state.data.percent >= 100) {
        if (state.data.num_err === 0) return;
        const detail = state.data.line?.map((line) => line.detail ?? '').find((d) => d !== '') ?? 'the task failed';
        throw new Error(`fortimanager: ${what}: ${this.http.redact(detail)}`);
      }
      if (Date.now() > deadline) throw new Error(`fortimanager: ${what}: not done after ${this.#installTimeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, this.#pollMs));
    }
  }

  close(): void {
    this.http.close();
  }

  async #members(
    op: 'add' | 'delete',
    family: FmgFamily,
    adom: string,
    group: string,
    names: readonly string[],
  ): Promise<ChangeResult[]> {
    const url = `${this.#groupUrl(family, adom, group)}/member`;
    const verb = op === 'add' ? 'add' : 'remove';
    const results = await this.rpc(
      op,
      names.map((name) => ({ url, data: [name] })),
      `${verb} ${names.length} member(s) of address group ${group}`,
    );
    return results.map((result, i) =>
      this.#change(result, op === 'add' ? 'add' : 'remove', `${verb} ${names[i] ?? ''} in address group ${group}`),
    );
  }

  #change(result: FmgResult, intent: 'add' | 'remove', what: string): ChangeResult {
    const { code } = result.status;
    if (code === 0) return { outcome: 'applied', error: '' };
    if (intent === 'add' && code === FMG_ALREADY_EXISTS) return { outcome: 'alreadyPresent', error: '' };
    if (intent === 'remove' && code === FMG_NOT_FOUND) return { outcome: 'alreadyAbsent', error: '' };
    return {
      outcome: 'fatal',
      error: `fortimanager: could not ${what}: ${this.http.redact(describeFmgStatus(result.status))}`,
    };
  }

  #check(result: FmgResult, what: string): void {
    if (result.status.code !== 0)
      throw new Error(`fortimanager: could not ${what}: ${this.http.redact(describeFmgStatus(result.status))}`);
  }

  #groupUrl(family: FmgFamily, adom: string, group: string): string {
    return `/pm/config/adom/${urlName(adom)}/obj/firewall/${GROUP_TABLE[family]}/${urlName(group)}`;
  }
}

/** `255.255.255.0` for 24. */
export function ipv4Mask(prefix: number): string {
  const bits = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (bits >>> shift) & 0xff).join('.');
}

/**
 * The network an ADOM address object opens, canonical with its prefix length ("203.0.113.7/32"), or
 * null when it is not one plain address or network. FortiManager answers an IPv4 `subnet` as
 * `[address, netmask]`; IPv6 objects carry `ip6` as `address/length`.
 */
function openedNetwork(family: FmgFamily, object: FmgAddress): string | null {
  if (family === 'ipv6') return typeof object.ip6 === 'string' ? (parseAddress(object.ip6)?.cidr ?? null) : null;
  const type = object.type ?? 'ipmask';
  if ((type !== 'ipmask' && type !== 0) || !Array.isArray(object.subnet) || object.subnet.length !== 2) return null;
  const [address, mask] = object.subnet;
  const length = typeof mask === 'string' ? netmaskPrefixLength(mask) : null;
  return typeof address === 'string' && length !== null ? (parseAddress(`${address}/${length}`)?.cidr ?? null) : null;
}
