import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { freePort } from '@postern/test-support';
import { SecretBox } from '../secrets/secret-box.js';
import { IpAttestor } from './attestation.js';
import { startDiscoveryResponder, type DiscoveryResponder } from './responder.js';

const NOW = Date.UTC(2026, 10, 22, 9, 0, 0);
const attestor = new IpAttestor(new SecretBox([randomBytes(32)]));
const attest = (ip: string, port: number) => attestor.issue({ ip, port }, NOW);

describe('IP discovery responder', () => {
  let responder: DiscoveryResponder | undefined;
  afterEach(async () => {
    await responder?.stop();
  });

  it('answers each port with the caller address, the port and an attestation of both, open to any origin', async () => {
    const ports = [await freePort(), await freePort()];
    responder = await startDiscoveryResponder('127.0.0.1', ports, pino({ level: 'silent' }), attest);
    expect(responder.ports).toEqual(ports);
    for (const port of ports) {
      const response = await fetch(`http://127.0.0.1:${port}/anything`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      // The forwarded header is ignored: the answer is the address this path really uses.
      const body = (await response.json()) as { IP: string; Port: number; Attestation: string };
      expect(body).toEqual({ IP: '127.0.0.1', Port: port, Attestation: expect.any(String) as string });
      expect(attestor.verify(body.Attestation, { ip: body.IP, port }, NOW)).toBe(true);
      const otherPort = ports.find((other) => other !== port) ?? 0;
      expect(attestor.verify(body.Attestation, { ip: body.IP, port: otherPort }, NOW)).toBe(false);
    }
  });

  it('on "::" answers both families, each caller with its own address of that family (dual stack)', async () => {
    const port = await freePort();
    responder = await startDiscoveryResponder('::', [port], pino({ level: 'silent' }), attest);
    const asked = async (host: string) =>
      (await (await fetch(`http://${host}:${port}/`)).json()) as { IP: string; Attestation: string };
    const v4 = await asked('127.0.0.1');
    const v6 = await asked('[::1]');
    // An IPv4 caller on the IPv6 socket is ::ffff:127.0.0.1 there: answered, and signed, as IPv4.
    expect(v4.IP).toBe('127.0.0.1');
    expect(v6.IP).toBe('::1');
    expect(attestor.verify(v4.Attestation, { ip: '127.0.0.1', port }, NOW)).toBe(true);
    expect(attestor.verify(v6.Attestation, { ip: '::1', port }, NOW)).toBe(true);
  });

  it('refuses other methods and skips a port that is taken instead of failing', async () => {
    const taken = createServer();
    const takenPort = await freePort();
    await new Promise<void>((resolve) => taken.listen(takenPort, '127.0.0.1', resolve));
    try {
      const free = await freePort();
      responder = await startDiscoveryResponder('127.0.0.1', [takenPort, free], pino({ level: 'silent' }), attest);
      expect(responder.ports).toEqual([free]);
      const response = await fetch(`http://127.0.0.1:${free}/`, { method: 'POST', body: 'x' });
      expect(response.status).toBe(405);
    } finally {
      taken.close();
    }
  });
});
