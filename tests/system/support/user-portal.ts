import type { Locator, Page } from 'playwright-core';
import {
  generateLicenceKeyPair,
  issueLicence,
  publicKeyBase64,
  type LicencePayload,
} from '../../../apps/server/src/licence/licence-format.js';
import type { AdminApi } from './admin-api.js';

/**
 * What the user-portal browser tests arrange through the admin API: a trusted licence, ACLs, users
 * with exactly the ACLs a test needs, and (for the real-firewall test) an agent in the topology.
 */

const licenceSigner = generateLicenceKeyPair();

/** The password every portal test user signs in with. */
export const USER_PASSWORD = 'correct horse battery staple';

/**
 * Server settings: trust the test's licence key, and X-Forwarded-For from 127.0.0.1 so a browser can
 * be presented to the server as another address (the client namespace's, or a documentation one).
 */
export const PORTAL_SETTINGS: Record<string, string> = {
  POSTERN_TRUSTED_PROXIES: '127.0.0.1',
  POSTERN_LICENCE_PUBLIC_KEYS: publicKeyBase64(licenceSigner.publicKey),
};

/**
 * A licence key signed by the key {@link PORTAL_SETTINGS} trusts: 50 users, 20 sessions, issued a
 * day ago, expiring in 30 days, unless `overrides` says otherwise.
 */
export function testLicenceKey(overrides: Partial<LicencePayload> = {}): string {
  const now = Date.now();
  return issueLicence(
    {
      ID: 'lic-system-user-portal',
      Licensee: 'Postern tests',
      UserLimit: 50,
      UserLimitOveragePercentage: 0,
      SessionLimit: 20,
      MaxMachines: 5,
      IssuedAt: new Date(now - 86_400_000).toISOString(),
      Expires: new Date(now + 30 * 86_400_000).toISOString(),
      ...overrides,
    },
    licenceSigner.privateKey,
  );
}

/** Installs a valid licence signed by the key in {@link PORTAL_SETTINGS}: users see their ACLs. */
export async function installLicence(admin: AdminApi): Promise<void> {
  await admin.call('PUT', '/api/admin/settings/license', { License: testLicenceKey() });
}

/** One ACL to create on the published-list backend. */
export interface AclSpec {
  Description: string;
  Category?: string;
  HideFromUsers?: boolean;
}

/**
 * Creates ACLs on one allowlist backend (no agent: they are always ready to grant) and answers
 * their IDs in order.
 */
export async function createAllowlistAcls(admin: AdminApi, acls: readonly AclSpec[]): Promise<string[]> {
  const backend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
    Name: 'published list',
    Config: { allowlist: {} },
  });
  const ids: string[] = [];
  for (const acl of acls) {
    const created = await admin.call<{ ID: string }>('POST', '/api/admin/acls', {
      ...acl,
      BackendID: backend.ID,
      Config: { allowlist: { AllowAccessByIp: true, AllowedIpAddresses: ['192.0.2.10/32'] } },
    });
    ids.push(created.ID);
  }
  return ids;
}

/** A local user (eight-hour sessions, no 2FA unless `extra` says so) given `aclIds` through a group. */
export async function createUserWithAcls(
  admin: AdminApi,
  userName: string,
  aclIds: readonly string[],
  extra: Record<string, unknown> = {},
): Promise<void> {
  const { User } = (await admin.createLocalUser(userName, USER_PASSWORD, {
    TOTPEnabled: false,
    Duration: 480,
    ...extra,
  })) as { User: { ID: string } };
  await admin.call('POST', '/api/admin/groups', {
    Name: `${userName} ACLs`,
    Type: 'local',
    ACLIDs: aclIds,
    UserIDs: [User.ID],
  });
}

/** Signs in on the user login page as a person does. */
export async function fillUserLogin(page: Page, serverUrl: string, userName: string): Promise<void> {
  await page.goto(`${serverUrl}/`);
  await page.getByLabel('Username').fill(userName);
  await page.getByLabel('Password', { exact: true }).fill(USER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Signs in and waits for the NewUserDashboard every new user lands on. */
export async function signInToDashboard(page: Page, serverUrl: string, userName: string): Promise<void> {
  await fillUserLogin(page, serverUrl, userName);
  await page.waitForURL(`${serverUrl}/home/new`);
}

/** The few browser globals read inside page.evaluate (the root project compiles without DOM types). */
interface BrowserGlobals {
  document: {
    documentElement: { scrollWidth: number; clientWidth: number; dataset: Record<string, string | undefined> };
    body: object;
  };
  getComputedStyle(element: object): { backgroundColor: string };
}

/** The colour scheme Mantine applied to the page ('light' or 'dark'). */
export function colorScheme(page: Page): Promise<string | undefined> {
  return page.evaluate(
    () => (globalThis as unknown as BrowserGlobals).document.documentElement.dataset.mantineColorScheme,
  );
}

/** The relative luminance (0 black to 1 white, roughly) of the page's background. */
export function backgroundLuminance(page: Page): Promise<number> {
  return page.evaluate(() => {
    const browser = globalThis as unknown as BrowserGlobals;
    const [r = 0, g = 0, b = 0] = (
      browser.getComputedStyle(browser.document.body).backgroundColor.match(/\d+/g) ?? []
    ).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  });
}

/** How many pixels the page is wider than its viewport (0 or less: no sideways scrolling). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as BrowserGlobals).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** The card of the ACL called `description` (inside `within`, a section, when given). */
export function aclCard(within: Page | Locator, description: string): Locator {
  return within.getByRole('article', { name: description, exact: true });
}

/** How the session countdown reads: HH:MM:SS. */
export const COUNTDOWN = /^(\d{2}):(\d{2}):(\d{2})$/;

/** The session countdown ('Session expires in' HH:MM:SS, a timer named by its label), in seconds. */
export async function countdownSeconds(page: Page, label = 'Session expires in'): Promise<number> {
  const timer = page.getByRole('timer', { name: label });
  const text = (await timer.innerText()).replace(label, '').trim();
  const match = COUNTDOWN.exec(text);
  if (match === null) throw new Error(`the countdown reads "${text}", not HH:MM:SS`);
  const [hours, minutes, seconds] = match.slice(1).map(Number) as [number, number, number];
  return hours * 3600 + minutes * 60 + seconds;
}

/** Waits until the dashboard lists `description`, so what is absent then is really absent. */
export async function dashboardShows(page: Page, description: string): Promise<void> {
  await page.getByText(description, { exact: true }).first().waitFor();
}
