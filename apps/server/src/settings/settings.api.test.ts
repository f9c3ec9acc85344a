import { createSocket, type Socket } from 'node:dgram';
import { generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin } from '../test-support/factories.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient, type AdminMethod } from '../test-support/admin-client.js';
import { waitFor } from '@postern/test-support';
import { createSelfSignedCertificate } from '../lib/x509.js';
import { recordAudit } from '../audit/audit.js';
import { readSettings } from './settings.js';
import { RuntimeSettings } from './runtime-settings.js';

const CONFIG = {
  DiscoverIP: false,
  DiscoverIPURL: '',
  DiscoverIPv4URL: '',
  DiscoverIPv6URL: '',
  DiscoverIPTrustUnattested: false,
  DebugMode: false,
  GELFListenerURL: '',
  KioskSessionDuration: 15,
};
const CUSTOM = { Accent: 'grape', HighAccessibility: false, NewUserDashboard: true };
const AUTH = {
  SAMLMetadataURL: '',
  AdminSAMLMetadataURL: '',
  PublicURL: '',
  LDAPURL: '',
  LDAPStartTLS: false,
  LDAPSkipVerifyTLS: false,
};
const IDP_METADATA =
  '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></md:EntityDescriptor>';

/** RSA keys for the SAML file tests, made once for the file when first needed (key generation is CPU-heavy). */
const rsaKeys: KeyObject[] = [];
const rsaKey = (index: 0 | 1) => (rsaKeys[index] ??= generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);

describe('settings API (sqlite)', () => {
  const t = useTestApp('sqlite');
  let admin: AdminClient;
  beforeEach(async () => {
    const settingsAdmin = await givenAdmin(t.ctx, { userName: 'settings-admin' });
    admin = adminClient(t.app, await givenAdminSession(t, settingsAdmin));
  });

  /** The signed-in admin's call, answering the raw response. */
  const call = async (method: AdminMethod, url: string, payload?: object) =>
    (await admin.request(method, url, payload)).response;

  it('shows every setting with its default', async () => {
    const response = await call('GET', '/api/admin/settings');
    expect(response.json()).toEqual({
      data: { License: '', CachedLicenses: [], ...CONFIG, ...CUSTOM, Logo: '', LightModeLogo: '' },
    });
  });

  it('saves the configuration and audits it', async () => {
    const body = { ...CONFIG, DiscoverIP: true, DiscoverIPURL: 'https://ip.example.com', KioskSessionDuration: 30 };
    const response = await call('PUT', '/api/admin/settings/config', body);
    expect(response.json()).toMatchObject({ data: body });
    const [entry] = (await call('GET', '/api/admin/logs')).json<{ data: { Entry: object }[] }>().data;
    expect(entry?.Entry).toEqual({
      [AuditActions.SettingsUpdated]: { AdminName: 'settings-admin', Description: 'config' },
    });
  });

  it('names a change to DiscoverIPTrustUnattested in the audit, and keeps it when a save leaves it out', async () => {
    const on = await call('PUT', '/api/admin/settings/config', { ...CONFIG, DiscoverIPTrustUnattested: true });
    expect(on.json()).toMatchObject({ data: { DiscoverIPTrustUnattested: true } });
    const { DiscoverIPTrustUnattested: _left, ...withoutIt } = CONFIG;
    const kept = await call('PUT', '/api/admin/settings/config', { ...withoutIt, DebugMode: true });
    expect(kept.json()).toMatchObject({ data: { DiscoverIPTrustUnattested: true, DebugMode: true } });
    await call('PUT', '/api/admin/settings/config', CONFIG);

    const entries = (await call('GET', '/api/admin/logs')).json<{ data: { Entry: object }[] }>().data;
    expect(entries.slice(0, 3).map((entry) => entry.Entry)).toEqual([
      {
        [AuditActions.SettingsUpdated]: {
          AdminName: 'settings-admin',
          Description: 'config: DiscoverIPTrustUnattested turned off',
        },
      },
      { [AuditActions.SettingsUpdated]: { AdminName: 'settings-admin', Description: 'config' } },
      {
        [AuditActions.SettingsUpdated]: {
          AdminName: 'settings-admin',
          Description: 'config: DiscoverIPTrustUnattested turned on',
        },
      },
    ]);
  });

  it('saves the IPv4-only and IPv6-only discovery URLs, and keeps them when a save leaves them out', async () => {
    const dualStack = { DiscoverIPv4URL: 'http://v4.portal.example', DiscoverIPv6URL: 'http://v6.portal.example' };
    const saved = await call('PUT', '/api/admin/settings/config', { ...CONFIG, ...dualStack });
    expect(saved.json()).toMatchObject({ data: dualStack });
    const { DiscoverIPv4URL: _v4, DiscoverIPv6URL: _v6, ...withoutThem } = CONFIG;
    const kept = await call('PUT', '/api/admin/settings/config', { ...withoutThem, DebugMode: true });
    expect(kept.json()).toMatchObject({ data: { ...dualStack, DebugMode: true } });
    const cleared = await call('PUT', '/api/admin/settings/config', { ...CONFIG, DiscoverIPv6URL: '' });
    expect(cleared.json()).toMatchObject({ data: { DiscoverIPv4URL: '', DiscoverIPv6URL: '' } });
  });

  it.each([
    [
      'an ftp IPv4-only discovery URL',
      { DiscoverIPv4URL: 'ftp://v4.ip.example' },
      { Err: ErrorCodes.urlMustBeHttp, Extra: 'DiscoverIPv4URL' },
    ],
    [
      'an IPv6-only discovery URL with credentials',
      { DiscoverIPv6URL: 'http://u:p@v6.ip.example' },
      { Err: ErrorCodes.urlCredentialsNotAllowed, Extra: 'DiscoverIPv6URL' },
    ],
    [
      'an ftp discovery URL',
      { DiscoverIPURL: 'ftp://ip.example' },
      { Err: ErrorCodes.urlMustBeHttp, Extra: 'DiscoverIPURL' },
    ],
    [
      'a discovery URL with credentials',
      { DiscoverIPURL: 'https://u:p@ip.example' },
      { Err: ErrorCodes.urlCredentialsNotAllowed, Extra: 'DiscoverIPURL' },
    ],
    [
      'an http GELF URL',
      { GELFListenerURL: 'http://graylog:12201' },
      { Err: ErrorCodes.urlMustBeGelf, Extra: 'GELFListenerURL' },
    ],
    [
      'a kiosk duration of 4',
      { KioskSessionDuration: 4 },
      { Err: ErrorCodes.kioskDurationRange, Extra: 'KioskSessionDuration' },
    ],
    [
      'a kiosk duration of 121',
      { KioskSessionDuration: 121 },
      { Err: ErrorCodes.kioskDurationRange, Extra: 'KioskSessionDuration' },
    ],
  ])('refuses %s', async (_name, change, expected) => {
    const response = await call('PUT', '/api/admin/settings/config', { ...CONFIG, ...change });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(expected);
  });

  it('stores SAML files with Set, drops them with Remove, and seals the private key', async () => {
    const { certificatePem, privateKeyPem } = createSelfSignedCertificate({
      commonName: 'sp',
      days: 30,
      privateKey: rsaKey(0),
    });
    const response = await call('PUT', '/api/admin/settings/authentication', {
      ...AUTH,
      PublicURL: 'https://access.example.com',
      SAMLMetadataFile: IDP_METADATA,
      SAMLMetadataFileSet: true,
      SAMLKeyFile: privateKeyPem,
      SAMLKeyFileSet: true,
      SAMLCertFile: certificatePem,
      SAMLCertFileSet: true,
      LDAPURL: 'ldaps://dc.example.com',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      data: {
        SAMLMetadataFileSet: true,
        SAMLKeyFileSet: true,
        SAMLCertFileSet: true,
        UserSAMLConfigured: true,
        AdminSAMLConfigured: false,
      },
    });
    expect(JSON.stringify(response.json())).not.toContain('PRIVATE KEY');
    const stored = await readSettings(t.ctx.db);
    expect(stored.SAMLKeyFile).not.toContain('PRIVATE KEY');
    expect(stored.SAMLKeyFile).toMatch(/^v1\./);

    // Leaving the flags out changes nothing; Remove drops the file.
    await call('PUT', '/api/admin/settings/authentication', { ...AUTH, PublicURL: 'https://access.example.com' });
    expect((await readSettings(t.ctx.db)).SAMLMetadataFile).toContain('EntityDescriptor');
    const removed = await call('PUT', '/api/admin/settings/authentication', { ...AUTH, SAMLMetadataFileRemove: true });
    expect(removed.json()).toMatchObject({ data: { SAMLMetadataFileSet: false, UserSAMLConfigured: false } });
  });

  it.each([
    [
      'a metadata URL that is not http(s)',
      { SAMLMetadataURL: 'file:///etc/passwd' },
      { Err: ErrorCodes.urlMustBeHttp, Extra: 'SAMLMetadataURL' },
    ],
    [
      'a metadata URL with credentials',
      { SAMLMetadataURL: 'https://svc:secret@idp.example.com/metadata' },
      { Err: ErrorCodes.urlCredentialsNotAllowed, Extra: 'SAMLMetadataURL' },
    ],
    [
      'a metadata URL with a space in its host',
      { SAMLMetadataURL: 'https://idp example.com/metadata' },
      { Err: ErrorCodes.urlInvalid, Extra: 'SAMLMetadataURL' },
    ],
    [
      'an admin metadata URL that is not http(s)',
      { AdminSAMLMetadataURL: 'file:///etc/passwd' },
      { Err: ErrorCodes.urlMustBeHttp, Extra: 'AdminSAMLMetadataURL' },
    ],
    [
      'an admin metadata URL with credentials',
      { AdminSAMLMetadataURL: 'https://svc@idp.example.com/metadata' },
      { Err: ErrorCodes.urlCredentialsNotAllowed, Extra: 'AdminSAMLMetadataURL' },
    ],
    [
      'an admin metadata URL with a newline in its host',
      { AdminSAMLMetadataURL: 'https://idp.example.com\n.evil.example/metadata' },
      { Err: ErrorCodes.urlInvalid, Extra: 'AdminSAMLMetadataURL' },
    ],
    [
      'a public URL without a host',
      { PublicURL: 'https:///postern' },
      { Err: ErrorCodes.urlInvalid, Extra: 'PublicURL' },
    ],
    ['an LDAP URL that is not LDAP', { LDAPURL: 'https://dc' }, { Err: ErrorCodes.urlMustBeLdap, Extra: 'LDAPURL' }],
    [
      'an LDAP URL with credentials',
      { LDAPURL: 'ldaps://cn=admin:pw@dc.example.com' },
      { Err: ErrorCodes.urlCredentialsNotAllowed, Extra: 'LDAPURL' },
    ],
    [
      'a public URL that is not http(s)',
      { PublicURL: 'gopher://x' },
      { Err: ErrorCodes.urlMustBeHttp, Extra: 'PublicURL' },
    ],
    [
      'metadata that is not IdP metadata',
      { SAMLMetadataFile: '<html/>', SAMLMetadataFileSet: true },
      { Err: ErrorCodes.badRequest },
    ],
    ['a key that is not a key', { SAMLKeyFile: 'hello', SAMLKeyFileSet: true }, { Err: ErrorCodes.badRequest }],
  ])('refuses %s', async (_name, change, expected) => {
    const response = await call('PUT', '/api/admin/settings/authentication', { ...AUTH, ...change });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject(expected);
  });

  it('turns passkey sign-in on and off per realm, names each change in the audit, and shows it in the status', async () => {
    const read = async () => {
      const settings = (await call('GET', '/api/admin/settings/authentication')).json<{
        data: { UserPasskeySignIn: boolean; AdminPasskeySignIn: boolean };
      }>().data;
      const status = (await t.app.inject({ url: '/api/system_status' })).json<{
        data: { UserPasskeySignIn: boolean; AdminPasskeySignIn: boolean };
      }>().data;
      return {
        settings: [settings.UserPasskeySignIn, settings.AdminPasskeySignIn],
        status: [status.UserPasskeySignIn, status.AdminPasskeySignIn],
      };
    };
    expect(await read()).toEqual({ settings: [true, false], status: [true, false] });
    await call('PUT', '/api/admin/settings/authentication', {
      ...AUTH,
      UserPasskeySignIn: false,
      AdminPasskeySignIn: true,
    });
    expect(await read()).toEqual({ settings: [false, true], status: [false, true] });
    // Left out: kept as it is.
    await call('PUT', '/api/admin/settings/authentication', AUTH);
    expect(await read()).toEqual({ settings: [false, true], status: [false, true] });
    const entries = (await call('GET', '/api/admin/logs')).json<{ data: { Entry: object }[] }>().data;
    expect(entries.slice(0, 2).map((entry) => entry.Entry)).toEqual([
      { [AuditActions.AuthenticationSettingsUpdated]: { AdminName: 'settings-admin', Description: 'authentication' } },
      {
        [AuditActions.AuthenticationSettingsUpdated]: {
          AdminName: 'settings-admin',
          Description: 'authentication: UserPasskeySignIn turned off, AdminPasskeySignIn turned on',
        },
      },
    ]);
  });

  it('refuses a certificate that does not belong to the key', async () => {
    const one = createSelfSignedCertificate({ commonName: 'a', days: 1, privateKey: rsaKey(0) });
    const other = createSelfSignedCertificate({ commonName: 'b', days: 1, privateKey: rsaKey(1) });
    const response = await call('PUT', '/api/admin/settings/authentication', {
      ...AUTH,
      AdminSAMLKeyFile: one.privateKeyPem,
      AdminSAMLKeyFileSet: true,
      AdminSAMLCertFile: other.certificatePem,
      AdminSAMLCertFileSet: true,
    });
    expect(response.json()).toEqual({
      Err: ErrorCodes.badRequest,
      Extra: 'AdminSAMLCertFile: the certificate does not belong to the private key',
    });
  });

  it('generates a fresh SP key pair per realm, replacing the old one', async () => {
    await call('PUT', '/api/admin/settings/authentication', { ...AUTH, PublicURL: 'https://access.example.com' });
    const first = (await call('POST', '/api/admin/settings/generateUserSamlKeyCert')).json<{
      data: { Certificate: string };
    }>().data;
    const certificate = new X509Certificate(first.Certificate);
    expect(certificate.subject).toBe('CN=access.example.com');
    const second = (await call('POST', '/api/admin/settings/generateUserSamlKeyCert')).json<{
      data: { Certificate: string };
    }>().data;
    expect(second.Certificate).not.toBe(first.Certificate);
    const settings = (await call('GET', '/api/admin/settings/authentication')).json<{
      data: { SAMLCert: string; AdminSAMLCertFileSet: boolean };
    }>().data;
    expect(settings.SAMLCert).toBe(second.Certificate);
    expect(settings.AdminSAMLCertFileSet).toBe(false);
  });

  it('refuses the settings API without an admin session', async () => {
    for (const url of ['/api/admin/settings', '/api/admin/settings/authentication']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
    }
    expect((await t.app.inject({ method: 'PUT', url: '/api/admin/settings/config', payload: {} })).statusCode).toBe(
      401,
    );
  });

  describe('runtime effects', () => {
    let listener: Socket;
    let port: number;
    const received: Record<string, unknown>[] = [];
    beforeEach(async () => {
      received.length = 0;
      listener = createSocket('udp4');
      listener.on('message', (message) =>
        received.push(JSON.parse(inflateSync(message).toString()) as Record<string, unknown>),
      );
      await new Promise<void>((resolve) => listener.bind(0, '127.0.0.1', resolve));
      port = listener.address().port;
    });
    // DebugMode raises the app's log level; the next test gets the level the app was built with.
    let builtLevel: string;
    beforeEach(() => {
      builtLevel = t.ctx.logger.level;
    });
    afterEach(() => {
      listener.close();
      t.ctx.logger.level = builtLevel;
    });

    it('sends audit entries recorded after GELF is turned on, once each, and follows DebugMode', async () => {
      const runtime = new RuntimeSettings(t.ctx);
      await recordAudit(t.ctx.db, t.clock.now(), AuditActions.UserLogin, { UserName: 'before' });
      await call('PUT', '/api/admin/settings/config', {
        ...CONFIG,
        DebugMode: true,
        GELFListenerURL: `udp://127.0.0.1:${port}`,
      });
      await runtime.applyOnce();
      expect(t.ctx.logger.level).toBe('debug');
      await recordAudit(t.ctx.db, t.clock.now(), AuditActions.UserLoginFailed, {
        UserName: 'mallory',
        IpAddress: '203.0.113.9',
      });
      await runtime.applyOnce();
      await runtime.applyOnce();
      await waitFor(() => received.length >= 1, 'a GELF message');
      await runtime.stop();
      expect(received).toEqual([
        expect.objectContaining({
          version: '1.1',
          short_message: AuditActions.UserLoginFailed,
          level: 4,
          _action: AuditActions.UserLoginFailed,
          _user_name: 'mallory',
          _ip_address: '203.0.113.9',
        }),
      ]);
    });
  });
});
