import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  ErrorCodes,
  LICENSING_DOCS_PATH,
  MINIMUM_AGENT_VERSION,
  POSTERN_VERSION,
  AuditActions,
  type AdminStatus,
  type SystemStatus,
} from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdmin, givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { signInAdmin, signInUser } from '../test-support/http.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { writeSetting } from '../settings/settings.js';
import { ReleaseFeedReader } from '../releases/release-feed-source.js';

const MINUTE = 60_000;

// The status feature's smoke file. One test signs in for real (argon2id): the activity it shows is
// what the sign-ins recorded.
describe.each(bothStores())('status endpoints (%s)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, (kind) => {
  const t = useTestApp(kind);
  /** The same installation behind a proxy it trusts (the rule is made when the app is built). */
  const proxied = useTestApp(kind, { config: { trustedProxies: ['127.0.0.0/8'] } });

  const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
  /** The admin status a signed-in admin (a new one unless given) sees. */
  const adminStatus = async <T>(cookie?: string) =>
    (await adminClient(t.app, cookie ?? (await givenAdminSession(t))).get<{ data: T }>('/api/admin/status')).body.data;

  it('tells a signed-in user who they are, where they come from and when the session ends', async () => {
    const validUntil = t.clock.now() + 30 * 24 * 60 * MINUTE;
    const user = await givenUser(t.ctx, { name: 'Noor', userName: 'noor', validUntil, durationMinutes: 60 });
    const cookie = await givenUserSession(t, user);

    const response = await get('/api/status', { cookie });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        Name: 'Noor',
        UserName: 'noor',
        CurrentAddress: '127.0.0.1',
        Ends: new Date(t.clock.now() + 60 * MINUTE).toISOString(),
        KioskMode: false,
        ValidUntil: new Date(validUntil).toISOString(),
        Licensed: false,
        UserLicensed: false,
        AuthType: 'local',
        NewUserDashboard: true,
        AutoBrowseToURI: null,
        ACLs: [],
        Language: null,
      },
    });
  });

  it('follows the NewUserDashboard setting', async () => {
    await writeSetting(t.ctx.db, 'NewUserDashboard', false, t.clock.now());
    const cookie = await givenUserSession(t);
    expect(
      (await get('/api/status', { cookie })).json<{ data: { NewUserDashboard: boolean } }>().data.NewUserDashboard,
    ).toBe(false);
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    const cookie = await givenUserSession(t);
    const spoofed = await get('/api/status', { cookie, 'x-forwarded-for': '203.0.113.9' });
    expect(spoofed.json<{ data: { CurrentAddress: string } }>().data.CurrentAddress).toBe('127.0.0.1');

    const response = await proxied.app.inject({
      method: 'GET',
      url: '/api/status',
      headers: { cookie: await givenUserSession(proxied), 'x-forwarded-for': '198.51.100.4, 203.0.113.9' },
    });
    expect(response.json<{ data: { CurrentAddress: string } }>().data.CurrentAddress).toBe('203.0.113.9');
  });

  it('gives admins real counters and the recent activity, newest first', async () => {
    const admin = await givenAdmin(t.ctx, { userName: 'ops', name: 'Ops' });
    const alice = await givenUser(t.ctx, { userName: 'alice' });
    const bob = await givenUser(t.ctx, { userName: 'bob' });
    await givenUser(t.ctx, { userName: 'carol' });
    await signInUser(t.app, 'alice', alice.password);
    t.clock.advance(1000);
    await signInUser(t.app, 'bob', bob.password);
    t.clock.advance(1000);
    const adminCookie = await signInAdmin(t.app, 'ops', admin.password);

    const response = await adminClient(t.app, adminCookie).get<{ data: Record<string, unknown> }>('/api/admin/status');
    expect(response.status).toBe(200);
    const data = response.body.data;
    expect(data).toMatchObject({
      Name: 'Ops',
      UserName: 'ops',
      TotpEnabled: false,
      AdminTotpVerified: false,
      TotpEnrolmentDeferable: false,
      Cloud: false,
      ServerVersion: POSTERN_VERSION,
      MinimumRequiredAgentVersion: MINIMUM_AGENT_VERSION,
      UserCount: 3,
      SessionCount: 2,
      ACLCount: 0,
      ExperimentalFeatures: [],
      AvailableServerVersions: [],
      AvailableAgentVersions: [],
      Licensing: { Licensed: false, Expires: null },
      SupportUrl: null,
      SupportEmail: null,
      LicensingUrl: LICENSING_DOCS_PATH,
      PublicUrl: null,
    });
    expect(data.Activity).toEqual([
      {
        Date: new Date(t.clock.now()).toISOString(),
        Entry: { [AuditActions.AdminLogin]: { AdminName: 'ops', IpAddress: '127.0.0.1' } },
        Actor: 'ops',
      },
      {
        Date: new Date(t.clock.now() - 1000).toISOString(),
        Entry: { [AuditActions.UserLogin]: { UserName: 'bob', IpAddress: '127.0.0.1' } },
        Actor: 'bob',
      },
      {
        Date: new Date(t.clock.now() - 2000).toISOString(),
        Entry: { [AuditActions.UserLogin]: { UserName: 'alice', IpAddress: '127.0.0.1' } },
        Actor: 'alice',
      },
    ]);
  });

  it('counts only sessions that are still running', async () => {
    await givenUserSession(t, await givenUser(t.ctx, { durationMinutes: 5 }));
    await givenUserSession(t, await givenUser(t.ctx, { durationMinutes: 60 }));
    const cookie = await givenUserSession(t);
    await t.app.inject({ method: 'POST', url: '/api/logout', headers: { cookie } });
    t.clock.advance(6 * MINUTE);

    expect((await adminStatus<{ SessionCount: number }>()).SessionCount).toBe(1);
  });

  it("names the support page and address the operator configured, and Postern's licensing page by default", async () => {
    const cookie = await givenAdminSession(t);
    const links = async () => {
      const data = await adminStatus<Pick<AdminStatus, 'SupportUrl' | 'SupportEmail' | 'LicensingUrl'>>(cookie);
      return [data.SupportUrl, data.SupportEmail, data.LicensingUrl];
    };
    expect(await links()).toEqual([null, null, LICENSING_DOCS_PATH]);
    expect((await get(LICENSING_DOCS_PATH)).statusCode).toBe(200);
    t.ctx.config.supportUrl = 'https://help.example.com/postern';
    t.ctx.config.supportEmail = 'help@example.com';
    t.ctx.config.licensingUrl = 'https://shop.example.com/licences';
    expect(await links()).toEqual([
      'https://help.example.com/postern',
      'help@example.com',
      'https://shop.example.com/licences',
    ]);
  });

  it("reports newer releases, their changelog and agent releases only from the operator's feed", async () => {
    const cookie = await givenAdminSession(t);
    type Releases = Pick<AdminStatus, 'AvailableServerVersions' | 'LatestChangeLogsUrl' | 'AvailableAgentVersions'>;
    const releases = async () => {
      const { AvailableServerVersions, LatestChangeLogsUrl, AvailableAgentVersions } =
        await adminStatus<Releases>(cookie);
      return { AvailableServerVersions, LatestChangeLogsUrl, AvailableAgentVersions };
    };
    expect(await releases()).toEqual({
      AvailableServerVersions: [],
      LatestChangeLogsUrl: '',
      AvailableAgentVersions: [],
    });

    const dir = mkdtempSync(path.join(tmpdir(), 'postern-status-feed-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'feed.json');
    const changelog = 'https://example.com/postern/changelog/99.0.0';
    writeFileSync(
      file,
      JSON.stringify({
        server: [
          { version: POSTERN_VERSION, date: '2026-11-01', changelog: 'https://example.com/old' },
          { version: '99.0.0', date: '2026-12-01', urgency: 'critical', changelog },
        ],
        agent: [
          { version: '99.0.1', date: '2026-12-02', changelog: 'https://example.com/agent', description: 'ipset' },
        ],
      }),
    );
    const feed = new ReleaseFeedReader({ location: { kind: 'file', path: file }, logger: t.ctx.logger });
    await feed.refresh();
    t.ctx.releases = feed;

    expect(await releases()).toEqual({
      AvailableServerVersions: [{ version: '99.0.0', urgency: 'critical' }],
      LatestChangeLogsUrl: changelog,
      AvailableAgentVersions: [
        { version: '99.0.1', urgency: 'low', description: 'ipset', changelog_link: 'https://example.com/agent' },
      ],
    });
  });

  it('names the public URL the operator configured, and null otherwise (install scripts then need --server)', async () => {
    const cookie = await givenAdminSession(t);
    const publicUrl = async () => (await adminStatus<{ PublicUrl: string | null }>(cookie)).PublicUrl;
    expect(await publicUrl()).toBeNull();
    t.ctx.config.publicUrl = 'https://access.example.com';
    expect(await publicUrl()).toBe('https://access.example.com');
  });

  it('reports the experimental features the operator turned on', async () => {
    const cookie = await givenAdminSession(t);
    const features = async () => (await adminStatus<{ ExperimentalFeatures: string[] }>(cookie)).ExperimentalFeatures;
    expect(await features()).toEqual([]);
    t.ctx.config.experimentalFeatures = ['enhanced-custom-script'];
    expect(await features()).toEqual(['enhanced-custom-script']);
  });

  it('refuses the status endpoints without the right session', async () => {
    for (const url of ['/api/status', '/api/admin/status']) {
      const response = await get(url);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ Err: ErrorCodes.invalidSession });
    }
  });

  it('serves the theme publicly, following the settings', async () => {
    await writeSetting(t.ctx.db, 'Accent', 'teal', t.clock.now());
    await writeSetting(t.ctx.db, 'HighAccessibility', true, t.clock.now());
    expect((await get('/api/theme')).json()).toEqual({
      data: { Accent: 'teal', HighAccessibility: true, LogoURL: '', LightModeLogoURL: '' },
    });
  });

  it('publishes the bundle hash, and an external IP discovery URL only when discovery is on and trusted', async () => {
    const ipApi = async () => (await get('/api/system_status')).json<{ data: { IPApi: string } }>().data.IPApi;
    expect((await get('/api/system_status')).json()).toEqual({
      data: {
        IPApi: '',
        IPv4Api: '',
        IPv6Api: '',
        JsBundleHash: 'test-bundle',
        UserSAMLConfigured: false,
        AdminSAMLConfigured: false,
        UserOIDCConfigured: false,
        UserOIDCProviderName: '',
        AdminOIDCConfigured: false,
        AdminOIDCProviderName: '',
        UserPasskeySignIn: true,
        AdminPasskeySignIn: false,
      },
    });
    await writeSetting(t.ctx.db, 'DiscoverIPURL', 'https://ip.example.com', t.clock.now());
    expect(await ipApi()).toBe('');
    await writeSetting(t.ctx.db, 'DiscoverIP', true, t.clock.now());
    // It cannot sign what it reports: without the admin's trust the grants would refuse it all.
    expect(await ipApi()).toBe('');
    await writeSetting(t.ctx.db, 'DiscoverIPTrustUnattested', true, t.clock.now());
    expect(await ipApi()).toBe('https://ip.example.com');
  });

  it('says whether single sign-on is set up for users and for admins, each once all its parts are', async () => {
    const configured = async () => {
      const { UserSAMLConfigured, AdminSAMLConfigured } = (await get('/api/system_status')).json<{
        data: { UserSAMLConfigured: boolean; AdminSAMLConfigured: boolean };
      }>().data;
      return { user: UserSAMLConfigured, admin: AdminSAMLConfigured };
    };
    const now = t.clock.now();
    await writeSetting(t.ctx.db, 'SAMLMetadataURL', 'https://idp.example.com/metadata', now);
    await writeSetting(t.ctx.db, 'SAMLCertFile', 'certificate', now);
    await writeSetting(t.ctx.db, 'SAMLKeyFile', 'key', now);
    // Without the public URL the IdP has nowhere to send users back to.
    expect(await configured()).toEqual({ user: false, admin: false });
    await writeSetting(t.ctx.db, 'PublicURL', 'https://access.example.org', now);
    expect(await configured()).toEqual({ user: true, admin: false });
    await writeSetting(t.ctx.db, 'AdminSAMLMetadataFile', '<EntityDescriptor/>', now);
    await writeSetting(t.ctx.db, 'AdminSAMLCertFile', 'certificate', now);
    await writeSetting(t.ctx.db, 'AdminSAMLKeyFile', 'key', now);
    expect(await configured()).toEqual({ user: true, admin: true });
  });

  it('offers each realm its OpenID Connect provider once all its parts are set, named for the button', async () => {
    type Offer = Pick<
      SystemStatus,
      'UserOIDCConfigured' | 'UserOIDCProviderName' | 'AdminOIDCConfigured' | 'AdminOIDCProviderName'
    >;
    const offer = async () => {
      const status = (await get('/api/system_status')).json<{ data: Offer }>().data;
      return {
        user: [status.UserOIDCConfigured, status.UserOIDCProviderName],
        admin: [status.AdminOIDCConfigured, status.AdminOIDCProviderName],
      };
    };
    const now = t.clock.now();
    await writeSetting(t.ctx.db, 'OIDCIssuerURL', 'https://login.example.com/realms/staff', now);
    await writeSetting(t.ctx.db, 'OIDCClientID', 'postern', now);
    // The stored value is sealed; only whether there is one matters here.
    await writeSetting(t.ctx.db, 'OIDCClientSecret', 'sealed secret', now);
    // Without the public URL the provider has nowhere to send people back to.
    expect(await offer()).toEqual({ user: [false, ''], admin: [false, ''] });
    await writeSetting(t.ctx.db, 'PublicURL', 'https://access.example.org', now);
    expect(await offer()).toEqual({ user: [true, 'login.example.com'], admin: [false, ''] });
    await writeSetting(t.ctx.db, 'OIDCDisplayName', 'Staff ID', now);
    await writeSetting(t.ctx.db, 'AdminOIDCIssuerURL', 'https://admins.example.com', now);
    await writeSetting(t.ctx.db, 'AdminOIDCClientID', 'postern-admin', now);
    expect(await offer()).toEqual({ user: [true, 'Staff ID'], admin: [false, ''] });
    await writeSetting(t.ctx.db, 'AdminOIDCClientSecret', 'sealed secret', now);
    expect(await offer()).toEqual({ user: [true, 'Staff ID'], admin: [true, 'admins.example.com'] });
  });

  it('points browsers at the built-in responder on the portal host when no discovery URL is set', async () => {
    await writeSetting(t.ctx.db, 'DiscoverIP', true, t.clock.now());
    const asked = await t.app.inject({
      method: 'GET',
      url: '/api/system_status',
      headers: { host: 'portal.example:8080' },
    });
    // Without ports the responder is off, and there is nothing to probe.
    expect(asked.json<{ data: { IPApi: string } }>().data.IPApi).toBe('');
    t.ctx.config.ipDiscoveryPorts = [8000];
    const withPorts = await t.app.inject({
      method: 'GET',
      url: '/api/system_status',
      headers: { host: 'portal.example:8080' },
    });
    expect(withPorts.json<{ data: { IPApi: string } }>().data.IPApi).toBe('http://portal.example');
    t.ctx.config.publicUrl = 'http://access.example.org';
    const published = await t.app.inject({ method: 'GET', url: '/api/system_status' });
    expect(published.json<{ data: { IPApi: string } }>().data.IPApi).toBe('http://access.example.org');
    // The responder speaks plain HTTP: a page served over HTTPS could not fetch it (mixed content).
    t.ctx.config.publicUrl = 'https://access.example.org';
    const overTls = await t.app.inject({ method: 'GET', url: '/api/system_status' });
    expect(overTls.json<{ data: { IPApi: string } }>().data.IPApi).toBe('');
  });

  it('lets the page fetch the discovery host on any port, and nothing more, only while browsers are sent there', async () => {
    const connectSources = async () => {
      const page = await t.app.inject({ method: 'GET', url: '/home' });
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      const policy = String(page.headers['content-security-policy']);
      return /(?:^|;)connect-src ([^;]*)/.exec(policy)?.[1]?.split(' ');
    };
    expect(await connectSources()).toEqual(["'self'"]);
    await writeSetting(t.ctx.db, 'DiscoverIPURL', 'https://ip.example.com/where?x=1', t.clock.now());
    expect(await connectSources()).toEqual(["'self'"]);
    await writeSetting(t.ctx.db, 'DiscoverIP', true, t.clock.now());
    expect(await connectSources()).toEqual(["'self'"]);
    await writeSetting(t.ctx.db, 'DiscoverIPTrustUnattested', true, t.clock.now());
    expect(await connectSources()).toEqual(["'self'", 'https://ip.example.com:*']);
    // API answers keep the policy as it is.
    const api = await get('/api/system_status');
    expect(String(api.headers['content-security-policy'])).toContain("connect-src 'self';");
  });
});
