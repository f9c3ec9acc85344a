import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { screenshotPath } from './support/browser.js';
import { usePortal } from './support/portal.js';
import { decodeQrCode, missingCommands, oathtoolCode } from './support/tools.js';

/**
 * TOTP as a person lives it: the admin scans the QR code the console shows (decoded here by zbar, as
 * a phone camera would), types the code their authenticator computes (oathtool, independent of
 * Postern), is signed in by it without being asked for a code again, and from then on needs a code
 * at every sign-in.
 */
describe('two-factor enrolment in Chromium', () => {
  const portal = usePortal({ alsoMissing: () => missingCommands({ zbarimg: 'zbar-tools', oathtool: 'oathtool' }) });
  const scratch = mkdtempSync(path.join(tmpdir(), 'postern-totp-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  async function signInAsAdmin(page: Page) {
    const { server } = portal();
    await page.goto(`${server.url}/admin`);
    await page.getByLabel('Username').fill('postern-admin');
    await page.getByLabel('Password', { exact: true }).fill(server.adminPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  it('enrols an authenticator from the QR code, is signed in by it, and asks for a code at the next sign-in', async () => {
    const { server, newPage } = portal();
    const page = await newPage();
    await signInAsAdmin(page);
    await page.waitForURL(`${server.url}/admin/otp/onboard`);
    // Chromium can use passkeys, so the screen first asks which second factor to set up.
    await page.getByRole('button', { name: /Use an authenticator app/ }).click();

    const qr = page.getByRole('img', { name: 'QR code to scan with your authenticator app' });
    await qr.waitFor();
    await page.screenshot({ path: screenshotPath('admin-totp-onboard'), fullPage: true });
    const qrPng = path.join(scratch, 'qr.png');
    await qr.screenshot({ path: qrPng });
    const uri = new URL(decodeQrCode(qrPng));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('issuer')).toBe('Postern');
    const secret = uri.searchParams.get('secret') ?? '';
    // The key shown for typing by hand is the one in the QR code.
    expect(await page.getByLabel('Secret key').inputValue()).toBe(secret);

    const enrolmentCode = oathtoolCode(secret, new Date());
    await page.getByLabel('Authentication code').fill(enrolmentCode);
    await page.getByRole('button', { name: 'Verify' }).click();
    // The enrolling code signs the admin in: no second request for a code (which would refuse the
    // same one, already spent, until the app shows the next).
    await page.waitForURL(`${server.url}/admin/home`);
    await page.getByText('Two-factor authentication is set up').waitFor();
    expect(await page.getByLabel('Authentication code').count()).toBe(0);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${server.url}/admin`);

    // The next sign-in needs a code. The enrolment used this 30-second step's code, and each code is
    // accepted once, so the authenticator's next code (within the allowed drift) is the one to type.
    await signInAsAdmin(page);
    await page.waitForURL(`${server.url}/admin/otp/verify`);
    await page.screenshot({ path: screenshotPath('admin-totp-verify'), fullPage: true });
    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByText('Invalid code').isVisible()).toBe(true);
    // The enrolling code, typed again within its drift window, is refused as spent, not as wrong.
    await page.getByLabel('Authentication code').fill(enrolmentCode);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByText('This code was just used; wait for the next one').isVisible()).toBe(true);
    await page.getByLabel('Authentication code').fill(oathtoolCode(secret, new Date(Date.now() + 30_000)));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${server.url}/admin/home`);
  });
});
