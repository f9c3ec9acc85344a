import { describe, expect, it } from 'vitest';
import { ErrorCodes, type IpExclusions } from '@postern/protocol';
import { addressAllowed, grantableAddress } from './ip-rules.js';

describe('grantableAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::ffff:102:304', '1.2.3.4'],
    ['2001:DB8:0::1', '2001:db8::1'],
    ['100.64.0.9', '100.64.0.9'],
  ])('writes %s as %s', (input, ip) => {
    expect(grantableAddress(input)).toEqual({ ip });
  });

  it.each([
    ['127.0.0.1', ErrorCodes.ipAddressNotGrantable],
    ['::ffff:127.0.0.1', ErrorCodes.ipAddressNotGrantable],
    ['::1', ErrorCodes.ipAddressNotGrantable],
    ['0.0.0.0', ErrorCodes.ipAddressNotGrantable],
    ['::', ErrorCodes.ipAddressNotGrantable],
    ['169.254.169.254', ErrorCodes.ipAddressNotGrantable],
    ['fe80::1', ErrorCodes.ipAddressNotGrantable],
    ['224.0.0.1', ErrorCodes.ipAddressNotGrantable],
    ['ff02::1', ErrorCodes.ipAddressNotGrantable],
    ['255.255.255.255', ErrorCodes.ipAddressNotGrantable],
    ['fd00:ec2::254', ErrorCodes.ipAddressNotGrantable],
    ['100.100.100.200', ErrorCodes.ipAddressNotGrantable],
    ['168.63.129.16', ErrorCodes.ipAddressNotGrantable],
    ['10.0.0.0/8', ErrorCodes.invalidIpAddress],
    ['fe80::1%eth0', ErrorCodes.invalidIpAddress],
    ['host.example', ErrorCodes.invalidIpAddress],
  ])('refuses %s with %s', (input, code) => {
    expect(grantableAddress(input)).toEqual({ refused: code });
  });
});

describe('addressAllowed', () => {
  const ranges = [{ Start: '192.0.2.10', End: '192.0.2.20' }];
  it.each([
    ['none', { RestrictionType: 'none', RfcType: 'allow', Ranges: [] }, '2001:db8::1', true],
    ['RFC1918 allow, inside', { RestrictionType: 'RFC1918', RfcType: 'allow', Ranges: [] }, '10.1.2.3', true],
    ['RFC1918 allow, outside', { RestrictionType: 'RFC1918', RfcType: 'allow', Ranges: [] }, '198.51.100.1', false],
    ['RFC1918 deny, inside', { RestrictionType: 'RFC1918', RfcType: 'deny', Ranges: [] }, '172.16.0.1', false],
    ['allow list, inside', { RestrictionType: 'allowList', RfcType: 'allow', Ranges: ranges }, '192.0.2.20', true],
    ['allow list, outside', { RestrictionType: 'allowList', RfcType: 'allow', Ranges: ranges }, '192.0.2.21', false],
    ['allow list, IPv6', { RestrictionType: 'allowList', RfcType: 'allow', Ranges: ranges }, '2001:db8::1', false],
    ['deny list, inside', { RestrictionType: 'denyList', RfcType: 'allow', Ranges: ranges }, '192.0.2.10', false],
    ['deny list, IPv6', { RestrictionType: 'denyList', RfcType: 'allow', Ranges: ranges }, '2001:db8::1', true],
  ] satisfies [string, IpExclusions, string, boolean][])('%s', (_name, exclusions, ip, allowed) => {
    expect(addressAllowed(exclusions, ip)).toBe(allowed);
  });
});
