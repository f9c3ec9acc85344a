import { generateKeyPairSync } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { freePort } from '@postern/test-support';
import type { TestApp, TestStoreKind } from '../../src/test-support/test-app.js';
import { useTestApp } from '../../src/test-support/use-test-app.js';
import { givenAdmin } from '../../src/test-support/factories.js';
import { setCookies } from '../../src/test-support/http.js';
import { givenAdminSession } from '../../src/test-support/sessions.js';
import { adminClient, type AdminClient } from '../../src/test-support/admin-client.js';
import { createSelfSignedCertificate } from '../../src/lib/x509.js';
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
 * people, the two realms, and one Postern app per file (useTestApp) whose SAML settings each test
 * points at that IdP, with the helpers that drive a sign-in through it the way a browser does.
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
 * One app on `kind` for the file, and before each test (the store emptied) SAML set up for both
 * realms against the IdP, which trusts this app's SP certificates. Answers the helpers that drive it.
 *
 * The app's IdP metadata cache outlives a test (README, "What the reset cannot reach"); that is
 * harmless here, since every test points the realms at the same IdP, whose metadata never changes.
 */
function useSamlSignIn(kind: TestStoreKind) {
  const t = useTestApp(kind);
  let admin: AdminClient;
  let publicUrl: string;
  let certs: { user: string; admin: string };

  beforeEach(async (context) => {
    requireSimpleSamlPhp(context);
    syncClock(t);
    admin = adminClient(t.app, await givenAdminSession(t, await givenAdmin(t.ctx, { userName: 'settings-admin' })));
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

  async function putAuthentication(change: Record<string, unknown>) {
    const body = {
      ...AUTH_DEFAULTS,
      PublicURL: publicUrl,
      SAMLMetadataURL: server().metadataUrl,
      AdminSAMLMetadataURL: server().metadataUrl,
      ...change,
    };
    const response = await admin.put('/api/admin/settings/authentication', body);
    expect(response.status, response.response.body).toBe(200);
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
    const list = (
      await admin.get<{ data: { ID: string; UserName: string; Name: string; AuthType: string }[] }>('/api/admin/users')
    ).body.data;
    return list.filter((user) => user.UserName === userName);
  }

  /** The newest audit entry of `action`, if any. */
  async function lastAudit(action: string) {
    const entries = (
      await admin.get<{
        data: { Entry: Record<string, { ErrorMessage?: string; UserName?: string; AdminName?: string }> }[];
      }>('/api/admin/logs')
    ).body.data;
    return entries.find((entry) => entry.Entry[action] !== undefined)?.Entry[action];
  }

  return {
    kind,
    /**
     * This test's app, the admin client of a signed-in settings admin, the public URL and the SP
     * certificates, once `beforeEach` has made them.
     */
    current: () => ({ t, admin, publicUrl, certs }),
    putAuthentication,
    idpResponse,
    postToAcs,
    signIn,
    expectRefused,
    usersNamed,
    lastAudit,
  };
}
