import type { Page } from 'playwright-core';
import type { PosternServer } from './postern-server.js';

/**
 * The admin console as an administrator reaches it in a browser: the first admin signs in at /admin
 * with the password printed on first start and postpones TOTP enrolment, as a newcomer may.
 */
export async function signInToAdminConsole(page: Page, server: PosternServer): Promise<void> {
  await page.goto(`${server.url}/admin`);
  await page.getByLabel('Username').fill('postern-admin');
  await page.getByLabel('Password', { exact: true }).fill(server.adminPassword);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${server.url}/admin/otp/onboard`);
  await page.getByRole('button', { name: 'Do this next time' }).click();
  await page.waitForURL(`${server.url}/admin/home`);
}
