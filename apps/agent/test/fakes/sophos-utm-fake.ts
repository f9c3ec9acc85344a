/**
 * FAKE Sophos UTM 9 restd (REST API): a contract fake for the agent's Sophos UTM driver tests, NOT a
 * UTM. Written from the documented behaviour in ../shared/VENDORS.md section 1.5 (ansible
 * community.general utm_utils: `token` basic auth, `_ref`, `X-Restd-Err-Ack`), never from captured
 * device traffic. What it models:
 *
 * - Basic auth with user `token` and the API token as password on every request; otherwise 401.
 * - `/api/objects/network/host/` and `/network/network/`: GET lists, POST creates (answering the
 *   object with a new `_ref`; names need not be unique, as on the UTM), GET/DELETE `<kind>/<ref>`.
 * - `/api/objects/network/group/[<ref>]`: GET; PATCH changes the attributes it names ("Changes to
 *   parts of the object"), PUT writes the complete object ("Creates or updates the complete object"),
 *   so a PUT without the group's `name` is refused and attributes it leaves out fall back to their
 *   defaults (restd's Swagger descriptions, as generated into esurdam/go-sophos
 *   `api/v1.3.0/objects/network.go`; the UTM RESTful API guide, "HTTP methods: PUT and POST, PATCH").
 *   Every member must be an existing object's ref.
 * - Deleting an object a group still uses asks for confirmation (422) unless the request carries
 *   `X-Restd-Err-Ack: all`, which removes it from the groups too; an absent ref answers 404.
 *
 * Choices of this fake that the documentation does not fix: the error body (a list of messages with
 * `name`), the ref spelling (`REF_NetHosKk1`…), the defaults of an object's other family
 * (`0.0.0.0`, `::`), 422 for an invalid value, and that a group may be emptied (no document says
 * whether restd accepts `members: []`). Test switches: answer 429 (with Retry-After) or 503 for the
 * next N calls, redirect every call to another host, refuse one address, change the token, refuse to
 * empty a group (`refuseEmptyGroups`, 422, for a UTM that does).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

export type UtmKind = 'host' | 'network';

export interface UtmFakeObject {
  _ref: string;
  _type: string;
  name: string;
  address: string;
  address6: string;
  netmask?: number;
  netmask6?: number;
  comment: string;
}

export interface UtmFakeGroup {
  _ref: string;
  _type: 'network/group';
  name: string;
  members: string[];
  comment: string;
}

export interface SophosUtmFakeOptions {
  apiKey: string;
  tls?: { key: string; cert: string };
}

const PREFIX = '/api/objects/network/';

export class SophosUtmFake {
  apiKey: string;
  /** Requests received, in order: method and path. */
  readonly requests: { method: string; path: string; ack: boolean }[] = [];
  #server: LoopbackServer | null = null;
  readonly #objects = new Map<string, UtmFakeObject>();
  readonly #groups = new Map<string, UtmFakeGroup>();
  #next = 1;
  #throttle: { remaining: number; status: 429 | 503; retryAfter: string | null } | null = null;
  #redirect: string | null = null;
  readonly #refused = new Set<string>();
  #refuseEmpty = false;

  private constructor(options: SophosUtmFakeOptions) {
    this.apiKey = options.apiKey;
  }

  static async start(options: SophosUtmFakeOptions): Promise<SophosUtmFake> {
    const fake = new SophosUtmFake(options);
    fake.#server = await startLoopbackServer((req, res, body) => fake.#handle(req, res, body), options.tls);
    return fake;
  }

  get url(): string {
    if (this.#server === null) throw new Error('the Sophos UTM fake is not running');
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

  /** A network host object made by an admin; its ref. */
  addHost(name: string, address: string): string {
    const v6 = address.includes(':');
    return this.#create('host', { name, ...(v6 ? { address6: address } : { address }) });
  }

  /** A network network object made by an admin (`address`/`netmask`, or the IPv6 pair); its ref. */
  addNetwork(name: string, address: string, prefix: number): string {
    const v6 = address.includes(':');
    return this.#create('network', {
      name,
      ...(v6 ? { address6: address, netmask6: prefix } : { address, netmask: prefix }),
    });
  }

  /** A network group with this ref holding these refs. */
  addGroup(ref: string, name: string, members: readonly string[] = []): void {
    this.#groups.set(ref, { _ref: ref, _type: 'network/group', name, members: [...members], comment: '' });
  }

  /** The group's member refs, or null. */
  members(ref: string): string[] | null {
    const group = this.#groups.get(ref);
    return group === undefined ? null : [...group.members];
  }

  /** The group's members as object names, in order. */
  memberNames(ref: string): string[] {
    return (this.members(ref) ?? []).map((member) => this.#objects.get(member)?.name ?? member);
  }

  object(ref: string): UtmFakeObject | undefined {
    return this.#objects.get(ref);
  }

  /** Every object, in creation order. */
  objects(): UtmFakeObject[] {
    return [...this.#objects.values()];
  }

  throttle(count: number, status: 429 | 503, retryAfter: string | null = null): void {
    this.#throttle = count > 0 ? { remaining: count, status, retryAfter } : null;
  }

  redirectTo(url: string | null): void {
    this.#redirect = url;
  }

  /** From now on a write leaving a group without members answers 422 (or, with false, is allowed again). */
  refuseEmptyGroups(refuse = true): void {
    this.#refuseEmpty = refuse;
  }

  /** Creating an object with this address (as sent) answers 422. */
  refuseAddress(address: string): void {
    this.#refused.add(address);
  }

  #create(kind: UtmKind, payload: Record<string, unknown>): string {
    const ref = `REF_Net${kind === 'host' ? 'Hos' : 'Net'}Kk${this.#next++}`;
    const object: UtmFakeObject = {
      _ref: ref,
      _type: `network/${kind}`,
      name: String(payload.name),
      address: typeof payload.address === 'string' ? payload.address : '0.0.0.0',
      address6: typeof payload.address6 === 'string' ? payload.address6 : '::',
      comment: typeof payload.comment === 'string' ? payload.comment : '',
    };
    if (kind === 'network') {
      object.netmask = typeof payload.netmask === 'number' ? payload.netmask : 0;
      object.netmask6 = typeof payload.netmask6 === 'number' ? payload.netmask6 : 0;
    }
    this.#objects.set(ref, object);
    return ref;
  }

  #handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://fake');
    const ack = req.headers['x-restd-err-ack'] === 'all';
    this.requests.push({ method, path: url.pathname, ack });
    const error = (status: number, name: string, extra: Record<string, unknown> = {}) =>
      sendJson(res, status, [{ Fatal: 1, class: 'error', msgtype: 'ERR', name, ...extra }]);

    if (this.#redirect !== null) {
      res.writeHead(302, { location: `${this.#redirect}${req.url ?? '/'}` });
      res.end();
      return;
    }
    const expected = `Basic ${Buffer.from(`token:${this.apiKey}`).toString('base64')}`;
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Basic realm="restd"' });
      res.end('401 Unauthorized');
      return;
    }
    if (this.#throttle !== null) {
      const { status, retryAfter } = this.#throttle;
      if (--this.#throttle.remaining <= 0) this.#throttle = null;
      sendJson(res, status, [], retryAfter === null ? {} : { 'retry-after': retryAfter });
      return;
    }
    if (!url.pathname.startsWith(PREFIX)) {
      error(404, 'Unknown path');
      return;
    }
    const [kind = '', ref = '', ...rest] = url.pathname.slice(PREFIX.length).split('/');
    let payload: Record<string, unknown> = {};
    if (body !== '') {
      try {
        payload = JSON.parse(body) as Record<string, unknown>;
      } catch {
        error(400, 'Invalid JSON');
        return;
      }
    }
    const refName = decodeURIComponent(ref);
    if (rest.some((segment) => segment !== '')) error(404, 'Unknown path');
    else if (kind === 'group') this.#group(method, refName, payload, res, error);
    else if (kind === 'host' || kind === 'network') this.#object(method, kind, refName, payload, ack, res, error);
    else error(404, 'Unknown object type');
  }

  #object(
    method: string,
    kind: UtmKind,
    ref: string,
    payload: Record<string, unknown>,
    ack: boolean,
    res: ServerResponse,
    error: (status: number, name: string) => void,
  ): void {
    const ofKind = [...this.#objects.values()].filter((object) => object._type === `network/${kind}`);
    if (ref === '') {
      if (method === 'GET') sendJson(res, 200, ofKind);
      else if (method === 'POST') {
        const address = payload.address ?? payload.address6;
        if (typeof payload.name !== 'string' || payload.name === '') error(422, 'The name must not be empty');
        else if (typeof address !== 'string' || this.#refused.has(address) || !validAddress(address))
          error(422, 'The address is invalid');
        else sendJson(res, 201, this.#objects.get(this.#create(kind, payload)));
      } else error(405, 'Method not allowed');
      return;
    }
    const object = ofKind.find((candidate) => candidate._ref === ref);
    if (object === undefined) {
      error(404, 'Object not found');
      return;
    }
    if (method === 'GET') sendJson(res, 200, object);
    else if (method === 'DELETE') {
      const users = [...this.#groups.values()].filter((group) => group.members.includes(ref));
      if (users.length > 0 && !ack) {
        error(422, `The object is in use by ${users.map((group) => group.name).join(', ')}`);
        return;
      }
      for (const group of users) group.members = group.members.filter((member) => member !== ref);
      this.#objects.delete(ref);
      res.writeHead(204).end();
    } else error(405, 'Method not allowed');
  }

  #group(
    method: string,
    ref: string,
    payload: Record<string, unknown>,
    res: ServerResponse,
    error: (status: number, name: string) => void,
  ): void {
    if (ref === '') {
      if (method === 'GET') sendJson(res, 200, [...this.#groups.values()]);
      else error(405, 'Method not allowed');
      return;
    }
    const group = this.#groups.get(ref);
    if (group === undefined) {
      error(404, 'Object not found');
      return;
    }
    if (method === 'GET') sendJson(res, 200, group);
    else if (method === 'PATCH' || method === 'PUT') {
      const complete = method === 'PUT';
      if (complete && (typeof payload.name !== 'string' || payload.name === '')) {
        error(422, 'The name must not be empty');
        return;
      }
      const members = payload.members ?? (complete ? [] : undefined);
      if (members !== undefined) {
        if (
          !Array.isArray(members) ||
          !members.every((member) => typeof member === 'string' && this.#objects.has(member))
        ) {
          error(422, 'The members must be references of existing network objects');
          return;
        }
        if (members.length === 0 && this.#refuseEmpty) {
          error(422, `The group ${group.name} must contain at least one member`);
          return;
        }
      }
      if (complete) {
        group.name = String(payload.name);
        group.comment = typeof payload.comment === 'string' ? payload.comment : '';
      } else if (typeof payload.comment === 'string') group.comment = payload.comment;
      if (members !== undefined) group.members = [...(members as string[])];
      sendJson(res, 200, group);
    } else error(405, 'Method not allowed');
  }
}

function validAddress(value: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(value) || /^[0-9a-f:.]+$/i.test(value);
}
