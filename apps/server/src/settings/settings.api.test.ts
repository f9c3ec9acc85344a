import { createSocket, type Socket } from 'node:dgram';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { createTestApp, testStoreKinds, type TestApp } from '../test-support/test-app.js';
import { givenAdmin } from '../test-support/factories.js';
import { signInAdmin } from '../test-support/http.js';
import { waitFor } from '@postern/test-support';
import { createSelfSignedCertificate } from '../lib/x509.js';
import { recordAudit } from '../audit/audit.js';
import { readSettings } from './settings.js';
import { RuntimeSettings } from './runtime-settings.js';

const PNG = `data:image/png;base64,${Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(40, 1)]).toString('base64')}`;
const JPEG = `data:image/jpeg;base64,${Buffer.concat([Buffer.from('ffd8ffe0', 'hex'), Buffer.alloc(40, 2)]).toString('base64')}`;
const CONFIG = {
  DiscoverIP: false,
  DiscoverIPURL: '',
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

describe.each(testStoreKinds())('settings API (%s)', (kind) => {
  let t: TestApp;
  let cookie: string;
  beforeEach(async () => {
    t = await createTestApp(kind);
    const admin = await givenAdmin(t.ctx, { userName: 'settings-admin' });
    cookie = await signInAdmin(t.app, admin.userName, admin.password);
  });
  afterEach(async () => {
    await t.close();
  });

  const call = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload }) });

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

  it.each([
    [
      'an ftp discovery URL',
      { DiscoverIPURL: 'ftp://ip.example' },
      { Err: ErrorCodes.urlMustBeHttp, Extra: 'DiscoverIPURL' },
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

  it('stores logos, serves them with a cache tag and announces them in the theme', async () => {
    const saved = await call('PUT', '/api/admin/settings/customize', {
      ...CUSTOM,
      Accent: 'teal',
      Logo: PNG,
      LightModeLogo: JPEG,
    });
    expect(saved.json()).toMatchObject({ data: { Accent: 'teal', Logo: PNG, LightModeLogo: JPEG } });
    const theme = (await t.app.inject({ method: 'GET', url: '/api/theme' })).json<{
      data: { LogoURL: string; LightModeLogoURL: string };
    }>().data;
    expect(theme.LogoURL).toMatch(/^\/api\/branding\/logo\/dark\?v=[0-9a-f]{16}$/);
    const logo = await t.app.inject({ method: 'GET', url: theme.LogoURL });
    expect(logo.statusCode).toBe(200);
    expect(logo.headers['content-type']).toBe('image/png');
    expect(logo.rawPayload.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const again = await t.app.inject({
      method: 'GET',
      url: theme.LogoURL,
      headers: { 'if-none-match': String(logo.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect((await t.app.inject({ method: 'GET', url: theme.LightModeLogoURL })).headers['content-type']).toBe(
      'image/jpeg',
    );

    // Leaving a logo out keeps it; null removes it.
    await call('PUT', '/api/admin/settings/customize', { ...CUSTOM, LightModeLogo: null });
    const after = (await call('GET', '/api/admin/settings')).json<{ data: { Logo: string; LightModeLogo: string } }>()
      .data;
    expect(after).toMatchObject({ Logo: PNG, LightModeLogo: '' });
    expect((await t.app.inject({ method: 'GET', url: '/api/branding/logo/light' })).statusCode).toBe(404);
  });

  it.each([
    ['a GIF', 'data:image/gif;base64,R0lGODlhAQABAAAAACw=', ErrorCodes.logoFormat],
    [
      'a script calling itself a PNG',
      `data:image/png;base64,${Buffer.from('<script>alert(1)</script>').toString('base64')}`,
      ErrorCodes.logoFormat,
    ],
    ['a JPEG calling itself a PNG', JPEG.replace('image/jpeg', 'image/png'), ErrorCodes.logoFormat],
    [
      'an oversized image',
      `data:image/png;base64,${Buffer.alloc(600 * 1024, 1).toString('base64')}`,
      ErrorCodes.logoTooLarge,
    ],
  ])('refuses %s as a logo', async (_name, logo, code) => {
    const response = await call('PUT', '/api/admin/settings/customize', { ...CUSTOM, Logo: logo });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ Err: code });
  });

  it('stores SAML files with Set, drops them with Remove, and seals the private key', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { certificatePem, privateKeyPem } = createSelfSignedCertificate({ commonName: 'sp', days: 30, privateKey });
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
    ['an LDAP URL that is not LDAP', { LDAPURL: 'https://dc' }, { Err: ErrorCodes.urlMustBeLdap, Extra: 'LDAPURL' }],
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

  it('refuses a certificate that does not belong to the key', async () => {
    const one = createSelfSignedCertificate({
      commonName: 'a',
      days: 1,
      privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    });
    const other = createSelfSignedCertificate({
      commonName: 'b',
      days: 1,
      privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    });
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
    afterEach(() => listener.close());

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
