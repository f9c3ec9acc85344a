import { describe, expect, it } from 'vitest';
import { canonicalIp } from './canonical-ip.js';

describe('canonicalIp', () => {
  it.for([
    ['10.0.0.1', '10.0.0.1'],
    ['10.0.0.1/32', '10.0.0.1'],
    ['10.0.0.0/24', '10.0.0.0/24'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['2001:db8::1/128', '2001:db8::1'],
    ['2001:db8::/64', '2001:db8::/64'],
    [' 192.0.2.7 ', '192.0.2.7'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['not an address', 'not an address'],
  ])('spells %s as %s', ([input, expected]) => {
    expect(canonicalIp(input as string)).toBe(expected);
  });
});
