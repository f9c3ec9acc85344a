import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from '@postern/test-support';
import { launchChromium, newContext, screenshotPath } from './support/browser.js';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { missingBuild, missingChromium, requireTool } from './support/requirements.js';
import { AdminApi } from './support/admin-api.js';

/** A local user changes their password in the dialog, guided by the strength meter. */
describe('password change in Chromium', () => {
  const missing = missingChromium() ?? missingBuild(REPO_ROOT);
  let server: PosternServer | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (missing !== null) return;
    server = await startPosternServer();
    browser = await launchChromium();
    await (await AdminApi.signIn(server)).createLocalUser('meter.user', 'first password 1');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  beforeEach((context) => requireTool(context, missing));

  async function signIn(page: Page, password: string) {
    await page.goto(`${server?.url}/`);
    await page.getByLabel('Username').fill('meter.user');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server?.url}/home/new`);
  }

  it('rates the new password, changes it and lets the user sign in with it', async () => {
    if (server === undefined || browser === undefined) throw new Error('the server or browser did not start');
    const page = await (await newContext(browser)).newPage();
    await signIn(page, 'first password 1');
    await page.getByRole('button', { name: 'Change password' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Current password').fill('first password 1');

    const meter = dialog.getByRole('progressbar', { name: 'Password strength' });
    await dialog.getByLabel('New password', { exact: true }).fill('password');
    await expect.poll(() => meter.getAttribute('aria-valuetext')).toBe('Very weak');
    const strong = 'plum harbour violin cactus 47 drift';
    await dialog.getByLabel('New password', { exact: true }).fill(strong);
    await expect.poll(() => meter.getAttribute('aria-valuetext')).toBe('Very strong');
    await page.screenshot({ path: screenshotPath('change-password'), fullPage: true });

    await dialog.getByLabel('Confirm password').fill(`${strong}!`);
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => dialog.getByText("Passwords don't match").isVisible()).toBe(true);
    await dialog.getByLabel('Confirm password').fill(strong);
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByText('Password changed successfully').isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${server.url}/`);
    await signIn(page, strong);
    await page.context().close();
  });
});
