import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import type { TestApp } from '../test-support/test-app.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { createSelfSignedCertificate } from '../lib/x509.js';
import { SAML_PATHS } from './saml-endpoints.js';

/** The SP key pair, made once: generating one per test would dominate the run time. */
let spKeys: { certificatePem: string; privateKeyPem: string };
beforeAll(() => {
  spKeys = createSelfSignedCertificate({
    commonName: 'postern users',
    days: 2,
    privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
  });
});

/** An admin points the user realm's SAML at the IdP metadata `idp` serves, with the SP key pair. */
async function configureSaml(t: TestApp, idp: Server): Promise<void> {
  const admin = adminClient(t.app, await givenAdminSession(t));
  const configured = await admin.put('/api/admin/settings/authentication', {
    PublicURL: 'https://access.example.com',
    SAMLMetadataURL: `http://127.0.0.1:${(idp.address() as AddressInfo).port}/metadata`,
    AdminSAMLMetadataURL: '',
    SAMLKeyFile: spKeys.privateKeyPem,
    SAMLKeyFileSet: true,
    SAMLCertFile: spKeys.certificatePem,
    SAMLCertFileSet: true,
    LDAPURL: '',
    LDAPStartTLS: false,
    LDAPSkipVerifyTLS: false,
  });
  expect(configured.status, configured.response.body).toBe(200);
}

// Each describe has an app of its own: the IdP metadata cache lives in the app (README, "What the
// reset cannot reach"), and the two serve different metadata.
describe('SAML sign-in while the IdP metadata URL fails (sqlite)', () => {
  const t = useTestApp('sqlite');
  /** A failing IdP on 127.0.0.1 that counts the requests reaching it. */
  let idp: Server;
  let idpRequests: number;

  beforeEach(async () => {
    idpRequests = 0;
    idp = createServer((_request, response) => {
      idpRequests += 1;
      response.writeHead(500).end('down');
    });
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    await configureSaml(t, idp);
  });
  afterEach(async () => {
    idp.closeAllConnections();
    await new Promise((resolve) => idp.close(resolve));
  });

  it('30 concurrent anonymous SAML requests cause one fetch, and each gets the usual redirect', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => t.app.inject({ method: 'GET', url: SAML_PATHS.user.login })),
    );

    expect(idpRequests).toBe(1);
    for (const answer of answers) {
      expect(answer.statusCode).toBe(302);
      expect(answer.headers.location).toBe(`/?error=${ErrorCodes.samlMetadataUnavailable}`);
    }
  });
});

describe('the user SAML login’s kioskMode parameter (sqlite)', () => {
  const t = useTestApp('sqlite');
  let idp: Server;

  beforeEach(async () => {
    const idpCertificate = createSelfSignedCertificate({
      commonName: 'idp',
      days: 1,
      privateKey: generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey,
    }).certificatePem;
    const metadata = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp.example/metadata">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${idpCertificate.replace(/-----[^-]+-----|\s+/g, '')}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
    idp = createServer((_request, response) => response.writeHead(200).end(metadata));
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    await configureSaml(t, idp);
  });
  afterEach(async () => {
    idp.closeAllConnections();
    await new Promise((resolve) => idp.close(resolve));
  });

  /** The RelayState the login sends the browser to the IdP with. */
  const relayStateFor = async (query: string) => {
    const answer = await t.app.inject({ method: 'GET', url: `${SAML_PATHS.user.login}${query}` });
    expect(answer.statusCode, answer.body).toBe(302);
    const location = new URL(String(answer.headers.location));
    expect(location.origin + location.pathname).toBe('https://idp.example/sso');
    return location.searchParams.get('RelayState');
  };

  it('starts a kiosk sign-in for true or 1, and an ordinary one otherwise, never refusing the browser', async () => {
    expect(await relayStateFor('?kioskMode=true')).toBe('kiosk=1');
    expect(await relayStateFor('?kioskMode=1')).toBe('kiosk=1');
    expect(await relayStateFor('')).toBe('kiosk=0');
    expect(await relayStateFor('?kioskMode=yes')).toBe('kiosk=0');
    // Given twice it is not a clear yes: an ordinary sign-in, still a redirect rather than a 400.
    expect(await relayStateFor('?kioskMode=true&kioskMode=true')).toBe('kiosk=0');
    expect(await relayStateFor('?kioskMode=true&other=x')).toBe('kiosk=1');
  });
});
