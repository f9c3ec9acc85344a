import { HttpStatusError } from '../../http/http-status-error.js';
import { staticToken } from '../../http/auth/static-token.js';
import { HttpClient, type HttpRequest } from '../../http/http-client.js';
import type { VendorClientOptions } from '../../kit/vendor-client-options.js';
import { classifyVendorAnswer } from '../../kit/vendor-outcome.js';
import {
  PANOS_RULES,
  panosErrorText,
  readPanosAnswer,
  registeredEntries,
  uidEntryMessages,
  type UidEntryMessage,
} from './panos-responses.js';
import { escapeXml } from './panos-xml.js';

export interface PanosClientOptions extends VendorClientOptions {
  apiKey: string;
}

/** Where a call goes: the virtual system, and on Panorama the managed firewall's serial ('' = none). */
export interface PanosScope {
  vsys: string;
  target: string;
}

/**
 * The PAN-OS XML API calls the driver needs (VENDORS.md 1.3), all `POST /api/` with form-encoded
 * parameters (Palo Alto: GET only under about 2 KB). The API key travels in the `X-PAN-KEY` header,
 * never as the `key` parameter, so it is in no URL and no form body that a proxy or log could keep.
 * `vsys` and, through Panorama, `target=<serial>` go with every call.
 *
 * Every call here is safe to repeat (a repeated register is answered "already exists, ignore", a
 * repeated unregister "does not exist, ignore unreg", a read or a list refresh changes nothing
 * twice), so all are marked idempotent and retried under throttling.
 */
export class PanosClient {
  readonly http: HttpClient;

  constructor(options: PanosClientOptions) {
    this.http = new HttpClient({
      name: 'panos',
      baseUrl: `https://${bracketIpv6(options.hostname)}`,
      insecure: options.insecure,
      auth: staticToken({ token: options.apiKey, header: 'X-PAN-KEY', scheme: '' }),
      logger: options.logger,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
  }

  /**
   * Sends one `<uid-message>` payload (register/unregister/login/logout sections, already escaped).
   * Returns the per-entry messages (empty for a plain success). Throws when the call failed as a
   * whole: no answer, the key refused, or an error that names no entry.
   */
  async userId(scope: PanosScope, payload: string, what: string): Promise<UidEntryMessage[]> {
    const cmd = `<uid-message><version>1.0</version><type>update</type><payload>${payload}</payload></uid-message>`;
    const answer = await this.#call(scope, { type: 'user-id', cmd }, what, { allowEntryErrors: true });
    return uidEntryMessages(answer);
  }

  /** The addresses tagged `tag` now, as the firewall spells them. Throws when it cannot be read. */
  async registeredIps(scope: PanosScope, tag: string): Promise<string[]> {
    const cmd = `<show><object><registered-ip><tag><entry name="${escapeXml(tag)}"/></tag></registered-ip></object></show>`;
    const answer = await this.#call(scope, { type: 'op', cmd }, `read the addresses tagged ${tag}`);
    try {
      return registeredEntries(answer)
        .filter((entry) => entry.tags.includes(tag))
        .map((entry) => entry.ip);
    } catch {
      throw new Error(`panos: could not read the addresses tagged ${tag}: unexpected answer`);
    }
  }

  /** Asks the firewall to fetch the external dynamic list (type ip) `name` now. Throws with the firewall's reason. */
  async refreshEdl(scope: PanosScope, name: string): Promise<void> {
    const cmd =
      '<request><system><external-list><refresh><type><ip>' +
      `<name>${escapeXml(name)}</name></ip></type></refresh></external-list></system></request>`;
    await this.#call(scope, { type: 'op', cmd }, `refresh the external dynamic list ${name}`);
  }

  close(): void {
    this.http.close();
  }

  async #call(
    scope: PanosScope,
    params: Record<string, string>,
    what: string,
    options: { allowEntryErrors?: boolean } = {},
  ) {
    const request: HttpRequest = {
      method: 'POST',
      path: '/api/',
      headers: { accept: 'application/xml' },
      form: { ...params, vsys: scope.vsys, ...(scope.target === '' ? {} : { target: scope.target }) },
      idempotent: true,
    };
    const response = await this.http.request(request);
    const read = readPanosAnswer(response.body);
    if (response.status === 403 || (typeof read !== 'string' && read.code === '403')) {
      throw new HttpStatusError(
        `panos: could not ${what}: the firewall refused the API key (HTTP ${response.status}, Invalid Credential); check the backend's ApiKey`,
        403,
      );
    }
    const outcome = classifyVendorAnswer('read', response, PANOS_RULES);
    if (outcome === 'applied' && typeof read !== 'string') return read.root;
    if (response.status < 200 || response.status > 299) {
      throw new Error(`panos: could not ${what}: HTTP ${response.status}${this.http.snippet(response.body)}`);
    }
    if (typeof read === 'string') throw new Error(`panos: could not ${what}: ${read}`);
    // An error that names entries is the caller's to sort (some may be "already exists, ignore").
    if (options.allowEntryErrors === true && uidEntryMessages(read.root).length > 0) return read.root;
    throw new Error(`panos: could not ${what}: ${this.http.redact(panosErrorText(read.root))}`);
  }
}

/** An IPv6 literal needs brackets in a URL; a name or IPv4 (with or without :port) does not. */
function bracketIpv6(hostname: string): string {
  const host = hostname.trim();
  return !host.startsWith('[') && (host.match(/:/g)?.length ?? 0) > 1 ? `[${host}]` : host;
}
