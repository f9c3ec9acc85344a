import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshotPath } from './support/browser.js';
import { usePortal } from './support/portal.js';
import { AdminApi } from './support/admin-api.js';

/** A local user changes their password in the dialog, guided by the strength meter. */
describe('password change in Chromium', () => {
  const portal = usePortal({
    arrange: async ({ server }) => {
      await (await AdminApi.signIn(server)).createLocalUser('meter.user', 'first password 1');
    },
  });

  async function signIn(page: Page, password: string) {
    const { server } = portal();
    await page.goto(`${server.url}/`);
    await page.getByLabel('Username').fill('meter.user');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${server.url}/home/new`);
  }

  it('rates the new password, changes it and lets the user sign in with it', async () => {
    const { server, newPage } = portal();
    const page = await newPage();
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
  });
});
