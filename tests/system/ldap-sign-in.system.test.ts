import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { REPO_ROOT } from '@postern/test-support';
import { launchChromium, newContext, screenshotPath } from './support/browser.js';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { missingBuild, missingChromium, requireTool } from './support/requirements.js';
import { AdminApi } from './support/admin-api.js';
import { missingSlapd, startSlapd, type Slapd } from '../../apps/server/test/support/slapd.js';

/** A directory user signs in on the login page; Postern binds as their DN against a real slapd. */
describe('LDAP sign-in in Chromium', () => {
  const missing = missingChromium() ?? missingBuild(REPO_ROOT) ?? missingSlapd();
  let server: PosternServer | undefined;
  let browser: Browser | undefined;
  let slapd: Slapd | undefined;

  beforeAll(async () => {
    if (missing !== null) return;
    slapd = await startSlapd({ users: [{ uid: 'lin', password: 'directory password', cn: 'Lin Directory' }] });
    server = await startPosternServer();
    browser = await launchChromium();
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
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await slapd?.stop();
  });
  beforeEach((context) => requireTool(context, missing));

  it('signs the directory user in with the directory password, and refuses a wrong one', async () => {
    if (server === undefined || browser === undefined) throw new Error('the server or browser did not start');
    const page = await (await newContext(browser)).newPage();
    await page.goto(`${server.url}/`);
    await page.getByLabel('Username').fill('lin');
    await page.getByLabel('Password', { exact: true }).fill('not the directory password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Error: Invalid credentials');

    await page.getByLabel('Password', { exact: true }).fill('directory password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/home/new`);
    await expect.poll(() => page.getByText('Lin Directory').first().isVisible()).toBe(true);
    // Directory accounts change their password in the directory, not here.
    expect(await page.getByRole('button', { name: 'Change password' }).count()).toBe(0);
    await page.screenshot({ path: screenshotPath('ldap-user-home'), fullPage: true });
    await page.context().close();
  });
});
