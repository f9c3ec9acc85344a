import { describe, expect, it } from 'vitest';
import { Cidr } from '@postern/protocol';
import { addressInAnyCidr, parseCidr, parseIp } from './cidr.js';

describe('parseIp', () => {
  it.each([
    ['192.0.2.7', { family: 4, value: 0xc0000207n }],
    ['0.0.0.0', { family: 4, value: 0n }],
    ['255.255.255.255', { family: 4, value: 0xffffffffn }],
    ['::', { family: 6, value: 0n }],
    ['::1', { family: 6, value: 1n }],
    ['2001:db8::1', { family: 6, value: 0x20010db8000000000000000000000001n }],
    ['2001:DB8:0:0:0:0:0:1', { family: 6, value: 0x20010db8000000000000000000000001n }],
    ['1:2:3:4:5:6:7:8', { family: 6, value: 0x00010002000300040005000600070008n }],
    ['1:2:3:4:5:6:7::', { family: 6, value: 0x00010002000300040005000600070000n }],
    ['fe80::1%eth0', { family: 6, value: 0xfe800000000000000000000000000001n }],
    ['64:ff9b::192.0.2.1', { family: 6, value: 0x0064ff9b0000000000000000c0000201n }],
    // IPv4-mapped IPv6 is the IPv4 address it carries, in either notation.
    ['::ffff:192.0.2.7', { family: 4, value: 0xc0000207n }],
    ['::ffff:c000:207', { family: 4, value: 0xc0000207n }],
    ['0:0:0:0:0:ffff:192.0.2.7', { family: 4, value: 0xc0000207n }],
  ])('reads %s', (text, expected) => {
    expect(parseIp(text)).toEqual(expected);
  });

  it.each([
    '',
    'localhost',
    '1.2.3',
    '1.2.3.4.5',
    '256.1.1.1',
    '01.2.3.4',
    '1.2.3.-4',
    '1.2.3.4/32',
    ':',
    ':::',
    '1::2::3',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8::',
    '12345::1',
    'g::1',
    ':1::',
    '::1.2.3.4.5',
    '1.2.3.4::',
  ])('refuses %j', (text) => {
    expect(parseIp(text)).toBeNull();
  });
});

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', { family: 4, network: 0x0a000000n, bits: 8 }],
    ['10.1.2.3/8', { family: 4, network: 0x0a000000n, bits: 8 }],
    ['0.0.0.0/0', { family: 4, network: 0n, bits: 0 }],
    ['192.0.2.7/32', { family: 4, network: 0xc0000207n, bits: 32 }],
    ['::/0', { family: 6, network: 0n, bits: 0 }],
    ['2001:db8::ff/32', { family: 6, network: 0x20010db8000000000000000000000000n, bits: 32 }],
    ['::1/128', { family: 6, network: 1n, bits: 128 }],
    ['::ffff:192.0.2.0/120', { family: 4, network: 0xc0000200n, bits: 24 }],
    ['::ffff:0:0/96', { family: 4, network: 0n, bits: 0 }],
  ])('reads %s', (text, expected) => {
    expect(parseCidr(text)).toEqual(expected);
  });

  it.each(['10.0.0.0', '10.0.0.0/33', '10.0.0.0/-1', '10.0.0.0/8/8', '10.0.0.0/', '::/129', 'fe80::1%eth0/64', 'x/8'])(
    'refuses %j',
    (text) => {
      expect(parseCidr(text)).toBeNull();
    },
  );

  it.each(['10.0.0.0/8', '0.0.0.0/0', '::/0', '2001:db8::/32', '::ffff:10.0.0.0/104', 'fe80::1/64'])(
    'accepts %s as the protocol schema does',
    (text) => {
      expect(Cidr.safeParse(text).success).toBe(true);
      expect(parseCidr(text)).not.toBeNull();
    },
  );
});

describe('addressInAnyCidr', () => {
  it.each([
    // IPv4
    ['10.1.2.3', ['10.0.0.0/8'], true],
    ['11.0.0.0', ['10.0.0.0/8'], false],
    ['10.255.255.255', ['10.0.0.0/8'], true],
    ['192.0.2.7', ['192.0.2.7/32'], true],
    ['192.0.2.8', ['192.0.2.7/32'], false],
    ['203.0.113.9', ['0.0.0.0/0'], true],
    ['192.0.2.129', ['192.0.2.128/25'], true],
    ['192.0.2.127', ['192.0.2.128/25'], false],
    // IPv6
    ['2001:db8:1::5', ['2001:db8::/32'], true],
    ['2001:db9::5', ['2001:db8::/32'], false],
    ['::1', ['::1/128'], true],
    ['2001:db8::1', ['::/0'], true],
    ['fe80::1%eth0', ['fe80::/10'], true],
    // IPv4-mapped callers count as IPv4, ranges in mapped form as IPv4 ranges.
    ['::ffff:10.1.2.3', ['10.0.0.0/8'], true],
    ['::ffff:11.1.2.3', ['10.0.0.0/8'], false],
    ['10.1.2.3', ['::ffff:10.0.0.0/104'], true],
    ['::ffff:10.1.2.3', ['::ffff:10.0.0.0/104'], true],
    ['::ffff:10.1.2.3', ['0.0.0.0/0'], true],
    // The families do not mix otherwise.
    ['10.1.2.3', ['::/0'], false],
    ['::ffff:10.1.2.3', ['::/0'], false],
    ['2001:db8::1', ['0.0.0.0/0'], false],
    // Several entries: any one is enough; none is nowhere.
    ['2001:db8::1', ['10.0.0.0/8', '2001:db8::/32'], true],
    ['10.0.0.1', [], false],
    // Bad input matches nothing.
    ['not-an-ip', ['0.0.0.0/0', '::/0'], false],
    ['10.0.0.1', ['garbage', '10.0.0.0/8'], true],
    ['10.0.0.1', ['garbage'], false],
  ] as const)('%s in %j is %s', (address, cidrs, expected) => {
    expect(addressInAnyCidr(address, cidrs)).toBe(expected);
  });
});
