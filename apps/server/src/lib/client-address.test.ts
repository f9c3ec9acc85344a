import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { clientAddress } from './client-address.js';

const requestFrom = (ip: string | undefined) => ({ ip }) as unknown as FastifyRequest;

describe('clientAddress', () => {
  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
  ])('spells %s as %s', (ip, expected) => {
    expect(clientAddress(requestFrom(ip))).toBe(expected);
  });

  it.each([
    ['203.0.113.9:8443', '203.0.113.9'],
    ['[2001:DB8::1]:443', '2001:db8::1'],
  ])('drops the port a proxy appended: %s is %s', (ip, expected) => {
    expect(clientAddress(requestFrom(ip))).toBe(expected);
  });

  it.each(['not-an-ip', '<b>x</b>', '192.0.2.0/24'])('never passes on %s, which is no address, as one', (ip) => {
    expect(clientAddress(requestFrom(ip))).toBe('');
  });

  it('is empty, not undefined, once the client has hung up and its socket forgot the address', () => {
    expect(clientAddress(requestFrom(undefined))).toBe('');
  });
});
