import { describe, expect, it } from 'vitest';
import { screenshotPath } from './support/browser.js';
import { usePortal } from './support/portal.js';

/**
 * A newcomer's first minutes, in real Chromium against the built server: the login page, the admin
 * sign-in with the password printed at first start, a wrong password, and the German interface.
 */
describe('first sign-in in Chromium', () => {
  // The newcomer's path: `npm start` on the embedded store.
  const portal = usePortal({ store: 'sqlite' });

  it('shows a newcomer the login page at /', async () => {
    const { server, newPage } = portal();
    const page = await newPage();
    await page.goto(`${server.url}/`);

    await expect.poll(() => page.title()).toBe('Sign in · Postern');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in to Postern');
    expect(await page.getByLabel('Username').isVisible()).toBe(true);
    expect(await page.getByLabel('Password', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByLabel('This is a public computer').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Administrator sign in' }).getAttribute('href')).toBe('/admin');
    await page.screenshot({ path: screenshotPath('login'), fullPage: true });
  });

  it('signs the first admin in at /admin with the printed password and lands on /admin/home', async () => {
    const { server, newPage } = portal();
    const page = await newPage();
    await page.goto(`${server.url}/admin`);
    await page.getByLabel('Username').fill('postern-admin');
    await page.getByLabel('Password', { exact: true }).fill(server.adminPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // Like every admin, the first one has TOTP on; a newcomer may set it up next time.
    await page.waitForURL(`${server.url}/admin/otp/onboard`);
    await page.getByRole('button', { name: 'Do this next time' }).click();

    await page.waitForURL(`${server.url}/admin/home`);
    await expect.poll(() => page.title()).toBe('Home · Postern admin');
    expect(await page.getByRole('navigation').isVisible()).toBe(true);
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon-admin.svg');
    // The admin's own sign-in is the newest activity.
    await expect.poll(() => page.getByRole('table').textContent()).toContain('postern-admin');
    await page.screenshot({ path: screenshotPath('admin-home'), fullPage: true });

    // The session survives a reload: it lives in a server-side session behind an HttpOnly cookie.
    await page.reload();
    await page.waitForURL(`${server.url}/admin/home`);
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === '__Host-postern_admin_session')).toMatchObject({
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
    });
  });

  it('shows a wrong password as the translated error and stays on the login page', async () => {
    const { server, newPage } = portal();
    const page = await newPage();
    await page.goto(`${server.url}/admin`);
    await page.getByLabel('Username').fill('postern-admin');
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Error: Invalid credentials');
    expect(new URL(page.url()).pathname).toBe('/admin');
    await page.screenshot({ path: screenshotPath('admin-login-wrong-password'), fullPage: true });
  });

  it('speaks German to a browser set to German', async () => {
    const { server, newPage } = portal();
    const page = await newPage({ locale: 'de-DE' });
    await page.goto(`${server.url}/`);

    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Bei Postern anmelden');
    expect(await page.getByLabel('Benutzername').isVisible()).toBe(true);
    expect(await page.getByLabel('Dies ist ein öffentlicher Computer').isVisible()).toBe(true);
    await page.getByLabel('Benutzername').fill('jemand');
    await page.getByLabel('Passwort', { exact: true }).fill('falsches Passwort');
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Fehler: Ungültige Anmeldedaten');
    await page.screenshot({ path: screenshotPath('login-de'), fullPage: true });
  });
});
