import { lstat, unlink } from 'node:fs/promises';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { clientAddress, type GrantedAddresses } from './granted-addresses.js';
import { clientResponseHeaders, upstreamRequestHeaders, type ForwardedFor } from './proxy-headers.js';
import { errorPage } from './proxy-pages.js';

/** Where a listener accepts connections. */
export type ListenAddress = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string };

/** A certificate and key (PEM) to serve HTTPS with. */
export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

export interface ProxyListenerOptions {
  listen: ListenAddress;
  /** The knoc's URL: requests go to its origin, under its path. */
  upstream: URL;
  granted: GrantedAddresses;
  /** Serve HTTPS on tcp listeners. */
  tls: TlsFiles | null;
  logger: Logger;
  /** An upstream silent for this long (no response headers, or no data) gets a 504 / is cut. */
  upstreamTimeoutMs?: number;
}

const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000;
/** A client has this long to send its request headers. */
const HEADERS_TIMEOUT_MS = 30_000;

/**
 * One knocproxy listener: an HTTP(S) reverse proxy in front of a knoc's URL that admits only client
 * addresses granted on that knoc. On a tcp listener the client is the socket's peer. A unix listener
 * sits behind a front proxy on the same host (whoever can open the socket is trusted), so the client
 * is the last X-Forwarded-For hop that front proxy added.
 */
export class ProxyListener {
  #upstream: URL;
  readonly #options: ProxyListenerOptions;
  readonly #server: Server;
  #upstreamAgent: http.Agent;
  readonly #retiredAgents: http.Agent[] = [];
  readonly #sockets = new Set<Duplex>();

  private constructor(options: ProxyListenerOptions) {
    this.#options = options;
    this.#upstream = options.upstream;
    const useTls = options.tls !== null && options.listen.kind === 'tcp';
    const handler = (req: IncomingMessage, res: ServerResponse) => this.#handle(req, res);
    this.#server = useTls ? https.createServer({ ...options.tls }, handler) : http.createServer(handler);
    this.#server.headersTimeout = HEADERS_TIMEOUT_MS;
    this.#server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.#upgrade(req, socket, head),
    );
    this.#server.on('connection', (socket: Socket) => this.#track(socket));
    this.#upstreamAgent = upstreamAgent(options.upstream);
  }

  /** The knoc's URL requests go to. */
  get upstream(): URL {
    return this.#upstream;
  }

  /** Points the listener at a changed knoc URL; requests in flight finish against the old one. */
  setUpstream(url: URL): void {
    if (url.href === this.#upstream.href) return;
    // Requests in flight keep the old agent's connections; close() releases them.
    this.#retiredAgents.push(this.#upstreamAgent);
    this.#upstream = url;
    this.#upstreamAgent = upstreamAgent(url);
  }

  /** Starts listening; rejects when the address cannot be bound. */
  static async start(options: ProxyListenerOptions): Promise<ProxyListener> {
    const listener = new ProxyListener(options);
    if (options.listen.kind === 'unix') await removeStaleSocket(options.listen.path);
    await new Promise<void>((resolve, reject) => {
      const server = listener.#server;
      server.once('error', reject);
      const done = () => {
        server.off('error', reject);
        server.on('error', (error) => options.logger.error({ err: error }, 'knocproxy listener error'));
        resolve();
      };
      if (options.listen.kind === 'unix') server.listen(options.listen.path, done);
      else server.listen(options.listen.port, options.listen.host, done);
    });
    return listener;
  }

  /** Whether the server speaks HTTPS to its clients. */
  get secure(): boolean {
    return this.#options.tls !== null && this.#options.listen.kind === 'tcp';
  }

  /** Stops accepting, ends every open connection, and releases the upstream connections. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    for (const agent of [this.#upstreamAgent, ...this.#retiredAgents]) agent.destroy();
    await closed;
  }

  #track(socket: Duplex): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
  }

  /** The client's address and the X-Forwarded-* values, or null when the client cannot be named. */
  #forwarded(req: IncomingMessage): { client: string; forwarded: ForwardedFor } | null {
    const host = req.headers.host ?? '';
    if (this.#options.listen.kind === 'tcp') {
      const client = clientAddress(req.socket.remoteAddress);
      if (client === null) return null;
      // At the edge, whatever X-Forwarded-For the client sent is its own claim: replace it.
      return { client, forwarded: { chain: [client], proto: this.secure ? 'https' : 'http', host } };
    }
    const chain = String(req.headers['x-forwarded-for'] ?? '')
      .split(',')
      .map((hop) => hop.trim())
      .filter((hop) => hop !== '');
    const client = clientAddress(chain.at(-1));
    if (client === null) return null;
    const proto = req.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
    const forwardedHost = String(req.headers['x-forwarded-host'] ?? '') || host;
    return { client, forwarded: { chain, proto, host: forwardedHost } };
  }

  #upstreamRequest(req: IncomingMessage, forwarded: ForwardedFor): http.ClientRequest {
    const upstream = this.#upstream;
    const prefix = upstream.pathname.replace(/\/+$/, '');
    const options: http.RequestOptions = {
      protocol: upstream.protocol,
      hostname: upstream.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: upstream.port === '' ? undefined : Number(upstream.port),
      method: req.method,
      path: `${prefix}${req.url ?? '/'}`,
      headers: upstreamRequestHeaders(req.headers, upstream.host, forwarded),
      agent: this.#upstreamAgent,
    };
    return (upstream.protocol === 'https:' ? https : http).request(options);
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const origin = this.#forwarded(req);
    if (origin === null || !this.#options.granted.admits(origin.client)) {
      sendPage(res, 403, origin?.client ?? null);
      req.resume();
      return;
    }
    const proxyReq = this.#upstreamRequest(req, origin.forwarded);
    proxyReq.setTimeout(this.#options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS, () => {
      proxyReq.destroy(new UpstreamTimeout());
    });
    proxyReq.on('response', (proxyRes) => {
      res.writeHead(proxyRes.statusCode ?? 502, proxyRes.statusMessage, clientResponseHeaders(proxyRes.headers));
      proxyRes.pipe(res);
      proxyRes.on('error', () => res.destroy());
    });
    proxyReq.on('error', (error) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      this.#options.logger.warn({ err: error, upstream: this.#upstream.origin }, 'knocproxy upstream failed');
      sendPage(res, error instanceof UpstreamTimeout ? 504 : 502, origin.client);
    });
    // The client went away: stop talking to the upstream for it.
    res.on('close', () => {
      if (!res.writableFinished) proxyReq.destroy();
    });
    req.pipe(proxyReq);
  }

  /** A WebSocket (or other) upgrade: admitted the same way, then bytes relayed both ways. */
  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const origin = this.#forwarded(req);
    socket.on('error', () => socket.destroy());
    if (origin === null || !this.#options.granted.admits(origin.client)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const proxyReq = this.#upstreamRequest(req, origin.forwarded);
    // The upgrade itself is hop-by-hop, so it is asked for again on the upstream connection.
    proxyReq.setHeader('connection', 'Upgrade');
    proxyReq.setHeader('upgrade', req.headers.upgrade ?? 'websocket');
    proxyReq.setTimeout(this.#options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS, () => proxyReq.destroy());
    proxyReq.on('upgrade', (proxyRes, upstreamSocket, upstreamHead) => {
      proxyReq.setTimeout(0);
      this.#track(upstreamSocket);
      const headers = {
        ...clientResponseHeaders(proxyRes.headers),
        connection: 'Upgrade',
        upgrade: proxyRes.headers.upgrade,
      };
      socket.write(rawHead(proxyRes.statusCode ?? 101, proxyRes.statusMessage ?? 'Switching Protocols', headers));
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstreamSocket.write(head);
      upstreamSocket.on('error', () => socket.destroy());
      socket.on('close', () => upstreamSocket.destroy());
      upstreamSocket.on('close', () => socket.destroy());
      upstreamSocket.pipe(socket).pipe(upstreamSocket);
    });
    proxyReq.on('response', (proxyRes) => {
      // The upstream refused the upgrade: pass its answer on, then close.
      socket.write(
        rawHead(proxyRes.statusCode ?? 502, proxyRes.statusMessage ?? '', clientResponseHeaders(proxyRes.headers)),
      );
      proxyRes.pipe(socket);
    });
    proxyReq.on('error', () =>
      socket.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'),
    );
    proxyReq.end();
  }
}

function upstreamAgent(url: URL): http.Agent {
  return url.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
}

class UpstreamTimeout extends Error {
  override message = 'the upstream did not answer in time';
}

function sendPage(res: ServerResponse, status: 403 | 502 | 504, client: string | null): void {
  const body = errorPage(status, client);
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}

/** An HTTP/1.1 response head as bytes, for a connection that has left the HTTP parser (upgrades). */
function rawHead(status: number, message: string, headers: http.OutgoingHttpHeaders): string {
  const lines = [`HTTP/1.1 ${status} ${message}`];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(one)}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A unix socket left by an earlier run blocks listen(); only a socket is ever removed, never a file. */
async function removeStaleSocket(file: string): Promise<void> {
  try {
    if ((await lstat(file)).isSocket()) await unlink(file);
  } catch {
    // Nothing there.
  }
}
