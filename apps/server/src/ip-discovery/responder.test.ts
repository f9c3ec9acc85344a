import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { freePort } from '@postern/test-support';
import { startDiscoveryResponder, type DiscoveryResponder } from './responder.js';

describe('IP discovery responder', () => {
  let responder: DiscoveryResponder | undefined;
  afterEach(async () => {
    await responder?.stop();
  });

  it('answers each port with the caller address and the port, open to any origin', async () => {
    const ports = [await freePort(), await freePort()];
    responder = await startDiscoveryResponder('127.0.0.1', ports, pino({ level: 'silent' }));
    expect(responder.ports).toEqual(ports);
    for (const port of ports) {
      const response = await fetch(`http://127.0.0.1:${port}/anything`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      // The forwarded header is ignored: the answer is the address this path really uses.
      expect(await response.json()).toEqual({ IP: '127.0.0.1', Port: port });
    }
  });

  it('refuses other methods and skips a port that is taken instead of failing', async () => {
    const taken = createServer();
    const takenPort = await freePort();
    await new Promise<void>((resolve) => taken.listen(takenPort, '127.0.0.1', resolve));
    try {
      const free = await freePort();
      responder = await startDiscoveryResponder('127.0.0.1', [takenPort, free], pino({ level: 'silent' }));
      expect(responder.ports).toEqual([free]);
      const response = await fetch(`http://127.0.0.1:${free}/`, { method: 'POST', body: 'x' });
      expect(response.status).toBe(405);
    } finally {
      taken.close();
    }
  });
});
