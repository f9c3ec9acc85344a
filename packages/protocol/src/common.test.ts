import { describe, expect, it } from 'vitest';
import { Cidr, GelfUrl, HttpUrl, isIpv4, LdapUrl } from './common.js';
import { ErrorCodes } from './errors.js';

function messageOf(result: { success: boolean; error?: { issues: { message: string }[] } }): string | undefined {
  return result.success ? undefined : result.error?.issues[0]?.message;
}

describe('shared validation rules', () => {
  it.each([
    ['https://idp.example.com/metadata', true],
    ['http://10.0.0.1:8080/x', true],
    ['ftp://x.example', false],
    ['not a url', false],
    ['javascript:alert(1)', false],
  ])('HttpUrl %s → %s', (value, ok) => {
    const result = HttpUrl.safeParse(value);
    expect(result.success).toBe(ok);
    if (!ok) expect(messageOf(result)).toBe(ErrorCodes.urlMustBeHttp);
  });

  it.each([
    ['ldap://dc.example.com', true],
    ['ldaps://dc.example.com:636', true],
    ['ldapi://%2Fvar%2Frun%2Fslapd%2Fldapi', true],
    ['cldap://dc.example.com', true],
    ['https://dc.example.com', false],
  ])('LdapUrl %s → %s', (value, ok) => {
    const result = LdapUrl.safeParse(value);
    expect(result.success).toBe(ok);
    if (!ok) expect(messageOf(result)).toBe(ErrorCodes.urlMustBeLdap);
  });

  it.each([
    ['udp://graylog.example.com:12201', null],
    ['tcp://10.0.0.5:12201', null],
    ['tls://[::1]:12201', null],
    ['udp://graylog', ErrorCodes.urlMustBeGelf],
    ['tcp://h:0', ErrorCodes.urlInvalid],
    ['tcp://user:pw@h:12201', ErrorCodes.urlCredentialsNotAllowed],
    ['tls://h:12201/path', ErrorCodes.urlMustBeGelf],
    ['http://h:12201', ErrorCodes.urlMustBeGelf],
  ])('GelfUrl %s → %s', (value, code) => {
    const result = GelfUrl.safeParse(value);
    expect(result.success).toBe(code === null);
    if (code !== null) expect(messageOf(result)).toBe(code);
  });

  it.each([
    ['192.168.0.0/16', true],
    ['10.0.0.1/32', true],
    ['0.0.0.0/0', true],
    ['::/0', true],
    ['2001:db8::/32', true],
    ['2001:db8::1/128', true],
    ['10.0.0.0/33', false],
    ['2001:db8::/129', false],
    ['10.0.0.0', false],
    ['010.0.0.0/8', false],
    ['256.0.0.0/8', false],
    ['10.0.0.0/8/1', false],
    ['fe80::1%eth0/64', false],
  ])('Cidr %s → %s', (value, ok) => {
    const result = Cidr.safeParse(value);
    expect(result.success).toBe(ok);
    if (!ok) expect(messageOf(result)).toBe(ErrorCodes.invalidCidr);
  });

  it.each([
    ['192.168.1.1', true],
    ['0.0.0.0', true],
    ['255.255.255.255', true],
    ['01.2.3.4', false],
    ['1.2.3', false],
    ['1.2.3.256', false],
    ['a.b.c.d', false],
  ])('isIpv4 %s → %s', (value, ok) => {
    expect(isIpv4(value)).toBe(ok);
  });
});
