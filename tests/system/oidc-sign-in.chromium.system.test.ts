import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { TestOidcProvider } from '../../apps/server/src/test-support/oidc-provider.js';
import { screenshotPath } from './support/browser.js';
import { usePortal, type Portal } from './support/portal.js';
import { AdminApi } from './support/admin-api.js';
import { accessibilityViolations } from './support/axe.js';

const USER_CLIENT = { clientId: 'postern-users', clientSecret: 'users-secret-1' };
const ADMIN_CLIENT = { clientId: 'postern-admins', clientSecret: 'admins-secret-1' };

/**
 * OpenID Connect in the browser, for a user and for an admin, against a real provider (the
 * oidc-provider package on loopback): the login page's button named after the provider, the
 * provider's own login page, the landing, and the logout that ends the provider's session too.
 */
describe('OpenID Connect sign-in in Chromium', () => {
  let provider: TestOidcProvider | undefined;
  afterAll(async () => {
    await provider?.stop();
  });

  // The provider needs the portal's address for its redirect URIs, so it starts once the portal is up.
  const portal = usePortal({ arrange: startProviderAndConfigure });

  async function startProviderAndConfigure({ server }: Portal) {
    provider = await TestOidcProvider.start({
      accounts: [
        { sub: 'sub-olivia', claims: { preferred_username: 'olivia', name: 'Olivia User', groups: ['operations'] } },
        { sub: 'sub-oscar', claims: { preferred_username: 'oscar', name: 'Oscar Admin' } },
      ],
      clients: [
        {
          ...USER_CLIENT,
          redirectUris: [`${server.url}/api/oidc/callback`],
          postLogoutRedirectUris: [`${server.url}/`],
        },
        {
          ...ADMIN_CLIENT,
          redirectUris: [`${server.url}/api/admin/oidc/callback`],
          postLogoutRedirectUris: [`${server.url}/admin`],
        },
      ],
    });
    const admin = await AdminApi.signIn(server);
    await admin.call('PUT', '/api/admin/settings/authentication', {
      SAMLMetadataURL: '',
      AdminSAMLMetadataURL: '',
      PublicURL: server.url,
      LDAPURL: '',
      LDAPStartTLS: false,
      LDAPSkipVerifyTLS: false,
      OIDCIssuerURL: provider.issuer,
      OIDCClientID: USER_CLIENT.clientId,
      OIDCClientSecret: USER_CLIENT.clientSecret,
      OIDCDisplayName: 'Example ID',
      AdminOIDCIssuerURL: provider.issuer,
      AdminOIDCClientID: ADMIN_CLIENT.clientId,
      AdminOIDCClientSecret: ADMIN_CLIENT.clientSecret,
    });
    // Admins are never created by a sign-in: this one exists, set to sign in at the provider.
    await admin.call('POST', '/api/admin/admins', { Name: 'Oscar Admin', UserName: 'oscar', AuthType: 'oidc' });
  }

  async function atTheProvider(page: Page, account: string) {
    const field = page.getByLabel('Account');
    await field.waitFor();
    await field.fill(account);
    await page.getByRole('button', { name: 'Sign in at the provider' }).click();
  }

  it('signs a user in at the provider, creates the account, and logs out there too', async () => {
    const { server, newPage } = portal();
    // bypassCSP: the accessibility check injects axe as an inline script.
    const page = await newPage({ bypassCSP: true });
    await page.goto(`${server.url}/`);
    const button = page.getByRole('button', { name: 'Sign in with Example ID' });
    await button.waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('oidc-user-login'), fullPage: true });
    await button.click();
    await atTheProvider(page, 'sub-olivia');
    await page.waitForURL(`${server.url}/home/new`, { timeout: 20_000 });
    await expect.poll(() => page.getByText('Olivia User').first().isVisible()).toBe(true);

    const admin = await AdminApi.signIn(server);
    const users = await admin.call<{ UserName: string; AuthType: string }[]>('GET', '/api/admin/users');
    expect(users).toContainEqual(expect.objectContaining({ UserName: 'olivia', AuthType: 'oidc' }));
    const groups = await admin.call<{ Name: string }[]>('GET', '/api/admin/groups');
    expect(groups).toContainEqual(expect.objectContaining({ Name: 'operations' }));

    // Logging out goes on to the provider, which ends its own session and sends the browser back.
    const ended = page.waitForRequest((request) => request.url().startsWith(`${provider?.issuer}/session/end`));
    await page.getByRole('button', { name: 'Log out' }).click();
    await ended;
    await page.getByRole('button', { name: /sign me out/i }).click();
    await page.waitForURL(`${server.url}/`, { timeout: 20_000 });
    await page.getByRole('button', { name: 'Sign in with Example ID' }).waitFor();
    // Signed out there too: the next sign-in asks for the account again.
    await page.getByRole('button', { name: 'Sign in with Example ID' }).click();
    await page.getByLabel('Account').waitFor();
  });

  it('signs an admin in at the admins’ provider and shows a refusal on the German login page', async () => {
    const { server, newPage } = portal();
    const page = await newPage();
    await page.goto(`${server.url}/admin`);
    // No display name for the admins' provider: the button names the issuer's host.
    const host = new URL(provider?.issuer ?? '').host;
    await page.getByRole('button', { name: `Sign in with ${host}` }).click();
    await atTheProvider(page, 'sub-oscar');
    await page.waitForURL(`${server.url}/admin/home`, { timeout: 20_000 });
    await expect.poll(() => page.getByText('Oscar Admin').first().isVisible()).toBe(true);

    // A person the admins' provider knows but Postern has no admin for is sent back with the reason.
    const german = await newPage({ locale: 'de-DE', bypassCSP: true });
    await german.goto(`${server.url}/admin`);
    await german.getByRole('button', { name: `Mit ${host} anmelden` }).click();
    await atTheProvider(german, 'sub-olivia');
    await german.waitForURL(/\/admin\?error=/, { timeout: 20_000 });
    await expect.poll(() => german.getByText('Fehler: Authentifizierung fehlgeschlagen').isVisible()).toBe(true);
    expect(await accessibilityViolations(german)).toEqual([]);
    await german.screenshot({ path: screenshotPath('oidc-admin-refused-de'), fullPage: true });
  });
});
