/**
 * FAKE PAN-OS (firewall or Panorama XML API): a contract fake for the agent's PAN-OS driver tests,
 * NOT a firewall. Written from the documented behaviour in ../shared/VENDORS.md section 1.3 (Palo
 * Alto's "Apply User-ID Mapping and Populate Dynamic Groups (API)" page, pan-os-python
 * `panos/userid.py`, pan-python `lib/pan/xapi.py`), never from captured device traffic. What it models:
 *
 * - One endpoint, `/api/`, parameters in the query string or a form-encoded POST body; the API key as
 *   the `X-PAN-KEY` header or the `key` parameter.
 * - `type=user-id` with a `<uid-message>`: `register` / `unregister` of IP-tag pairs (`<member
 *   timeout="s">`, 0…2,592,000 s, 0 = none; the fake expires tagged IPs itself, as the firewall does),
 *   `login` / `logout` of user mappings (`timeout` in minutes). A duplicate register answers an entry
 *   message ending in "already exists, ignore", an absent unregister "does not exist, ignore unreg";
 *   the answer is then `<response status="error">` with the per-entry messages under
 *   `msg/line/uid-response/payload/<section>/entry`, and every other entry of the message is applied.
 * - `type=op`: `<show><object><registered-ip>` (all, or `<tag><entry name=…/></tag>`) lists `<entry
 *   ip=…><tag><member>…` under `result`; `<request><system><external-list><refresh>…<name>N</name>`
 *   refreshes an external dynamic list (recorded; when the list has a source URL the fake fetches it,
 *   showing what the firewall would now enforce).
 * - `vsys=` selects the virtual system (default vsys1); on Panorama, `target=<serial>` sends the call
 *   to that managed firewall.
 *
 * Choices of this fake that VENDORS.md does not fix (guesses, kept plausible): a wrong or missing key
 * answers HTTP 403 `<response status="error" code="403"><result><msg>Invalid Credential</msg>`; an
 * unknown vsys, unknown target serial, unknown list or unknown command answers status="error" with a
 * `msg/line` text; a refused address answers the entry message "invalid IP address"; the refresh
 * answers `<result><msg><line>EDL refresh job enqueued</line></msg></result>`; a duplicate register
 * keeps the earlier timeout. Test switches: answer 429 (with Retry-After) or 503 for the next N calls,
 * redirect every call to another host, refuse one address, refuse a list's refresh with a message,
 * change the key.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseIpOrCidr } from '@postern/protocol';
import { escapeXml, findAll, parseXml, type XmlElement } from '../../src/drivers/vendors/panos/panos-xml.js';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

/** One request the fake received. */
export interface PanosFakeRequest {
  method: string;
  type: string;
  cmd: string;
  vsys: string;
  target: string;
  /** Where the key came from ('none' when absent). */
  keyVia: 'header' | 'query' | 'body' | 'none';
  authorized: boolean;
  /** The raw URL as requested (to check that no key travels in it). */
  url: string;
}

export interface EdlRefresh {
  at: number;
  vsys: string;
  target: string;
}

interface Edl {
  sourceUrl: string | null;
  refusal: string | null;
  refreshes: EdlRefresh[];
  /** What the last refresh fetched, one entry a line; null before any fetch. */
  content: string[] | null;
}

interface Vsys {
  /** ip → tag → expiry (ms since epoch), null for no timeout. */
  registered: Map<string, Map<string, number | null>>;
  /** ip → user mapping. */
  logins: Map<string, { user: string; expiresAt: number | null }>;
  edls: Map<string, Edl>;
}

export interface PanosFakeOptions {
  key: string;
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string };
  /** The virtual systems (default ['vsys1']); on Panorama, those of each managed firewall. */
  vsys?: readonly string[];
  /** Answer as Panorama managing firewalls with these serial numbers (reached with target=). */
  panoramaSerials?: readonly string[];
  /** The clock for tag timeouts (default Date.now). */
  now?: () => number;
}

/** Which device and vsys a helper call means: '' serial = the box itself. */
export interface PanosScope {
  vsys?: string;
  serial?: string;
}

const MAX_TAG_TIMEOUT = 2_592_000;

export class PanosFake {
  readonly requests: PanosFakeRequest[] = [];
  key: string;
  readonly #now: () => number;
  readonly #panorama: boolean;
  /** serial ('' = this box) → vsys name → state. */
  readonly #devices = new Map<string, Map<string, Vsys>>();
  #server: LoopbackServer | null = null;
  #throttle: { remaining: number; status: 429 | 503; retryAfter: string | null } | null = null;
  #redirect: string | null = null;
  readonly #refused = new Set<string>();
  /** How long a list refresh takes before it answers (a real one is a job that fetches the list). */
  refreshDelayMs = 0;

  private constructor(options: PanosFakeOptions) {
    this.key = options.key;
    this.#now = options.now ?? Date.now;
    this.#panorama = options.panoramaSerials !== undefined;
    const vsysNames = options.vsys ?? ['vsys1'];
    for (const serial of ['', ...(options.panoramaSerials ?? [])]) {
      this.#devices.set(
        serial,
        new Map(vsysNames.map((name) => [name, { registered: new Map(), logins: new Map(), edls: new Map() }])),
      );
    }
  }

  static async start(options: PanosFakeOptions): Promise<PanosFake> {
    const fake = new PanosFake(options);
    fake.#server = await startLoopbackServer((req, res, body) => {
      fake.#handle(req, res, body).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
    }, options.tls);
    return fake;
  }

  /** `http(s)://127.0.0.1:<port>`. */
  get url(): string {
    if (this.#server === null) throw new Error('the PAN-OS fake is not running');
    return this.#server.url;
  }

  /** `127.0.0.1:<port>`: what a backend's Hostname holds. */
  get hostname(): string {
    return this.url.replace(/^https?:\/\//, '');
  }

  async close(): Promise<void> {
    await this.#server?.close();
    this.#server = null;
  }

  /** The addresses tagged `tag` now (timeouts applied), in registration order. */
  registered(tag: string, scope: PanosScope = {}): string[] {
    const vsys = this.#scope(scope);
    this.#expire(vsys);
    return [...vsys.registered].filter(([, tags]) => tags.has(tag)).map(([ip]) => ip);
  }

  /** Every tag of one address now. */
  tagsOf(ip: string, scope: PanosScope = {}): string[] {
    const vsys = this.#scope(scope);
    this.#expire(vsys);
    return [...(vsys.registered.get(ip)?.keys() ?? [])];
  }

  /** When a tagged address expires (ms since epoch), null for never, undefined when absent. */
  expiry(ip: string, tag: string, scope: PanosScope = {}): number | null | undefined {
    return this.#scope(scope).registered.get(ip)?.get(tag);
  }

  /** The user mapped to an address, or undefined. */
  login(ip: string, scope: PanosScope = {}): { user: string; expiresAt: number | null } | undefined {
    const vsys = this.#scope(scope);
    this.#expire(vsys);
    return vsys.logins.get(ip);
  }

  /** Tags an address as an admin or another tool would (no timeout). */
  register(ip: string, tags: readonly string[], scope: PanosScope = {}): void {
    const vsys = this.#scope(scope);
    const held = vsys.registered.get(ip) ?? new Map<string, number | null>();
    for (const tag of tags) held.set(tag, null);
    vsys.registered.set(ip, held);
  }

  /** Configures an external dynamic list of type ip (optionally with the URL it is fetched from). */
  addEdl(name: string, options: PanosScope & { sourceUrl?: string } = {}): void {
    this.#scope(options).edls.set(name, {
      sourceUrl: options.sourceUrl ?? null,
      refusal: null,
      refreshes: [],
      content: null,
    });
  }

  /** The refresh calls a list received. */
  edlRefreshes(name: string, scope: PanosScope = {}): EdlRefresh[] {
    return [...(this.#scope(scope).edls.get(name)?.refreshes ?? [])];
  }

  /** What the list's last refresh fetched from its source URL (null before one). */
  edlContent(name: string, scope: PanosScope = {}): string[] | null {
    return this.#scope(scope).edls.get(name)?.content ?? null;
  }

  /** A refresh of this list answers status="error" with `message` (null: works again). */
  refuseRefresh(name: string, message: string | null, scope: PanosScope = {}): void {
    const edl = this.#scope(scope).edls.get(name);
    if (edl === undefined) throw new Error(`the PAN-OS fake has no list ${name}`);
    edl.refusal = message;
  }

  /** The next `count` calls answer `status` (with Retry-After when given) instead of working. */
  throttle(count: number, status: 429 | 503, retryAfter: string | null = null): void {
    this.#throttle = count > 0 ? { remaining: count, status, retryAfter } : null;
  }

  /** Every call answers 302 to this URL (another host), or normally again with null. */
  redirectTo(url: string | null): void {
    this.#redirect = url;
  }

  /** Registering this address (as sent) answers the entry message "invalid IP address". */
  refuseIp(ip: string): void {
    this.#refused.add(ip);
  }

  #scope(scope: PanosScope): Vsys {
    const vsys = this.#devices.get(scope.serial ?? '')?.get(scope.vsys ?? 'vsys1');
    if (vsys === undefined) throw new Error(`the PAN-OS fake has no ${scope.vsys ?? 'vsys1'} on ${scope.serial ?? ''}`);
    return vsys;
  }

  #expire(vsys: Vsys): void {
    const now = this.#now();
    for (const [ip, tags] of vsys.registered) {
      for (const [tag, expiresAt] of tags) if (expiresAt !== null && expiresAt <= now) tags.delete(tag);
      if (tags.size === 0) vsys.registered.delete(ip);
    }
    for (const [ip, login] of vsys.logins)
      if (login.expiresAt !== null && login.expiresAt <= now) vsys.logins.delete(ip);
  }

  async #handle(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const form =
      req.method === 'POST' && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
        ? new URLSearchParams(body)
        : new URLSearchParams();
    const param = (name: string) => form.get(name) ?? url.searchParams.get(name) ?? '';
    const header = req.headers['x-pan-key'];
    const keyVia: PanosFakeRequest['keyVia'] =
      typeof header === 'string' ? 'header' : form.has('key') ? 'body' : url.searchParams.has('key') ? 'query' : 'none';
    const key = typeof header === 'string' ? header : param('key');
    const authorized = keyVia !== 'none' && key === this.key;
    this.requests.push({
      method: req.method ?? '',
      type: param('type'),
      cmd: param('cmd'),
      vsys: param('vsys'),
      target: param('target'),
      keyVia,
      authorized,
      url: req.url ?? '',
    });
    const send = (status: number, xml: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/xml; charset=UTF-8', ...headers });
      res.end(xml);
    };
    const error = (line: string) =>
      send(200, `<response status="error"><msg><line>${escapeXml(line)}</line></msg></response>`);

    if (this.#redirect !== null) {
      res.writeHead(302, { location: `${this.#redirect}${req.url ?? '/'}` });
      res.end();
      return;
    }
    if (url.pathname !== '/api/' && url.pathname !== '/api') {
      send(404, '<html><body>Not Found</body></html>');
      return;
    }
    if (!authorized) {
      send(403, '<response status="error" code="403"><result><msg>Invalid Credential</msg></result></response>');
      return;
    }
    if (this.#throttle !== null) {
      const { status, retryAfter } = this.#throttle;
      this.#throttle.remaining--;
      if (this.#throttle.remaining <= 0) this.#throttle = null;
      send(status, '<html><body>Too busy</body></html>', retryAfter === null ? {} : { 'retry-after': retryAfter });
      return;
    }
    const target = param('target');
    if (target !== '' && !this.#panorama) {
      error('target is only valid on Panorama');
      return;
    }
    const device = this.#devices.get(target);
    if (device === undefined) {
      error(`device ${target} is not connected to Panorama`);
      return;
    }
    const vsysName = param('vsys') === '' ? 'vsys1' : param('vsys');
    const vsys = device.get(vsysName);
    if (vsys === undefined) {
      error(`${vsysName} is not a valid virtual system`);
      return;
    }
    let cmd: XmlElement;
    try {
      cmd = parseXml(param('cmd'));
    } catch {
      send(200, '<response status="error" code="17"><msg><line>Malformed Request</line></msg></response>');
      return;
    }
    this.#expire(vsys);
    const type = param('type');
    if (type === 'user-id' && cmd.name === 'uid-message') {
      send(200, this.#userId(vsys, cmd));
      return;
    }
    if (type === 'op' && cmd.name === 'show' && findAll(cmd, 'object/registered-ip').length === 1) {
      send(200, this.#showRegistered(vsys, cmd));
      return;
    }
    const refresh = findAll(cmd, 'system/external-list/refresh/type/ip/name')[0];
    if (type === 'op' && cmd.name === 'request' && refresh !== undefined) {
      const name = refresh.text.trim();
      const edl = vsys.edls.get(name);
      if (edl === undefined) {
        error(`External Dynamic List ${name} does not exist in ${vsysName}`);
        return;
      }
      edl.refreshes.push({ at: this.#now(), vsys: vsysName, target });
      if (this.refreshDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.refreshDelayMs));
      if (edl.refusal !== null) {
        error(edl.refusal);
        return;
      }
      if (edl.sourceUrl !== null) {
        try {
          edl.content = await fetchLines(edl.sourceUrl);
        } catch (failure) {
          error(`Unable to fetch external list ${name}: ${String(failure)}`);
          return;
        }
      }
      send(
        200,
        '<response status="success"><result><msg><line>EDL refresh job enqueued</line></msg></result></response>',
      );
      return;
    }
    error('Invalid command');
  }

  #userId(vsys: Vsys, message: XmlElement): string {
    const failures: { section: string; attributes: Record<string, string> }[] = [];
    const now = this.#now();
    for (const section of findAll(message, 'payload/*')) {
      for (const entry of findAll(section, 'entry')) {
        const ip = entry.attributes.ip ?? '';
        const fail = (text: string, extra: Record<string, string> = {}) =>
          failures.push({ section: section.name, attributes: { ...extra, ip, message: text } });
        if (section.name === 'register' || section.name === 'unregister') {
          if (parseIpOrCidr(ip) === null || (section.name === 'register' && this.#refused.has(ip))) {
            fail('invalid IP address');
            continue;
          }
          for (const member of findAll(entry, 'tag/member')) {
            const tag = member.text.trim();
            const held = vsys.registered.get(ip);
            if (section.name === 'register') {
              const timeout = member.attributes.timeout ?? '0';
              if (!/^\d+$/.test(timeout) || Number(timeout) > MAX_TAG_TIMEOUT) {
                fail(`invalid timeout ${timeout} for tag ${tag}`);
              } else if (held?.has(tag) === true) {
                fail(`tag ${tag} already exists, ignore`);
              } else {
                const tags = held ?? new Map<string, number | null>();
                tags.set(tag, Number(timeout) === 0 ? null : now + Number(timeout) * 1000);
                vsys.registered.set(ip, tags);
              }
            } else if (held === undefined || !held.delete(tag)) {
              fail(`tag ${tag} does not exist, ignore unreg`);
            } else if (held.size === 0) {
              vsys.registered.delete(ip);
            }
          }
        } else if (section.name === 'login') {
          const user = entry.attributes.name ?? '';
          const minutes = Number(entry.attributes.timeout ?? '0');
          if (user === '' || parseIpOrCidr(ip) === null || !Number.isInteger(minutes) || minutes < 0) {
            fail('invalid login entry', { name: user });
          } else {
            vsys.logins.set(ip, { user, expiresAt: minutes === 0 ? null : now + minutes * 60_000 });
          }
        } else if (section.name === 'logout') {
          const user = entry.attributes.name ?? '';
          if (vsys.logins.get(ip)?.user !== user) fail('delete mapping failed', { name: user });
          else vsys.logins.delete(ip);
        } else {
          fail(`unsupported section ${section.name}`);
        }
      }
    }
    if (failures.length === 0) {
      return '<response status="success"><result><uid-response><version>2.0</version><payload></payload></uid-response></result></response>';
    }
    const sections = new Map<string, string[]>();
    for (const { section, attributes } of failures) {
      const attrs = Object.entries(attributes)
        .map(([name, value]) => ` ${name}="${escapeXml(value)}"`)
        .join('');
      sections.set(section, [...(sections.get(section) ?? []), `<entry${attrs}/>`]);
    }
    const payload = [...sections].map(([section, entries]) => `<${section}>${entries.join('')}</${section}>`).join('');
    return `<response status="error"><msg><line><uid-response><version>2.0</version><payload>${payload}</payload></uid-response></line></msg></response>`;
  }

  #showRegistered(vsys: Vsys, cmd: XmlElement): string {
    const wanted = findAll(cmd, 'object/registered-ip/tag/entry')[0]?.attributes.name;
    const rows = [...vsys.registered].filter(([, tags]) => wanted === undefined || tags.has(wanted));
    const entries = rows
      .map(
        ([ip, tags]) =>
          `<entry ip="${escapeXml(ip)}" from_agent="0" persistent="1"><tag>${[...tags.keys()]
            .map((tag) => `<member>${escapeXml(tag)}</member>`)
            .join('')}</tag></entry>`,
      )
      .join('');
    return `<response status="success"><result>${entries}<count>${rows.length}</count></result></response>`;
  }
}

/** GETs a list source (http, or https with any certificate: a fake on loopback) and returns its entry lines. */
function fetchLines(sourceUrl: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const onResponse = (res: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if ((res.statusCode ?? 0) !== 200) reject(new Error(`HTTP ${res.statusCode ?? 0}`));
        else
          resolve(
            Buffer.concat(chunks)
              .toString('utf8')
              .split('\n')
              .map((line) => line.trim())
              .filter((line) => line !== '' && !line.startsWith('#')),
          );
      });
      res.on('error', reject);
    };
    const req = sourceUrl.startsWith('https:')
      ? https.get(sourceUrl, { rejectUnauthorized: false }, onResponse)
      : http.get(sourceUrl, onResponse);
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error('timed out')));
  });
}
