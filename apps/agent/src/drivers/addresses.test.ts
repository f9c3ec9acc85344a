import { describe, expect, it } from 'vitest';
import { canonicalAddress, netmaskPrefixLength, parseAddress } from './addresses.js';

describe('parseAddress', () => {
  it.each([
    ['10.0.0.1', 'inet', '10.0.0.1', '10.0.0.1/32'],
    ['10.0.0.1/32', 'inet', '10.0.0.1', '10.0.0.1/32'],
    ['10.1.2.3/24', 'inet', '10.1.2.0/24', '10.1.2.0/24'],
    ['0.0.0.0/0', 'inet', '0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8:0:0::1', 'inet6', '2001:db8::1', '2001:db8::1/128'],
    ['2001:db8::1/128', 'inet6', '2001:db8::1', '2001:db8::1/128'],
    ['2001:db8:1:2:3:4:5:6/48', 'inet6', '2001:db8:1::/48', '2001:db8:1::/48'],
    ['::1', 'inet6', '::1', '::1/128'],
    ['::', 'inet6', '::', '::/128'],
    ['2001:0:0:1:0:0:0:1', 'inet6', '2001:0:0:1::1', '2001:0:0:1::1/128'],
    ['1:0:0:0:0:0:0:0', 'inet6', '1::', '1::/128'],
    ['1:2:3:4:5:6:7:8', 'inet6', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8/128'],
    // A mapped address is the IPv4 address it carries, as the server sends it and firewalls see it.
    ['::ffff:1.2.3.4', 'inet', '1.2.3.4', '1.2.3.4/32'],
    ['::ffff:102:304', 'inet', '1.2.3.4', '1.2.3.4/32'],
  ])('reads %s as %s %s', (input, family, canonical, cidr) => {
    const parsed = parseAddress(input);

    expect(parsed?.family).toBe(family);
    expect(parsed?.canonical).toBe(canonical);
    expect(parsed?.cidr).toBe(cidr);
  });

  it.each([
    ['a host name', 'intranet.example.com'],
    ['a leading zero', '10.0.0.01'],
    ['a prefix over 32', '10.0.0.1/33'],
    ['a prefix over 128', '::1/129'],
    ['an empty prefix', '10.0.0.1/'],
    ['a zone id', 'fe80::1%eth0'],
    ['a newline that would start another ipset line', '10.0.0.1\nflush'],
    ['a second runtime API command', '10.0.0.1;clear acl #0'],
    ['trailing ipset options', '10.0.0.1 timeout 0'],
    ['surrounding space', ' 10.0.0.1'],
    ['nothing', ''],
  ])('refuses %s', (_name, input) => {
    expect(parseAddress(input)).toBeNull();
  });

  it('tells a single host from a network', () => {
    expect(parseAddress('10.0.0.1')?.isHost).toBe(true);
    expect(parseAddress('10.0.0.0/8')?.isHost).toBe(false);
  });
});

describe('canonicalAddress', () => {
  it('spells an address the way ipset and HAProxy print it back', () => {
    expect(canonicalAddress('2001:DB8::0001/128')).toBe('2001:db8::1');
  });

  it('leaves anything that is not an address as it is', () => {
    expect(canonicalAddress('not-an-ip')).toBe('not-an-ip');
  });
});

describe('netmaskPrefixLength', () => {
  it('reads contiguous dotted masks and refuses anything else', () => {
    expect(netmaskPrefixLength('255.255.255.255')).toBe(32);
    expect(netmaskPrefixLength('255.255.255.0')).toBe(24);
    expect(netmaskPrefixLength('255.255.128.0')).toBe(17);
    expect(netmaskPrefixLength('0.0.0.0')).toBe(0);
    for (const mask of [
      '255.0.255.0',
      '255.255.255.1',
      '256.0.0.0',
      '255.255.255',
      '24',
      '',
      '255.255.255.0 ',
      '-1.0.0.0',
    ]) {
      expect(netmaskPrefixLength(mask), mask).toBeNull();
    }
  });
});
