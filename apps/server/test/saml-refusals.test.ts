import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions } from '@postern/protocol';
import { freePort } from '@postern/test-support';
import { createTestReplica, type TestApp } from '../src/test-support/test-app.js';
import { givenAdmin, givenUser } from '../src/test-support/factories.js';
import type { SamlPostForm } from './support/simplesamlphp.js';
import { ADMIN, MINUTE_MS, PASSWORD, USER, describeSamlSignIn, server, spEntries } from './support/saml-sign-in.js';

/**
 * SAML single sign-on end to end, the responses Postern must refuse: replays, tampering, the wrong
 * audience, realm or request, and malformed posts, with a real IdP's (SimpleSAMLphp's) signatures.
 * Every refusal must end on the login page with ?error= and nothing more (no cookie, no body).
 */

describeSamlSignIn((saml) => {
  const { putAuthentication, idpResponse, postToAcs, signIn, expectRefused, usersNamed, lastAudit } = saml;
  let t: TestApp, publicUrl: string, certs: { user: string; admin: string };
  beforeEach(() => {
    ({ t, publicUrl, certs } = saml.current());
  });

  /** Decodes the IdP's response, edits its XML, and encodes it again. */
  function edited(form: SamlPostForm, edit: (xml: string) => string): SamlPostForm {
    const xml = Buffer.from(form.SAMLResponse, 'base64').toString('utf8');
    const changed = edit(xml);
    expect(changed).not.toBe(xml);
    return { ...form, SAMLResponse: Buffer.from(changed, 'utf8').toString('base64') };
  }

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
      const replica = await createTestReplica(t);
      try {
        // Started on this replica, finished on the other.
        const form = await idpResponse(USER, 'alice');
        const accepted = await postToAcs(USER.acs, form, replica.app);
        expect(accepted.headers.location).toBe('/home/new');
        // The same response back at the first replica: refused.
        expectRefused(await postToAcs(USER.acs, form), USER);
        // And the other way round: finished here, replayed there.
        const again = await idpResponse(USER, 'alice');
        expect((await postToAcs(USER.acs, again)).headers.location).toBe('/home/new');
        expectRefused(await postToAcs(USER.acs, again, replica.app), USER);
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
