/**
 * FAKE FortiOS (FortiGate REST API): a contract fake for the agent's FortiOS driver tests, NOT a
 * FortiGate. Written from the documented behaviour in ../shared/VENDORS.md section 1.1 (fortiosapi,
 * the Fortinet Ansible collection, terraform-provider-fortios issue #244), never from captured device
 * traffic. What it models:
 *
 * - `Authorization: Bearer <token>` on every request; a missing or wrong token answers 401.
 * - `/api/v2/cmdb/firewall/address` (IPv4, `subnet`) and `address6` (IPv6, `ip6`): POST creates, GET
 *   reads (one by name or all), DELETE removes.
 * - `addrgrp` / `addrgrp6` and their `member` sub-table: GET the group, GET `…/G/member[/N]`,
 *   POST `…/G/member` with `{name}`, DELETE `…/G/member/N`. A member must name an existing address
 *   object of the same family.
 * - A duplicate POST answers HTTP 500 with `"error": -5` (already exists); reading or deleting
 *   something absent answers 404 with `"error": -3`.
 * - `?vdom=V` selects the VDOM (default root); names are percent-encoded path segments.
 *
 * Choices of this fake that the documentation does not fix: an unknown VDOM answers 400 with error
 * -8, an invalid address value answers 500 with error -651, a member naming a missing object 500
 * with error -3, and removing a group's last member 500 with error -3200 (VENDORS.md 1.1 assumes that
 * FortiOS keeps a group from being empty; the built-in `none` object is the placeholder). Test switches: answer 429 (with Retry-After) or 503 for the next N calls, redirect
 * every call to another host, refuse one subnet, change the token.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

export type FortiosFamily = 'ipv4' | 'ipv6';

/** One request the fake received. */
export interface FortiosFakeRequest {
  method: string;
  /** Decoded path segments after /api/v2/cmdb/ (e.g. ['firewall', 'addrgrp', 'G', 'member']). */
  path: string;
  vdom: string;
  authorized: boolean;
}

interface AddressObject {
  name: string;
  subnet?: string;
  ip6?: string;
  type?: string;
}

interface Vdom {
  address: Map<string, AddressObject>;
  address6: Map<string, AddressObject>;
  addrgrp: Map<string, string[]>;
  addrgrp6: Map<string, string[]>;
}

export interface FortiosFakeOptions {
  token: string;
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string };
  /** VDOMs besides root. */
  vdoms?: readonly string[];
}

const ADDRESS_TABLE = { ipv4: 'address', ipv6: 'address6' } as const;
const GROUP_TABLE = { ipv4: 'addrgrp', ipv6: 'addrgrp6' } as const;

export class FortiosFake {
  readonly requests: FortiosFakeRequest[] = [];
  token: string;
  #server: LoopbackServer | null = null;
  readonly #vdoms = new Map<string, Vdom>();
  #throttle: { remaining: number; status: 429 | 503; retryAfter: string | null } | null = null;
  #redirect: string | null = null;
  readonly #refused = new Set<string>();
  #revision = 1;

  private constructor(options: FortiosFakeOptions) {
    this.token = options.token;
    for (const name of ['root', ...(options.vdoms ?? [])]) {
      // Every VDOM has FortiOS's built-in `none` objects (0.0.0.0/32 and ::/128), which open nothing.
      this.#vdoms.set(name, {
        address: new Map([['none', { name: 'none', subnet: '0.0.0.0 255.255.255.255' }]]),
        address6: new Map([['none', { name: 'none', ip6: '::/128' }]]),
        addrgrp: new Map(),
        addrgrp6: new Map(),
      });
    }
  }

  static async start(options: FortiosFakeOptions): Promise<FortiosFake> {
    const fake = new FortiosFake(options);
    fake.#server = await startLoopbackServer((req, res, body) => fake.#handle(req, res, body), options.tls);
    return fake;
  }

  /** `http(s)://127.0.0.1:<port>`. */
  get url(): string {
    if (this.#server === null) throw new Error('the FortiOS fake is not running');
    return this.#server.url;
  }

  async close(): Promise<void> {
    await this.#server?.close();
    this.#server = null;
  }

  /** Creates an address group holding these existing (or newly created, non-Postern) objects. */
  addGroup(name: string, options: { family?: FortiosFamily; vdom?: string; members?: readonly string[] } = {}): void {
    const family = options.family ?? 'ipv4';
    const vdom = this.#vdom(options.vdom ?? 'root');
    const members = [...(options.members ?? ['none'])];
    for (const member of members) {
      const table = vdom[ADDRESS_TABLE[family]];
      if (!table.has(member))
        table.set(member, { name: member, ...(family === 'ipv4' ? { subnet: '0.0.0.0 0.0.0.0' } : { ip6: '::/128' }) });
    }
    vdom[GROUP_TABLE[family]].set(name, members);
  }

  /** Adds an existing or new address object to a group, as an admin would by hand. */
  addMember(group: string, member: string, options: { family?: FortiosFamily; vdom?: string } = {}): void {
    const family = options.family ?? 'ipv4';
    const vdom = this.#vdom(options.vdom ?? 'root');
    const table = vdom[ADDRESS_TABLE[family]];
    if (!table.has(member)) table.set(member, { name: member });
    vdom[GROUP_TABLE[family]].get(group)?.push(member);
  }

  /**
   * Creates an address object as an admin would by hand: `value` is its subnet ("0.0.0.0 0.0.0.0",
   * as FortiOS shows one) or, for IPv6, its ip6; `type` defaults to ipmask for IPv4.
   */
  addAddress(
    name: string,
    value: string,
    options: { family?: FortiosFamily; vdom?: string; type?: string } = {},
  ): void {
    const family = options.family ?? 'ipv4';
    const object: AddressObject =
      family === 'ipv4' ? { name, type: options.type ?? 'ipmask', subnet: value } : { name, ip6: value };
    this.#vdom(options.vdom ?? 'root')[ADDRESS_TABLE[family]].set(name, object);
  }

  /** A group's member names, in order; null when the group does not exist. */
  members(group: string, options: { family?: FortiosFamily; vdom?: string } = {}): string[] | null {
    const members = this.#vdom(options.vdom ?? 'root')[GROUP_TABLE[options.family ?? 'ipv4']].get(group);
    return members === undefined ? null : [...members];
  }

  /** An address object, or undefined. */
  address(name: string, options: { family?: FortiosFamily; vdom?: string } = {}): AddressObject | undefined {
    return this.#vdom(options.vdom ?? 'root')[ADDRESS_TABLE[options.family ?? 'ipv4']].get(name);
  }

  /** The next `count` calls answer `status` (429 with Retry-After when given) instead of working. */
  throttle(count: number, status: 429 | 503, retryAfter: string | null = null): void {
    this.#throttle = count > 0 ? { remaining: count, status, retryAfter } : null;
  }

  /** Every call answers 302 to this URL (another host), or normally again with null. */
  redirectTo(url: string | null): void {
    this.#redirect = url;
  }

  /** Creating an address object with this subnet or ip6 value (as sent) answers 500 / -651. */
  refuseValue(value: string): void {
    this.#refused.add(value);
  }

  #vdom(name: string): Vdom {
    const vdom = this.#vdoms.get(name);
    if (vdom === undefined) throw new Error(`the FortiOS fake has no VDOM ${name}`);
    return vdom;
  }

  #handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const vdomName = url.searchParams.get('vdom') ?? 'root';
    const prefix = '/api/v2/cmdb/';
    const raw = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length).split('/') : null;
    let segments: string[] | null = null;
    try {
      segments = raw?.map((segment) => decodeURIComponent(segment)) ?? null;
    } catch {
      segments = null;
    }
    const authorized = req.headers.authorization === `Bearer ${this.token}`;
    this.requests.push({
      method: req.method ?? '',
      path: segments?.join('/') ?? url.pathname,
      vdom: vdomName,
      authorized,
    });
    const method = req.method ?? 'GET';
    const answer = (status: number, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      sendJson(
        res,
        status,
        {
          http_method: method,
          status: status === 200 ? 'success' : 'error',
          http_status: status,
          vdom: vdomName,
          path: segments?.[0] ?? '',
          name: segments?.[1] ?? '',
          serial: 'FGVMFAKE00000000',
          version: 'v7.4.4',
          build: 2662,
          ...extra,
        },
        headers,
      );

    if (this.#redirect !== null) {
      res.writeHead(302, { location: `${this.#redirect}${req.url ?? '/'}` });
      res.end();
      return;
    }
    if (!authorized) {
      answer(401);
      return;
    }
    if (this.#throttle !== null) {
      const { status, retryAfter } = this.#throttle;
      this.#throttle.remaining--;
      if (this.#throttle.remaining <= 0) this.#throttle = null;
      answer(status, {}, retryAfter === null ? {} : { 'retry-after': retryAfter });
      return;
    }
    const vdom = this.#vdoms.get(vdomName);
    if (vdom === undefined) {
      answer(400, { error: -8 });
      return;
    }
    if (segments === null || segments[0] !== 'firewall' || segments.some((segment) => segment === '')) {
      answer(404, { error: -3 });
      return;
    }
    let payload: Record<string, unknown> = {};
    if (body !== '') {
      try {
        payload = JSON.parse(body) as Record<string, unknown>;
      } catch {
        answer(400, { error: -1 });
        return;
      }
    }
    const [, table, name, sub, member, ...rest] = segments;
    if (rest.length > 0) {
      answer(404, { error: -3 });
      return;
    }
    if (table === 'address' || table === 'address6') {
      if (sub !== undefined) answer(404, { error: -3 });
      else this.#address(method, vdom, table, name, payload, answer);
      return;
    }
    if (table === 'addrgrp' || table === 'addrgrp6') {
      this.#group(method, vdom, table, name, sub, member, payload, answer);
      return;
    }
    answer(404, { error: -3 });
  }

  #address(
    method: string,
    vdom: Vdom,
    table: 'address' | 'address6',
    name: string | undefined,
    payload: Record<string, unknown>,
    answer: (status: number, extra?: Record<string, unknown>) => void,
  ): void {
    const objects = vdom[table];
    if (method === 'GET') {
      if (name === undefined) answer(200, { results: [...objects.values()] });
      else if (objects.has(name)) answer(200, { results: [objects.get(name)] });
      else answer(404, { error: -3 });
      return;
    }
    if (method === 'POST' && name === undefined) {
      const objectName = payload.name;
      const value = table === 'address' ? payload.subnet : payload.ip6;
      if (typeof objectName !== 'string' || objectName === '' || typeof value !== 'string') {
        answer(500, { error: -651 });
      } else if (objects.has(objectName)) {
        answer(500, { error: -5 });
      } else if (this.#refused.has(value) || !validValue(table, value)) {
        answer(500, { error: -651 });
      } else {
        objects.set(objectName, {
          name: objectName,
          ...(table === 'address' ? { type: 'ipmask', subnet: value } : { ip6: value }),
        });
        answer(200, { mkey: objectName, revision: String(this.#revision++) });
      }
      return;
    }
    if (method === 'DELETE' && name !== undefined) {
      if (!objects.delete(name)) answer(404, { error: -3 });
      else answer(200, { mkey: name });
      return;
    }
    answer(405, { error: -1 });
  }

  #group(
    method: string,
    vdom: Vdom,
    table: 'addrgrp' | 'addrgrp6',
    name: string | undefined,
    sub: string | undefined,
    member: string | undefined,
    payload: Record<string, unknown>,
    answer: (status: number, extra?: Record<string, unknown>) => void,
  ): void {
    const groups = vdom[table];
    const memberRow = (memberName: string) => ({ name: memberName, q_origin_key: memberName });
    if (name === undefined) {
      if (method === 'GET')
        answer(200, {
          results: [...groups].map(([group, members]) => ({ name: group, member: members.map(memberRow) })),
        });
      else answer(405, { error: -1 });
      return;
    }
    const members = groups.get(name);
    if (members === undefined) {
      answer(404, { error: -3 });
      return;
    }
    if (sub === undefined) {
      if (method === 'GET') answer(200, { results: [{ name, member: members.map(memberRow) }] });
      else answer(405, { error: -1 });
      return;
    }
    if (sub !== 'member') {
      answer(404, { error: -3 });
      return;
    }
    const index = member === undefined ? -1 : members.indexOf(member);
    if (method === 'GET') {
      if (member === undefined) answer(200, { results: members.map(memberRow) });
      else if (index >= 0) answer(200, { results: [memberRow(member)] });
      else answer(404, { error: -3 });
      return;
    }
    if (method === 'POST' && member === undefined) {
      const memberName = payload.name;
      const objects = vdom[table === 'addrgrp' ? 'address' : 'address6'];
      if (typeof memberName !== 'string' || !objects.has(memberName)) answer(500, { error: -3 });
      else if (members.includes(memberName)) answer(500, { error: -5 });
      else {
        members.push(memberName);
        answer(200, { mkey: memberName, revision: String(this.#revision++) });
      }
      return;
    }
    if (method === 'DELETE' && member !== undefined) {
      if (index < 0) answer(404, { error: -3 });
      else if (members.length === 1) answer(500, { error: -3200 });
      else {
        members.splice(index, 1);
        answer(200, { mkey: member });
      }
      return;
    }
    answer(405, { error: -1 });
  }
}

/** `a.b.c.d/len` or `a.b.c.d mask` for address; `addr/len` for address6. */
function validValue(table: 'address' | 'address6', value: string): boolean {
  if (table === 'address') return /^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2}| \d{1,3}(\.\d{1,3}){3})$/.test(value);
  return /^[0-9a-f:.]+\/\d{1,3}$/i.test(value);
}
