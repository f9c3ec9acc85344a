import { describe, expect, it } from 'vitest';
import { formatIp } from '@postern/protocol';
import { parseForwardedHop, trustedProxyRule } from './forwarded-address.js';

const spelled = (text: string) => {
  const parsed = parseForwardedHop(text);
  return parsed === null ? null : formatIp(parsed);
};

describe('parseForwardedHop', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['203.0.113.9:8443', '203.0.113.9'],
    ['203.0.113.9:1', '203.0.113.9'],
    ['203.0.113.9:65535', '203.0.113.9'],
    ['2001:DB8::1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['[::ffff:192.0.2.7]:80', '192.0.2.7'],
  ])('reads %s as %s', (text, expected) => {
    expect(spelled(text)).toBe(expected);
  });

  it.each([
    ['a word', 'not-an-ip'],
    ['a host name', 'proxy.example'],
    ['markup', '<script>alert(1)</script>'],
    ['nothing', ''],
    ['a network', '1.2.3.4/24'],
    ['an IPv6 network', '2001:db8::/64'],
    ['a zone id', 'fe80::1%eth0'],
    ['a zone id in brackets', '[fe80::1%eth0]:443'],
    ['two addresses without a comma', '1.2.3.4 5.6.7.8'],
    ['two addresses glued by a semicolon', '1.2.3.4;5.6.7.8'],
    ['port 0', '1.2.3.4:0'],
    ['a port above 65535', '1.2.3.4:65536'],
    ['a port with a leading zero', '1.2.3.4:080'],
    ['an empty port', '1.2.3.4:'],
    ['a named port', '1.2.3.4:http'],
    ['IPv4 in brackets', '[192.0.2.1]:80'],
    ['an unclosed bracket', '[2001:db8::1'],
    ['text after the bracket', '[2001:db8::1]x'],
    ['an IPv6 port without brackets and a port too many', '[2001:db8::1]:443:1'],
    ['an octal-looking IPv4', '010.0.0.1'],
    ['surrounding space', ' 1.2.3.4'],
  ])('refuses %s (%s)', (_case, text) => {
    expect(parseForwardedHop(text)).toBeNull();
  });
});

describe('trustedProxyRule', () => {
  it('is null when no proxy is configured, so Fastify believes no X-Forwarded-For', () => {
    expect(trustedProxyRule([])).toBeNull();
  });

  it('trusts the configured addresses and ranges, however the peer spells them, and nothing else', () => {
    const trusted = trustedProxyRule(['10.0.0.0/8', '192.0.2.1', '2001:db8:f::/48']);
    expect(trusted).not.toBeNull();
    const isTrusted = trusted ?? (() => false);
    expect(['10.1.2.3', '::ffff:10.1.2.3', '192.0.2.1', '2001:db8:f:1::2', '10.0.0.7:443'].map(isTrusted)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['192.0.2.2', '11.0.0.1', '2001:db8:e::1', 'not-an-ip', '10.0.0.1/8', ''].map(isTrusted)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
