import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotPath } from './support/browser.js';
import { usePortal } from './support/portal.js';
import { AdminApi } from './support/admin-api.js';
import { missingSlapd, startSlapd, type Slapd } from '../../apps/server/test/support/slapd.js';

/** A directory user signs in on the login page; Postern binds as their DN against a real slapd. */
describe('LDAP sign-in in Chromium', () => {
  let slapd: Slapd | undefined;
  // Registered before the portal's hooks, so the directory is up when the portal is arranged.
  beforeAll(async () => {
    if (missingSlapd() === null) {
      slapd = await startSlapd({ users: [{ uid: 'lin', password: 'directory password', cn: 'Lin Directory' }] });
    }
  });
  afterAll(async () => {
    await slapd?.stop();
  });
  const portal = usePortal({
    alsoMissing: missingSlapd,
    arrange: async ({ server }) => {
      if (slapd === undefined) throw new Error('slapd did not start');
      const admin = await AdminApi.signIn(server);
      await admin.call('PUT', '/api/admin/settings/authentication', {
        SAMLMetadataURL: '',
        AdminSAMLMetadataURL: '',
        PublicURL: '',
        LDAPURL: slapd.ldapUrl,
        LDAPStartTLS: true,
        // The harness's CA is not in Node's store; the StartTLS channel itself is still encrypted.
        LDAPSkipVerifyTLS: true,
      });
      await admin.call('POST', '/api/admin/users', {
        Name: 'Lin Directory',
        UserName: 'lin',
        AuthType: 'LDAP',
        ThirdPartyAuth: { DN: slapd.dnOf('lin') },
      });
    },
  });

  it('signs the directory user in with the directory password, and refuses a wrong one', async () => {
    const { server, newPage } = portal();
    const page = await newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('Username').fill('lin');
    await page.getByLabel('Password', { exact: true }).fill('not the directory password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Error: Invalid credentials');

    await page.getByLabel('Password', { exact: true }).fill('directory password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${server.url}/home/new`);
    await expect.poll(() => page.getByText('Lin Directory').first().isVisible()).toBe(true);
    // Directory accounts change their password in the directory, not here.
    expect(await page.getByRole('button', { name: 'Change password' }).count()).toBe(0);
    await page.screenshot({ path: screenshotPath('ldap-user-home'), fullPage: true });
  });
});
