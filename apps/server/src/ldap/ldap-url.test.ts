import { describe, expect, it } from 'vitest';
import { describeLdapUrl, LdapUrlError, parseLdapUrl } from './ldap-url.js';

describe('LDAP URLs', () => {
  it.each([
    ['ldap://ldap.example.com', { scheme: 'ldap', host: 'ldap.example.com', port: 389 }],
    ['ldaps://ldap.example.com', { scheme: 'ldaps', host: 'ldap.example.com', port: 636 }],
    ['LDAPS://LDAP.example.com:1636', { scheme: 'ldaps', host: 'LDAP.example.com', port: 1636 }],
    ['ldap://127.0.0.1:3389/dc=example,dc=com??sub?(uid=x)', { scheme: 'ldap', host: '127.0.0.1', port: 3389 }],
    ['ldap://[::1]:389', { scheme: 'ldap', host: '::1', port: 389 }],
    ['ldap:///', { scheme: 'ldap', host: 'localhost', port: 389 }],
    ['cldap://dc.example.com', { scheme: 'cldap', host: 'dc.example.com', port: 389 }],
    [' ldap://padded.example.com ', { scheme: 'ldap', host: 'padded.example.com', port: 389 }],
    ['ldapi://%2Fvar%2Frun%2Fslapd%2Fldapi', { scheme: 'ldapi', socketPath: '/var/run/slapd/ldapi' }],
    ['ldapi://%2ftmp%2Fmy%20dir%2Fldapi', { scheme: 'ldapi', socketPath: '/tmp/my dir/ldapi' }],
    ['ldapi:///', { scheme: 'ldapi', socketPath: '/var/run/slapd/ldapi' }],
  ])('reads %s', (url, endpoint) => {
    expect(parseLdapUrl(url)).toEqual(endpoint);
  });

  it.each([
    ['not a url', /not a valid LDAP URL/],
    ['https://ldap.example.com', /unsupported scheme "https": use ldap, ldaps, ldapi or cldap/],
    ['ldap://admin:hunter2@ldap.example.com', /must not contain a user name or password/],
    ['ldap://ldap.example.com:0', /port 0/],
    ['ldap://ldap.example.com:70000', /not a valid LDAP URL/],
    ['ldapi://relative%2Fsocket', /absolute socket path/],
    ['ldapi://%E0%A4%A', /percent-encoding/],
    ['ldapi:///var/run/slapd/ldapi', /percent-encode the ldapi socket path/],
  ])('refuses %s', (url, message) => {
    expect(() => parseLdapUrl(url)).toThrow(LdapUrlError);
    expect(() => parseLdapUrl(url)).toThrow(message);
  });

  it('never repeats a password from the URL in its error', () => {
    expect(() => parseLdapUrl('ldap://admin:hunter2@ldap.example.com')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') as unknown }),
    );
  });

  it.each([
    ['ldaps://ldap.example.com/dc=example,dc=com?cn', 'ldaps://ldap.example.com:636'],
    ['ldap://[::1]', 'ldap://[::1]:389'],
    ['ldapi://%2Fvar%2Frun%2Fslapd%2Fldapi', 'ldapi://%2Fvar%2Frun%2Fslapd%2Fldapi'],
    ['ldap://admin:hunter2@ldap.example.com', '(invalid LDAP URL)'],
    ['gopher://x', '(invalid LDAP URL)'],
  ])('describes %s for logs as %s', (url, description) => {
    expect(describeLdapUrl(url)).toBe(description);
  });
});
