import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { BackendConfig, BackendConfigUpdate } from './backends.js';
import { HostNameOrAddress, HttpUrl, LdapUrl } from './common.js';
import { adminUrlProblem, isHostName, isHostOrAddress } from './endpoint.js';
import { ErrorCodes } from './errors.js';
import { KnocCreateBody, KnocUpdateBody, KnocWizardCreateBody, KnocWizardUpdateBody } from './knocs.js';
import { AuthenticationSettingsBody, SettingsConfigBody } from './settings.js';

type Result = ReturnType<z.ZodType['safeParse']>;

/** The first issue's message and path, or null when the value parsed. */
function firstIssue(result: Result): { message: string; path: string } | null {
  if (result.success) return null;
  const issue = result.error.issues[0];
  return { message: issue?.message ?? '', path: issue?.path.join('.') ?? '' };
}

/** URLs every admin-configured http(s) field refuses, with the code it answers. */
const BAD_HTTP_URLS: [string, string][] = [
  ['ftp://fw.example.com', ErrorCodes.urlMustBeHttp],
  ['javascript:alert(1)', ErrorCodes.urlMustBeHttp],
  ['fw.example.com', ErrorCodes.urlMustBeHttp],
  ['https://admin:secret@fw.example.com', ErrorCodes.urlCredentialsNotAllowed],
  ['https://admin@fw.example.com/api', ErrorCodes.urlCredentialsNotAllowed],
  ['https://fw.example.com@evil.example', ErrorCodes.urlCredentialsNotAllowed],
  ['https://', ErrorCodes.urlInvalid],
  ['https:///metadata', ErrorCodes.urlInvalid],
  ['https:fw.example.com', ErrorCodes.urlInvalid],
  ['https://fw example.com', ErrorCodes.urlInvalid],
  ['https://fw.example.com/a b', ErrorCodes.urlInvalid],
  ['https://fw.example.com\n.evil.example', ErrorCodes.urlInvalid],
  ['https://fw.exa\tmple.com', ErrorCodes.urlInvalid],
  ['https://fw.example.com\u200b/x', ErrorCodes.urlInvalid],
  ['https://fw.example.com\\@evil.example', ErrorCodes.urlInvalid],
  ['https://010.0.0.1/', ErrorCodes.urlInvalid],
  ['https://1.2.3.256/', ErrorCodes.urlInvalid],
  ['https://0x7f.1/', ErrorCodes.urlInvalid],
  ['https://2130706433/', ErrorCodes.urlInvalid],
  ['https://-fw.example.com/', ErrorCodes.urlInvalid],
  ['https://fw_1.example.com/', ErrorCodes.urlInvalid],
  ['https://fw.example.com:0/', ErrorCodes.urlInvalid],
  ['https://fw.example.com:65536/', ErrorCodes.urlInvalid],
  ['https://fe80::1/', ErrorCodes.urlInvalid],
  ['https://[fe80::1%25eth0]/', ErrorCodes.urlInvalid],
  ['https://ex%61mple.com/', ErrorCodes.urlInvalid],
  [`https://fw.example.com/${'a'.repeat(2048)}`, ErrorCodes.urlInvalid],
];

/** URLs every admin-configured http(s) field accepts. */
const GOOD_HTTP_URLS = [
  'https://fw.example.com',
  'http://10.0.0.1:8080/x',
  'https://fw.example.com:8443/api/v2?vdom=root#top',
  'https://[2001:db8::1]:443/metadata',
  'HTTPS://FW-01.Example.COM/',
  'https://login.microsoftonline.com/tenant/federationmetadata/2007-06/federationmetadata.xml?appid=abc',
  '  https://trimmed.example.com  ',
];

/** Every schema an admin saves an http(s) URL through, and where the field sits in it. */
const HTTP_URL_FIELDS: { name: string; parse: (url: string) => Result; path: string }[] = [
  {
    name: 'fortios backend Url (create)',
    parse: (Url) => BackendConfig.safeParse({ fortios: { Url, Bearer: 'token' } }),
    path: 'fortios.Url',
  },
  {
    name: 'fortios backend Url (update)',
    parse: (Url) => BackendConfigUpdate.safeParse({ fortios: { Url, Bearer: 'RECORDED' } }),
    path: 'fortios.Url',
  },
  {
    name: 'knoc URL (create)',
    parse: (URL) => KnocCreateBody.safeParse({ ...KNOC, BackendID: 'b1', URL }),
    path: 'URL',
  },
  {
    name: 'knoc URL (update)',
    parse: (URL) => KnocUpdateBody.safeParse({ ...KNOC, ID: 'k1', BackendID: 'b1', URL }),
    path: 'URL',
  },
  {
    name: 'knoc URL (wizard create)',
    parse: (URL) => KnocWizardCreateBody.safeParse({ Backend: IPSET_BACKEND, Knoc: { ...KNOC, URL } }),
    path: 'Knoc.URL',
  },
  {
    name: 'knoc URL (wizard update)',
    parse: (URL) =>
      KnocWizardUpdateBody.safeParse({ Backend: { ...IPSET_BACKEND, ID: 'b1' }, Knoc: { ...KNOC, ID: 'k1', URL } }),
    path: 'Knoc.URL',
  },
  {
    name: 'user SAML metadata URL',
    parse: (SAMLMetadataURL) => AuthenticationSettingsBody.safeParse({ ...AUTH, SAMLMetadataURL }),
    path: 'SAMLMetadataURL',
  },
  {
    name: 'admin SAML metadata URL',
    parse: (AdminSAMLMetadataURL) => AuthenticationSettingsBody.safeParse({ ...AUTH, AdminSAMLMetadataURL }),
    path: 'AdminSAMLMetadataURL',
  },
  {
    name: 'public URL',
    parse: (PublicURL) => AuthenticationSettingsBody.safeParse({ ...AUTH, PublicURL }),
    path: 'PublicURL',
  },
  {
    name: 'IP discovery URL',
    parse: (DiscoverIPURL) => SettingsConfigBody.safeParse({ ...CONFIG, DiscoverIPURL }),
    path: 'DiscoverIPURL',
  },
];

const KNOC = { Description: 'Intranet', Config: { ipset: { V4SetName: 'intranet' } } };
const IPSET_BACKEND = { Name: 'Edge', AgentID: 'a1', Config: { ipset: {} } };
const AUTH = {
  SAMLMetadataURL: '',
  AdminSAMLMetadataURL: '',
  PublicURL: '',
  LDAPURL: '',
  LDAPStartTLS: false,
  LDAPSkipVerifyTLS: false,
};
const CONFIG = { DiscoverIP: true, DiscoverIPURL: '', DebugMode: false, GELFListenerURL: '', KioskSessionDuration: 15 };

/** Vendor Hostname values refused, and accepted. */
const BAD_HOSTNAMES = [
  '',
  'https://fw.example.com',
  'fw.example.com/api',
  'admin@fw.example.com',
  'admin:pw@fw.example.com',
  'fw example.com',
  'fw\n.example.com',
  'fw.example.com;reboot',
  '010.0.0.1',
  '1.2.3.256',
  '0x7f.1',
  'fw.example.com:0',
  'fw.example.com:65536',
  'fw.example.com:',
  '[fe80::1%eth0]',
  'fe80::1%eth0',
  '[2001:db8::1]x',
  '-fw.example.com',
  'fw_1.example.com',
  'fw.example.com.',
  `${'a'.repeat(64)}.example.com`,
];
const GOOD_HOSTNAMES = [
  'fw.example.com',
  'fw',
  'FW-01.Corp.Example',
  '192.0.2.10',
  '192.0.2.10:4444',
  'utm.example.com:4444',
  '2001:db8::1',
  '[2001:db8::1]',
  '[2001:db8::1]:8443',
];
const HOSTNAME_TYPES = [
  ['fortimanager', { ApiKey: 'k' }],
  ['panos', { ApiKey: 'k' }],
  ['firepower', { Username: 'u', Password: 'p' }],
  ['sophosutm', { ApiKey: 'k' }],
  ['sophossfos', { Username: 'u', Password: 'p' }],
] as const;

describe('admin-configured URLs', () => {
  describe.each(HTTP_URL_FIELDS)('$name', ({ parse, path }) => {
    it.each(BAD_HTTP_URLS)('refuses %j with %s', (url, code) => {
      expect(firstIssue(parse(url))).toEqual({ message: code, path });
    });
    it.each(GOOD_HTTP_URLS)('accepts %j', (url) => {
      expect(firstIssue(parse(url))).toBeNull();
    });
  });

  it('accepts an empty value where the field is optional', () => {
    for (const { name, parse } of HTTP_URL_FIELDS.filter((field) => !field.name.startsWith('fortios'))) {
      expect(firstIssue(parse('')), name).toBeNull();
    }
    expect(firstIssue(BackendConfig.safeParse({ fortios: { Url: '', Bearer: 't' } }))?.message).toBe(
      ErrorCodes.urlMustBeHttp,
    );
  });

  it.each([
    ['ldap://dc.example.com', null],
    ['ldaps://dc.example.com:636', null],
    ['ldapi://%2Fvar%2Frun%2Fslapd%2Fldapi', null],
    ['ldap://cn=admin:pw@dc.example.com', ErrorCodes.urlCredentialsNotAllowed],
    ['ldaps://dc example.com', ErrorCodes.urlInvalid],
    ['ldap://010.0.0.1', ErrorCodes.urlInvalid],
    ['ldapi://', ErrorCodes.urlInvalid],
    ['https://dc.example.com', ErrorCodes.urlMustBeLdap],
  ])('LdapUrl %j → %s', (url, code) => {
    expect(firstIssue(LdapUrl.safeParse(url))?.message ?? null).toBe(code);
  });

  it('HttpUrl and adminUrlProblem agree on the problem kinds', () => {
    expect(adminUrlProblem('ftp://x', ['http', 'https'])).toBe('scheme');
    expect(adminUrlProblem('https://u:p@x', ['http', 'https'])).toBe('credentials');
    expect(adminUrlProblem('https://x y', ['http', 'https'])).toBe('invalid');
    expect(adminUrlProblem('https://x', ['http', 'https'])).toBeNull();
    expect(HttpUrl.safeParse('https://x').success).toBe(true);
  });
});

describe('vendor host names', () => {
  describe.each(HOSTNAME_TYPES)('%s Hostname', (type, secrets) => {
    it.each(BAD_HOSTNAMES)('refuses %j on create and update', (Hostname) => {
      for (const schema of [BackendConfig, BackendConfigUpdate]) {
        const result = schema.safeParse({ [type]: { ...secrets, Hostname } });
        expect(firstIssue(result)).toEqual({ message: ErrorCodes.invalidHostname, path: `${type}.Hostname` });
      }
    });
    it.each(GOOD_HOSTNAMES)('accepts %j', (Hostname) => {
      expect(firstIssue(BackendConfig.safeParse({ [type]: { ...secrets, Hostname } }))).toBeNull();
    });
  });

  it.each([
    ['10.0.0.5:9999', true],
    ['[::1]:9999', true],
    ['haproxy.internal:9999', true],
    ['10.0.0.5', false],
    ['010.0.0.5:9999', false],
    ['haproxy.internal:99999', false],
    ['a b:1', false],
    ['::1:9999', false],
    ['user@haproxy:9999', false],
  ])('haproxy tcp Address %j → %s', (Address, ok) => {
    const result = BackendConfig.safeParse({ haproxy: { Protocol: 'tcp', Address } });
    expect(firstIssue(result)).toEqual(ok ? null : { message: ErrorCodes.invalidAddress, path: 'haproxy.Address' });
  });

  it('refuses a unix socket path with a control character', () => {
    const result = BackendConfig.safeParse({ knocproxy: { Protocol: 'unix', Address: '/run/knoc\n.sock' } });
    expect(firstIssue(result)).toEqual({ message: ErrorCodes.invalidAddress, path: 'knocproxy.Address' });
  });

  it.each([
    ['fw.example.com', 'none', true],
    ['fw.example.com:443', 'none', false],
    ['fw.example.com', 'required', false],
    ['2001:db8::1', 'required', false],
    ['[2001:db8::1]:1', 'required', true],
  ] as const)('isHostOrAddress(%j, %s) → %s', (text, port, ok) => {
    expect(isHostOrAddress(text, port)).toBe(ok);
  });

  it('reads numeric last labels as addresses, not names', () => {
    expect(isHostName('host.123')).toBe(false);
    expect(isHostName('123.host')).toBe(true);
    expect(HostNameOrAddress.safeParse('10.0.0.1').success).toBe(true);
  });
});
