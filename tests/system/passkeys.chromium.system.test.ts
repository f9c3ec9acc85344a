import { describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import { AdminApi } from './support/admin-api.js';
import { accessibilityViolations } from './support/axe.js';
import { screenshotPath } from './support/browser.js';
import { signInToAdminConsole } from './support/admin-console.js';
import { usePortal } from './support/portal.js';

const PASSWORD = 'correct horse battery staple';

/**
 * Passkeys as a person lives them, on Chromium's virtual authenticator (a platform authenticator
 * with user verification, as a laptop's fingerprint reader is): enrolled as the second factor a
 * new account must set up, then used as that second factor, then alone; kept by the Passkeys
 * dialog while it is the account's only second factor, removed by an administrator in the console
 * and refused from then on; and refused when the authenticator cannot verify its user.
 */
describe('passkeys in Chromium', () => {
  const portal = usePortal({
    arrange: async ({ server }) => {
      const admin = await AdminApi.signIn(server);
      await admin.createLocalUser('passkey.user', PASSWORD, { TOTPEnabled: true });
      await admin.createLocalUser('uv.user', PASSWORD, { TOTPEnabled: true });
    },
  });

  /**
   * The portal as the browser must see it for WebAuthn: a secure context whose host name can be the
   * RP ID. 127.0.0.1 is a secure context but no domain; localhost is both, and with no PublicURL set
   * the server takes the RP ID from the Host the browser sends.
   */
  const baseUrl = () => portal().server.url.replace('127.0.0.1', 'localhost');

  /** A page with a virtual platform authenticator that verifies its user and answers at once. */
  async function pageWithAuthenticator(): Promise<{ page: Page; cdp: CDPSession; authenticatorId: string }> {
    // bypassCSP: the accessibility check injects axe as an inline script.
    const page = await portal().newPage({ bypassCSP: true });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return { page, cdp, authenticatorId };
  }

  async function signInWithPassword(page: Page, userName: string) {
    await page.goto(`${baseUrl()}/`);
    await page.getByLabel('Username').fill(userName);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  /** Enrols a passkey named `name` on the onboarding screen a first sign-in leads to. */
  async function enrolAtOnboarding(page: Page, userName: string, name: string) {
    await signInWithPassword(page, userName);
    await page.waitForURL(`${baseUrl()}/otp/onboard`);
    await page.getByRole('button', { name: /Set up a passkey/ }).click();
    await page.getByLabel('Passkey name').fill(name);
    await page.getByRole('button', { name: 'Create passkey' }).click();
    await page.waitForURL(/\/home/);
    await page.getByText('Your passkey is set up.').waitFor();
  }

  async function logOut(page: Page) {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${baseUrl()}/`);
  }

  it('enrols a passkey at onboarding, uses it as the second factor and alone, and refuses it once removed', async () => {
    const { page, cdp, authenticatorId } = await pageWithAuthenticator();

    await enrolAtOnboarding(page, 'passkey.user', 'Test key');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]?.isResidentCredential).toBe(true);
    await logOut(page);

    // The password sign-in now owes the passkey as its second factor (the account has no TOTP app).
    await signInWithPassword(page, 'passkey.user');
    await page.waitForURL(`${baseUrl()}/otp/verify`);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.waitForURL(/\/home/);
    await logOut(page);

    // Users may sign in with a passkey alone (the default): no name, no password, no code.
    const passkeyButton = page.getByRole('button', { name: 'Sign in with a passkey' });
    await passkeyButton.waitFor();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('passkey-login'), fullPage: true });
    await passkeyButton.click();
    await page.waitForURL(/\/home/);

    // The account's only second factor stays: the Passkeys dialog refuses to remove it ...
    await page.getByRole('button', { name: 'Passkeys' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your passkeys' });
    await dialog.getByText('Test key').waitFor();
    await page.screenshot({ path: screenshotPath('passkeys-dialog'), fullPage: true });
    await dialog.getByRole('button', { name: 'Remove Test key' }).click();
    await page.getByRole('dialog', { name: 'Remove passkey' }).getByRole('button', { name: 'Remove' }).click();
    await dialog.getByRole('alert').getByText('This is the account’s only second factor').waitFor();
    await page.keyboard.press('Escape');
    await logOut(page);

    // ... so an administrator removes it, in the console's Users screen.
    const adminPage = await portal().newPage();
    await signInToAdminConsole(adminPage, portal().server);
    await adminPage.goto(`${portal().server.url}/admin/users`);
    await adminPage.getByRole('button', { name: 'Actions for passkey.user (test)' }).click();
    await adminPage.getByRole('menuitem', { name: 'Remove passkeys' }).click();
    await adminPage
      .getByRole('dialog', { name: 'Remove passkeys' })
      .getByRole('button', { name: 'Remove passkeys' })
      .click();
    await adminPage.getByText('Passkeys removed').waitFor();

    // ... the authenticator still holds the credential, but the server no longer knows it.
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('alert').getByText('The passkey could not be verified').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
  });

  it('refuses a passkey whose authenticator cannot verify its user', async () => {
    const { page, cdp, authenticatorId } = await pageWithAuthenticator();
    await enrolAtOnboarding(page, 'uv.user', 'Laptop');
    await logOut(page);

    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    // The browser refuses before anything reaches the server (user verification is required), and
    // says so the way it says "closed": no passkey was used.
    await page.getByRole('status').getByText('No passkey was used').waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    await page.getByLabel('Username').waitFor();
  });
});
