import { describe, expect, it } from 'vitest';
import { Cidr } from './common.js';
import {
  addressInAnyCidr,
  canonicalIp,
  cidrContains,
  formatIp,
  NEVER_GRANTED_RANGES,
  neverGrantedKind,
  parseCidr,
  parseIp,
  parseIpOrCidr,
  type IpPrefix,
} from './net.js';

function ip(text: string): IpPrefix {
  const parsed = parseIpOrCidr(text);
  if (parsed === null) throw new Error(`${text} does not parse`);
  return parsed;
}

describe('parseIp', () => {
  it.each([
    ['192.0.2.7', { family: 4, value: 0xc0000207n, prefix: 32 }],
    ['0.0.0.0', { family: 4, value: 0n, prefix: 32 }],
    ['255.255.255.255', { family: 4, value: 0xffffffffn, prefix: 32 }],
    ['::', { family: 6, value: 0n, prefix: 128 }],
    ['::1', { family: 6, value: 1n, prefix: 128 }],
    ['2001:db8::1', { family: 6, value: 0x20010db8000000000000000000000001n, prefix: 128 }],
    ['2001:DB8:0:0:0:0:0:1', { family: 6, value: 0x20010db8000000000000000000000001n, prefix: 128 }],
    ['1:2:3:4:5:6:7:8', { family: 6, value: 0x00010002000300040005000600070008n, prefix: 128 }],
    ['1:2:3:4:5:6:7::', { family: 6, value: 0x00010002000300040005000600070000n, prefix: 128 }],
    ['64:ff9b::192.0.2.1', { family: 6, value: 0x0064ff9b0000000000000000c0000201n, prefix: 128 }],
    // IPv4-mapped IPv6 is the IPv4 address it carries, in every notation.
    ['::ffff:1.2.3.4', { family: 4, value: 0x01020304n, prefix: 32 }],
    ['::ffff:102:304', { family: 4, value: 0x01020304n, prefix: 32 }],
    ['::FFFF:C000:207', { family: 4, value: 0xc0000207n, prefix: 32 }],
    ['0:0:0:0:0:ffff:192.0.2.7', { family: 4, value: 0xc0000207n, prefix: 32 }],
  ])('reads %s', (text, expected) => {
    expect(parseIp(text)).toEqual(expected);
  });

  it.each([
    ['nothing', ''],
    ['a host name', 'localhost'],
    ['three parts', '1.2.3'],
    ['five parts', '1.2.3.4.5'],
    ['a part over 255', '256.1.1.1'],
    ['a leading zero (octal or not?)', '01.2.3.4'],
    ['a sign', '1.2.3.-4'],
    ['a prefix', '1.2.3.4/32'],
    ['surrounding space', ' 192.0.2.7'],
    ['a trailing newline', '192.0.2.7\n'],
    ['a second device command', '10.0.0.1;clear acl #0'],
    ['a zone id', 'fe80::1%eth0'],
    ['a lone colon', ':'],
    ['three colons', ':::'],
    ['two compressions', '1::2::3'],
    ['nine groups', '1:2:3:4:5:6:7:8:9'],
    ['seven groups', '1:2:3:4:5:6:7'],
    ['eight groups and a compression', '1:2:3:4:5:6:7:8::'],
    ['a five-digit group', '12345::1'],
    ['a non-hex group', 'g::1'],
    ['a single leading colon', ':1::'],
    ['a bad IPv4 tail', '::1.2.3.4.5'],
    ['an IPv4 head', '1.2.3.4::'],
    ['brackets', '[::1]'],
  ])('refuses %s', (_name, text) => {
    expect(parseIp(text)).toBeNull();
  });
});

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', { family: 4, value: 0x0a000000n, prefix: 8 }],
    ['10.1.2.3/8', { family: 4, value: 0x0a000000n, prefix: 8 }],
    ['0.0.0.0/0', { family: 4, value: 0n, prefix: 0 }],
    ['192.0.2.7/32', { family: 4, value: 0xc0000207n, prefix: 32 }],
    ['::/0', { family: 6, value: 0n, prefix: 0 }],
    ['2001:db8::ff/32', { family: 6, value: 0x20010db8000000000000000000000000n, prefix: 32 }],
    ['::1/128', { family: 6, value: 1n, prefix: 128 }],
    ['::ffff:192.0.2.0/120', { family: 4, value: 0xc0000200n, prefix: 24 }],
    ['::ffff:1.2.3.4/128', { family: 4, value: 0x01020304n, prefix: 32 }],
    ['::ffff:0:0/96', { family: 4, value: 0n, prefix: 0 }],
    // Shorter than /96, a mapped network also covers non-mapped addresses: it stays IPv6.
    ['::ffff:0:0/80', { family: 6, value: 0n, prefix: 80 }],
  ])('reads %s', (text, expected) => {
    expect(parseCidr(text)).toEqual(expected);
  });

  it.each(['10.0.0.0/8', '0.0.0.0/0', '::/0', '2001:db8::/32', '::ffff:10.0.0.0/104', 'fe80::1/64'])(
    'reads %s, which the Cidr schema accepts',
    (text) => {
      expect(Cidr.safeParse(text).success).toBe(true);
      expect(parseCidr(text)).not.toBeNull();
    },
  );

  it.each([
    '10.0.0.0',
    '10.0.0.0/33',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
    '10.0.0.0/',
    '10.0.0.0/ 8',
    '10.0.0.0/1000',
    '::/129',
    'fe80::1%eth0/64',
    'x/8',
  ])('refuses %j', (text) => {
    expect(parseCidr(text)).toBeNull();
  });
});

describe('canonical spelling', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['192.0.2.7/32', '192.0.2.7'],
    ['10.1.2.3/24', '10.1.2.0/24'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['2001:db8::0001/128', '2001:db8::1'],
    ['2001:db8:1:2:3:4:5:6/48', '2001:db8:1::/48'],
    ['2001:db8::/64', '2001:db8::/64'],
    ['::', '::'],
    ['::1', '::1'],
    ['1:0:0:0:0:0:0:0', '1::'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    // RFC 5952: a lone zero group is not compressed; the longest run wins, the first when tied.
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['FE80::ABCD', 'fe80::abcd'],
    // Mapped addresses are IPv4, however they are written.
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::ffff:102:304', '1.2.3.4'],
    ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
    // IPv4-compatible and NAT64 forms are IPv6 addresses, spelled in hex.
    ['::1.2.3.4', '::102:304'],
    ['64:ff9b::192.0.2.1', '64:ff9b::c000:201'],
  ])('spells %s as %s', (input, expected) => {
    expect(canonicalIp(input)).toBe(expected);
  });

  it.each(['not an address', 'fe80::1%eth0', ' 10.0.0.1', '10.0.0.1 timeout 0', ''])('has none for %j', (input) => {
    expect(canonicalIp(input)).toBeNull();
  });

  it('spells what it parsed the same way the URL parser does for IPv6 hosts', () => {
    for (const text of ['2001:db8::1', 'fe80::1:2', '1::', '::fffe:0:1', '0:0:1::', '1:0:0:2:0:0:0:3']) {
      const url = new URL(`http://[${text}]/`).hostname.slice(1, -1);
      expect(formatIp(ip(text))).toBe(url);
    }
  });
});

describe('cidrContains and addressInAnyCidr', () => {
  it.each([
    ['10.1.2.3', ['10.0.0.0/8'], true],
    ['11.0.0.0', ['10.0.0.0/8'], false],
    ['10.255.255.255', ['10.0.0.0/8'], true],
    ['192.0.2.7', ['192.0.2.7/32'], true],
    ['192.0.2.8', ['192.0.2.7/32'], false],
    ['203.0.113.9', ['0.0.0.0/0'], true],
    ['192.0.2.129', ['192.0.2.128/25'], true],
    ['192.0.2.127', ['192.0.2.128/25'], false],
    ['2001:db8:1::5', ['2001:db8::/32'], true],
    ['2001:db9::5', ['2001:db8::/32'], false],
    ['::1', ['::1/128'], true],
    ['2001:db8::1', ['::/0'], true],
    // Mapped callers count as IPv4, mapped ranges as IPv4 ranges; otherwise families do not mix.
    ['::ffff:10.1.2.3', ['10.0.0.0/8'], true],
    ['10.1.2.3', ['::ffff:10.0.0.0/104'], true],
    ['::ffff:10.1.2.3', ['::/0'], false],
    ['10.1.2.3', ['::/0'], false],
    ['2001:db8::1', ['0.0.0.0/0'], false],
    ['2001:db8::1', ['10.0.0.0/8', '2001:db8::/32'], true],
    ['10.0.0.1', [], false],
    // Bad input matches nothing, and a zone id is bad input.
    ['not-an-ip', ['0.0.0.0/0', '::/0'], false],
    ['fe80::1%eth0', ['fe80::/10'], false],
    ['10.0.0.1', ['garbage', '10.0.0.0/8'], true],
    ['10.0.0.1', ['garbage'], false],
  ] as const)('%s in %j is %s', (address, cidrs, expected) => {
    expect(addressInAnyCidr(address, cidrs)).toBe(expected);
  });

  it('counts a network as inside a range only when the whole network is', () => {
    expect(cidrContains(ip('10.0.0.0/8'), ip('10.1.0.0/16'))).toBe(true);
    expect(cidrContains(ip('10.1.0.0/16'), ip('10.0.0.0/8'))).toBe(false);
  });
});

describe('neverGrantedKind', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['100.100.100.200', 'cloud-metadata'],
    ['168.63.129.16', 'cloud-metadata'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['fd00:ec2::23', 'cloud-metadata'],
    ['fd20:ce::254', 'cloud-metadata'],
  ])('never grants %s (%s)', (text, kind) => {
    expect(neverGrantedKind(ip(text))).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '1.0.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '223.255.255.255',
    '240.0.0.1',
    '10.0.0.1',
    '100.64.0.9',
    '100.100.100.201',
    '192.0.2.7',
    '2001:db8::1',
    '::2',
    'fec0::1',
    'fd00:ec2::253',
    'fe7f::1',
  ])('may grant %s', (text) => {
    expect(neverGrantedKind(ip(text))).toBeNull();
  });

  it('lists only ranges that parse', () => {
    for (const { cidr } of NEVER_GRANTED_RANGES) expect(parseCidr(cidr), cidr).not.toBeNull();
  });
});
