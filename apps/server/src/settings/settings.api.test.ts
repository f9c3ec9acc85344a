import { createSocket, type Socket } from 'node:dgram';
import { generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { AuditActions, ErrorCodes, LOGO_MAX_PIXELS } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin } from '../test-support/factories.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient, type AdminMethod } from '../test-support/admin-client.js';
import { waitFor } from '@postern/test-support';
import { createSelfSignedCertificate } from '../lib/x509.js';
import { recordAudit } from '../audit/audit.js';
import { readSettings } from './settings.js';
import { RuntimeSettings } from './runtime-settings.js';
import {
  dataUrl,
  decodedSize,
  greyscalePng,
  gradient,
  jpegBytes,
  jpegClaiming,
  pngBytes,
} from '../test-support/images.js';
import { LogoCodec } from './logo-codec.js';
import type { LogoJob } from './logo-reencode.js';

const PNG = dataUrl('image/png', pngBytes(24, 12));
const JPEG = dataUrl('image/jpeg', jpegBytes(20, 10));
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

/** The app's logo worker, which the tests watch; `timeLimitMs` shortens the time limit of the images sent to it. */
class HeldLogoCodec extends LogoCodec {
  timeLimitMs: number | undefined;
  override reencode(job: LogoJob, options: { timeLimitMs?: number } = {}) {
    return super.reencode(job, { timeLimitMs: this.timeLimitMs, ...options });
  }
}

describe('settings API (sqlite)', () => {
  const codec = new HeldLogoCodec();
  const t = useTestApp('sqlite', { logoCodec: codec });
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

  it('stores logos, serves them with a cache tag and announces them in the theme', async () => {
    const saved = await call('PUT', '/api/admin/settings/customize', {
      ...CUSTOM,
      Accent: 'teal',
      Logo: PNG,
      LightModeLogo: JPEG,
    });
    const stored = saved.json<{ data: { Accent: string; Logo: string; LightModeLogo: string } }>().data;
    expect(stored.Accent).toBe('teal');
    expect(stored.Logo).toMatch(/^data:image\/png;base64,/);
    expect(stored.LightModeLogo).toMatch(/^data:image\/jpeg;base64,/);
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
    expect(after).toMatchObject({ Logo: stored.Logo, LightModeLogo: '' });
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

  describe('logos are decoded, bounded and re-encoded', () => {
    const TRAILING_HTML = Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>');
    const ZIP = Buffer.concat([Buffer.from('504b0304', 'hex'), Buffer.from('polyglot.html<script>alert(1)</script>')]);
    // The decoding happens in the logo worker: what is refused from its header never reaches it.
    let decoder: MockInstance<LogoCodec['reencode']>;
    beforeEach(() => {
      decoder = vi.spyOn(LogoCodec.prototype, 'reencode');
    });
    afterEach(() => {
      decoder.mockRestore();
    });

    /** Uploads `logo` as the dark logo and answers the served bytes and their type. */
    const roundTrip = async (logo: string) => {
      const saved = await call('PUT', '/api/admin/settings/customize', { ...CUSTOM, Logo: logo });
      expect(saved.statusCode, saved.body).toBe(200);
      const served = await t.app.inject({ method: 'GET', url: '/api/branding/logo/dark' });
      expect(served.statusCode).toBe(200);
      return { type: String(served.headers['content-type']), bytes: served.rawPayload };
    };

    it.each([
      ['a PNG', 'image/png', pngBytes(37, 19), 37, 19],
      ['a PNG with transparency', 'image/png', pngBytes(8, 30, 100), 8, 30],
      ['a greyscale PNG', 'image/png', greyscalePng(16, 4), 16, 4],
      ['a JPEG', 'image/jpeg', jpegBytes(41, 23), 41, 23],
    ])('stores %s re-encoded: the served logo decodes to the same size', async (_name, type, bytes, width, height) => {
      const served = await roundTrip(dataUrl(type, bytes));
      expect(served.type).toBe(type);
      expect(decodedSize(type, served.bytes)).toMatchObject({ width, height });
    });

    it('keeps the pixels of a PNG exactly', async () => {
      const served = await roundTrip(dataUrl('image/png', pngBytes(12, 5, 200)));
      expect(Buffer.from(decodedSize('image/png', served.bytes).data)).toEqual(gradient(12, 5, 200));
    });

    it('stores a PNG with HTML after its end without the trailing bytes', async () => {
      const png = pngBytes(10, 10);
      const served = await roundTrip(dataUrl('image/png', Buffer.concat([png, TRAILING_HTML])));
      expect(served.bytes.includes('<script')).toBe(false);
      expect(served.bytes.subarray(-12).toString('hex')).toBe('0000000049454e44ae426082');
      expect(decodedSize('image/png', served.bytes)).toMatchObject({ width: 10, height: 10 });
    });

    it('stores a JPEG/ZIP polyglot as the JPEG alone', async () => {
      const served = await roundTrip(dataUrl('image/jpeg', Buffer.concat([jpegBytes(16, 16), ZIP])));
      expect(served.bytes.includes(Buffer.from('504b0304', 'hex'))).toBe(false);
      expect(served.bytes.includes('<script')).toBe(false);
      expect(served.bytes.subarray(-2).toString('hex')).toBe('ffd9');
    });

    it.each([
      ['a 5000 × 10 PNG', () => dataUrl('image/png', greyscalePng(5000, 10))],
      ['a 10 × 5000 PNG', () => dataUrl('image/png', greyscalePng(10, 5000))],
      ['a 5000 × 8 JPEG', () => dataUrl('image/jpeg', jpegBytes(5000, 8))],
      [
        'a small PNG claiming 100000 × 100000 (a decompression bomb)',
        () => dataUrl('image/png', greyscalePng(100_000, 100_000, deflateSync(Buffer.alloc(1024 * 1024)))),
      ],
      ['a real compressed 4096 × 4097 PNG', () => dataUrl('image/png', greyscalePng(4096, 4097))],
      ['a 4096 × 1025 PNG (over the pixel budget)', () => dataUrl('image/png', greyscalePng(4096, 1025))],
      ['a 2049 × 2048 JPEG (over the pixel budget)', () => dataUrl('image/jpeg', jpegClaiming(2049, 2048))],
      [
        'a 4096 × 4096 PNG of a few KB (the outside probe’s upload)',
        () => dataUrl('image/png', greyscalePng(4096, 4096)),
      ],
    ])('refuses %s from its header, without decoding it', async (_name, logo) => {
      const response = await call('PUT', '/api/admin/settings/customize', { ...CUSTOM, Logo: logo() });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ Err: ErrorCodes.logoDimensionsTooLarge, Extra: 'Logo' });
      expect(decoder).not.toHaveBeenCalled();
      expect((await readSettings(t.ctx.db)).Logo).toBe('');
    });

    it('refuses an interlaced PNG whose data inflates far beyond its size', async () => {
      // 64 × 64 grey pixels need about 8 KiB; this stream inflates to 64 MiB. Its header is fine, so
      // it goes to the worker, whose inflate is bounded by the size before pngjs sees the stream
      // (logo-reencode.test.ts shows the bound).
      const bomb = greyscalePng(64, 64, deflateSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 }), true);
      const response = await call('PUT', '/api/admin/settings/customize', {
        ...CUSTOM,
        Logo: dataUrl('image/png', bomb),
      });
      expect(response.json()).toEqual({ Err: ErrorCodes.logoFormat, Extra: 'Logo' });
    });

    it('accepts a logo of exactly 4096 pixels a side', async () => {
      const served = await roundTrip(dataUrl('image/png', greyscalePng(4096, 1)));
      expect(decodedSize('image/png', served.bytes)).toMatchObject({ width: 4096, height: 1 });
    });

    it('accepts a logo of exactly the pixel budget (4096 × 1024)', { timeout: 60_000 }, async () => {
      expect(4096 * 1024).toBe(LOGO_MAX_PIXELS);
      const served = await roundTrip(dataUrl('image/png', greyscalePng(4096, 1024)));
      expect(decodedSize('image/png', served.bytes)).toMatchObject({ width: 4096, height: 1024 });
    });

    describe('off the event loop', () => {
      // Making, decoding and re-encoding the largest logo takes a second or more on a busy machine.
      const SLOW = { timeout: 60_000 };
      /**
       * A real PNG of the largest square the pixel budget accepts: hundreds of milliseconds to decode
       * (and to make, so it is made once for both tests).
       */
      let largest: string | undefined;
      const largestPng = () => (largest ??= dataUrl('image/png', pngBytes(2048, 2048)));
      const upload = (logo: string) => call('PUT', '/api/admin/settings/customize', { ...CUSTOM, Logo: logo });
      afterEach(() => {
        codec.timeLimitMs = undefined;
      });

      it('answers other requests while a large logo is being decoded', SLOW, async () => {
        let uploaded = false;
        const uploading = upload(largestPng()).then((response) => {
          uploaded = true;
          return response;
        });
        await waitFor(() => codec.pending.running === 1, 'the logo to be handed to the worker');
        const theme = await t.app.inject({ method: 'GET', url: '/api/theme' });
        expect(theme.statusCode).toBe(200);
        // Answered while the worker still decodes: the event loop was free the whole time.
        expect(uploaded).toBe(false);
        expect(codec.pending.running).toBe(1);
        const response = await uploading;
        expect(response.statusCode, response.body).toBe(200);
        const served = await t.app.inject({ method: 'GET', url: '/api/branding/logo/dark' });
        expect(decodedSize('image/png', served.rawPayload)).toMatchObject({ width: 2048, height: 2048 });
      });

      it('refuses a logo whose decode overruns the time limit (err.logoTooLarge), storing nothing', SLOW, async () => {
        codec.timeLimitMs = 1;
        const response = await upload(largestPng());
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({ Err: ErrorCodes.logoTooLarge, Extra: 'Logo' });
        expect((await readSettings(t.ctx.db)).Logo).toBe('');
      });
    });

    it.each([
      ['a GIF', 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'],
      [
        'an SVG',
        `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString('base64')}`,
      ],
      ['a GIF calling itself a PNG', 'data:image/png;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'],
      ['an SVG calling itself a JPEG', `data:image/jpeg;base64,${Buffer.from('<svg/>').toString('base64')}`],
      ['a PNG calling itself a JPEG', () => dataUrl('image/jpeg', pngBytes(4, 4))],
      ['a PNG cut short', () => dataUrl('image/png', pngBytes(30, 30).subarray(0, 60))],
      ['a PNG whose data is not deflate', () => dataUrl('image/png', greyscalePng(4, 4, Buffer.from('not zlib')))],
      ['a JPEG cut short', () => dataUrl('image/jpeg', jpegBytes(30, 30).subarray(0, 200))],
      [
        'HTML after a PNG signature',
        () => dataUrl('image/png', Buffer.concat([pngBytes(1, 1).subarray(0, 8), TRAILING_HTML])),
      ],
    ])('refuses %s (err.logoFormat)', async (_name, logo) => {
      const value = typeof logo === 'string' ? logo : logo();
      for (const field of ['Logo', 'LightModeLogo']) {
        const response = await call('PUT', '/api/admin/settings/customize', { ...CUSTOM, [field]: value });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({ Err: ErrorCodes.logoFormat, Extra: field });
      }
    });
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
