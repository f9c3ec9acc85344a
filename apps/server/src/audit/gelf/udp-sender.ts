import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import { deflate } from 'node:zlib';
import { encodeGelf } from './gelf-message.js';
import { formatGelfTarget, type GelfTarget } from './gelf-url.js';
import type { GelfLogger, GelfMessage, GelfSender } from './types.js';

/** Graylog's datagram limit; a bigger (deflated) message goes out in chunks of at most this size. */
export const UDP_MAX_DATAGRAM = 8192;
const CHUNK_HEADER_SIZE = 12;
const CHUNK_DATA_SIZE = UDP_MAX_DATAGRAM - CHUNK_HEADER_SIZE;
/** Graylog discards a message of more chunks than this. */
export const UDP_MAX_CHUNKS = 128;
const CLOSE_DEADLINE_MS = 2000;

/**
 * Splits a deflated message into GELF chunks: 0x1e 0x0f, an 8-byte message id shared by all chunks,
 * the sequence number and the sequence count, then the data.
 */
function chunkGelf(payload: Buffer, messageId: Buffer = randomBytes(8)): Buffer[] {
  const count = Math.ceil(payload.length / CHUNK_DATA_SIZE);
  const chunks: Buffer[] = [];
  for (let sequence = 0; sequence < count; sequence += 1) {
    const header = Buffer.from([0x1e, 0x0f, ...messageId, sequence, count]);
    chunks.push(
      Buffer.concat([header, payload.subarray(sequence * CHUNK_DATA_SIZE, (sequence + 1) * CHUNK_DATA_SIZE)]),
    );
  }
  return chunks;
}

/** GELF over UDP: each message deflated, chunked above 8 KB, fire and forget. */
export class UdpGelfSender implements GelfSender {
  readonly #target: GelfTarget;
  readonly #host: string;
  readonly #logger: GelfLogger | undefined;
  #socket: Socket | undefined;
  /** Messages being deflated or handed to the kernel; close() waits for them. */
  #pending = 0;
  #onIdle: (() => void) | undefined;
  #failing = false;
  #closed: Promise<void> | undefined;
  /** Set once the socket is closed: a deflate that finishes later is dropped, not sent. */
  #shutDown = false;

  constructor(target: GelfTarget, host: string, logger?: GelfLogger) {
    this.#target = target;
    this.#host = host;
    this.#logger = logger;
  }

  send(message: GelfMessage): void {
    if (this.#closed !== undefined) return;
    let json: Buffer;
    try {
      json = encodeGelf(message, this.#host);
    } catch (error) {
      this.#logger?.warn({ target: formatGelfTarget(this.#target), err: error }, 'GELF message could not be sent');
      return;
    }
    this.#pending += 1;
    // Async deflate runs on the thread pool, so a large message never stalls the caller's request.
    deflate(json, (error, payload) => {
      if (error !== null) this.#done(error);
      else if (this.#shutDown) this.#done();
      else this.#transmit(payload);
    });
  }

  close(): Promise<void> {
    this.#closed ??= new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(deadline);
        this.#onIdle = undefined;
        this.#shutDown = true;
        this.#socket?.close();
        this.#socket = undefined;
        resolve();
      };
      const deadline = setTimeout(finish, CLOSE_DEADLINE_MS);
      if (this.#pending === 0) finish();
      else this.#onIdle = finish;
    });
    return this.#closed;
  }

  #transmit(payload: Buffer): void {
    const datagrams = payload.length <= UDP_MAX_DATAGRAM ? [payload] : chunkGelf(payload);
    if (datagrams.length > UDP_MAX_CHUNKS) {
      this.#logger?.warn(
        { target: formatGelfTarget(this.#target), bytes: payload.length, maxChunks: UDP_MAX_CHUNKS },
        'GELF message too large for UDP; dropped',
      );
      this.#done();
      return;
    }
    let outstanding = datagrams.length;
    let firstError: Error | undefined;
    const settle = (count: number, error?: Error) => {
      firstError ??= error;
      outstanding -= count;
      if (outstanding === 0) this.#done(firstError);
    };
    let issued = 0;
    try {
      const socket = this.#openSocket();
      for (const datagram of datagrams) {
        socket.send(datagram, this.#target.port, this.#target.host, (error) => settle(1, error ?? undefined));
        issued += 1;
      }
    } catch (error) {
      // Not expected (the arguments are valid), but this runs in a zlib callback: never let it escape.
      settle(datagrams.length - issued, error instanceof Error ? error : new Error(String(error)));
    }
  }

  #openSocket(): Socket {
    if (this.#socket === undefined) {
      this.#socket = createSocket(isIP(this.#target.host) === 6 ? 'udp6' : 'udp4');
      // Send errors arrive in the callbacks; this only keeps a stray socket error from crashing the process.
      this.#socket.on('error', (error) => this.#report(error));
      this.#socket.unref();
    }
    return this.#socket;
  }

  /** One message finished, delivered to the kernel or not. */
  #done(error?: Error): void {
    if (error === undefined) this.#failing = false;
    else this.#report(error);
    this.#pending -= 1;
    if (this.#pending === 0) this.#onIdle?.();
  }

  /** Warns once per failure streak; the next successful send ends the streak. */
  #report(error: Error): void {
    if (this.#failing) return;
    this.#failing = true;
    this.#logger?.warn({ target: formatGelfTarget(this.#target), err: error }, 'GELF UDP send failed');
  }
}
