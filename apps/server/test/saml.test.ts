import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import {
  AuditActions,
  ErrorCodes,
  KIOSK_SESSION_MINUTES_DEFAULT,
  USER_SESSION_MINUTES_DEFAULT,
} from '@postern/protocol';
import { freePort } from '@postern/test-support';
import { createTestApp, testStoreKinds, type TestApp, type TestStoreKind } from '../src/test-support/test-app.js';
import { givenAdmin, givenUser } from '../src/test-support/factories.js';
import { cookieFrom, setCookies, signInAdmin } from '../src/test-support/http.js';
import { buildApp } from '../src/http/app.js';
import { openStore } from '../src/store/store.js';
import { createSelfSignedCertificate } from '../src/lib/x509.js';
import { registerSamlRoutes } from '../src/saml/saml.routes.js';
import {
  missingSimpleSamlPhp,
  requireSimpleSamlPhp,
  startSimpleSamlPhp,
  type SamlPostForm,
  type SimpleSamlPhp,
  type SimpleSamlPhpServiceProvider,
  type SimpleSamlPhpUser,
} from './support/simplesamlphp.js';

/**
 * SAML single sign-on end to end: Postern's routes (through app.inject) against a real IdP,
 * Debian's SimpleSAMLphp, driven the way a browser drives it. Every refusal must end on the login
 * page with ?error= and nothing more (no cookie, no body).
 */

const PASSWORD = 'Idp-Password-1';
const MINUTE_MS = 60_000;

/** People at the IdP. The NameID is their username (uid). */
const IDP_USERS: SimpleSamlPhpUser[] = [
  {
    username: 'alice',
    password: PASSWORD,
    attributes: { displayName: ['Alice Example'], groups: ['engineering', 'vpn-users', 'local-ops'] },
  },
  { username: 'bob', password: PASSWORD, attributes: { givenName: ['Bob'], sn: ['Builder'], sessionDuration: ['30'] } },
  { username: 'gina', password: PASSWORD, attributes: { cn: ['Gina'], sessionDuration: ['100000'] } },
  { username: 'hank', password: PASSWORD, attributes: { cn: ['Hank'], sessionDuration: ['5'] } },
  { username: 'carol', password: PASSWORD, attributes: { displayName: ['Carol Admin'] } },
  { username: 'dave', password: PASSWORD, attributes: {} },
  { username: 'erin', password: PASSWORD, attributes: {} },
];

let idp: SimpleSamlPhp | undefined;

/**
 * SP key pairs made once per file and uploaded through the settings API: the API's own generator
 * makes 3072-bit keys, a second or more each, so only the test about generating uses it.
 */
let spKeys: Record<'user' | 'admin', { certificatePem: string; privateKeyPem: string }> | undefined;

/** The running IdP; only called by tests that requireSimpleSamlPhp() let through. */
function server(): SimpleSamlPhp {
  if (idp === undefined) throw new Error('SimpleSAMLphp did not start');
  return idp;
}

beforeAll(async () => {
  if (missingSimpleSamlPhp() !== null) return;
  idp = await startSimpleSamlPhp({ sp: [], users: IDP_USERS });
  const keyPair = (commonName: string) =>
    createSelfSignedCertificate({
      commonName,
      days: 2,
      privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    });
  spKeys = { user: keyPair('postern users'), admin: keyPair('postern admins') };
}, 60_000);
afterAll(async () => {
  await idp?.stop();
});

interface Realm {
  name: 'user' | 'admin';
  login: string;
  acs: string;
  metadata: string;
  loginPage: string;
}
const USER: Realm = {
  name: 'user',
  login: '/api/login/saml',
  acs: '/api/saml/acs',
  metadata: '/api/saml/metadata',
  loginPage: '/',
};
const ADMIN: Realm = {
  name: 'admin',
  login: '/api/admin/login/saml',
  acs: '/api/admin/saml/acs',
  metadata: '/api/admin/saml/metadata',
  loginPage: '/admin',
};

const AUTH_DEFAULTS = { LDAPURL: '', LDAPStartTLS: false, LDAPSkipVerifyTLS: false };

/** Until app.ts registers the SAML routes itself, the test does (Fastify takes routes until the first request). */
function ensureSamlRoutes(app: FastifyInstance, t: Pick<TestApp, 'ctx'>): void {
  if (!app.hasRoute({ method: 'GET', url: USER.metadata })) registerSamlRoutes(app, t.ctx);
}

/** The IdP and node-saml judge time by the real clock; Postern's clock starts there too. */
function syncClock(t: TestApp): void {
  t.clock.advance(Date.now() - t.clock.now());
}

function spEntries(publicUrl: string, certs: { user: string; admin: string }, signResponse = true) {
  return [
    {
      entityId: `${publicUrl}${USER.metadata}`,
      acsUrl: `${publicUrl}${USER.acs}`,
      certificate: certs.user,
      signResponse,
    },
    {
      entityId: `${publicUrl}${ADMIN.metadata}`,
      acsUrl: `${publicUrl}${ADMIN.acs}`,
      certificate: certs.admin,
      signResponse,
    },
  ] satisfies SimpleSamlPhpServiceProvider[];
}

describe.each(testStoreKinds())('SAML sign-in against SimpleSAMLphp (%s)', { timeout: 60_000 }, (kind) => {
  let t: TestApp;
  let adminCookie: string;
  let publicUrl: string;
  let certs: { user: string; admin: string };

  beforeEach(async (context) => {
    requireSimpleSamlPhp(context);
    t = await createTestApp(kind);
    syncClock(t);
    ensureSamlRoutes(t.app, t);
    const admin = await givenAdmin(t.ctx, { userName: 'settings-admin' });
    adminCookie = await signInAdmin(t.app, admin.userName, admin.password);
    publicUrl = `http://127.0.0.1:${await freePort()}`;
    const keys = spKeys ?? {
      user: { certificatePem: '', privateKeyPem: '' },
      admin: { certificatePem: '', privateKeyPem: '' },
    };
    await putAuthentication({
      SAMLKeyFile: keys.user.privateKeyPem,
      SAMLKeyFileSet: true,
      SAMLCertFile: keys.user.certificatePem,
      SAMLCertFileSet: true,
      AdminSAMLKeyFile: keys.admin.privateKeyPem,
      AdminSAMLKeyFileSet: true,
      AdminSAMLCertFile: keys.admin.certificatePem,
      AdminSAMLCertFileSet: true,
    });
    certs = { user: keys.user.certificatePem, admin: keys.admin.certificatePem };
    await server().setServiceProviders(spEntries(publicUrl, certs));
  });
  afterEach(async () => {
    await t?.close();
  });

  const asAdmin = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie: adminCookie }, ...(payload === undefined ? {} : { payload }) });

  async function putAuthentication(change: Record<string, unknown>) {
    const body = {
      ...AUTH_DEFAULTS,
      PublicURL: publicUrl,
      SAMLMetadataURL: server().metadataUrl,
      AdminSAMLMetadataURL: server().metadataUrl,
      ...change,
    };
    const response = await asAdmin('PUT', '/api/admin/settings/authentication', body);
    expect(response.statusCode, response.body).toBe(200);
  }

  async function generateKeyCert(path: string): Promise<string> {
    const response = await asAdmin('POST', `/api/admin/settings/${path}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ data: { Certificate: string } }>().data.Certificate;
  }

  /** Starts the SSO at Postern and signs in at the IdP; returns what the IdP posts back. */
  async function idpResponse(
    realm: Realm,
    username: string,
    options: { kiosk?: boolean; app?: FastifyInstance } = {},
  ): Promise<SamlPostForm> {
    const app = options.app ?? t.app;
    const url = realm === USER ? `${realm.login}?kioskMode=${options.kiosk === true}` : realm.login;
    const start = await app.inject({ method: 'GET', url });
    expect(start.statusCode, start.body).toBe(302);
    const location = String(start.headers.location);
    expect(location.startsWith(`${server().ssoUrl}?SAMLRequest=`)).toBe(true);
    // Signed with our SP key (the IdP checks it: validate.authnrequest), SHA-256.
    expect(new URL(location).searchParams.get('SigAlg')).toBe('http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    return server().signIn(location, username, PASSWORD);
  }

  /** Posts the form to an ACS as the browser would (the IdP's page auto-submits it). */
  function postToAcs(
    acsPath: string,
    form: { SAMLResponse: string; RelayState?: string | undefined },
    app: FastifyInstance = t.app,
  ) {
    const fields = new URLSearchParams({ SAMLResponse: form.SAMLResponse });
    if (form.RelayState !== undefined) fields.set('RelayState', form.RelayState);
    return app.inject({
      method: 'POST',
      url: acsPath,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server().baseUrl },
      payload: fields.toString(),
    });
  }

  async function signIn(realm: Realm, username: string, options: { kiosk?: boolean } = {}) {
    const form = await idpResponse(realm, username, options);
    expect(form.action).toBe(`${publicUrl}${realm.acs}`);
    return { form, response: await postToAcs(realm.acs, form) };
  }

  function expectRefused(
    response: LightMyRequestResponse,
    realm: Realm,
    code: string = ErrorCodes.authenticationFailed,
  ) {
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`${realm.loginPage}?error=${code}`);
    expect(setCookies(response)).toEqual([]);
    expect(response.body).toBe('');
  }

  async function userStatus(cookie: string) {
    const response = await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie } });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{
      data: { UserName: string; Name: string; AuthType: string; Ends: string; KioskMode: boolean };
    }>().data;
  }

  async function usersNamed(userName: string) {
    const list = (await asAdmin('GET', '/api/admin/users')).json<{
      data: { ID: string; UserName: string; Name: string; AuthType: string }[];
    }>().data;
    return list.filter((user) => user.UserName === userName);
  }

  async function groupsOf(userId: string) {
    const groups = (await asAdmin('GET', `/api/admin/users/${userId}/groups`)).json<{
      data: { Name: string; Type: string }[];
    }>().data;
    return groups.map((group) => `${group.Name}:${group.Type}`).sort();
  }

  /** The newest audit entry of `action`, if any. */
  async function lastAudit(action: string) {
    const entries = (await asAdmin('GET', '/api/admin/logs')).json<{
      data: { Entry: Record<string, { ErrorMessage?: string; UserName?: string; AdminName?: string }> }[];
    }>().data;
    return entries.find((entry) => entry.Entry[action] !== undefined)?.Entry[action];
  }

  /** Decodes the IdP's response, edits its XML, and encodes it again. */
  function edited(form: SamlPostForm, edit: (xml: string) => string): SamlPostForm {
    const xml = Buffer.from(form.SAMLResponse, 'base64').toString('utf8');
    const changed = edit(xml);
    expect(changed).not.toBe(xml);
    return { ...form, SAMLResponse: Buffer.from(changed, 'utf8').toString('base64') };
  }

  describe('metadata', () => {
    it('publishes each realm’s SP metadata with its entity ID, ACS and signing certificate', async () => {
      for (const realm of [USER, ADMIN]) {
        const response = await t.app.inject({ method: 'GET', url: realm.metadata });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toMatch(/^application\/samlmetadata\+xml/);
        const xml = response.body;
        expect(xml).toContain(`entityID="${publicUrl}${realm.metadata}"`);
        expect(xml).toContain(`Location="${publicUrl}${realm.acs}"`);
        expect(xml).toContain('AuthnRequestsSigned="true"');
        expect(xml).toContain('WantAssertionsSigned="true"');
        const certificate = realm === USER ? certs.user : certs.admin;
        const body = certificate.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
        expect(xml.replace(/\s+/g, '')).toContain(body);
        expect(xml).not.toContain('PRIVATE KEY');
        expect(xml).not.toContain('use="encryption"');
      }
    });

    it('answers 404 SAML not configured for a realm without IdP metadata, and the login redirects with it', async () => {
      await putAuthentication({ SAMLMetadataURL: '' });
      const metadata = await t.app.inject({ method: 'GET', url: USER.metadata });
      expect(metadata.statusCode).toBe(404);
      expect(metadata.json()).toEqual({ Err: ErrorCodes.samlNotConfigured });
      const login = await t.app.inject({ method: 'GET', url: USER.login });
      expect(login.statusCode).toBe(302);
      expect(login.headers.location).toBe(`/?error=${ErrorCodes.samlNotConfigured}`);
      // The admin realm is configured separately and still works.
      expect((await t.app.inject({ method: 'GET', url: ADMIN.metadata })).statusCode).toBe(200);
    });

    it('answers 404 for the admin realm without its key pair', async () => {
      await putAuthentication({ AdminSAMLKeyFileRemove: true });
      const metadata = await t.app.inject({ method: 'GET', url: ADMIN.metadata });
      expect(metadata.json()).toEqual({ Err: ErrorCodes.samlNotConfigured });
      const login = await t.app.inject({ method: 'GET', url: ADMIN.login });
      expect(login.headers.location).toBe(`/admin?error=${ErrorCodes.samlNotConfigured}`);
    });

    it('redirects with err.samlMetadataUnavailable when the metadata URL does not answer', async () => {
      await putAuthentication({ SAMLMetadataURL: `http://127.0.0.1:${await freePort()}/metadata` });
      const login = await t.app.inject({ method: 'GET', url: USER.login });
      expect(login.headers.location).toBe(`/?error=${ErrorCodes.samlMetadataUnavailable}`);
    });

    it('signs requests with a newly generated key pair, which the IdP must know', async () => {
      const previous = certs;
      certs = {
        user: await generateKeyCert('generateUserSamlKeyCert'),
        admin: await generateKeyCert('generateAdminSamlKeyCert'),
      };
      const metadata = await t.app.inject({ method: 'GET', url: USER.metadata });
      expect(metadata.body.replace(/\s+/g, '')).toContain(certs.user.replace(/-----[^-]+-----|\s+/g, ''));
      // The IdP still trusts the old certificate: it refuses our newly signed request.
      await expect(idpResponse(USER, 'alice')).rejects.toThrow(/Unable to validate signature on query string/);
      expect(previous.user).not.toBe(certs.user);
      await server().setServiceProviders(spEntries(publicUrl, certs));
      expect((await signIn(USER, 'alice')).response.headers.location).toBe('/home/new');
      await givenAdmin(t.ctx, { userName: 'carol', authType: 'SAML', passwordHash: null });
      expect((await signIn(ADMIN, 'carol')).response.headers.location).toBe('/admin/home');
    });

    it('signs in with IdP metadata uploaded as a file instead of a URL', async () => {
      await putAuthentication({
        SAMLMetadataURL: '',
        SAMLMetadataFile: server().metadataXml,
        SAMLMetadataFileSet: true,
      });
      const { response } = await signIn(USER, 'alice');
      expect(response.headers.location).toBe('/home/new');
    });
  });

  describe('users', () => {
    it('creates the user at first sign-in, maps their groups, and starts a full session', async () => {
      const samlGroup = await asAdmin('POST', '/api/admin/groups', { Name: 'vpn-users', Type: 'saml' });
      expect(samlGroup.statusCode, samlGroup.body).toBe(200);
      const localGroup = await asAdmin('POST', '/api/admin/groups', { Name: 'local-ops', Type: 'local' });
      expect(localGroup.statusCode, localGroup.body).toBe(200);

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
    });

    it('reuses the user at the next sign-in', async () => {
      await signIn(USER, 'alice');
      const [first] = await usersNamed('alice');
      const { response } = await signIn(USER, 'alice');
      expect(response.headers.location).toBe('/home/new');
      expect(await usersNamed('alice')).toEqual([first]);
      const logs = (await asAdmin('GET', '/api/admin/logs')).json<{ data: { Entry: object }[] }>().data;
      expect(logs.filter((entry) => AuditActions.UserCreatedBySaml in entry.Entry)).toHaveLength(1);
    });

    it('lands on /home when the new dashboard is off', async () => {
      const current = (await asAdmin('GET', '/api/admin/settings')).json<{ data: Record<string, unknown> }>().data;
      const customize = {
        Accent: current.Accent,
        HighAccessibility: current.HighAccessibility,
        NewUserDashboard: false,
      };
      expect((await asAdmin('PUT', '/api/admin/settings/customize', customize)).statusCode).toBe(200);
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
      const admins = (await asAdmin('GET', '/api/admin/admins')).json<{ data: { UserName: string }[] }>().data;
      expect(admins.map((admin) => admin.UserName)).not.toContain('erin');
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

  describe('refused responses', () => {
    it('refuses the same response a second time (replay)', async () => {
      const { form, response } = await signIn(USER, 'alice');
      expect(response.headers.location).toBe('/home/new');
      expectRefused(await postToAcs(USER.acs, form), USER);
    });

    it('refuses an assertion already accepted elsewhere even while its request is still open', async () => {
      const form = await idpResponse(USER, 'alice');
      const assertionId = /<saml:Assertion\b[^>]*\sID="([^"]+)"/.exec(
        Buffer.from(form.SAMLResponse, 'base64').toString('utf8'),
      )?.[1];
      expect(assertionId).toBeDefined();
      // What another replica's accepted sign-in leaves behind.
      await t.ctx.db
        .insertInto('samlAssertions')
        .values({ id: assertionId ?? '', expiresAt: t.clock.now() + 60 * MINUTE_MS })
        .execute();
      expectRefused(await postToAcs(USER.acs, form), USER);
      expect((await lastAudit(AuditActions.UserLoginFailed))?.ErrorMessage).toMatch(/already used/);
    });

    it('shares requests and spent responses between replicas on one store', async () => {
      const replica = await secondReplica(t, kind);
      try {
        // Started on this replica, finished on the other.
        const form = await idpResponse(USER, 'alice');
        const accepted = await postToAcs(USER.acs, form, replica.app);
        expect(accepted.headers.location).toBe('/home/new');
        // The same response back at the first replica: refused.
        expectRefused(await postToAcs(USER.acs, form), USER);
      } finally {
        await replica.close();
      }
    });

    it.each([
      ['NameID', (xml: string) => xml.replace('>alice</saml:NameID>', '>mallory</saml:NameID>')],
      ['attribute value', (xml: string) => xml.replace('>vpn-users<', '>domain-admins<')],
    ])('refuses a response whose %s was changed', async (_what, edit) => {
      const form = await idpResponse(USER, 'alice');
      expectRefused(await postToAcs(USER.acs, edited(form, edit)), USER);
      expect(await usersNamed('mallory')).toEqual([]);
      expect(await usersNamed('alice')).toEqual([]);
    });

    it('refuses a changed NameID when the IdP signs only the assertion', async () => {
      await server().setServiceProviders(spEntries(publicUrl, certs, false));
      const form = await idpResponse(USER, 'alice');
      const tampered = edited(form, (xml) => xml.replace('>alice</saml:NameID>', '>mallory</saml:NameID>'));
      expectRefused(await postToAcs(USER.acs, tampered), USER);
      expect((await lastAudit(AuditActions.UserLoginFailed))?.ErrorMessage).toMatch(/Invalid signature/);
      expect(await usersNamed('mallory')).toEqual([]);
    });

    it('refuses a response without signatures', async () => {
      const form = await idpResponse(USER, 'alice');
      const unsigned = edited(form, (xml) => xml.replace(/<ds:Signature\b[\s\S]*?<\/ds:Signature>/g, ''));
      expect(Buffer.from(unsigned.SAMLResponse, 'base64').toString()).not.toContain('Signature');
      expectRefused(await postToAcs(USER.acs, unsigned), USER);
      expect((await lastAudit(AuditActions.UserLoginFailed))?.ErrorMessage).toMatch(/signature/i);
    });

    it('refuses a response signed by the IdP but meant for another audience', async () => {
      // The IdP knows us under a second public URL too; a response for that entity ID is not for us.
      const elsewhere = `http://127.0.0.1:${await freePort()}`;
      await server().setServiceProviders([...spEntries(publicUrl, certs), ...spEntries(elsewhere, certs)]);
      await putAuthentication({ PublicURL: elsewhere });
      const form = await idpResponse(USER, 'alice');
      await putAuthentication({ PublicURL: publicUrl });
      expectRefused(await postToAcs(USER.acs, form), USER);
      expect((await lastAudit(AuditActions.UserLoginFailed))?.ErrorMessage).toMatch(/audience/i);
    });

    it('refuses a response for the other realm’s ACS', async () => {
      await givenAdmin(t.ctx, { userName: 'carol', authType: 'SAML', passwordHash: null });
      await givenUser(t.ctx, { userName: 'carol', authType: 'SAML', passwordHash: null });
      const form = await idpResponse(ADMIN, 'carol');
      expectRefused(await postToAcs(USER.acs, form), USER);
      // …and it is still good where it belongs: the refusal did not spend it.
      expect((await postToAcs(ADMIN.acs, form)).headers.location).toBe('/admin/home');
    });

    it('refuses an unsolicited (IdP-initiated) response', async () => {
      const entityId = encodeURIComponent(`${publicUrl}${USER.metadata}`);
      const form = await server().signIn(`${server().ssoUrl}?spentityid=${entityId}`, 'alice', PASSWORD);
      expect(Buffer.from(form.SAMLResponse, 'base64').toString()).not.toContain('InResponseTo');
      expectRefused(await postToAcs(USER.acs, form), USER);
      expect((await lastAudit(AuditActions.UserLoginFailed))?.ErrorMessage).toMatch(/InResponseTo/);
    });

    it('refuses a response to a request older than the request lifetime', async () => {
      const form = await idpResponse(USER, 'alice');
      t.clock.advance(31 * MINUTE_MS);
      expectRefused(await postToAcs(USER.acs, form), USER);
    });

    it('accepts an IdP that signs only the assertion, and then checks the Destination itself', async () => {
      await server().setServiceProviders(spEntries(publicUrl, certs, false));
      const form = await idpResponse(USER, 'alice');
      const xml = Buffer.from(form.SAMLResponse, 'base64').toString('utf8');
      // Only the assertion carries a signature.
      expect(xml.match(/<ds:Signature\b/g)).toHaveLength(1);
      const redirected = edited(form, (text) =>
        text.replace(`Destination="${publicUrl}${USER.acs}"`, `Destination="${publicUrl}${ADMIN.acs}"`),
      );
      expectRefused(await postToAcs(USER.acs, redirected), USER);
      expect((await lastAudit(AuditActions.UserLoginFailed))?.ErrorMessage).toMatch(/Destination/);
      // The untouched response is fine: the refusal above spent nothing.
      expect((await postToAcs(USER.acs, form)).headers.location).toBe('/home/new');
    });

    it('refuses a signed response whose envelope was changed', async () => {
      const form = await idpResponse(USER, 'alice');
      const redirected = edited(form, (xml) =>
        xml.replace(`Destination="${publicUrl}${USER.acs}"`, `Destination="${publicUrl}/elsewhere"`),
      );
      expectRefused(await postToAcs(USER.acs, redirected), USER);
      expect((await lastAudit(AuditActions.UserLoginFailed))?.ErrorMessage).toMatch(/signature/i);
    });

    it.each([
      ['no SAMLResponse', { 'content-type': 'application/x-www-form-urlencoded' }, 'RelayState=x'],
      ['a JSON body', { 'content-type': 'application/json' }, '{"SAMLResponse":"x"}'],
      ['garbage', { 'content-type': 'application/x-www-form-urlencoded' }, 'SAMLResponse=%3C%3Fxml'],
      [
        'a DOCTYPE',
        { 'content-type': 'application/x-www-form-urlencoded' },
        new URLSearchParams({
          SAMLResponse: Buffer.from('<!DOCTYPE r [<!ENTITY x "y">]><Response>&x;</Response>').toString('base64'),
        }).toString(),
      ],
      [
        'a body over the size limit',
        { 'content-type': 'application/x-www-form-urlencoded' },
        `SAMLResponse=${'A'.repeat(300 * 1024)}`,
      ],
    ])('redirects %s to the login page with err.authenticationFailed', async (_what, headers, payload) => {
      const response = await t.app.inject({ method: 'POST', url: USER.acs, headers, payload });
      expectRefused(response, USER);
    });
  });
});

/** A second app (a replica) on the same store as `t`: same database, same secret key, its own process state. */
async function secondReplica(
  t: TestApp,
  kind: TestStoreKind,
): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const store =
    kind === 'sqlite'
      ? await openStore({ kind: 'sqlite', file: path.join(t.ctx.config.dataDir, 'postern.db') })
      : await openStore(
          { kind: 'postgres', url: process.env.POSTERN_TEST_DATABASE_URL ?? '' },
          {
            postgresSchema: (await sql<{ schema: string }>`select current_schema() as schema`.execute(t.ctx.db)).rows[0]
              ?.schema,
          },
        );
  const ctx = { ...t.ctx, db: store.db };
  const app = await buildApp(ctx, {
    dir: path.join(tmpdir(), 'postern-test-no-web-app'),
    current: () => ({ indexHtml: null, bundleHash: 'test-bundle' }),
  });
  ensureSamlRoutes(app, { ctx });
  return {
    app,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}
