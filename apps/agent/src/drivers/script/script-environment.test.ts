import { describe, expect, it } from 'vitest';
import { parseAddress } from '../addresses.js';
import { forbiddenVariableReason, redactSecrets, scriptInvocation, SCRIPT_PATH } from './script-environment.js';

const address = (ip: string) => {
  const parsed = parseAddress(ip);
  if (parsed === null) throw new Error(`bad test address ${ip}`);
  return parsed;
};

describe('scriptInvocation', () => {
  it("passes [action, aclName, ip] and the spec's knoc_* variables over a bare PATH", () => {
    const { args, env } = scriptInvocation({
      action: 'add',
      aclName: 'office_vpn',
      userName: 'alice',
      address: address('203.0.113.7'),
      variables: [],
    });

    expect(args).toEqual(['add', 'office_vpn', '203.0.113.7']);
    expect(env).toEqual({
      PATH: SCRIPT_PATH,
      knoc_action: 'add',
      knoc_aclname: 'office_vpn',
      knoc_username: 'alice',
      knoc_cidr: '203.0.113.7/32',
      knoc_ipaddr: '203.0.113.7',
    });
  });

  it('writes an IPv6 knoc_cidr with /128', () => {
    const { env } = scriptInvocation({
      action: 'remove',
      aclName: 'x',
      userName: 'bob',
      address: address('2001:db8::7'),
      variables: [],
    });

    expect(env.knoc_cidr).toBe('2001:db8::7/128');
    expect(env.knoc_action).toBe('remove');
  });

  it("adds the knoc's own variables, sensitive ones included, and skips unnamed ones", () => {
    const { env } = scriptInvocation({
      action: 'add',
      aclName: 'x',
      userName: 'u',
      address: address('10.0.0.1'),
      variables: [
        { Name: 'API_URL', Value: 'https://fw.example.com', Sensitive: false },
        { Name: 'API_KEY', Value: 's3cret', Sensitive: true },
        { Name: '', Value: 'ignored', Sensitive: false },
      ],
    });

    expect(env.API_URL).toBe('https://fw.example.com');
    expect(env.API_KEY).toBe('s3cret');
    expect(Object.values(env)).not.toContain('ignored');
  });

  it('refuses a variable that would override ours or change how programs load', () => {
    for (const name of ['PATH', 'LD_PRELOAD', 'knoc_username', 'BASH_ENV', 'PYTHONPATH']) {
      expect(() =>
        scriptInvocation({
          action: 'add',
          aclName: 'x',
          userName: 'u',
          address: address('10.0.0.1'),
          variables: [{ Name: name, Value: '/tmp/evil', Sensitive: false }],
        }),
      ).toThrow(`variable ${name} may not be set by a knoc`);
    }
  });
});

describe('forbiddenVariableReason', () => {
  it.each(['API_KEY', 'fw_host', '_private'])('allows %s', (name) => {
    expect(forbiddenVariableReason(name)).toBeNull();
  });

  it.each(['1ST', 'WITH SPACE', 'A=B', 'DASH-ED'])('refuses the malformed name %s', (name) => {
    expect(forbiddenVariableReason(name)).toMatch(/is not a valid environment name/);
  });
});

describe('redactSecrets', () => {
  it('hides every sensitive value and nothing else', () => {
    const variables = [
      { Name: 'TOKEN', Value: 'tok-123', Sensitive: true },
      { Name: 'HOST', Value: 'fw.example.com', Sensitive: false },
    ];

    expect(redactSecrets('login tok-123 to fw.example.com failed (tok-123)', variables)).toBe(
      'login [redacted] to fw.example.com failed ([redacted])',
    );
  });
});
