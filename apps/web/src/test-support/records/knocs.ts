import { NO_AGENT_ID, type KnocRecord } from '@postern/protocol';
import { knocRecord } from '../fixtures';

/*
 * Knocs of each backend type for the knocs screen's tests, complete enough to pass the protocol's
 * response schemas (the typed fake API parses every answer).
 */

/** A Linux knoc adding to two ipsets. */
export const ipsetKnoc = (overrides: Partial<KnocRecord> = {}) =>
  knocRecord({
    ID: 'k-ipset',
    Name: 'Billing database',
    Description: 'Billing database',
    AclConfig: { ipset: { V4SetName: 'billing4', V6SetName: 'billing6' } },
    ...overrides,
  });

/** A Linux knoc adding to two sets of the nftables table inet postern. */
export const nftablesKnoc = (overrides: Partial<KnocRecord> = {}) =>
  knocRecord({
    ID: 'k-nft',
    Name: 'Jump host',
    Description: 'Jump host',
    BackendID: 'b-nft',
    BackendName: 'edge nftables',
    BackendType: 'nftables',
    BackendConfig: { nftables: { Family: 'inet', Table: 'postern' } },
    AclConfig: { nftables: { V4SetName: 'allow4', V6SetName: 'allow6' } },
    ...overrides,
  });

/** An allowlist knoc read with the API key `key-1`. */
export const allowlistKnoc = (overrides: Partial<KnocRecord> = {}) =>
  knocRecord({
    ID: 'k-allow',
    Name: 'Office allowlist',
    Description: 'Office allowlist',
    BackendID: 'b-allow',
    BackendName: 'allowlist',
    BackendType: 'allowlist',
    AgentID: NO_AGENT_ID,
    AgentName: '',
    AclConfig: { allowlist: { Token: 'tok123', ApiKeyId: 'key-1', AllowAccessByIp: false, AllowedIpAddresses: [] } },
    BackendConfig: { allowlist: {} },
    ...overrides,
  });

/** An HAProxy knoc on the given runtime socket. */
export const haproxyKnoc = (protocol: 'unix' | 'tcp', address: string, overrides: Partial<KnocRecord> = {}) =>
  knocRecord({
    ID: 'k-haproxy',
    Name: 'Intranet',
    Description: 'Intranet',
    BackendType: 'haproxy',
    AgentName: 'proxy-agent',
    AclConfig: { haproxy: { ID: '7' } },
    BackendConfig: { haproxy: { Protocol: protocol, Address: address } },
    ...overrides,
  });

/** A script knoc with one variable of its own. */
export const scriptKnoc = (overrides: Partial<KnocRecord> = {}) =>
  knocRecord({
    ID: 'k-script',
    Name: 'Router',
    Description: 'Router',
    BackendType: 'script',
    AgentName: 'edge',
    AclConfig: {
      script: { Name: 'router_acl', EnvVars: [{ Name: 'TOKEN', Value: 'RECORDED', Sensitive: true, Encrypted: true }] },
    },
    BackendConfig: { script: { Command: 'mikrotik.sh', EnvVars: [] } },
    ...overrides,
  });
