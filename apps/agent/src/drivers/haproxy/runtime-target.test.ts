import { describe, expect, it } from 'vitest';
import { parseHostPort, runtimeTarget } from './runtime-target.js';

describe('runtimeTarget', () => {
  it("uses the backend's unix socket", () => {
    expect(runtimeTarget({ Protocol: 'unix', Address: '/run/haproxy/admin.sock' }, null)).toEqual({
      kind: 'unix',
      path: '/run/haproxy/admin.sock',
    });
  });

  it("uses the backend's tcp address, IPv6 included", () => {
    expect(runtimeTarget({ Protocol: 'tcp', Address: '10.0.0.5:9999' }, null)).toEqual({
      kind: 'tcp',
      host: '10.0.0.5',
      port: 9999,
    });
    expect(runtimeTarget({ Protocol: 'tcp', Address: '[::1]:9999' }, null)).toEqual({
      kind: 'tcp',
      host: '::1',
      port: 9999,
    });
  });

  it("falls back to the agent's configured socket when the backend has no Address", () => {
    const configured = { kind: 'tcp' as const, host: '127.0.0.1', port: 9000 };

    expect(runtimeTarget({ Protocol: 'unix', Address: '' }, configured)).toBe(configured);
  });

  it('refuses a backend without an Address on an agent without a socket', () => {
    expect(() => runtimeTarget({ Protocol: 'unix', Address: '' }, null)).toThrow(
      "the backend names no HAProxy socket and this agent's configuration has no haproxy.socket",
    );
  });

  it('refuses a relative unix socket path', () => {
    expect(() => runtimeTarget({ Protocol: 'unix', Address: 'haproxy.sock' }, null)).toThrow('is not an absolute path');
  });
});

describe('parseHostPort', () => {
  it.each(['haproxy', 'haproxy:0', 'haproxy:65536', ':9999', 'a b:1'])('refuses %s', (address) => {
    expect(() => parseHostPort(address)).toThrow('is not host:port');
  });
});
