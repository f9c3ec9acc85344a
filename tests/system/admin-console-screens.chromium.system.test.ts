import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { AdminApi } from './support/admin-api.js';
import {
  ADMIN_SCREENS,
  ARRANGED,
  chooseColourScheme,
  closeDialog,
  openDialog,
  openMenu,
  openScreen,
  pngPixels,
  signInToAdminConsoleIn,
  stripedPng,
  truncatedTableTexts,
  type AdminScreen,
  type Language,
} from './support/admin-screens.js';
import { accessibilityViolations } from './support/axe.js';
import { screenshotPath } from './support/browser.js';
import { usePortal } from './support/portal.js';
import { rawTextOnPage } from './support/raw-text.js';
import {
  PORTAL_SETTINGS,
  testLicenceKey,
  colorScheme,
  createAllowlistAcls,
  createUserWithAcls,
  horizontalOverflow,
  installLicence,
  signInToDashboard,
} from './support/user-portal.js';

/**
 * The admin console's screens in real Chromium against the built server (spec: administration §2,
 * portal-and-grants §7): every screen and its main dialog in English and German, light and dark, on a
 * desktop and a 390 px phone, with axe-core's verdict and no raw text key or value shown; a logo
 * uploaded in Settings that the user portal then shows; a licence entered in Settings that takes the
 * unlicensed banner away. Screenshots of each screen are kept in test-results/screenshots. Creating
 * agents, users, groups and keys through the dialogs is admin-console-flow.chromium.system.test.ts's.
 */

/** A desktop browser; axe is injected as an inline script, which Postern's CSP (rightly) refuses. */
const DESKTOP = { viewport: { width: 1280, height: 900 }, bypassCSP: true };
const PHONE = {
  ...DESKTOP,
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};

/** A screen's screenshot name: its own, or its path with its slashes as dashes (knocs/new → knocs-new). */
const fileNameOf = (screen: AdminScreen) => screen.name ?? screen.path.replaceAll('/', '-');

const SETTINGS_SCREEN = ADMIN_SCREENS.find((screen) => screen.path === 'settings') as AdminScreen;

/**
 * axe's findings on the page as it is now (every impact), and the raw text keys or values it
 * shows (support/raw-text.ts), each prefixed with where it was seen.
 */
async function violations(page: Page, where: string): Promise<string[]> {
  const found = [...(await accessibilityViolations(page)), ...(await rawTextOnPage(page))];
  return found.map((line) => `${where}: ${line}`);
}

/** Whether `box` lies wholly inside a viewport of this size. */
const inside = (box: { x: number; y: number; width: number; height: number } | null, viewport: Viewport) =>
  box !== null &&
  box.x >= 0 &&
  box.y >= 0 &&
  box.x + box.width <= viewport.width &&
  box.y + box.height <= viewport.height;

type Viewport = { width: number; height: number };

/**
 * What is wrong with where a dialog's buttons are: a dialog taller than the window must scroll its
 * body and keep its buttons (the shared row every form dialog uses, `[data-dialog-actions]`) in
 * sight, as the create-user dialog did not at 900 px. A dialog without that row (a detail dialog
 * whose actions sit in its header) must itself fit the window. Checked for a moment, while the
 * opening transition settles; '' when all is well.
 */
async function dialogActionsProblem(dialog: Locator, viewport: Viewport): Promise<string> {
  const row = dialog.locator('[data-dialog-actions]');
  let problem = '';
  for (let attempt = 0; attempt < 20; attempt += 1) {
    if ((await row.count()) === 0) {
      const box = await dialog.boundingBox();
      problem = inside(box, viewport) ? '' : `it does not fit the window: ${JSON.stringify(box)}`;
    } else {
      const boxes = await Promise.all((await row.getByRole('button').all()).map((button) => button.boundingBox()));
      const outside = boxes.filter((box) => !inside(box, viewport));
      problem = outside.length === 0 ? '' : `buttons outside the window: ${JSON.stringify(outside)}`;
    }
    if (problem === '') return '';
    await dialog.page().waitForTimeout(100);
  }
  return `${problem} (viewport ${viewport.width}×${viewport.height})`;
}

describe('the admin console screens in Chromium', () => {
  const portal = usePortal({
    settings: PORTAL_SETTINGS,
    // Real rows in every table: an agent, two users, their groups, an API key, the audit log they leave.
    arrange: async ({ server }) => {
      const admin = await AdminApi.signIn(server);
      await installLicence(admin);
      const acls = await createAllowlistAcls(admin, [
        { Description: 'Billing database', Category: 'Databases' },
        { Description: 'Build server' },
      ]);
      const [first, second] = ARRANGED.users;
      await createUserWithAcls(admin, first, acls);
      await createUserWithAcls(admin, second, acls.slice(0, 1));
      await admin.call('POST', '/api/admin/agents', { Name: ARRANGED.agent });
      await admin.call('POST', '/api/admin/api-keys', {
        Name: ARRANGED.apiKey,
        Scopes: [`allowlist.read:${acls[0] ?? ''}`],
        AllowedFrom: [{ Prefix: '192.0.2.0/24', Note: 'The deployment network' }],
      });
      await admin.call('POST', '/api/admin/admins', {
        Name: 'Screens Admin',
        UserName: ARRANGED.admin.userName,
        AuthType: 'local',
        TOTPEnabled: false,
        PlainPassword: ARRANGED.admin.password,
        ConfirmPassword: ARRANGED.admin.password,
      });
    },
  });

  /**
   * Walks every screen in one language and scheme: a screenshot named `admin-<screen>-<suffix>`, and
   * axe's verdict on the screen and on its main dialog, whose buttons must be in sight; with `menus`,
   * on its menu too (the English walks, light and dark: a menu's roles and colours do not change with
   * the language or the width). On a `phone` it also refuses sideways scrolling, a table text cut
   * short and a dialog wider than the window.
   */
  async function walkScreens(
    page: Page,
    language: Language,
    suffix: string,
    { phone = false, menus = false }: { phone?: boolean; menus?: boolean } = {},
  ): Promise<string[]> {
    const { server } = portal();
    const viewport = page.viewportSize() ?? DESKTOP.viewport;
    const found: string[] = [];
    for (const screen of ADMIN_SCREENS) {
      await openScreen(page, server, screen, language);
      if (phone) {
        const overflow = await horizontalOverflow(page);
        if (overflow > 0) found.push(`${screen.path} is ${overflow} px too wide`);
        // A table scrolls sideways in its own container; a squeezed column must not cut a badge
        // ("Awaiting connection", a version's state) down to an ellipsis.
        for (const text of await truncatedTableTexts(page)) found.push(`${screen.path} cuts "${text}" short`);
      }
      await page.screenshot({ path: screenshotPath(`admin-${fileNameOf(screen)}-${suffix}`), fullPage: true });
      found.push(...(await violations(page, `${screen.path} (${suffix})`)));
      if (menus && screen.menu !== undefined) {
        const menu = await openMenu(page, screen, language);
        found.push(...(await violations(page, `${screen.path} menu (${suffix})`)));
        await page.keyboard.press('Escape');
        await menu.waitFor({ state: 'detached' });
      }
      if (screen.dialog === undefined) continue;
      const where = `${screen.path} dialog "${screen.dialog.title[language]}" (${suffix})`;
      const dialog = await openDialog(page, screen, language);
      if (phone) {
        const box = await dialog.boundingBox();
        if (box === null || box.x < 0 || box.x + box.width > viewport.width) {
          found.push(`${where} does not fit: ${JSON.stringify(box)}`);
        }
      }
      const outside = await dialogActionsProblem(dialog, viewport);
      if (outside !== '') found.push(`${where}: ${outside}`);
      await page.screenshot({ path: screenshotPath(`admin-${fileNameOf(screen)}-dialog-${suffix}`) });
      found.push(...(await violations(page, where)));
      const submit = screen.dialog.submitEmpty?.[language];
      if (submit !== undefined) {
        // Its field errors, in the error colour, must be as readable as the rest.
        await dialog.getByRole('button', { name: submit, exact: true }).click();
        await dialog.locator('[aria-invalid="true"]').first().waitFor();
        found.push(...(await violations(page, `${where}, refused as empty`)));
      }
      await closeDialog(page, dialog);
    }
    return found;
  }

  it('shows every screen and its main dialog in English, light, with no accessibility violation', async () => {
    const { server, newPage } = portal();
    const page = await newPage(DESKTOP);
    await signInToAdminConsoleIn(page, server, 'en');
    await chooseColourScheme(page, 'light', 'en');

    expect(await walkScreens(page, 'en', 'en', { menus: true })).toEqual([]);
    // The light choice held on every screen.
    expect(await colorScheme(page)).toBe('light');
  }, 120_000);

  it('speaks German on every screen to a browser set to German', async () => {
    const { server, newPage } = portal();
    const page = await newPage({ ...DESKTOP, locale: 'de-DE' });
    await signInToAdminConsoleIn(page, server, 'de');
    await chooseColourScheme(page, 'light', 'de');
    expect(await page.locator('html').getAttribute('lang')).toMatch(/^de\b/);

    const found = await walkScreens(page, 'de', 'de');
    // The navigation is German too: no English section names are left in it.
    const navigation = page.getByRole('navigation', { name: 'Administrationsnavigation' });
    expect(await navigation.getByRole('link', { name: 'Einstellungen' }).isVisible()).toBe(true);
    expect(await navigation.getByRole('link', { name: /^(Agents|Users|Settings|Logs)$/ }).count()).toBe(0);
    expect(found).toEqual([]);
  }, 120_000);

  it('shows every screen and its main dialog in dark mode with no accessibility violation', async () => {
    const { server, newPage } = portal();
    const page = await newPage(DESKTOP);
    await signInToAdminConsoleIn(page, server, 'en', ARRANGED.admin);
    await chooseColourScheme(page, 'dark', 'en');

    expect(await walkScreens(page, 'en', 'dark', { menus: true })).toEqual([]);
    expect(await colorScheme(page)).toBe('dark');
  }, 120_000);

  it('is usable on a 390 px wide phone: no sideways scrolling, dialogs fit, the navigation opens', async () => {
    const { server, newPage } = portal();
    const page = await newPage(PHONE);
    await signInToAdminConsoleIn(page, server, 'en', ARRANGED.admin);
    expect(await walkScreens(page, 'en', 'phone', { phone: true })).toEqual([]);

    // The sidebar hides behind the burger on a phone; it opens and takes the admin elsewhere.
    const navigation = page.getByRole('navigation', { name: 'Admin navigation' });
    const users = navigation.getByRole('link', { name: 'Users', exact: true });
    const onScreen = async () => {
      const box = await users.boundingBox();
      return box !== null && box.x >= 0 && box.x + box.width <= PHONE.viewport.width;
    };
    expect(await onScreen()).toBe(false);
    await page.getByRole('button', { name: 'Toggle navigation' }).tap();
    await expect.poll(onScreen).toBe(true);
    await users.tap();
    await page.waitForURL(`${server.url}/admin/users`);
    await page.getByRole('heading', { level: 1, name: 'Users', exact: true }).waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  }, 120_000);

  // Last in this block: the logos change what the Settings screen shows.
  it('marks a Settings tab with unsaved edits until saved; uploads a logo the user portal then shows, and removes it', async () => {
    const { server, newPage } = portal();
    const page = await newPage(DESKTOP);
    await signInToAdminConsoleIn(page, server, 'en', ARRANGED.admin);
    await openScreen(page, server, SETTINGS_SCREEN, 'en');
    // One tab per section: Branding is chosen, and its address names it.
    await page.getByRole('tab', { name: 'Branding', exact: true }).click();
    await page.waitForURL(`${server.url}/admin/settings?tab=branding`);
    const branding = page.getByRole('region', { name: 'Branding' });
    const save = branding.getByRole('button', { name: 'Save' });

    // Two logos that differ, so the portal can be seen to pick the one for its colour scheme.
    const lightLogo = stripedPng(24, 12, [
      [20, 90, 160],
      [240, 240, 240],
    ]);
    const darkLogo = stripedPng(30, 10, [
      [250, 200, 40],
      [30, 30, 30],
      [200, 40, 90],
    ]);
    const upload = async (label: string, png: Buffer) => {
      const field = branding.getByRole('group', { name: label, exact: true });
      const [chooser] = await Promise.all([
        page.waitForEvent('filechooser'),
        field.getByRole('button', { name: 'Choose file' }).click(),
      ]);
      await chooser.setFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
      await field.getByRole('img', { name: `Preview of the ${label}` }).waitFor();
    };
    // Untouched, the tab carries no unsaved-changes marker.
    const tabs = page.getByRole('tablist', { name: 'Settings sections' });
    const brandingTab = tabs.getByRole('tab', { name: /^Branding/ });
    const unsavedMarker = brandingTab.getByTitle('Unsaved changes');
    expect(await brandingTab.getAttribute('aria-label')).toBeNull();
    expect(await unsavedMarker.count()).toBe(0);
    await upload('Light-mode logo', lightLogo);
    // An edit marks the tab, for the eye and in its name; the other tabs stay unmarked.
    await unsavedMarker.waitFor();
    expect(await brandingTab.getAttribute('aria-label')).toBe('Branding (Unsaved changes)');
    expect(await tabs.getByRole('tab', { name: /\(Unsaved changes\)$/ }).count()).toBe(1);
    const found = await violations(page, 'settings, unsaved branding (dark)');
    await page.screenshot({ path: screenshotPath('admin-settings-unsaved'), fullPage: true });
    await upload('Dark-mode logo', darkLogo);
    await save.click();
    await page.getByText('Settings updated').waitFor();
    await expect.poll(() => save.isDisabled()).toBe(true);
    // Saved, the marker goes.
    await unsavedMarker.waitFor({ state: 'detached' });
    expect(await brandingTab.getAttribute('aria-label')).toBeNull();
    expect(await tabs.getByRole('tab', { name: 'Branding', exact: true }).isVisible()).toBe(true);
    expect(found).toEqual([]);
    await page.screenshot({ path: screenshotPath('admin-settings-logos'), fullPage: true });

    /** The portal's logo for a user whose browser prefers `scheme`, and the image it serves. */
    const portalLogo = async (scheme: 'light' | 'dark') => {
      const user = await newPage({ viewport: DESKTOP.viewport, colorScheme: scheme });
      await signInToDashboard(user, server.url, ARRANGED.users[1]);
      const logo = user.getByRole('img', { name: 'Postern', exact: true });
      await logo.waitFor();
      const tag = await logo.evaluate((element) => (element as unknown as { tagName: string }).tagName);
      const src = await logo.getAttribute('src');
      if (tag !== 'IMG' || src === null) return { user, tag, served: null };
      // Shown, not merely referenced: the browser decoded it at the image's own width.
      await expect
        .poll(() => logo.evaluate((element) => (element as unknown as { naturalWidth: number }).naturalWidth))
        .toBeGreaterThan(0);
      const response = await user.request.get(new URL(src, server.url).toString());
      expect(response.headers()['content-type']).toBe('image/png');
      return { user, tag, served: pngPixels(await response.body()) };
    };

    // The server re-encodes uploads (nothing but pixels is kept), so the pixels are what must match.
    const light = await portalLogo('light');
    expect(light.served).toEqual(pngPixels(lightLogo));
    await light.user.screenshot({ path: screenshotPath('user-dashboard-logo') });
    const dark = await portalLogo('dark');
    expect(dark.served).toEqual(pngPixels(darkLogo));

    // Removing both brings Postern's own mark back, and the logo addresses answer 404.
    await branding.getByRole('button', { name: 'Remove the Light-mode logo' }).click();
    await branding.getByRole('button', { name: 'Remove the Dark-mode logo' }).click();
    expect(await branding.getByText('No logo').count()).toBe(2);
    await save.click();
    await expect.poll(() => save.isDisabled()).toBe(true);
    const removed = await portalLogo('light');
    expect(removed.tag).toBe('svg');
    expect((await removed.user.request.get(`${server.url}/api/branding/logo/light`)).status()).toBe(404);
  }, 90_000);
});

describe('licensing from the admin console in Chromium', () => {
  // A key of this test's own, trusted by the server, signs the licence the admin pastes in.
  const portal = usePortal({ store: 'sqlite', settings: PORTAL_SETTINGS });

  const licenceKey = () =>
    testLicenceKey({
      ID: 'lic-system-admin-console',
      Licensee: 'Postern admin console tests',
      UserLimitOveragePercentage: 10,
    });

  it('installs a licence in Settings and sees the unlicensed banner go', async () => {
    const { server, newPage } = portal();
    const page = await newPage(DESKTOP);
    await signInToAdminConsoleIn(page, server, 'en');
    const found: string[] = [];

    // Unlicensed: the banner on every admin page, with the way to the licence key field.
    const banner = page.getByRole('alert', { name: 'Postern is not licensed' });
    await banner.waitFor();
    expect(await banner.getByText('Without a valid licence users are not granted access').isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath('admin-home-unlicensed'), fullPage: true });
    await banner.getByRole('link', { name: 'Enter a licence key' }).click();
    await page.waitForURL(`${server.url}/admin/settings`);
    const licence = page.getByRole('region', { name: 'Licence' });
    const keyField = licence.getByLabel('Licence key');
    await keyField.waitFor();
    expect(await banner.isVisible()).toBe(true);
    found.push(...(await violations(page, 'settings, unlicensed (dark)')));
    await chooseColourScheme(page, 'light', 'en');
    found.push(...(await violations(page, 'settings, unlicensed (light)')));
    await page.screenshot({ path: screenshotPath('admin-settings-unlicensed'), fullPage: true });

    await keyField.fill(licenceKey());
    await licence.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Licence saved').waitFor();
    await banner.waitFor({ state: 'detached' });
    // The form became the summary: version, users against the limit, days to expiry.
    const summary = licence.getByRole('button', { name: /^Postern \d/ });
    await summary.waitFor();
    expect(await summary.getByText('0 of 50 users', { exact: true }).isVisible()).toBe(true);
    expect(await summary.getByText(/^Expires in (29|30) days$/).isVisible()).toBe(true);
    expect(await keyField.count()).toBe(0);

    const dialog = page.getByRole('dialog', { name: 'Licence' });
    await summary.click();
    await dialog.getByText('Postern admin console tests').waitFor();
    found.push(...(await violations(page, 'settings, licence dialog (light)')));
    await page.screenshot({ path: screenshotPath('admin-settings-licence-dialog') });
    await closeDialog(page, dialog);

    // Kept by the server: after a reload the banner stays away. The summary's version comes from the
    // same admin status the banner is chosen from, so once it shows, the banner would have too.
    await page.reload();
    await summary.waitFor();
    expect(await banner.count()).toBe(0);
    // Thirty days left: the admin home now warns that the licence expires soon, instead.
    await page.goto(`${server.url}/admin/home`);
    await page.getByRole('alert', { name: 'Your licence expires soon' }).waitFor();
    expect(await banner.count()).toBe(0);
    await page.screenshot({ path: screenshotPath('admin-home-licensed'), fullPage: true });
    expect(found).toEqual([]);
  }, 90_000);
});
