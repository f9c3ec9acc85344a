import { describe, expect, it } from 'vitest';
import { signInKeys } from '../auth/throttle.js';
import { apiKeyThrottleKey, readCredentials } from './api-key-auth.js';

const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

describe('readCredentials', () => {
  it.each([
    ['no header', undefined, { kind: 'none' }],
    ['an empty header', '  ', { kind: 'none' }],
    ['Basic apiuser and a key', basic('apiuser:pst_abc'), { kind: 'key', plaintext: 'pst_abc' }],
    ['a key containing a colon', basic('apiuser:a:b'), { kind: 'key', plaintext: 'a:b' }],
    ['the scheme in any case', basic('apiuser:k').replace('Basic', 'bAsIc'), { kind: 'key', plaintext: 'k' }],
    ['a Bearer key', 'Bearer pst_abc', { kind: 'key', plaintext: 'pst_abc' }],
    ['another user name', basic('ApiUser:k'), { kind: 'invalid', reason: 'wrong user name' }],
    ['no colon', basic('apiuser'), { kind: 'invalid', reason: 'malformed basic credentials' }],
    ['another scheme', 'Digest abc', { kind: 'invalid', reason: 'unsupported authorization scheme' }],
    ['a scheme without a value', 'Basic', { kind: 'invalid', reason: 'unsupported authorization scheme' }],
  ])('reads %s', (_case, header, expected) => {
    expect(readCredentials(header)).toEqual(expected);
  });
});

describe('apiKeyThrottleKey', () => {
  it('counts IPv4 callers per address and IPv6 callers per /64', () => {
    expect(apiKeyThrottleKey('192.0.2.1').key).toBe('apikey:address:192.0.2.1');
    expect(apiKeyThrottleKey('2001:db8:1:2::5').key).toBe(apiKeyThrottleKey('2001:db8:1:2:ffff::9').key);
    expect(apiKeyThrottleKey('2001:db8:1:2::5').key).not.toBe(apiKeyThrottleKey('2001:db8:1:3::5').key);
  });

  it('uses a key of its own, apart from the sign-in throttle of the same address', () => {
    const signInAddressKey = signInKeys('alice', '192.0.2.1').all.map((k) => k.key);
    expect(signInAddressKey).not.toContain(apiKeyThrottleKey('192.0.2.1').key);
  });
});
