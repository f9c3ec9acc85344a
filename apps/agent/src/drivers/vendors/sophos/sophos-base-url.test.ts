import { describe, expect, it } from 'vitest';
import { sophosBaseUrl } from './sophos-base-url.js';

describe('sophosBaseUrl', () => {
  it('adds port 4444 when the Hostname has none, and brackets bare IPv6', () => {
    expect(sophosBaseUrl('utm.example.com')).toBe('https://utm.example.com:4444');
    expect(sophosBaseUrl(' 192.0.2.1:8443 ')).toBe('https://192.0.2.1:8443');
    expect(sophosBaseUrl('2001:db8::1')).toBe('https://[2001:db8::1]:4444');
    expect(sophosBaseUrl('[2001:db8::1]')).toBe('https://[2001:db8::1]:4444');
    expect(sophosBaseUrl('[2001:db8::1]:10443')).toBe('https://[2001:db8::1]:10443');
  });
});
