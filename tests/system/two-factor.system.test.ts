import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from '@postern/test-support';
import { launchChromium, newContext, screenshotPath } from './support/browser.js';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { missingBuild, missingChromium, requireTool } from './support/requirements.js';
import { decodeQrCode, missingCommands, oathtoolCode } from './support/tools.js';

/**
 * TOTP as a person lives it: the admin scans the QR code the console shows (decoded here by zbar, as
 * a phone camera would), types the code their authenticator computes (oathtool, independent of
 * Postern), returns to sign in, and from then on needs a code at every sign-in.
 */
describe('two-factor enrolment in Chromium', () => {
  const missing =
    missingChromium() ?? missingBuild(REPO_ROOT) ?? missingCommands({ zbarimg: 'zbar-tools', oathtool: 'oathtool' });
  let server: PosternServer | undefined;
  let browser: Browser | undefined;
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), 'postern-totp-'));
    if (missing !== null) return;
    server = await startPosternServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });
  beforeEach((context) => requireTool(context, missing));

  async function signInAsAdmin(page: Page, password: string) {
    await page.goto(`${server?.url}/admin`);
    await page.getByLabel('Username').fill('postern-admin');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it('enrols an authenticator from the QR code and asks for a code at the next sign-in', async () => {
    if (server === undefined || browser === undefined) throw new Error('the server or browser did not start');
    const page = await (await newContext(browser)).newPage();
    await signInAsAdmin(page, server.adminPassword);
    await page.waitForURL(`${server.url}/admin/otp/onboard`);

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

    await page.getByLabel('Authentication code').fill(oathtoolCode(secret, new Date()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${server.url}/admin`);

    // The next sign-in needs a code. The enrolment used this 30-second step's code, and each code is
    // accepted once, so the authenticator's next code (within the allowed drift) is the one to type.
    await signInAsAdmin(page, server.adminPassword);
    await page.waitForURL(`${server.url}/admin/otp/verify`);
    await page.screenshot({ path: screenshotPath('admin-totp-verify'), fullPage: true });
    await page.getByLabel('Authentication code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect.poll(() => page.getByText('Invalid code').isVisible()).toBe(true);
    await page.getByLabel('Authentication code').fill(oathtoolCode(secret, new Date(Date.now() + 30_000)));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(`${server.url}/admin/home`);
    await page.context().close();
  });
});
