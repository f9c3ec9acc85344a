import { describe, expect, it } from 'vitest';
import { clientAddress, GrantedAddresses } from './granted-addresses.js';

describe('GrantedAddresses', () => {
  it('admits a granted host and nobody else', () => {
    const granted = new GrantedAddresses();
    granted.add('127.0.0.2');

    expect(granted.admits('127.0.0.2')).toBe(true);
    expect(granted.admits('127.0.0.3')).toBe(false);
  });

  it('admits addresses inside a granted network, IPv6 included, until it is removed', () => {
    const granted = new GrantedAddresses();
    granted.add('10.1.0.0/16');
    granted.add('2001:db8::/32');

    expect(granted.admits('10.1.200.3')).toBe(true);
    expect(granted.admits('2001:db8:ffff::1')).toBe(true);
    expect(granted.admits('10.2.0.1')).toBe(false);

    granted.delete('10.1.0.0/16');
    expect(granted.admits('10.1.200.3')).toBe(false);
  });

  it('matches whatever spelling the grant and the client use', () => {
    const granted = new GrantedAddresses();
    granted.add('2001:DB8:0::7/128');

    expect(granted.admits('2001:db8::7')).toBe(true);
    expect(granted.list()).toEqual(['2001:db8::7']);
  });

  it('refuses to hold something that is not an address', () => {
    const granted = new GrantedAddresses();

    expect(granted.add('intranet.example.com')).toBe(false);
    expect(granted.list()).toEqual([]);
  });

  it('forgets everything on clear', () => {
    const granted = new GrantedAddresses();
    granted.add('127.0.0.2');
    granted.clear();

    expect(granted.admits('127.0.0.2')).toBe(false);
  });
});

describe('clientAddress', () => {
  it('reads an IPv4-mapped peer as the IPv4 client it is', () => {
    expect(clientAddress('::ffff:127.0.0.2')).toBe('127.0.0.2');
    expect(clientAddress('2001:db8::7')).toBe('2001:db8::7');
    expect(clientAddress(undefined)).toBeNull();
  });
});
