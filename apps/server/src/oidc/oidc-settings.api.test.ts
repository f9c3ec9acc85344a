import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthenticationSettingsResponse, ErrorCodes, OidcTestResponse } from '@postern/protocol';
import { freePort } from '@postern/test-support';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { USER_CLIENT, useTestOidcProvider } from '../test-support/oidc-sign-in.js';
import { readSettings } from '../settings/settings.js';
import { sealedSettingContext } from '../settings/settings.service.js';

/**
 * The OpenID Connect settings in GET/PUT /api/admin/settings/authentication (write-only secrets,
 * validation, defaults) and the admins' test of a realm's provider, POST /api/admin/settings/oidc/test.
 */

const provider = useTestOidcProvider();

/** Every field PUT /api/admin/settings/authentication requires (the SAML and LDAP ones), empty. */
const REQUIRED = {
  PublicURL: 'https://access.example.com',
  SAMLMetadataURL: '',
  AdminSAMLMetadataURL: '',
  LDAPURL: '',
  LDAPStartTLS: false,
  LDAPSkipVerifyTLS: false,
};
const AUTHENTICATION = '/api/admin/settings/authentication';
const TEST = '/api/admin/settings/oidc/test';

/** A stand-in provider that answers whatever a test wants at its metadata and key set URLs. */
let fake: Server;
let fakeUrl: string;
let fakeAnswers: Record<string, { status?: number; type?: string; body: string }> = {};
beforeAll(async () => {
  fake = createServer((request, response) => {
    const answer = fakeAnswers[request.url ?? ''];
    if (answer === undefined) return void response.writeHead(404).end();
    response.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json' }).end(answer.body);
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
});
afterAll(async () => {
  fake.closeAllConnections();
  await new Promise((resolve) => fake.close(resolve));
});

/** Metadata for the stand-in provider, with `change` applied (undefined removes a field). */
function metadata(change: Record<string, unknown> = {}): string {
  const document: Record<string, unknown> = {
    issuer: fakeUrl,
    authorization_endpoint: `${fakeUrl}/auth`,
    token_endpoint: `${fakeUrl}/token`,
    jwks_uri: `${fakeUrl}/jwks`,
    userinfo_endpoint: `${fakeUrl}/me`,
    end_session_endpoint: `${fakeUrl}/session/end`,
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['openid', 'profile', 'email', 'groups'],
    ...change,
  };
  return JSON.stringify(document);
}
const JWKS = JSON.stringify({ keys: [{ kty: 'RSA', kid: 'k', n: 'AQAB', e: 'AQAB' }] });

describe('OpenID Connect settings (sqlite)', () => {
  const t = useTestApp('sqlite');
  let admin: AdminClient;
  beforeEach(async () => {
    admin = adminClient(t.app, await givenAdminSession(t));
    fakeAnswers = {};
  });

  const put = (change: Record<string, unknown>) => admin.put(AUTHENTICATION, { ...REQUIRED, ...change });
  const settings = () => admin.data('GET', AUTHENTICATION, AuthenticationSettingsResponse);

  it('has defaults for both realms and nothing configured', async () => {
    const s = await settings();
    for (const p of ['', 'Admin'] as const) {
      expect(s[`${p}OIDCIssuerURL`]).toBe('');
      expect(s[`${p}OIDCClientID`]).toBe('');
      expect(s[`${p}OIDCClientSecretSet`]).toBe(false);
      expect(s[`${p}OIDCUserNameClaim`]).toBe('preferred_username');
      expect(s[`${p}OIDCGroupsClaim`]).toBe('groups');
      expect(s[`${p}OIDCScopes`]).toBe('openid profile email groups');
    }
    expect(s.UserOIDCConfigured).toBe(false);
    expect(s.AdminOIDCConfigured).toBe(false);
  });

  it('stores the client secret sealed and never shows it; the realm is then configured', async () => {
    const answer = await put({
      OIDCIssuerURL: 'https://idp.example.com/realms/staff',
      OIDCClientID: 'postern',
      OIDCClientSecret: 'top-secret-value',
      OIDCScopes: 'email profile',
      OIDCGroupsClaim: '',
    });

    expect(answer.status, answer.response.body).toBe(200);
    expect(answer.response.body).not.toContain('top-secret-value');
    const s = await settings();
    expect(s).toMatchObject({
      OIDCIssuerURL: 'https://idp.example.com/realms/staff',
      OIDCClientID: 'postern',
      OIDCClientSecretSet: true,
      OIDCScopes: 'openid email profile',
      OIDCGroupsClaim: '',
      OIDCRedirectURL: 'https://access.example.com/api/oidc/callback',
      AdminOIDCRedirectURL: 'https://access.example.com/api/admin/oidc/callback',
      UserOIDCConfigured: true,
      AdminOIDCConfigured: false,
    });
    const stored = await readSettings(t.ctx.db);
    expect(stored.OIDCClientSecret).not.toContain('top-secret-value');
    expect(t.ctx.secrets.open(stored.OIDCClientSecret, sealedSettingContext('OIDCClientSecret'))).toBe(
      'top-secret-value',
    );
  });

  it('leaves the OpenID Connect settings as they are when a PUT does not name them (the SAML form)', async () => {
    await put({ OIDCIssuerURL: 'https://idp.example.com', OIDCClientID: 'postern', OIDCClientSecret: 's' });
    expect((await put({})).status).toBe(200);
    expect(await settings()).toMatchObject({ OIDCIssuerURL: 'https://idp.example.com', OIDCClientSecretSet: true });
  });

  it('removes the secret on request', async () => {
    await put({ OIDCIssuerURL: 'https://idp.example.com', OIDCClientID: 'postern', OIDCClientSecret: 's' });
    expect((await put({ OIDCClientSecretRemove: true })).status).toBe(200);
    expect(await settings()).toMatchObject({ OIDCClientSecretSet: false, UserOIDCConfigured: false });
  });

  it.each([
    ['http://idp.example.com', ErrorCodes.urlMustBeHttps],
    ['ftp://idp.example.com', ErrorCodes.urlMustBeHttps],
    ['https://idp.example.com/?tenant=1', ErrorCodes.urlInvalid],
    ['https://idp.example.com/#x', ErrorCodes.urlInvalid],
    ['https://user:pass@idp.example.com', ErrorCodes.urlCredentialsNotAllowed],
    ['idp.example.com', ErrorCodes.urlMustBeHttps],
  ])('refuses the issuer %s with %s', async (issuer, code) => {
    const answer = await put({ AdminOIDCIssuerURL: issuer });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ Err: code, Extra: 'AdminOIDCIssuerURL' });
  });

  it.each([
    'https://idp.example.com',
    'https://idp.example.com/',
    'http://127.0.0.1:8080',
    'http://localhost:9000/oidc',
    'http://[::1]:8443',
  ])('accepts the issuer %s (plain http only on loopback)', async (issuer) => {
    const answer = await put({ OIDCIssuerURL: issuer });
    expect(answer.status, answer.response.body).toBe(200);
    expect((await settings()).OIDCIssuerURL).toBe(issuer);
  });

  it.each([
    { OIDCUserNameClaim: 'user name' },
    { OIDCGroupsClaim: 'my\tgroups' },
    { OIDCScopes: 'openid "profile"' },
    { OIDCClientID: 'bad\u0000id' },
    { OIDCDisplayName: 'x'.repeat(101) },
  ])('refuses a malformed field: %o', async (change) => {
    const answer = await put(change);
    expect(answer.status).toBe(400);
    expect((answer.body as { Err: string }).Err).toBe(ErrorCodes.badRequest);
  });

  it('asks for the client secret again when the issuer moves to another host', async () => {
    await put({ OIDCIssuerURL: 'https://idp.example.com', OIDCClientID: 'postern', OIDCClientSecret: 's' });

    const moved = await put({ OIDCIssuerURL: 'https://elsewhere.example.net' });
    expect(moved.status).toBe(400);
    expect((moved.body as { Extra: string }).Extra).toMatch(/^OIDCClientSecret: re-enter/);
    expect((await put({ OIDCIssuerURL: 'https://idp.example.com/tenant' })).status).toBe(200);
    expect((await put({ OIDCIssuerURL: 'https://elsewhere.example.net', OIDCClientSecret: 'new' })).status).toBe(200);
  });

  describe('the configuration test', () => {
    const test = async (realm: 'user' | 'admin' = 'user') =>
      admin.data('POST', TEST, OidcTestResponse, { Realm: realm });

    it('passes a working provider and says it offers RP-initiated logout', async () => {
      await put({ OIDCIssuerURL: provider().issuer, OIDCClientID: USER_CLIENT.clientId, OIDCClientSecret: 'x' });

      const result = await test();

      expect(result).toMatchObject({
        Realm: 'user',
        Ok: true,
        Problems: [],
        Issuer: provider().issuer,
        EndSession: true,
      });
      expect(result.Warnings).toContain('the issuer is plain http on a loopback address: for development only');
    });

    it('says what is missing from the settings', async () => {
      expect(await test('admin')).toMatchObject({ Ok: false, Problems: ['no issuer URL is set'] });
      await put({ AdminOIDCIssuerURL: provider().issuer, PublicURL: '' });
      const result = await test('admin');
      expect(result.Problems).toEqual([
        'no client ID is set',
        'no client secret is set',
        'PublicURL is not set, so there is no redirect URI to register',
      ]);
    });

    it('says the provider is unreachable', async () => {
      await put({ OIDCIssuerURL: `http://127.0.0.1:${await freePort()}`, OIDCClientID: 'c', OIDCClientSecret: 's' });
      const result = await test();
      expect(result.Ok).toBe(false);
      expect(result.Problems).toEqual([expect.stringMatching(/^the metadata is unreachable: .* could not be reached/)]);
    });

    it.each([
      ['its metadata is not JSON', { type: 'text/html', body: '<html>login</html>' }, /is not JSON/],
      ['its metadata answers an error', { status: 500, body: '{}' }, /answered HTTP 500/],
    ])('says so when %s', async (_what, answer, pattern) => {
      fakeAnswers['/.well-known/openid-configuration'] = answer;
      await put({ OIDCIssuerURL: fakeUrl, OIDCClientID: 'c', OIDCClientSecret: 's' });
      const result = await test();
      expect(result.Ok).toBe(false);
      expect(result.Problems).toEqual([expect.stringMatching(pattern)]);
    });

    it.each([
      [
        'the issuer does not match',
        { issuer: 'https://other.example' },
        /^issuer mismatch: the metadata names "https:\/\/other.example"/,
      ],
      ['there is no authorization endpoint', { authorization_endpoint: undefined }, /no authorization_endpoint/],
      ['there is no token endpoint', { token_endpoint: undefined }, /no token_endpoint/],
      ['S256 is not supported', { code_challenge_methods_supported: ['plain'] }, /does not support PKCE with S256/],
      [
        'ID tokens are signed with no accepted algorithm',
        { id_token_signing_alg_values_supported: ['HS256', 'none'] },
        /signs ID tokens with none of/,
      ],
    ])('says so when %s', async (_what, change, pattern) => {
      fakeAnswers['/.well-known/openid-configuration'] = { body: metadata(change) };
      fakeAnswers['/jwks'] = { body: JWKS };
      await put({ OIDCIssuerURL: fakeUrl, OIDCClientID: 'c', OIDCClientSecret: 's' });
      const result = await test();
      expect(result.Ok).toBe(false);
      expect(result.Problems).toEqual([expect.stringMatching(pattern)]);
    });

    it('says so when the key set is unreachable or empty', async () => {
      fakeAnswers['/.well-known/openid-configuration'] = { body: metadata() };
      await put({ OIDCIssuerURL: fakeUrl, OIDCClientID: 'c', OIDCClientSecret: 's' });
      expect((await test()).Problems).toEqual([
        expect.stringMatching(/^the key set \(jwks_uri\) at .* answered HTTP 404/),
      ]);
      fakeAnswers['/jwks'] = { body: JSON.stringify({ keys: [] }) };
      expect((await test()).Problems).toEqual(['the key set (jwks_uri) holds no keys']);
    });

    it('warns of what does not stop sign-in', async () => {
      fakeAnswers['/.well-known/openid-configuration'] = {
        body: metadata({
          end_session_endpoint: undefined,
          code_challenge_methods_supported: undefined,
          scopes_supported: ['openid'],
        }),
      };
      fakeAnswers['/jwks'] = { body: JWKS };
      await put({ OIDCIssuerURL: fakeUrl, OIDCClientID: 'c', OIDCClientSecret: 's' });
      const result = await test();
      expect(result).toMatchObject({ Ok: true, Problems: [], EndSession: false });
      expect(result.Warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/does not list code_challenge_methods_supported/),
          'the provider does not list the scopes profile, email, groups',
          'no end_session_endpoint: signing out of Postern does not sign out at the provider',
        ]),
      );
    });
  });
});
