import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, waitFor } from '@postern/test-support';
import { createGelfSender } from './gelf-sender.js';
import { backoffDelay } from './stream-sender.js';
import type { GelfSender, GelfSenderOptions } from './types.js';

/** A GELF TCP or TLS listener that splits what it reads at NUL bytes. */
interface FrameListener {
  port: number;
  /** Parsed frames with the index of the connection that carried them. */
  frames: { connection: number; message: Record<string, unknown> }[];
  /** Raw TCP connections accepted, including TLS handshakes that failed. */
  connections: Socket[];
  close: () => Promise<void>;
}

/** Collects `socket`'s frames, tagged with its index in `connections` (-1 for a TLS socket). */
function readFrames(socket: Socket, connections: Socket[], frames: FrameListener['frames']): void {
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (let end = pending.indexOf(0); end !== -1; end = pending.indexOf(0)) {
      frames.push({
        connection: connections.indexOf(socket),
        message: JSON.parse(pending.subarray(0, end).toString('utf8')) as Record<string, unknown>,
      });
      pending = pending.subarray(end + 1);
    }
  });
  socket.on('error', () => undefined); // the sender may reset the connection when it closes
}

async function listen(server: Server, port: number, connections: Socket[]): Promise<FrameListener['close']> {
  server.on('connection', (socket: Socket) => {
    connections.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of connections) socket.destroy();
      server.close(() => resolve());
    });
}

async function startTcpListener(port = 0, options: { pauseOnConnect?: boolean } = {}): Promise<FrameListener> {
  const frames: FrameListener['frames'] = [];
  const connections: Socket[] = [];
  const server = createTcpServer({ pauseOnConnect: options.pauseOnConnect ?? false }, (socket) =>
    readFrames(socket, connections, frames),
  );
  const close = await listen(server, port, connections);
  return { port: (server.address() as { port: number }).port, frames, connections, close };
}

function texts(listener: FrameListener): unknown[] {
  return listener.frames.map((frame) => frame.message.short_message);
}

describe('GELF over TCP', { timeout: 20_000 }, () => {
  const cleanups: (() => Promise<void>)[] = [];
  let warnings: { obj: Record<string, unknown>; msg: string }[];

  function sender(port: number, options: Partial<GelfSenderOptions> = {}): GelfSender {
    warnings = [];
    const created = createGelfSender(`tcp://127.0.0.1:${port}`, {
      host: 'postern-test',
      logger: { warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }) },
      ...options,
    });
    cleanups.push(() => created.close());
    return created;
  }

  async function listener(port?: number, options?: { pauseOnConnect?: boolean }): Promise<FrameListener> {
    const started = await startTcpListener(port, options);
    cleanups.push(started.close);
    return started;
  }

  afterEach(async () => {
    vi.useRealTimers();
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /**
   * From now on the sender's timers (its close deadline, its reconnect back-off) are the test's to
   * move; the sockets stay real. A timer it set before is still cleared by its clearTimeout.
   */
  const takeTheSendersTimers = () =>
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldClearNativeTimers: true });

  it('delivers plain JSON frames, NUL-delimited, in order on one connection', async () => {
    const server = await listener();
    const gelf = sender(server.port);
    for (let index = 0; index < 50; index += 1) gelf.send({ short_message: `m${index}`, _seq: index });

    await waitFor(() => server.frames.length === 50, '50 frames');
    expect(texts(server)).toEqual(Array.from({ length: 50 }, (_, index) => `m${index}`));
    expect(server.frames[7]?.message).toMatchObject({ version: '1.1', host: 'postern-test', level: 6, _seq: 7 });
    expect(server.connections).toHaveLength(1);
    expect(warnings).toEqual([]);
  });

  it('queues messages sent before the listener exists and delivers them once it is up', async () => {
    const port = await freePort();
    const gelf = sender(port);
    for (const text of ['a', 'b', 'c']) gelf.send({ short_message: text });
    await waitFor(() => warnings.length === 1, 'the unreachable warning');
    expect(warnings[0]?.msg).toMatch(/unreachable/);

    const server = await listener(port);
    await waitFor(() => server.frames.length === 3, 'the queued frames');
    expect(texts(server)).toEqual(['a', 'b', 'c']);
    expect(warnings).toHaveLength(1);
  });

  it('drops the oldest messages when the queue is full, keeps the order, and reports the count', async () => {
    const port = await freePort();
    const gelf = sender(port, { maxQueue: 5 });
    for (let index = 0; index < 8; index += 1) gelf.send({ short_message: `m${index}` });
    await waitFor(() => warnings.some((warning) => /unreachable/.test(warning.msg)), 'the unreachable warning');
    expect(warnings.filter((warning) => /queue full/.test(warning.msg))).toHaveLength(1);

    const server = await listener(port);
    await waitFor(() => server.frames.length === 5, 'the kept frames');
    expect(texts(server)).toEqual(['m3', 'm4', 'm5', 'm6', 'm7']);
    await waitFor(() => warnings.some((warning) => warning.obj.dropped === 3), 'the dropped count');
  });

  it('reconnects after the listener kills the connection', async () => {
    const server = await listener();
    const gelf = sender(server.port);
    gelf.send({ short_message: 'before' });
    await waitFor(() => server.frames.length === 1, 'the first frame');
    server.connections[0]?.destroy();

    // Whatever was in flight when the connection died is lost; keep sending until the new one carries some.
    await waitFor(() => {
      gelf.send({ short_message: 'after' });
      return server.frames.some((frame) => frame.connection === 1);
    }, 'a frame on a second connection');
    expect(server.connections).toHaveLength(2);
    expect(warnings).toHaveLength(1);
  });

  it('close() delivers the messages still queued before it resolves', async () => {
    const server = await listener();
    const gelf = sender(server.port);
    for (const text of ['x', 'y', 'z']) gelf.send({ short_message: text });
    await gelf.close();
    await waitFor(() => server.frames.length === 3, 'the frames sent before close');
    expect(texts(server)).toEqual(['x', 'y', 'z']);
  });

  it('close() resolves promptly when the listener is gone', async () => {
    const server = await listener();
    const gelf = sender(server.port);
    gelf.send({ short_message: 'one' });
    await waitFor(() => server.frames.length === 1, 'the first frame');
    await server.close();

    // Promptly: without its close deadline, which never fires now that the test holds the timers.
    takeTheSendersTimers();
    gelf.send({ short_message: 'two' });
    await gelf.close();
    expect(() => gelf.send({ short_message: 'after close' })).not.toThrow();
  });

  it('close() gives up at its deadline when the listener stops reading', async () => {
    const server = await listener(0, { pauseOnConnect: true });
    const gelf = sender(server.port);
    const big = 'x'.repeat(200_000);
    for (let index = 0; index < 200; index += 1) gelf.send({ short_message: `m${index}`, full_message: big });
    await waitFor(() => server.connections.length === 1, 'the connection');

    takeTheSendersTimers();
    const closing = gelf.close();
    // The deadline is the one timer close() sets; moving to it gives up on what the listener left unread.
    await vi.advanceTimersToNextTimerAsync();
    await closing;
    expect(warnings.some((warning) => /undelivered/.test(warning.msg))).toBe(true);
  });
});

describe('reconnect back-off', () => {
  it.each([
    [0, 500],
    [1, 1000],
    [3, 4000],
    [6, 30_000],
    [60, 30_000],
  ])('attempt %i waits between half of and %i ms', (attempt, ceiling) => {
    expect(backoffDelay(attempt, () => 0)).toBe(ceiling);
    expect(backoffDelay(attempt, () => 0.999_999)).toBe(Math.round(ceiling / 2));
  });
});

describe('GELF over TLS', { timeout: 20_000 }, () => {
  let directory: string;
  let cert: string;
  let key: string;
  let server: FrameListener;
  let gelf: GelfSender | undefined;
  let warnings: { obj: Record<string, unknown>; msg: string }[];

  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'postern-gelf-tls-'));
    const [keyFile, certFile] = [path.join(directory, 'key.pem'), path.join(directory, 'cert.pem')];
    const subject = '-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1';
    const keyType = '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1';
    // An argument array straight to openssl: no shell.
    const args = ['req', '-x509', ...`${keyType} ${subject}`.split(' '), '-keyout', keyFile, '-out', certFile];
    await promisify(execFile)('openssl', args);
    [key, cert] = await Promise.all([readFile(keyFile, 'utf8'), readFile(certFile, 'utf8')]);

    const frames: FrameListener['frames'] = [];
    const connections: Socket[] = [];
    const tlsServer = createTlsServer({ key, cert }, (socket) => readFrames(socket, connections, frames));
    tlsServer.on('tlsClientError', () => undefined);
    const close = await listen(tlsServer, 0, connections);
    server = { port: (tlsServer.address() as { port: number }).port, frames, connections, close };
  });

  afterEach(async () => {
    await gelf?.close();
    gelf = undefined;
    server.frames.length = 0;
    for (const socket of server.connections.splice(0)) socket.destroy();
  });

  afterAll(async () => {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });

  function sender(tls?: GelfSenderOptions['tls']): GelfSender {
    warnings = [];
    gelf = createGelfSender(`tls://127.0.0.1:${server.port}`, {
      host: 'postern-test',
      logger: { warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }) },
      ...(tls === undefined ? {} : { tls }),
    });
    return gelf;
  }

  it('delivers frames to a listener whose certificate the given CA signed', async () => {
    sender({ ca: cert }).send({ short_message: 'over tls', _action: 'auth.login' });
    await waitFor(() => server.frames.length === 1, 'the frame');
    expect(server.frames[0]?.message).toMatchObject({ short_message: 'over tls', _action: 'auth.login' });
    expect(warnings).toEqual([]);
  });

  it('refuses an unknown certificate by default: nothing received, one warning per failure streak', async () => {
    sender().send({ short_message: 'must not arrive' });
    await waitFor(() => server.connections.length >= 2, 'a retried handshake');
    expect(server.frames).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.obj.err)).toMatch(/self[- ]signed certificate/);
  });

  it('skips verification only when rejectUnauthorized is false', async () => {
    sender({ rejectUnauthorized: false }).send({ short_message: 'unverified' });
    await waitFor(() => server.frames.length === 1, 'the frame');
    expect(server.frames[0]?.message.short_message).toBe('unverified');
  });
});
