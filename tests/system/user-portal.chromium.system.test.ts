import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { AdminApi } from './support/admin-api.js';
import { accessibilityViolations } from './support/axe.js';
import { screenshotPath } from './support/browser.js';
import { headerRows } from './support/header-rows.js';
import { usePortal } from './support/portal.js';
import {
  COUNTDOWN,
  PORTAL_SETTINGS,
  USER_PASSWORD,
  aclCard,
  backgroundLuminance,
  colorScheme,
  countdownSeconds,
  createAllowlistAcls,
  createUserWithAcls,
  dashboardShows,
  fillUserLogin,
  horizontalOverflow,
  installLicence,
  signInToDashboard,
} from './support/user-portal.js';

/**
 * Everything a person sees between sign-in and network access, in real Chromium against the built
 * server (spec sections 2, 4 and 9): the dashboard's sections, favourites, search and Top thresholds,
 * list view, German, dark mode, a phone and axe-core's verdict. A grant on a real firewall is in
 * user-portal-firewall.chromium.system.test.ts. Screenshots of each screen are kept in test-results/screenshots.
 */

/** A documentation address (RFC 5737) the server is told the browser has, through X-Forwarded-For. */
const BROWSER_ADDRESS = '203.0.113.7';
const SERVICES = Array.from({ length: 21 }, (_, index) => `Service ${String(index + 1).padStart(2, '0')}`);

/** A card-view section by its heading (Favourites, Top, a category, Other). */
function section(page: Page, name: string): Locator {
  return page.getByRole('region', { name, exact: true });
}

function searchBox(page: Page): Locator {
  return page.getByRole('searchbox', { name: 'Search' });
}

/** The computed text colour of an element as [r, g, b]. */
async function textColour(locator: Locator): Promise<number[]> {
  const colour = await locator.evaluate(
    (element) =>
      (globalThis as unknown as { getComputedStyle(element: unknown): { color: string } }).getComputedStyle(element)
        .color,
  );
  return (colour.match(/\d+/g) ?? []).slice(0, 3).map(Number);
}

/** Orange (a hue between red and yellow, well saturated), not green, red, grey or the text colour. */
function isOrange([r = 0, g = 0, b = 0]: number[]): boolean {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  if (max === 0 || (max - min) / max < 0.5 || max !== r) return false;
  const hue = (60 * (g - b)) / (max - min);
  return hue >= 12 && hue <= 45;
}

/** Signs a user in at / with the German sign-in form (the browser speaks German) and waits for the dashboard. */
async function signInToDashboardInGerman(page: Page, serverUrl: string, userName: string): Promise<void> {
  await page.goto(`${serverUrl}/`);
  await page.getByLabel('Benutzername').fill(userName);
  await page.getByLabel('Passwort', { exact: true }).fill(USER_PASSWORD);
  await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
  await page.waitForURL(`${serverUrl}/home/new`);
}

/** Picks the card or list layout (its name in the page's language) with the Layout radio group. */
async function chooseLayout(page: Page, layout: 'Cards' | 'List' | 'Karten' | 'Liste'): Promise<void> {
  await page
    .getByRole('radiogroup', { name: /^(Layout|Ansicht)$/ })
    .getByText(layout, { exact: true })
    .click();
}

describe('the user portal in Chromium', () => {
  const portal = usePortal({
    settings: PORTAL_SETTINGS,
    arrange: async ({ server }) => {
      const admin = await AdminApi.signIn(server);
      await installLicence(admin);
      const ids = await createAllowlistAcls(admin, [
        ...SERVICES.map((Description) => ({ Description })),
        { Description: 'Billing database', Category: 'Databases' },
        { Description: 'Secret backdoor', HideFromUsers: true },
      ]);
      const services = ids.slice(0, SERVICES.length);
      const [billing, hidden] = ids.slice(SERVICES.length) as [string, string];
      const everyday = [services[0], services[1], billing, hidden] as string[];
      for (const count of [10, 11, 20, 21]) await createUserWithAcls(admin, `acls.${count}`, services.slice(0, count));
      for (const userName of [
        'dana',
        'erik',
        'dark.user',
        'phone.user',
        'axe.user',
        'long.user',
        'lang.user',
        'refused.en',
        'refused.de',
      ]) {
        await createUserWithAcls(admin, userName, everyday);
      }
      await createUserWithAcls(admin, 'totp.user', everyday, { TOTPEnabled: true });
      // Ten-minute sessions: under the 900-second warning from the start.
      await createUserWithAcls(admin, 'short.user', everyday, { Duration: 10 });
    },
  });

  /** A desktop browser the server sees at BROWSER_ADDRESS; axe is injected as an inline script, which Postern's CSP (rightly) refuses. */
  const desktop = {
    viewport: { width: 1280, height: 900 },
    extraHTTPHeaders: { 'x-forwarded-for': BROWSER_ADDRESS },
    bypassCSP: true,
  };

  /** axe's findings on the page as it is now, each prefixed with where it was seen. */
  const axeFindings = async (page: Page, where: string) =>
    (await accessibilityViolations(page)).map((line) => `${where}: ${line}`);

  /** The texts of a refused grant, per language (apps/web/src/i18n/locales/{en,de}). */
  const REFUSAL_TEXTS = {
    en: {
      grant: 'Grant Access',
      list: 'List',
      title: 'Access to Billing database was not granted',
      reason: 'This address is never granted',
      dismiss: 'Dismiss the message about Billing database',
    },
    de: {
      grant: 'Zugriff gewähren',
      list: 'Liste',
      title: 'Zugriff auf Billing database wurde nicht gewährt',
      reason: 'Diese Adresse wird nie freigegeben',
      dismiss: 'Meldung zu Billing database schließen',
    },
  } as const;

  it.each(['en', 'de'] as const)(
    'keeps a refused grant on its card with the reason until it is dismissed (%s)',
    async (language) => {
      const { server, newPage } = portal();
      const texts = REFUSAL_TEXTS[language];
      // A browser the server sees at a cloud-metadata address, which no grant ever opens.
      const page = await newPage({
        ...desktop,
        locale: language === 'de' ? 'de-DE' : 'en-US',
        extraHTTPHeaders: { 'x-forwarded-for': '169.254.169.254' },
      });
      if (language === 'en') await signInToDashboard(page, server.url, 'refused.en');
      else await signInToDashboardInGerman(page, server.url, 'refused.de');
      await dashboardShows(page, 'Billing database');
      const card = aclCard(page, 'Billing database');
      await card.getByRole('button', { name: texts.grant }).click();

      const refusal = card.getByRole('alert').filter({ hasText: texts.title });
      await refusal.waitFor();
      expect(await refusal.innerText()).toContain(texts.reason);
      // The button offers the grant again, and the refusal stays beside it: no other card has one.
      expect(await card.getByRole('button', { name: texts.grant }).isEnabled()).toBe(true);
      expect(await page.getByRole('alert').filter({ hasText: texts.title }).count()).toBe(1);
      const found = await axeFindings(page, `refused grant (${language})`);
      await page.screenshot({ path: screenshotPath(`user-dashboard-refused-${language}`), fullPage: true });

      // It outlives a change of view: the list shows it on the knoc's row.
      await chooseLayout(page, texts.list);
      const row = page.getByRole('table').getByRole('row').filter({ hasText: 'Billing database' });
      await row.getByRole('alert').filter({ hasText: texts.title }).waitFor();
      expect(await row.getByText(texts.reason, { exact: false }).isVisible()).toBe(true);

      // Dismissed, it goes; nothing else on the page is refused.
      await row.getByRole('button', { name: texts.dismiss }).click();
      await expect.poll(() => page.getByRole('alert').filter({ hasText: texts.title }).count()).toBe(0);
      expect(await row.getByRole('button', { name: texts.grant }).isVisible()).toBe(true);
      expect(found).toEqual([]);
    },
  );

  it('shows the dashboard in sections with a ticking countdown, and keeps favourites across a reload', async () => {
    const { server, newPage } = portal();
    const page = await newPage(desktop);
    await signInToDashboard(page, server.url, 'dana');
    await dashboardShows(page, 'Billing database');

    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Hello, dana (test)');
    // One section per category, the default one labelled Other; nothing hidden from users; no Top or
    // search with three ACLs; no Favourites until there is one.
    expect(await page.getByRole('region').count()).toBe(2);
    expect(await aclCard(section(page, 'Databases'), 'Billing database').isVisible()).toBe(true);
    expect(await aclCard(section(page, 'Other'), 'Service 01').isVisible()).toBe(true);
    expect(await aclCard(section(page, 'Other'), 'Service 02').isVisible()).toBe(true);
    expect(await page.getByText('Secret backdoor').count()).toBe(0);
    expect(await searchBox(page).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Grant Access' }).count()).toBe(3);
    // The address grants open, as the older Home shows it.
    expect(await page.getByText('Your IP address', { exact: true }).isVisible()).toBe(true);
    expect(await page.getByText(BROWSER_ADDRESS, { exact: true }).isVisible()).toBe(true);

    // An eight-hour session, counting down each second.
    const left = await countdownSeconds(page);
    expect(left).toBeGreaterThan(480 * 60 - 120);
    expect(left).toBeLessThanOrEqual(480 * 60);
    await expect.poll(() => countdownSeconds(page), { timeout: 3_000 }).toBeLessThan(left);

    await aclCard(page, 'Billing database').getByRole('button', { name: 'Add Billing database to favourites' }).click();
    const favourites = section(page, 'Favourites');
    await aclCard(favourites, 'Billing database').waitFor();
    await page.screenshot({ path: screenshotPath('user-dashboard-cards'), fullPage: true });

    await page.reload();
    await dashboardShows(page, 'Service 02');
    expect(await aclCard(favourites, 'Billing database').isVisible()).toBe(true);
    expect(await favourites.getByRole('article').count()).toBe(1);
    // Un-marking it takes the section away again.
    await aclCard(favourites, 'Billing database')
      .getByRole('button', { name: 'Remove Billing database from favourites' })
      .click();
    await expect.poll(() => favourites.count()).toBe(0);
  });

  it('switches the language from the header and keeps the choice with the account, in another browser too', async () => {
    const { server, newPage } = portal();
    const first = await newPage(desktop);
    await signInToDashboard(first, server.url, 'lang.user');
    await first.getByRole('button', { name: /^Language: English/ }).click();
    await first.getByRole('menuitemradio', { name: 'Deutsch' }).click();
    await first.getByRole('button', { name: 'Abmelden' }).waitFor();
    expect(await first.locator('html').getAttribute('lang')).toBe('de');

    // A browser that never chose (its own locale English) signs in and gets the account's German.
    const second = await newPage({ ...desktop, locale: 'en-US' });
    await signInToDashboard(second, server.url, 'lang.user');
    await second.getByRole('button', { name: 'Abmelden' }).waitFor();
    expect(await second.getByRole('button', { name: /^Sprache: Deutsch/ }).isVisible()).toBe(true);
    await second.screenshot({ path: screenshotPath('user-dashboard-language-de'), fullPage: true });
  });

  it('switches to the list view with its columns and keeps it across a reload', async () => {
    const { server, newPage } = portal();
    const page = await newPage(desktop);
    await signInToDashboard(page, server.url, 'erik');
    await dashboardShows(page, 'Billing database');

    await chooseLayout(page, 'List');
    const table = page.getByRole('table');
    await table.waitFor();
    expect(await table.getByRole('columnheader').allInnerTexts()).toEqual([
      'Favourite',
      'Category',
      'System',
      'Access',
    ]);
    const billing = table.getByRole('row').filter({ hasText: 'Billing database' });
    expect(await billing.getByRole('cell', { name: 'Databases', exact: true }).isVisible()).toBe(true);
    expect(await billing.getByRole('button', { name: 'Grant Access' }).isVisible()).toBe(true);
    expect(
      await table.getByRole('row').filter({ hasText: 'Service 01' }).getByRole('cell', { name: 'Other' }).count(),
    ).toBe(1);
    expect(await page.getByRole('region').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('user-dashboard-list'), fullPage: true });

    await page.reload();
    await page.getByRole('table').waitFor();
    expect(await page.getByRole('columnheader', { name: 'Category' }).isVisible()).toBe(true);
    await chooseLayout(page, 'Cards');
    await section(page, 'Databases').waitFor();
  });

  it('shows Home with the countdown, the current address, the revalidation note and the ACL table', async () => {
    const { server, newPage } = portal();
    const page = await newPage(desktop);
    await signInToDashboard(page, server.url, 'erik');
    await page.goto(`${server.url}/home`);

    await page.getByText('Leaving this page open validates your IP every 30 seconds').waitFor();
    expect(await page.getByText(BROWSER_ADDRESS, { exact: true }).isVisible()).toBe(true);
    expect(await countdownSeconds(page)).toBeGreaterThan(480 * 60 - 120);
    const table = page.getByRole('table');
    expect(await table.getByRole('columnheader').allInnerTexts()).toEqual(['Description', 'Status', 'Actions']);
    expect(await table.getByRole('row').filter({ hasText: 'Billing database' }).count()).toBe(1);
    expect(await table.getByRole('button', { name: 'Grant Access' }).count()).toBe(3);
    expect(await table.getByText('Secret backdoor').count()).toBe(0);
    await page.screenshot({ path: screenshotPath('user-home'), fullPage: true });
  });

  it('offers search above 10 ACLs only, and it filters', async () => {
    const { server, newPage } = portal();
    const ten = await newPage(desktop);
    await signInToDashboard(ten, server.url, 'acls.10');
    await dashboardShows(ten, 'Service 10');
    expect(await ten.getByRole('article').count()).toBe(10);
    expect(await searchBox(ten).count()).toBe(0);

    const eleven = await newPage(desktop);
    await signInToDashboard(eleven, server.url, 'acls.11');
    await dashboardShows(eleven, 'Service 11');
    expect(await eleven.getByRole('article').count()).toBe(11);
    await searchBox(eleven).fill('service 07');
    await expect.poll(() => eleven.getByRole('article').count()).toBe(1);
    expect(await aclCard(eleven, 'Service 07').isVisible()).toBe(true);
    await eleven.screenshot({ path: screenshotPath('user-dashboard-search'), fullPage: true });
  });

  it('shows the Top section above 20 ACLs only, with the 5 most used', async () => {
    const { server, newPage } = portal();
    const grantAll = async (page: Page, descriptions: readonly string[]) => {
      for (const description of descriptions) {
        const card = aclCard(section(page, 'Other'), description);
        await card.getByRole('button', { name: 'Grant Access' }).click();
        await card.getByRole('button', { name: 'Revoke Access' }).waitFor();
      }
    };

    // Used or not, 20 ACLs have no Top.
    const twenty = await newPage(desktop);
    await signInToDashboard(twenty, server.url, 'acls.20');
    await dashboardShows(twenty, 'Service 20');
    await grantAll(twenty, ['Service 01']);
    expect(await twenty.getByRole('heading', { name: 'Top', exact: true }).count()).toBe(0);

    const twentyOne = await newPage(desktop);
    await signInToDashboard(twentyOne, server.url, 'acls.21');
    await dashboardShows(twentyOne, 'Service 21');
    const top = section(twentyOne, 'Top');
    await top.waitFor();
    expect(await top.getByRole('article').count()).toBe(0);
    // Six ACLs used, one of them twice (granted, revoked, granted): Top lists five, that one first.
    await grantAll(twentyOne, ['Service 09']);
    await aclCard(section(twentyOne, 'Other'), 'Service 09').getByRole('button', { name: 'Revoke Access' }).click();
    await aclCard(section(twentyOne, 'Other'), 'Service 09').getByRole('button', { name: 'Grant Access' }).waitFor();
    await grantAll(twentyOne, ['Service 09', 'Service 01', 'Service 02', 'Service 03', 'Service 04', 'Service 05']);
    await expect.poll(() => top.getByRole('article').count()).toBe(5);
    expect(await top.getByRole('article').first().innerText()).toContain('Service 09');
    await twentyOne.screenshot({ path: screenshotPath('user-dashboard-top'), fullPage: true });
  });

  it('turns the Access for badge orange under 900 seconds', async () => {
    const { server, newPage } = portal();
    const grantedBadge = async (userName: string) => {
      const page = await newPage(desktop);
      await signInToDashboard(page, server.url, userName);
      const card = aclCard(page, 'Billing database');
      await card.getByRole('button', { name: 'Grant Access' }).click();
      const badge = card.getByText(/^Access for /);
      await badge.waitFor();
      return { page, badge };
    };

    const long = await grantedBadge('long.user');
    expect(await long.badge.innerText()).toBe('Access for 8 hours');
    expect(isOrange(await textColour(long.badge))).toBe(false);

    const short = await grantedBadge('short.user');
    expect(await short.badge.innerText()).toBe('Access for 10 minutes');
    expect(isOrange(await textColour(short.badge))).toBe(true);
    await short.page.screenshot({ path: screenshotPath('user-dashboard-warning'), fullPage: true });
  });

  it('turns the session countdown orange under 900 seconds', async () => {
    const { server, newPage } = portal();
    const timeLeft = async (userName: string) => {
      const page = await newPage(desktop);
      await signInToDashboard(page, server.url, userName);
      const time = page.getByRole('timer', { name: 'Session expires in' }).getByText(COUNTDOWN);
      await time.waitFor();
      return time;
    };

    expect(isOrange(await textColour(await timeLeft('long.user')))).toBe(false);
    expect(isOrange(await textColour(await timeLeft('short.user')))).toBe(true);
  });

  it('speaks German to a browser set to German', async () => {
    const { server, newPage } = portal();
    const page = await newPage({ ...desktop, locale: 'de-DE' });
    await signInToDashboardInGerman(page, server.url, 'dana');
    await dashboardShows(page, 'Billing database');

    expect(await page.locator('html').getAttribute('lang')).toMatch(/^de\b/);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Hallo, dana (test)');
    expect(await countdownSeconds(page, 'Sitzung läuft ab in')).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Zugriff gewähren' }).count()).toBe(3);
    expect(await aclCard(section(page, 'Sonstige'), 'Service 01').isVisible()).toBe(true);
    expect(await page.getByRole('radiogroup', { name: 'Ansicht' }).isVisible()).toBe(true);
    expect(await page.getByText(/Grant Access|Session expires in|Other/).count()).toBe(0);
    await page.screenshot({ path: screenshotPath('user-dashboard-de'), fullPage: true });
    const found = await axeFindings(page, 'NewUserDashboard (de)');
    // The header's language menu, open. Opened from the keyboard it focuses its first item, as the
    // WAI-ARIA menu button pattern asks (the theme removed Mantine's role-less focus placeholder).
    await page.getByRole('button', { name: /^Sprache: / }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menu').waitFor();
    await expect.poll(() => page.locator(':focus').getAttribute('role')).toBe('menuitemradio');
    found.push(...(await axeFindings(page, 'NewUserDashboard, language menu (de)')));
    expect(found).toEqual([]);
  });

  it('turns dark from the colour-mode toggle and stays dark after a reload', async () => {
    const { server, newPage } = portal();
    const page = await newPage({ ...desktop, colorScheme: 'light' });
    await signInToDashboard(page, server.url, 'dark.user');
    await dashboardShows(page, 'Billing database');
    const scheme = () => colorScheme(page);
    expect(await scheme()).toBe('light');
    expect(await backgroundLuminance(page)).toBeGreaterThan(0.8);

    await page.getByRole('button', { name: 'Change colour scheme' }).click();
    await page.getByRole('menuitemradio', { name: 'Dark' }).click();
    await expect.poll(scheme).toBe('dark');
    expect(await backgroundLuminance(page)).toBeLessThan(0.2);
    await page.screenshot({ path: screenshotPath('user-dashboard-dark'), fullPage: true });

    await page.reload();
    await dashboardShows(page, 'Billing database');
    expect(await scheme()).toBe('dark');
  });

  it('is usable on a 390 px wide phone: no sideways scrolling, the grant button works', async () => {
    const { server, newPage } = portal();
    const page = await newPage({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
      isMobile: true,
      hasTouch: true,
      extraHTTPHeaders: { 'x-forwarded-for': BROWSER_ADDRESS },
      bypassCSP: true,
    });
    await signInToDashboard(page, server.url, 'phone.user');
    await dashboardShows(page, 'Billing database');

    const overflow = () => horizontalOverflow(page);
    expect(await overflow()).toBeLessThanOrEqual(0);
    // The header keeps to two rows: the greeting beside the countdown, then the controls as icons.
    expect(await headerRows(page)).toBeLessThanOrEqual(2);
    expect(await page.getByRole('banner').getByRole('button', { name: 'Log out' }).isVisible()).toBe(true);
    expect(await countdownSeconds(page)).toBeGreaterThan(0);
    const card = aclCard(page, 'Billing database');
    const grant = card.getByRole('button', { name: 'Grant Access' });
    await grant.scrollIntoViewIfNeeded();
    const box = await grant.boundingBox();
    expect(box).not.toBeNull();
    expect(box?.x).toBeGreaterThanOrEqual(0);
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390);
    // Big enough for a thumb (WCAG 2.5.8 asks for at least 24 px).
    expect(box?.height).toBeGreaterThanOrEqual(24);
    await grant.tap();
    await card.getByRole('button', { name: 'Revoke Access' }).waitFor({ timeout: 10_000 });
    expect(await card.getByText(/^Access for /).isVisible()).toBe(true);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: screenshotPath('user-dashboard-phone'), fullPage: true });
    const found = await axeFindings(page, 'NewUserDashboard (phone, granted)');
    await chooseLayout(page, 'List');
    await page.getByRole('table').waitFor();
    found.push(...(await axeFindings(page, 'NewUserDashboard (phone, list)')));
    await chooseLayout(page, 'Cards');
    expect(found).toEqual([]);

    await card.getByRole('button', { name: 'Revoke Access' }).tap();
    await card.getByRole('button', { name: 'Grant Access' }).waitFor({ timeout: 10_000 });
  });

  it('has no accessibility violations on Login, TwoFactorOnboard, Home and NewUserDashboard, light and dark', async () => {
    const { server, newPage } = portal();
    const page = await newPage(desktop);
    const found: string[] = [];
    const check = async (screen: string) => found.push(...(await axeFindings(page, screen)));

    await page.goto(`${server.url}/`);
    await page.getByLabel('Username').waitFor();
    await page.screenshot({ path: screenshotPath('user-login'), fullPage: true });
    await check('Login');

    await fillUserLogin(page, server.url, 'totp.user');
    await page.waitForURL(`${server.url}/otp/onboard`);
    // Chromium can use passkeys: the screen first offers a passkey or an authenticator app.
    await page.getByRole('button', { name: /Use an authenticator app/ }).waitFor();
    await check('TwoFactorOnboard (choice)');
    await page.getByRole('button', { name: /Use an authenticator app/ }).click();
    await page.getByRole('img', { name: 'QR code to scan with your authenticator app' }).waitFor();
    await page.screenshot({ path: screenshotPath('user-two-factor-onboard'), fullPage: true });
    await check('TwoFactorOnboard');

    await signInToDashboard(page, server.url, 'axe.user');
    await dashboardShows(page, 'Billing database');
    await check('NewUserDashboard (cards)');
    await chooseLayout(page, 'List');
    await page.getByRole('table').waitFor();
    await check('NewUserDashboard (list)');
    await page.getByRole('button', { name: 'Change colour scheme' }).click();
    await page.getByRole('menu').waitFor();
    await check('NewUserDashboard, colour-scheme menu');
    await page.getByRole('menuitemradio', { name: 'Dark' }).click();
    await expect.poll(() => colorScheme(page)).toBe('dark');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    await check('NewUserDashboard (list, dark)');
    await chooseLayout(page, 'Cards');
    await section(page, 'Databases').waitFor();
    await check('NewUserDashboard (cards, dark)');

    await page.goto(`${server.url}/home`);
    await page.getByText('Leaving this page open validates your IP every 30 seconds').waitFor();
    await check('Home (dark)');

    expect(found).toEqual([]);
  });
});
