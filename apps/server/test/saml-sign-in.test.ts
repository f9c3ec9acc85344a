import { beforeEach, describe, expect, it } from 'vitest';
import {
  AuditActions,
  ErrorCodes,
  KIOSK_SESSION_MINUTES_DEFAULT,
  USER_SESSION_MINUTES_DEFAULT,
} from '@postern/protocol';
import type { TestApp } from '../src/test-support/test-app.js';
import type { AdminClient } from '../src/test-support/admin-client.js';
import { givenAdmin, givenUser } from '../src/test-support/factories.js';
import { cookieFrom, setCookies } from '../src/test-support/http.js';
import { ADMIN, MINUTE_MS, USER, describeSamlSignIn } from './support/saml-sign-in.js';

/**
 * SAML single sign-on end to end, signing people in: Postern's routes (through app.inject) against a
 * real IdP, Debian's SimpleSAMLphp, driven the way a browser drives it. Users are created and kept
 * at sign-in with their groups and session lengths; admins must exist beforehand.
 */

describeSamlSignIn((saml) => {
  const { signIn, expectRefused, usersNamed, lastAudit } = saml;
  let t: TestApp, admin: AdminClient;
  beforeEach(() => {
    ({ t, admin } = saml.current());
  });

  async function userStatus(cookie: string) {
    const response = await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{
      data: { UserName: string; Name: string; AuthType: string; Ends: string; KioskMode: boolean };
    }>().data;
  }

  async function groupsOf(userId: string) {
    const groups = (await admin.get<{ data: { Name: string; Type: string }[] }>(`/api/admin/users/${userId}/groups`))
      .body.data;
    return groups.map((group) => `${group.Name}:${group.Type}`).sort();
  }

  describe('users', () => {
    it('creates the user at first sign-in, maps their groups, and starts a full session', async () => {
      const samlGroup = await admin.post('/api/admin/groups', { Name: 'vpn-users', Type: 'saml' });
      expect(samlGroup.status, samlGroup.response.body).toBe(200);
      const localGroup = await admin.post('/api/admin/groups', { Name: 'local-ops', Type: 'local' });
      expect(localGroup.status, localGroup.response.body).toBe(200);

      const { response } = await signIn(USER, 'alice');
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('/home/new');
      const cookie = cookieFrom(response, 'postern_session');
      expect(cookie).toBeDefined();
      expect(setCookies(response)[0]).toMatch(/HttpOnly/i);

      const status = await userStatus(cookie ?? '');
      expect(status).toMatchObject({ UserName: 'alice', Name: 'Alice Example', AuthType: 'SAML', KioskMode: false });
      expect(Date.parse(status.Ends)).toBe(t.clock.now() + USER_SESSION_MINUTES_DEFAULT * MINUTE_MS);

      const [alice, ...others] = await usersNamed('alice');
      expect(others).toEqual([]);
      expect(alice).toMatchObject({ Name: 'Alice Example', AuthType: 'SAML' });
      // A dynamic group appears for an unknown name, the saml group is joined, the local one is not.
      expect(await groupsOf(alice?.ID ?? '')).toEqual(['engineering:dynamic', 'vpn-users:saml']);
      expect(await lastAudit(AuditActions.UserCreatedBySaml)).toMatchObject({ UserName: 'alice' });
      expect(await lastAudit(AuditActions.UserLogin)).toMatchObject({ UserName: 'alice' });
      expect((await t.ctx.metrics.scrape()).body).toContain(
        'postern_auth_attempts_total{method="saml",result="success"} 1\n',
      );
    });

    it('reuses the user at the next sign-in', async () => {
      await signIn(USER, 'alice');
      const [first] = await usersNamed('alice');
      const { response } = await signIn(USER, 'alice');
      expect(response.headers.location).toBe('/home/new');
      expect(await usersNamed('alice')).toEqual([first]);
      const logs = (await admin.get<{ data: { Entry: object }[] }>('/api/admin/logs')).body.data;
      expect(logs.filter((entry) => AuditActions.UserCreatedBySaml in entry.Entry)).toHaveLength(1);
    });

    it('lands on /home when the new dashboard is off', async () => {
      const current = (await admin.get<{ data: Record<string, unknown> }>('/api/admin/settings')).body.data;
      const customize = {
        Accent: current.Accent,
        HighAccessibility: current.HighAccessibility,
        NewUserDashboard: false,
      };
      expect((await admin.put('/api/admin/settings/customize', customize)).status).toBe(200);
      const { response } = await signIn(USER, 'alice');
      expect(response.headers.location).toBe('/home');
    });

    it('takes the name from givenName and sn, and honours a shorter sessionDuration', async () => {
      const { response } = await signIn(USER, 'bob');
      const status = await userStatus(cookieFrom(response, 'postern_session') ?? '');
      expect(status.Name).toBe('Bob Builder');
      expect(Date.parse(status.Ends)).toBe(t.clock.now() + 30 * MINUTE_MS);
    });

    it('never lets sessionDuration lengthen a session beyond the user’s Duration', async () => {
      const { response } = await signIn(USER, 'gina');
      const status = await userStatus(cookieFrom(response, 'postern_session') ?? '');
      expect(Date.parse(status.Ends)).toBe(t.clock.now() + USER_SESSION_MINUTES_DEFAULT * MINUTE_MS);
    });

    it('carries kiosk mode through the IdP: a kiosk-length session with a browser-session cookie', async () => {
      const { form, response } = await signIn(USER, 'bob', { kiosk: true });
      expect(form.RelayState).toBe('kiosk=1');
      const status = await userStatus(cookieFrom(response, 'postern_session') ?? '');
      expect(status.KioskMode).toBe(true);
      // bob's sessionDuration (30) is longer than the kiosk length (15): the kiosk length wins.
      expect(Date.parse(status.Ends)).toBe(t.clock.now() + KIOSK_SESSION_MINUTES_DEFAULT * MINUTE_MS);
      expect(setCookies(response)[0]).not.toMatch(/Expires=/i);
    });

    it('keeps a kiosk session within a sessionDuration shorter than the kiosk length', async () => {
      const { response } = await signIn(USER, 'hank', { kiosk: true });
      const status = await userStatus(cookieFrom(response, 'postern_session') ?? '');
      expect(Date.parse(status.Ends)).toBe(t.clock.now() + 5 * MINUTE_MS);
    });

    it('refuses a disabled SAML user with err.accountDisabled', async () => {
      await givenUser(t.ctx, { userName: 'alice', authType: 'SAML', passwordHash: null, disabled: true });
      const { response } = await signIn(USER, 'alice');
      expectRefused(response, USER, ErrorCodes.accountDisabled);
      const { body } = await t.ctx.metrics.scrape();
      expect(body).toContain('postern_auth_attempts_total{method="saml",result="failure"} 1\n');
      expect(body).not.toContain('method="saml",result="success"');
    });

    it('never takes over a local account with the same user name', async () => {
      await givenUser(t.ctx, { userName: 'dave', authType: 'local' });
      const { response } = await signIn(USER, 'dave');
      expectRefused(response, USER);
      expect((await usersNamed('dave'))[0]?.AuthType).toBe('local');
      expect((await lastAudit(AuditActions.UserLoginFailed))?.ErrorMessage).toMatch(/local account/);
    });
  });

  describe('admins', () => {
    it('signs in an admin created beforehand with AuthType SAML', async () => {
      await givenAdmin(t.ctx, { userName: 'carol', authType: 'SAML', passwordHash: null });
      const { response } = await signIn(ADMIN, 'carol');
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe('/admin/home');
      const cookie = cookieFrom(response, 'postern_admin_session') ?? '';
      const session = await t.app.inject({ method: 'GET', url: '/api/admin/status', headers: { cookie } });
      expect(session.statusCode, session.body).toBe(200);
      expect(await lastAudit(AuditActions.AdminLogin)).toMatchObject({ AdminName: 'carol' });
    });

    it('never creates an admin at sign-in', async () => {
      const { response } = await signIn(ADMIN, 'erin');
      expectRefused(response, ADMIN);
      const admins = (await admin.get<{ data: { UserName: string }[] }>('/api/admin/admins')).body.data;
      expect(admins.map((account) => account.UserName)).not.toContain('erin');
      expect(await lastAudit(AuditActions.AdminLoginFailed)).toMatchObject({ AdminName: 'erin' });
    });

    it('refuses an admin whose account is not a SAML one', async () => {
      await givenAdmin(t.ctx, { userName: 'erin', authType: 'local' });
      expectRefused((await signIn(ADMIN, 'erin')).response, ADMIN);
    });

    it('refuses an admin whose login is disabled with err.loginNotPermitted', async () => {
      await givenAdmin(t.ctx, { userName: 'carol', authType: 'SAML', passwordHash: null, loginEnabled: false });
      expectRefused((await signIn(ADMIN, 'carol')).response, ADMIN, ErrorCodes.loginNotPermitted);
    });
  });
});
