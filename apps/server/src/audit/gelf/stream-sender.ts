import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { encodeGelf } from './gelf-message.js';
import { formatGelfTarget, type GelfTarget } from './gelf-url.js';
import type { GelfLogger, GelfMessage, GelfSender, GelfSenderOptions } from './types.js';

const BACKOFF_INITIAL_MS = 500;
const BACKOFF_MAX_MS = 30_000;
/** A connection that lived this long counts as healthy: the back-off and the warning streak start over. */
const STABLE_AFTER_MS = 10_000;
const CONNECT_TIMEOUT_MS = 10_000;
const CLOSE_DEADLINE_MS = 2000;
const DEFAULT_MAX_QUEUE = 1000;
const NUL = Buffer.from([0]);

/** The wait before reconnect attempt `attempt` (from 0): 0.5 s doubling up to 30 s, less up to half as jitter. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * 2 ** Math.min(attempt, 16));
  return Math.round(ceiling * (1 - random() / 2));
}

/**
 * GELF over TCP or TLS: NUL-terminated JSON frames on one persistent connection, opened on the first
 * message. While the connection is down (or the peer reads too slowly) frames wait in a bounded queue
 * that drops its oldest frame when full. Frames already handed to a connection that then breaks are
 * lost: GELF has no acknowledgements.
 */
export class StreamGelfSender implements GelfSender {
  readonly #target: GelfTarget;
  readonly #host: string;
  readonly #logger: GelfLogger | undefined;
  readonly #maxQueue: number;
  readonly #tls: { context: SecureContext; rejectUnauthorized: boolean } | undefined;
  readonly #queue: Buffer[] = [];
  #socket: Socket | undefined;
  #connectedAt: number | undefined;
  #retryTimer: NodeJS.Timeout | undefined;
  #attempt = 0;
  #lastError: Error | undefined;
  /** True once this failure streak has been reported. */
  #failing = false;
  #dropped = 0;
  #closing: Promise<void> | undefined;
  #finishClose: (() => void) | undefined;

  /** Throws when `options.tls.ca` is not valid PEM, so a bad setting shows up at start, not per message. */
  constructor(target: GelfTarget, options: GelfSenderOptions) {
    this.#target = target;
    this.#host = options.host;
    this.#logger = options.logger;
    this.#maxQueue = Math.max(1, options.maxQueue ?? DEFAULT_MAX_QUEUE);
    if (target.protocol === 'tls') {
      const extra = options.tls?.ca;
      this.#tls = {
        // Passing `ca` to Node replaces the system roots; the option is documented as adding to them.
        context: createSecureContext(extra === undefined ? {} : { ca: [...rootCertificates, ...[extra].flat()] }),
        rejectUnauthorized: options.tls?.rejectUnauthorized !== false,
      };
    }
  }

  send(message: GelfMessage): void {
    if (this.#closing !== undefined) return;
    try {
      this.#enqueue(Buffer.concat([encodeGelf(message, this.#host), NUL]));
      if (this.#connectedAt !== undefined) this.#flush();
      else if (this.#socket === undefined && this.#retryTimer === undefined) this.#connect();
    } catch (error) {
      this.#logger?.warn({ target: this.#label(), err: error }, 'GELF message could not be sent');
    }
  }

  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      clearTimeout(this.#retryTimer);
      this.#retryTimer = undefined;
      const finish = () => {
        clearTimeout(deadline);
        this.#finishClose = undefined;
        const socket = this.#socket;
        this.#socket = undefined;
        this.#connectedAt = undefined;
        socket?.destroy();
        if (this.#queue.length > 0) {
          this.#logger?.warn(
            { target: this.#label(), undelivered: this.#queue.length },
            'GELF sender closed with undelivered messages',
          );
          this.#queue.length = 0;
        }
        resolve();
      };
      const deadline = setTimeout(finish, CLOSE_DEADLINE_MS);
      this.#finishClose = finish;
      // Connected: flush, then end. Connecting: that attempt's outcome finishes. Waiting out the back-off:
      // one last attempt now. Nothing queued: done.
      if (this.#connectedAt !== undefined) this.#flush();
      else if (this.#socket === undefined && this.#queue.length > 0) this.#connect();
      else if (this.#socket === undefined) finish();
    });
    return this.#closing;
  }

  #enqueue(frame: Buffer): void {
    if (this.#queue.length >= this.#maxQueue) {
      this.#queue.shift();
      this.#dropped += 1;
      if (this.#dropped === 1) {
        this.#logger?.warn(
          { target: this.#label(), maxQueue: this.#maxQueue },
          'GELF queue full; dropping the oldest messages',
        );
      }
    }
    this.#queue.push(frame);
  }

  #connect(): void {
    const { host, port } = this.#target;
    let socket: Socket;
    try {
      socket =
        this.#tls === undefined
          ? connectTcp({ host, port })
          : connectTls({
              host,
              port,
              // SNI carries host names only (RFC 6066); an IP address is still checked against the certificate.
              servername: isIP(host) === 0 ? host : undefined,
              secureContext: this.#tls.context,
              rejectUnauthorized: this.#tls.rejectUnauthorized,
            });
    } catch (error) {
      this.#lastError = error instanceof Error ? error : new Error(String(error));
      this.#afterFailure(false);
      return;
    }
    this.#socket = socket;
    socket.setKeepAlive(true, 30_000);
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy(new Error('GELF connection timed out')));
    socket.unref(); // a log destination never keeps the process alive on its own
    socket.once(this.#tls === undefined ? 'connect' : 'secureConnect', () => this.#onConnect(socket));
    socket.on('drain', () => this.#flush());
    socket.on('error', (error) => (this.#lastError = error));
    socket.on('close', () => this.#onClose(socket));
    socket.resume(); // a GELF listener sends nothing; discard whatever arrives
  }

  #onConnect(socket: Socket): void {
    if (socket !== this.#socket) return;
    this.#connectedAt = Date.now();
    socket.setTimeout(0);
    if (this.#dropped > 0) {
      this.#logger?.warn(
        { target: this.#label(), dropped: this.#dropped },
        'GELF output reachable again; some messages were dropped',
      );
      this.#dropped = 0;
    }
    this.#flush();
  }

  /** Writes queued frames in order until the socket asks to wait for `drain`; on close, ends the socket. */
  #flush(): void {
    const socket = this.#socket;
    if (socket === undefined || this.#connectedAt === undefined) return;
    while (!socket.writableNeedDrain) {
      const frame = this.#queue.shift();
      if (frame === undefined) break;
      socket.write(frame);
    }
    const finish = this.#finishClose;
    if (finish !== undefined && this.#queue.length === 0 && !socket.writableEnded) socket.end(() => finish());
  }

  #onClose(socket: Socket): void {
    if (socket !== this.#socket) return;
    const connectedAt = this.#connectedAt;
    this.#socket = undefined;
    this.#connectedAt = undefined;
    this.#afterFailure(connectedAt !== undefined && Date.now() - connectedAt >= STABLE_AFTER_MS);
  }

  /** Reports the first failure of a streak, then schedules the next attempt (or, when closing, gives up). */
  #afterFailure(wasStable: boolean): void {
    if (this.#finishClose !== undefined) {
      this.#finishClose();
      return;
    }
    if (wasStable) {
      this.#attempt = 0;
      this.#failing = false;
    }
    if (!this.#failing) {
      this.#failing = true;
      this.#logger?.warn(
        { target: this.#label(), err: this.#lastError },
        'GELF output unreachable; queueing messages and reconnecting',
      );
    }
    this.#lastError = undefined;
    const delay = backoffDelay(this.#attempt);
    this.#attempt += 1;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#connect();
    }, delay);
    this.#retryTimer.unref();
  }

  #label(): string {
    return formatGelfTarget(this.#target);
  }
}
