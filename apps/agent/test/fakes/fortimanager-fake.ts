/**
 * FAKE FortiManager (JSON-RPC API): a contract fake for the agent's FortiManager driver tests, NOT a
 * FortiManager. Written from the documented behaviour in ../shared/VENDORS.md section 1.2
 * (jpforcioli/github_howto_jsonrpc_api files 001 and 002, the XSOAR FortiManager integration's
 * workspace URLs), never from captured device traffic. What it models:
 *
 * - One endpoint, `POST /jsonrpc`, with `{id, method, params:[{url, data}, …]}`; the answer is
 *   `{id, result:[{status:{code,message}, url, data?}, …]}`, one result per param, in order.
 * - `Authorization: Bearer <API key>` (FMG ≥ 7.2.2).
 * - ADOM objects: `add`/`get`/`delete` on `/pm/config/adom/{adom}/obj/firewall/address` and
 *   `address6` (`{name, subnet:[ip, mask]}` / `{name, ip6}`); `get` on `…/addrgrp/{G}` (and
 *   `addrgrp6`) gives the group with `member` as a list of names; `add`/`delete` on
 *   `…/addrgrp/{G}/member` with a list of names changes members without overwriting the others.
 *   A `/` inside a name in a URL is written `\/`.
 * - Status codes: 0 OK, -2 object already exists, -3 object does not exist.
 * - The change is not live on the FortiGates until installed: `exec /securityconsole/install/package`
 *   with `{adom, pkg, scope}` returns a task id, polled with `get /task/task/{id}`. Policy packages
 *   are listed with `get /pm/pkg/adom/{adom}`.
 * - Workspace mode (`get /cli/global/system/global` field `workspace-mode`): writes need
 *   `exec /dvmdb/adom/{adom}/workspace/lock`, then `…/commit` and `…/unlock`; an ADOM locked by a
 *   GUI admin refuses them.
 *
 * Choices of this fake that the documentation does not fix: a wrong or missing API key answers HTTP
 * 401 (no JSON-RPC body); a write to a workspace-mode ADOM without the lock answers -20055; an invalid
 * address value answers -10; deleting a member name that is not in the group is ignored; a delete that would leave the group
 * without members answers -10 (as FortiOS, a group keeps at least one; `none` is the placeholder); the install
 * task is done at once (percent 100) unless told to take some polls or to fail. Test switches: 429 (with Retry-After) for
 * the next N calls, redirect every call to another host, refuse one address value, change the key,
 * workspace mode, a lock held by another admin, failing installs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

export type FmgFamily = 'ipv4' | 'ipv6';

interface Param {
  url?: unknown;
  data?: unknown;
}

interface Adom {
  address: Map<string, Record<string, unknown>>;
  address6: Map<string, Record<string, unknown>>;
  addrgrp: Map<string, string[]>;
  addrgrp6: Map<string, string[]>;
  packages: { name: string; scope: { name: string; vdom: string }[] }[];
  /** Objects changed since the last install. */
  dirty: boolean;
}

export interface FortimanagerFakeOptions {
  apiKey: string;
  tls?: { key: string; cert: string };
  adoms?: readonly string[];
}

export interface FortimanagerFakeCall {
  method: string;
  url: string;
  data: unknown;
}

const OK = { code: 0, message: 'OK' };

export class FortimanagerFake {
  apiKey: string;
  /** Every JSON-RPC param received (one per operation). */
  readonly calls: FortimanagerFakeCall[] = [];
  /** HTTP requests received. */
  httpRequests = 0;
  /** Installs made: ADOM and package. */
  readonly installs: { adom: string; pkg: string }[] = [];
  workspaceMode = false;
  /** An admin holding the ADOM lock in the GUI (workspace mode). */
  lockedBy: string | null = null;
  installFailure: string | null = null;
  /** Polls an install task needs before it is done (0: done at once). */
  installPolls = 0;
  #server: LoopbackServer | null = null;
  readonly #adoms = new Map<string, Adom>();
  #throttle: { remaining: number; retryAfter: string | null } | null = null;
  #redirect: string | null = null;
  readonly #refused = new Set<string>();
  readonly #locks = new Set<string>();
  readonly #tasks = new Map<
    number,
    { percent: number; state: string; num_err: number; line: unknown[]; pollsLeft: number }
  >();
  #task = 100;

  private constructor(options: FortimanagerFakeOptions) {
    this.apiKey = options.apiKey;
    for (const name of ['root', ...(options.adoms ?? [])]) {
      this.#adoms.set(name, {
        // FortiManager's built-in `none` objects, which open nothing.
        address: new Map([['none', { name: 'none', subnet: ['0.0.0.0', '255.255.255.255'] }]]),
        address6: new Map([['none', { name: 'none', ip6: '::/128' }]]),
        addrgrp: new Map(),
        addrgrp6: new Map(),
        packages: [],
        dirty: false,
      });
    }
  }

  static async start(options: FortimanagerFakeOptions): Promise<FortimanagerFake> {
    const fake = new FortimanagerFake(options);
    fake.#server = await startLoopbackServer((req, res, body) => fake.#handle(req, res, body), options.tls);
    return fake;
  }

  get url(): string {
    if (this.#server === null) throw new Error('the FortiManager fake is not running');
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

  /** An address group holding these (non-Postern) objects, created as needed. */
  addGroup(name: string, options: { adom?: string; family?: FmgFamily; members?: readonly string[] } = {}): void {
    const adom = this.#adom(options.adom ?? 'root');
    const family = options.family ?? 'ipv4';
    const members = [...(options.members ?? ['none'])];
    const objects = adom[family === 'ipv4' ? 'address' : 'address6'];
    for (const member of members) if (!objects.has(member)) objects.set(member, { name: member });
    adom[family === 'ipv4' ? 'addrgrp' : 'addrgrp6'].set(name, members);
  }

  /**
   * An ADOM address object made by someone else (as the GUI would), optionally as a group member:
   * `subnet` as FortiManager answers it (`[address, netmask]`), or `ip6` for IPv6.
   */
  addAddress(
    name: string,
    content: { subnet: [string, string] } | { ip6: string },
    options: { adom?: string; memberOf?: string } = {},
  ): void {
    const adom = this.#adom(options.adom ?? 'root');
    const v6 = 'ip6' in content;
    adom[v6 ? 'address6' : 'address'].set(name, { name, ...content });
    if (options.memberOf !== undefined) adom[v6 ? 'addrgrp6' : 'addrgrp'].get(options.memberOf)?.push(name);
  }

  /** A policy package installed on these devices. */
  addPackage(name: string, devices: readonly string[], adom = 'root'): void {
    this.#adom(adom).packages.push({ name, scope: devices.map((device) => ({ name: device, vdom: 'root' })) });
  }

  members(group: string, options: { adom?: string; family?: FmgFamily } = {}): string[] | null {
    const members = this.#adom(options.adom ?? 'root')[options.family === 'ipv6' ? 'addrgrp6' : 'addrgrp'].get(group);
    return members === undefined ? null : [...members];
  }

  address(name: string, options: { adom?: string; family?: FmgFamily } = {}): Record<string, unknown> | undefined {
    return this.#adom(options.adom ?? 'root')[options.family === 'ipv6' ? 'address6' : 'address'].get(name);
  }

  /** Whether the ADOM holds changes not installed yet. */
  dirty(adom = 'root'): boolean {
    return this.#adom(adom).dirty;
  }

  throttle(count: number, retryAfter: string | null = null): void {
    this.#throttle = count > 0 ? { remaining: count, retryAfter } : null;
  }

  redirectTo(url: string | null): void {
    this.#redirect = url;
  }

  /** Creating an address with this IP (as the first subnet item, or ip6) answers -10. */
  refuseValue(value: string): void {
    this.#refused.add(value);
  }

  #adom(name: string): Adom {
    const adom = this.#adoms.get(name);
    if (adom === undefined) throw new Error(`the FortiManager fake has no ADOM ${name}`);
    return adom;
  }

  #handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    this.httpRequests++;
    if (this.#redirect !== null) {
      res.writeHead(302, { location: `${this.#redirect}${req.url ?? '/'}` }).end();
      return;
    }
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) {
      sendJson(res, 401, { error: 'Unauthorized' });
      return;
    }
    if (this.#throttle !== null) {
      const { retryAfter } = this.#throttle;
      if (--this.#throttle.remaining <= 0) this.#throttle = null;
      sendJson(res, 429, { error: 'Too Many Requests' }, retryAfter === null ? {} : { 'retry-after': retryAfter });
      return;
    }
    if (req.url !== '/jsonrpc' || req.method !== 'POST') {
      sendJson(res, 404, { error: 'Not Found' });
      return;
    }
    let request: { id?: unknown; method?: unknown; params?: unknown };
    try {
      request = JSON.parse(body) as typeof request;
    } catch {
      sendJson(res, 400, { error: 'Bad Request' });
      return;
    }
    const method = typeof request.method === 'string' ? request.method : '';
    const params = Array.isArray(request.params) ? (request.params as Param[]) : [];
    const result = params.map((param) => {
      const url = typeof param.url === 'string' ? param.url : '';
      this.calls.push({ method, url, data: param.data });
      return { url, ...this.#operation(method, url, param.data) };
    });
    sendJson(res, 200, { id: request.id ?? null, result });
  }

  #operation(
    method: string,
    url: string,
    data: unknown,
  ): { status: { code: number; message: string }; data?: unknown } {
    const fail = (code: number, message: string) => ({ status: { code, message } });
    const path = splitUrl(url);
    if (method === 'get' && url === '/cli/global/system/global') {
      return { status: OK, data: { 'workspace-mode': this.workspaceMode ? 'normal' : 'disabled' } };
    }
    const [top, a, b, c, d] = path;
    if (method === 'exec' && top === 'dvmdb' && a === 'adom' && c === 'workspace' && b !== undefined) {
      if (!this.#adoms.has(b)) return fail(-3, 'Object does not exist');
      if (d === 'lock') {
        if (this.lockedBy !== null) return fail(-20055, `Workspace is locked by ${this.lockedBy}`);
        this.#locks.add(b);
        return { status: OK };
      }
      if (d === 'commit') return this.#locks.has(b) ? { status: OK } : fail(-20055, 'Workspace is not locked');
      if (d === 'unlock') {
        this.#locks.delete(b);
        return { status: OK };
      }
      return fail(-6, 'Invalid url');
    }
    if (method === 'get' && top === 'pm' && a === 'pkg' && b === 'adom' && c !== undefined && d === undefined) {
      const adom = this.#adoms.get(c);
      if (adom === undefined) return fail(-3, 'Object does not exist');
      return {
        status: OK,
        data: adom.packages.map((pkg) => ({ name: pkg.name, type: 'pkg', 'scope member': pkg.scope })),
      };
    }
    if (method === 'exec' && url === '/securityconsole/install/package') {
      const request = data as { adom?: unknown; pkg?: unknown; scope?: unknown } | null;
      const adom = typeof request?.adom === 'string' ? this.#adoms.get(request.adom) : undefined;
      const pkg = adom?.packages.find((p) => p.name === request?.pkg);
      if (adom === undefined || pkg === undefined) return fail(-3, 'Object does not exist');
      const task = ++this.#task;
      const failure = this.installFailure;
      this.#tasks.set(task, {
        percent: this.installPolls > 0 ? 0 : 100,
        state: failure === null ? 'done' : 'error',
        num_err: failure === null ? 0 : 1,
        line: failure === null ? [] : [{ detail: failure }],
        pollsLeft: this.installPolls,
      });
      if (failure === null) {
        adom.dirty = false;
        this.installs.push({ adom: String(request?.adom), pkg: pkg.name });
      }
      return { status: OK, data: { task } };
    }
    if (method === 'get' && top === 'task' && a === 'task' && b !== undefined) {
      const task = this.#tasks.get(Number(b));
      if (task === undefined) return fail(-3, 'Object does not exist');
      task.pollsLeft--;
      if (task.pollsLeft <= 0) task.percent = 100;
      const { pollsLeft: _left, ...shown } = task;
      return { status: OK, data: { id: Number(b), ...shown } };
    }
    if (top === 'pm' && a === 'config' && b === 'adom' && c !== undefined && d === 'obj') {
      const adom = this.#adoms.get(c);
      if (adom === undefined) return fail(-3, 'Object does not exist');
      if (method !== 'get' && this.workspaceMode && !this.#locks.has(c)) return fail(-20055, 'Workspace is not locked');
      const [, , , , , firewall, table, name, sub, ...rest] = path;
      if (firewall !== 'firewall' || rest.length > 0) return fail(-6, 'Invalid url');
      if (table === 'address' || table === 'address6') return this.#address(method, adom, table, name, sub, data);
      if (table === 'addrgrp' || table === 'addrgrp6') return this.#group(method, adom, table, name, sub, data);
    }
    return fail(-6, 'Invalid url');
  }

  #address(
    method: string,
    adom: Adom,
    table: 'address' | 'address6',
    name: string | undefined,
    sub: string | undefined,
    data: unknown,
  ): { status: { code: number; message: string }; data?: unknown } {
    const objects = adom[table];
    if (sub !== undefined) return { status: { code: -6, message: 'Invalid url' } };
    if (method === 'get') {
      if (name === undefined) return { status: OK, data: [...objects.values()] };
      const object = objects.get(name);
      return object === undefined
        ? { status: { code: -3, message: 'Object does not exist' } }
        : { status: OK, data: object };
    }
    if (method === 'add' && name === undefined) {
      const list = Array.isArray(data) ? (data as unknown[]) : [data];
      const created: Record<string, unknown>[] = [];
      for (const item of list) {
        const object = item as Record<string, unknown> | null;
        const objectName = object?.name;
        const value = table === 'address' ? (object?.subnet as unknown[] | undefined)?.[0] : object?.ip6;
        if (typeof objectName !== 'string' || objectName === '' || typeof value !== 'string')
          return { status: { code: -10, message: 'The data is invalid for selected url' } };
        if (objects.has(objectName)) return { status: { code: -2, message: 'Object already exists' } };
        if (this.#refused.has(value) || !validValue(table, object ?? {}))
          return { status: { code: -10, message: `The data is invalid for selected url: ${value}` } };
        created.push({ ...object });
      }
      for (const object of created) objects.set(String(object.name), object);
      adom.dirty = true;
      return { status: OK, data: { name: created.map((o) => o.name) } };
    }
    if (method === 'delete' && name !== undefined) {
      if (!objects.delete(name)) return { status: { code: -3, message: 'Object does not exist' } };
      adom.dirty = true;
      return { status: OK };
    }
    return { status: { code: -6, message: 'Invalid url' } };
  }

  #group(
    method: string,
    adom: Adom,
    table: 'addrgrp' | 'addrgrp6',
    name: string | undefined,
    sub: string | undefined,
    data: unknown,
  ): { status: { code: number; message: string }; data?: unknown } {
    const groups = adom[table];
    const members = name === undefined ? undefined : groups.get(name);
    if (name === undefined || members === undefined) return { status: { code: -3, message: 'Object does not exist' } };
    if (sub === undefined && method === 'get') return { status: OK, data: { name, member: [...members] } };
    if (sub !== 'member') return { status: { code: -6, message: 'Invalid url' } };
    const names = Array.isArray(data) ? (data as unknown[]) : [data];
    if (!names.every((n) => typeof n === 'string')) {
      return { status: { code: -10, message: 'The data is invalid for selected url' } };
    }
    const objects = adom[table === 'addrgrp' ? 'address' : 'address6'];
    if (method === 'add') {
      const missing = names.find((n) => !objects.has(n));
      if (missing !== undefined) return { status: { code: -3, message: `Object does not exist: ${missing}` } };
      for (const n of names) if (!members.includes(n)) members.push(n);
      adom.dirty = true;
      return { status: OK };
    }
    if (method === 'delete') {
      if (members.every((member) => names.includes(member)))
        return { status: { code: -10, message: 'The data is invalid for selected url: member cannot be empty' } };
      for (const n of names) {
        const index = members.indexOf(n);
        if (index >= 0) members.splice(index, 1);
      }
      adom.dirty = true;
      return { status: OK };
    }
    return { status: { code: -6, message: 'Invalid url' } };
  }
}

/** A JSON-RPC url's segments; `\/` inside a segment is a slash in a name. */
function splitUrl(url: string): string[] {
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < url.length; i++) {
    const char = url[i];
    if (char === '\\' && url[i + 1] === '/') {
      current += '/';
      i++;
    } else if (char === '/') {
      if (current !== '' || segments.length > 0) segments.push(current);
      current = '';
    } else current += char;
  }
  if (current !== '') segments.push(current);
  return segments;
}

function validValue(table: 'address' | 'address6', object: Record<string, unknown>): boolean {
  if (table === 'address6') return typeof object.ip6 === 'string' && /^[0-9a-f:.]+\/\d{1,3}$/i.test(object.ip6);
  const subnet = object.subnet;
  return (
    Array.isArray(subnet) &&
    subnet.length === 2 &&
    subnet.every((part) => typeof part === 'string' && /^\d{1,3}(\.\d{1,3}){3}$/.test(part))
  );
}
