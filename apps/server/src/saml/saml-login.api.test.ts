import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { createTestApp, testStoreKinds, type TestApp } from '../test-support/test-app.js';
import { givenAdmin } from '../test-support/factories.js';
import { signInAdmin } from '../test-support/http.js';
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

describe.each(testStoreKinds())('SAML sign-in while the IdP metadata URL fails (%s)', (kind) => {
  let t: TestApp;
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
    t = await createTestApp(kind);
    const admin = await givenAdmin(t.ctx);
    const cookie = await signInAdmin(t.app, admin.userName, admin.password);
    const configured = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/settings/authentication',
      headers: { cookie },
      payload: {
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
      },
    });
    expect(configured.statusCode, configured.body).toBe(200);
  });
  afterEach(async () => {
    await t.close();
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
