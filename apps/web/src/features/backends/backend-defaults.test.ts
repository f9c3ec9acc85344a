import { describe, expect, it } from 'vitest';
import { ACL_CONFIG_SCHEMAS, BACKEND_CONFIG_SCHEMAS, BACKEND_TYPES } from '@postern/protocol';
import { addressAfterChange, defaultAclConfig, defaultBackendConfig, defaultSocketAddress } from './backend-defaults';

const AGENT_SOCKET = { agentSocket: '/run/haproxy/admin.sock' };

describe('backend config defaults (spec §9)', () => {
  it.each([
    ['fortios', { Prefix: 'kk_', VDOM: '', Insecure: false }],
    ['panos', { VSys: 'vsys1', DeviceGroup: '', MapUser: false }],
    ['haproxy', { Protocol: 'unix', Address: '/var/run/haproxy.sock' }],
    ['knocproxy', { Protocol: 'unix', Address: '/var/run/haproxy.sock' }],
    ['script', { Command: '', EnvVars: [] }],
    ['azure', { NoCache: false }],
    ['firepower', { Domain: '', Deploy: 'automatic', Insecure: false }],
    ['nftables', { Family: 'inet', Table: '' }],
  ] as const)('start %s with %o', (type, expected) => {
    expect(defaultBackendConfig(type)).toMatchObject(expected);
  });

  it('default HAProxy to the socket the agent reported', () => {
    expect(defaultBackendConfig('haproxy', AGENT_SOCKET)).toEqual({
      Protocol: 'unix',
      Address: '/run/haproxy/admin.sock',
    });
    expect(defaultBackendConfig('haproxy', { agentSocket: '' }).Address).toBe('/var/run/haproxy.sock');
  });

  it('default tcp to {ip}:9999', () => {
    expect(defaultSocketAddress('haproxy', 'tcp')).toBe('127.0.0.1:9999');
    expect(defaultSocketAddress('knocproxy', 'tcp', { hostIp: '10.0.0.2' })).toBe('10.0.0.2:9999');
  });

  it.each(BACKEND_TYPES)('give %s exactly the protocol fields', (type) => {
    expect(Object.keys(defaultBackendConfig(type)).sort()).toEqual(
      Object.keys(BACKEND_CONFIG_SCHEMAS[type].shape).sort(),
    );
    expect(Object.keys(defaultAclConfig(type)).sort()).toEqual(Object.keys(ACL_CONFIG_SCHEMAS[type].shape).sort());
  });

  it('start ipset and nftables backends with the managed rule off', () => {
    expect(defaultBackendConfig('ipset').ManagedRule).toBeUndefined();
    expect(defaultBackendConfig('nftables').ManagedRule).toBeUndefined();
  });

  it('default Azure knocs to port 443 and AWS knocs to port 22', () => {
    expect(defaultAclConfig('azure')).toMatchObject({ NsgPort: 443, NsgDirection: 'Inbound' });
    expect(defaultAclConfig('aws')).toMatchObject({ Port: 22 });
  });
});

describe('the socket Address when the protocol or agent changes', () => {
  const unix = { protocol: 'unix', context: {} } as const;
  const tcp = { protocol: 'tcp', context: {} } as const;

  it('follows the new default while it is the old default', () => {
    expect(addressAfterChange('haproxy', '/var/run/haproxy.sock', unix, tcp)).toBe('127.0.0.1:9999');
    expect(addressAfterChange('haproxy', '127.0.0.1:9999', tcp, unix)).toBe('/var/run/haproxy.sock');
    expect(
      addressAfterChange('haproxy', '/var/run/haproxy.sock', unix, { protocol: 'unix', context: AGENT_SOCKET }),
    ).toBe('/run/haproxy/admin.sock');
  });

  it('keeps an address the admin customised', () => {
    expect(addressAfterChange('haproxy', '/srv/haproxy.sock', unix, tcp)).toBe('/srv/haproxy.sock');
  });

  it('fills an empty address with the new default', () => {
    expect(addressAfterChange('knocproxy', '', unix, tcp)).toBe('127.0.0.1:9999');
  });
});
