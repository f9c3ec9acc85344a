import { generateKeyPairSync } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { freePort } from '@postern/test-support';
import { createTestApp, type TestApp, type TestStoreKind } from '../../src/test-support/test-app.js';
import { givenAdmin } from '../../src/test-support/factories.js';
import { setCookies, signInAdmin } from '../../src/test-support/http.js';
import { createSelfSignedCertificate } from '../../src/lib/x509.js';
import { registerSamlRoutes } from '../../src/saml/saml.routes.js';
import {
  missingSimpleSamlPhp,
  requireSimpleSamlPhp,
  startSimpleSamlPhp,
  type SamlPostForm,
  type SimpleSamlPhp,
  type SimpleSamlPhpServiceProvider,
  type SimpleSamlPhpUser,
} from './simplesamlphp.js';

/**
 * What the SAML sign-in tests (saml-*.test.ts) share: one SimpleSAMLphp IdP per file with its
 * people, the two realms, and per test a Postern app whose SAML settings point at that IdP, with
 * the helpers that drive a sign-in through it the way a browser does.
 */

export const PASSWORD = 'Idp-Password-1';
export const MINUTE_MS = 60_000;

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
export function server(): SimpleSamlPhp {
  if (idp === undefined) throw new Error('SimpleSAMLphp did not start');
  return idp;
}

/** Starts the IdP once for the file (when this machine has it) and the SP key pairs with it. */
function useSimpleSamlPhp(): void {
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
}

export interface Realm {
  name: 'user' | 'admin';
  login: string;
  acs: string;
  metadata: string;
  loginPage: string;
}
export const USER: Realm = {
  name: 'user',
  login: '/api/login/saml',
  acs: '/api/saml/acs',
  metadata: '/api/saml/metadata',
  loginPage: '/',
};
export const ADMIN: Realm = {
  name: 'admin',
  login: '/api/admin/login/saml',
  acs: '/api/admin/saml/acs',
  metadata: '/api/admin/saml/metadata',
  loginPage: '/admin',
};

const AUTH_DEFAULTS = { LDAPURL: '', LDAPStartTLS: false, LDAPSkipVerifyTLS: false };

/** Until app.ts registers the SAML routes itself, the test does (Fastify takes routes until the first request). */
export function ensureSamlRoutes(app: FastifyInstance, t: Pick<TestApp, 'ctx'>): void {
  if (!app.hasRoute({ method: 'GET', url: USER.metadata })) registerSamlRoutes(app, t.ctx);
}

/** The IdP and node-saml judge time by the real clock; Postern's clock starts there too. */
function syncClock(t: TestApp): void {
  t.clock.advance(Date.now() - t.clock.now());
}

export function spEntries(publicUrl: string, certs: { user: string; admin: string }, signResponse = true) {
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

/**
 * The SAML sign-in suite, once per store kind: `define` adds the tests, with the helpers of
 * {@link useSamlSignIn}. Call it at the top level of a test file.
 */
export function describeSamlSignIn(define: (saml: SamlSignIn) => void): void {
  useSimpleSamlPhp();
  describe.each(['sqlite'] as const)('SAML sign-in against SimpleSAMLphp (%s)', { timeout: 60_000 }, (kind) => {
    define(useSamlSignIn(kind));
  });
}

export type SamlSignIn = ReturnType<typeof useSamlSignIn>;

/**
 * Before each test: a fresh app on `kind` with SAML set up for both realms against the IdP, which
 * trusts this app's SP certificates. Answers the helpers that drive it.
 */
function useSamlSignIn(kind: TestStoreKind) {
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

  async function usersNamed(userName: string) {
    const list = (await asAdmin('GET', '/api/admin/users')).json<{
      data: { ID: string; UserName: string; Name: string; AuthType: string }[];
    }>().data;
    return list.filter((user) => user.UserName === userName);
  }

  /** The newest audit entry of `action`, if any. */
  async function lastAudit(action: string) {
    const entries = (await asAdmin('GET', '/api/admin/logs')).json<{
      data: { Entry: Record<string, { ErrorMessage?: string; UserName?: string; AdminName?: string }> }[];
    }>().data;
    return entries.find((entry) => entry.Entry[action] !== undefined)?.Entry[action];
  }

  return {
    kind,
    /** This test's app, public URL and SP certificates, once `beforeEach` has made them. */
    current: () => ({ t, publicUrl, certs }),
    asAdmin,
    putAuthentication,
    idpResponse,
    postToAcs,
    signIn,
    expectRefused,
    usersNamed,
    lastAudit,
  };
}
