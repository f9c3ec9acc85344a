import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshotPath } from './support/browser.js';
import { usePortal, type Portal } from './support/portal.js';
import { AdminApi } from './support/admin-api.js';
import {
  missingSimpleSamlPhp,
  startSimpleSamlPhp,
  type SimpleSamlPhp,
  type SimpleSamlPhpUser,
} from '../../apps/server/test/support/simplesamlphp.js';

const IDP_USERS: SimpleSamlPhpUser[] = [
  {
    username: 'sam.user',
    password: 'idp user pass',
    attributes: { displayName: ['Sam User'], groups: ['engineering'] },
  },
  { username: 'sam.admin', password: 'idp admin pass', attributes: { displayName: ['Sam Admin'] } },
];

/**
 * Single sign-on in the browser, for a user and for an admin, against a real IdP (Debian's
 * SimpleSAMLphp): the SSO button, the IdP's own login page, its auto-posted response, and the landing.
 */
describe('SAML sign-in in Chromium', () => {
  let idp: SimpleSamlPhp | undefined;
  beforeAll(async () => {
    if (missingSimpleSamlPhp() === null) idp = await startSimpleSamlPhp({ sp: [], users: IDP_USERS });
  });
  afterAll(async () => {
    await idp?.stop();
  });

  const portal = usePortal({ alsoMissing: missingSimpleSamlPhp, arrange: configureSaml });

  async function configureSaml({ server }: Portal) {
    if (idp === undefined) throw new Error('the IdP did not start');
    const admin = await AdminApi.signIn(server);
    await admin.call('PUT', '/api/admin/settings/authentication', {
      SAMLMetadataURL: idp.metadataUrl,
      AdminSAMLMetadataURL: idp.metadataUrl,
      PublicURL: server.url,
      LDAPURL: '',
      LDAPStartTLS: false,
      LDAPSkipVerifyTLS: false,
    });
    const user = await admin.call<{ Certificate: string }>('POST', '/api/admin/settings/generateUserSamlKeyCert');
    const adminRealm = await admin.call<{ Certificate: string }>(
      'POST',
      '/api/admin/settings/generateAdminSamlKeyCert',
    );
    await idp.setServiceProviders([
      {
        entityId: `${server.url}/api/saml/metadata`,
        acsUrl: `${server.url}/api/saml/acs`,
        certificate: user.Certificate,
      },
      {
        entityId: `${server.url}/api/admin/saml/metadata`,
        acsUrl: `${server.url}/api/admin/saml/acs`,
        certificate: adminRealm.Certificate,
      },
    ]);
    // Admins are never created by SSO: this one exists, set to sign in through the IdP.
    await admin.call('POST', '/api/admin/admins', { Name: 'Sam Admin', UserName: 'sam.admin', AuthType: 'SAML' });
  }

  async function throughTheIdp(page: Page, username: string, password: string) {
    await page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await page.locator('#username').waitFor();
    await page.screenshot({ path: screenshotPath(`saml-idp-login-${username}`), fullPage: true });
    await page.locator('#username').fill(username);
    await page.locator('#password').fill(password);
    await page.locator('#submit_button').click();
  }

  it('signs a user in at the IdP and creates their account at the first sign-in', async () => {
    const { server, newPage } = portal();
    const page = await newPage();
    await page.goto(`${server.url}/`);
    await throughTheIdp(page, 'sam.user', 'idp user pass');
    await page.waitForURL(`${server.url}/home/new`, { timeout: 20_000 });
    await expect.poll(() => page.getByText('Sam User').first().isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath('saml-user-home'), fullPage: true });

    const admin = await AdminApi.signIn(server);
    const users = await admin.call<{ UserName: string; AuthType: string }[]>('GET', '/api/admin/users');
    expect(users).toContainEqual(expect.objectContaining({ UserName: 'sam.user', AuthType: 'SAML' }));
    const groups = await admin.call<{ Name: string; Type: string }[]>('GET', '/api/admin/groups');
    expect(groups).toContainEqual(expect.objectContaining({ Name: 'engineering', Type: 'dynamic' }));
  });

  it('signs an admin in at the IdP without a second factor from Postern', async () => {
    const { server, newPage } = portal();
    const page = await newPage();
    await page.goto(`${server.url}/admin`);
    await throughTheIdp(page, 'sam.admin', 'idp admin pass');
    await page.waitForURL(`${server.url}/admin/home`, { timeout: 20_000 });
    await expect.poll(() => page.getByText('Sam Admin').first().isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath('saml-admin-home'), fullPage: true });
  });
});
