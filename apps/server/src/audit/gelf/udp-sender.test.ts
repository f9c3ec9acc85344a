import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { inflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '@postern/test-support';
import { createGelfSender } from './gelf-sender.js';
import type { GelfMessage, GelfSender } from './types.js';
import { UDP_MAX_CHUNKS, UDP_MAX_DATAGRAM } from './udp-sender.js';

/** Reassembles GELF chunks (or passes a plain datagram through) and inflates the result. */
function decode(datagrams: Buffer[]): Record<string, unknown> {
  const first = datagrams[0];
  if (first === undefined) throw new Error('no datagram');
  const chunked = first[0] === 0x1e && first[1] === 0x0f;
  const ordered = chunked ? [...datagrams].sort((a, b) => (a[10] ?? 0) - (b[10] ?? 0)) : datagrams;
  const payload = Buffer.concat(ordered.map((datagram) => (chunked ? datagram.subarray(12) : datagram)));
  return JSON.parse(inflateSync(payload).toString('utf8')) as Record<string, unknown>;
}

describe('GELF over UDP', { timeout: 20_000 }, () => {
  let listener: Socket;
  let received: Buffer[];
  let sender: GelfSender;
  let warnings: { obj: object; msg: string }[];

  beforeEach(async () => {
    received = [];
    warnings = [];
    listener = createSocket('udp4');
    listener.on('message', (datagram) => received.push(datagram));
    await new Promise<void>((resolve) => listener.bind(0, '127.0.0.1', resolve));
    sender = createGelfSender(`udp://127.0.0.1:${listener.address().port}`, {
      host: 'postern-test',
      logger: { warn: (obj, msg) => warnings.push({ obj, msg }) },
    });
  });

  afterEach(async () => {
    await sender.close();
    await new Promise<void>((resolve) => listener.close(resolve));
  });

  it('sends a small message as one deflated datagram with the GELF fields', async () => {
    const before = Date.now() / 1000;
    sender.send({
      short_message: 'user signed in',
      full_message: 'alice signed in from 192.0.2.7',
      _action: 'auth.login',
      _user_id: 42,
      _id: 'reserved by GELF',
      _empty: undefined,
      ...({ no_underscore: 'x', '_bad name': 'x', version: '9', host: 'spoofed' } as Partial<GelfMessage>),
    });

    await waitFor(() => received.length === 1, 'one datagram');
    const message = decode(received);
    expect(message).toEqual({
      version: '1.1',
      host: 'postern-test',
      short_message: 'user signed in',
      full_message: 'alice signed in from 192.0.2.7',
      level: 6,
      timestamp: expect.any(Number) as number,
      _action: 'auth.login',
      _user_id: 42,
    });
    expect(message.timestamp).toBeGreaterThanOrEqual(Math.floor(before));
    expect(message.timestamp).toBeLessThanOrEqual(Date.now() / 1000 + 1);
  });

  it('keeps a given level and fractional timestamp', async () => {
    sender.send({ short_message: 'grant failed', level: 3, timestamp: 1_767_225_600.125 });
    await waitFor(() => received.length === 1, 'one datagram');
    expect(decode(received)).toMatchObject({ level: 3, timestamp: 1_767_225_600.125 });
  });

  it('replaces an out-of-range level and an invalid timestamp with the defaults', async () => {
    sender.send({ short_message: 'odd', level: 99, timestamp: Number.NaN });
    await waitFor(() => received.length === 1, 'one datagram');
    const message = decode(received);
    expect(message.level).toBe(6);
    expect(message.timestamp).toBeGreaterThan(1_700_000_000);
  });

  it('splits a large message into chunks with GELF headers that reassemble to the original', async () => {
    const text = randomBytes(37_500).toString('base64'); // 50 KB that deflate barely shrinks
    sender.send({ short_message: 'large', full_message: text });

    await waitFor(() => received.length > 1 && received.length === received[0]?.[11], 'every chunk');
    const count = received.length;
    const messageId = received[0]?.subarray(2, 10);
    expect(count).toBeGreaterThan(4);
    for (const datagram of received) {
      expect(datagram.length).toBeLessThanOrEqual(UDP_MAX_DATAGRAM);
      expect([datagram[0], datagram[1]]).toEqual([0x1e, 0x0f]);
      expect(datagram.subarray(2, 10)).toEqual(messageId);
      expect(datagram[11]).toBe(count);
    }
    expect(received.map((datagram) => datagram[10]).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
      ...Array(count).keys(),
    ]);
    expect(decode(received)).toMatchObject({ short_message: 'large', full_message: text });
  });

  it(`drops a message that needs more than ${UDP_MAX_CHUNKS} chunks, with a warning`, async () => {
    sender.send({ short_message: 'huge', full_message: randomBytes(1_200_000).toString('base64') });
    await waitFor(() => warnings.length === 1, 'the warning');
    expect(warnings[0]?.msg).toMatch(/too large/);

    sender.send({ short_message: 'after' });
    await waitFor(() => received.length > 0, 'the next message');
    expect(received).toHaveLength(1);
    expect(decode(received).short_message).toBe('after');
  });

  it('ignores messages sent after close() without throwing', async () => {
    await sender.close();
    expect(() => sender.send({ short_message: 'late' })).not.toThrow();
  });
});
