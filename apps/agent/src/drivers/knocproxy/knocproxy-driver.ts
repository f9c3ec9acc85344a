import type { AgentKnoc, AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import { parseHostPort } from '../haproxy/runtime-target.js';
import type { Driver, DriverEntry, EntryOutcome } from '../driver.js';
import { socketBackend } from '../socket-backend.js';
import { failed, succeeded } from '../outcomes.js';
import { GrantedAddresses } from './granted-addresses.js';
import { ProxyListener, type ListenAddress, type TlsFiles } from './proxy-listener.js';

export interface KnocproxyDriverOptions {
  /** Serve HTTPS on tcp listeners (the proxy cookie is Secure, so browsers keep it only over HTTPS). */
  tls: TlsFiles | null;
  logger: Logger;
  upstreamTimeoutMs?: number;
}

/** A running listener and the one knoc it serves. */
interface Served {
  aclId: string;
  key: string;
  granted: GrantedAddresses;
  /** Resolves once listening; rejects (and is forgotten) when the address cannot be bound. */
  listener: Promise<ProxyListener>;
}

/**
 * knocproxy: a reverse proxy the agent runs on the backend's Address in front of the knoc's URL,
 * admitting only the client addresses granted on that knoc (others get a 403 page). There is no
 * device to remember anything, so grants live in memory and `list` returns them; after a restart the
 * agent re-applies its state.
 *
 * One listener per address and one knoc per listener: a browser reaches every knoc on a listener
 * at the same host and port, so nothing in the request could tell two knocs apart. A second knoc
 * naming an address already in use has its entries refused with that reason.
 */
export class KnocproxyDriver implements Driver<'knocproxy'> {
  readonly type = 'knocproxy' as const;
  readonly #options: KnocproxyDriverOptions;
  readonly #byAddress = new Map<string, Served>();

  constructor(options: KnocproxyDriverOptions) {
    this.#options = options;
  }

  /** Starts a listener for each knoc (so ungranted visitors get the 403 page, not a refused connection) and stops the rest. */
  async configure(knocs: readonly AgentKnocOf<'knocproxy'>[]): Promise<void> {
    const wanted = new Set(knocs.map((knoc) => knoc.aclId));
    for (const served of [...this.#byAddress.values()].filter((entry) => !wanted.has(entry.aclId))) {
      await this.#stop(served);
    }
    const problems: string[] = [];
    for (const knoc of knocs) {
      try {
        await this.#serve(knoc);
      } catch (error) {
        problems.push(error instanceof Error ? error.message : String(error));
      }
    }
    if (problems.length > 0) throw new Error(problems.join('; '));
  }

  async apply(knoc: AgentKnocOf<'knocproxy'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const served = await this.#serve(knoc);
    return entries.map((entry) =>
      served.granted.add(entry.ip)
        ? succeeded(entry.ip)
        : failed(entry.ip, `${entry.ip} is not an IPv4 or IPv6 address`),
    );
  }

  remove(knoc: AgentKnocOf<'knocproxy'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const served = this.#find(knoc);
    return Promise.resolve(
      entries.map((entry) => {
        if (served === undefined || served.granted.delete(entry.ip)) return succeeded(entry.ip);
        return failed(entry.ip, `${entry.ip} is not an IPv4 or IPv6 address`);
      }),
    );
  }

  list(knoc: AgentKnocOf<'knocproxy'>): Promise<string[]> {
    return Promise.resolve(this.#find(knoc)?.granted.list() ?? []);
  }

  /** Forgets every grant of the knoc and stops its listener (the knoc is gone). */
  async flush(knoc: AgentKnocOf<'knocproxy'>): Promise<void> {
    const served = this.#find(knoc);
    if (served !== undefined) await this.#stop(served);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#byAddress.values()].map((served) => this.#stop(served)));
  }

  #find(knoc: AgentKnocOf<'knocproxy'>): Served | undefined {
    return [...this.#byAddress.values()].find((served) => served.aclId === knoc.aclId);
  }

  /** The knoc's listener, started (or moved, when its address changed) as needed. */
  async #serve(knoc: AgentKnocOf<'knocproxy'>): Promise<Served> {
    const backend = socketBackend(knoc.backend);
    const listen = listenAddress(backend.Protocol, backend.Address);
    const key = listen.kind === 'unix' ? `unix:${listen.path}` : `tcp:${listen.host}:${listen.port}`;
    const upstream = upstreamUrl(knoc);

    const here = this.#byAddress.get(key);
    if (here !== undefined && here.aclId !== knoc.aclId) {
      throw new Error(
        `knocproxy address ${backend.Address} already serves knoc ${here.aclId}; each knoc needs its own address`,
      );
    }
    const elsewhere = this.#find(knoc);
    // The knoc's address changed: its grants move with it to the new listener.
    if (elsewhere !== undefined && elsewhere.key !== key) await this.#stop(elsewhere, { keepGrants: true });

    let served = this.#byAddress.get(key);
    if (served === undefined) {
      const granted = elsewhere !== undefined && elsewhere.key !== key ? elsewhere.granted : new GrantedAddresses();
      const listener = ProxyListener.start({
        listen,
        upstream,
        granted,
        tls: this.#options.tls,
        logger: this.#options.logger,
        ...(this.#options.upstreamTimeoutMs === undefined
          ? {}
          : { upstreamTimeoutMs: this.#options.upstreamTimeoutMs }),
      });
      served = { aclId: knoc.aclId, key, granted, listener };
      this.#byAddress.set(key, served);
      const starting = served;
      listener.then(
        () =>
          this.#options.logger.info(
            { aclId: knoc.aclId, address: backend.Address, upstream: upstream.origin },
            'knocproxy listening',
          ),
        () => {
          if (this.#byAddress.get(key) === starting) this.#byAddress.delete(key);
        },
      );
    }
    try {
      (await served.listener).setUpstream(upstream);
    } catch (error) {
      throw new Error(
        `knocproxy cannot listen on ${backend.Address}: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    }
    return served;
  }

  async #stop(served: Served, options: { keepGrants?: boolean } = {}): Promise<void> {
    if (this.#byAddress.get(served.key) === served) this.#byAddress.delete(served.key);
    if (options.keepGrants !== true) served.granted.clear();
    try {
      await (await served.listener).close();
    } catch {
      // It never started.
    }
  }
}

/** The backend's Address as something to listen on. */
function listenAddress(protocol: 'unix' | 'tcp', address: string): ListenAddress {
  if (address === '') throw new Error('the knocproxy backend has no Address to listen on');
  if (protocol === 'unix') {
    if (!address.startsWith('/')) throw new Error(`knocproxy unix socket ${address} is not an absolute path`);
    return { kind: 'unix', path: address };
  }
  return { kind: 'tcp', ...parseHostPort(address) };
}

/** The knoc's URL, which must be http or https. */
export function upstreamUrl(knoc: AgentKnoc): URL {
  const url = URL.canParse(knoc.url) ? new URL(knoc.url) : null;
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new Error(`knoc ${knoc.aclId} has no http(s) URL for knocproxy to forward to`);
  }
  return url;
}
