import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { freePort } from '@postern/test-support';
import type { TestApp } from '../src/test-support/test-app.js';
import type { AdminClient } from '../src/test-support/admin-client.js';
import { givenAdmin } from '../src/test-support/factories.js';
import { ADMIN, USER, describeSamlSignIn, server, spEntries } from './support/saml-sign-in.js';

/**
 * SAML single sign-on end to end, the service provider's side of the setup: the SP metadata each
 * realm publishes, what happens without IdP metadata or a key pair, and IdP metadata from a URL or a
 * file; against a real IdP, Debian's SimpleSAMLphp (see support/saml-sign-in.ts).
 */

describeSamlSignIn((saml) => {
  const { putAuthentication, idpResponse, signIn } = saml;
  let t: TestApp, admin: AdminClient, publicUrl: string, certs: { user: string; admin: string };
  beforeEach(() => {
    ({ t, admin, publicUrl, certs } = saml.current());
  });

  async function generateKeyCert(path: string): Promise<string> {
    const response = await admin.post<{ data: { Certificate: string } }>(`/api/admin/settings/${path}`);
    expect(response.status, response.response.body).toBe(200);
    return response.body.data.Certificate;
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
});
