import pngjs from 'pngjs';
import type { Locator, Page } from 'playwright-core';
import { nextStep, stepHeading } from './knoc-console.js';
import type { PosternServer } from './postern-server.js';
import { colorScheme } from './user-portal.js';

/**
 * The admin console's screens as the screen tests walk them: where each one is, its heading in both
 * languages, what shows once its data has arrived, and the main dialog it opens. Texts are the ones
 * in apps/web/src/i18n/locales/{en,de}.
 */

const { PNG } = pngjs;

export type Language = 'en' | 'de';

/** The texts of signing in and of the colour-scheme menu, per language. */
const SHELL_TEXTS = {
  en: {
    userName: 'Username',
    password: 'Password',
    signIn: 'Sign in',
    defer: 'Do this next time',
    changeScheme: 'Change colour scheme',
    light: 'Light',
    dark: 'Dark',
  },
  de: {
    userName: 'Benutzername',
    password: 'Passwort',
    signIn: 'Anmelden',
    defer: 'Beim nächsten Mal erledigen',
    changeScheme: 'Farbschema ändern',
    light: 'Hell',
    dark: 'Dunkel',
  },
} as const satisfies Record<Language, Record<string, string>>;

/** One admin screen. */
export interface AdminScreen {
  /** Its path under /admin, also the name its screenshots carry. */
  path: string;
  /** Its level-one heading (the route title). */
  heading: Record<Language, string>;
  /** Something that shows only once the screen's data has arrived: arranged names, the same in both languages. */
  ready: (page: Page) => Locator;
  /** The button that opens the screen's main dialog (in `language`), and the dialog's title in both languages. */
  dialog?: {
    opener: (page: Page, language: Language) => Locator;
    title: Record<Language, string>;
    /** Its submit button, pressed with the form left empty to look at its error messages too. */
    submitEmpty?: Record<Language, string>;
  };
  /** A menu the screen opens (the header's, a row's), looked at open: the button that opens it, in `language`. */
  menu?: (page: Page, language: Language) => Locator;
  /** What its screenshots are named after, when that is not its path (a wizard's later step). */
  name?: string;
  /** The clicks from the loaded path to what the walk looks at (a wizard's Review step). */
  walkTo?: (page: Page, language: Language) => Promise<void>;
}

/** The application wizard's texts on the way to its review, per language. */
const APPLICATION_WIZARD_TEXTS = {
  en: {
    passive: 'Passive',
    name: /^Name/,
    next: 'Next',
    options: 'Knoc options',
    apiKey: 'API key',
    keyName: /^API key name/,
    members: 'Users and groups',
    review: 'Review',
  },
  de: {
    passive: 'Passiv',
    name: /^Name/,
    next: 'Weiter',
    options: 'Knoc-Optionen',
    apiKey: 'API-Schlüssel',
    keyName: /^Name des API-Schlüssels/,
    members: 'Benutzer und Gruppen',
    review: 'Überprüfen',
  },
} as const;

/**
 * Walks the application wizard to its Review step for a passive knoc with a new API key: the last
 * screen before a knoc is created, showing every earlier step's choices (nothing is submitted).
 */
async function reachApplicationReview(page: Page, language: Language): Promise<void> {
  const texts = APPLICATION_WIZARD_TEXTS[language];
  await page.getByRole('radio', { name: texts.passive, exact: true }).check();
  await page.getByRole('textbox', { name: texts.name }).fill('Branch office firewall');
  await nextStep(page, texts.options, texts.next);
  await nextStep(page, texts.apiKey, texts.next);
  await page.getByRole('textbox', { name: texts.keyName }).fill('branch firewall');
  await nextStep(page, texts.members, texts.next);
  await nextStep(page, texts.review, texts.next);
  await stepHeading(page, texts.review).waitFor();
}

/** The names of what the screen tests arrange, so each table has real rows. */
export const ARRANGED = {
  agent: 'build-agent',
  users: ['ada.lovelace', 'grace.hopper'],
  /** The group createUserWithAcls makes for the first user. */
  group: 'ada.lovelace ACLs',
  apiKey: 'ci-deploy',
  /** An admin with TOTP off, for the tests that sign in again and again. */
  admin: { userName: 'screens.admin', password: 'screens admin password 1' },
} as const;

function row(page: Page, text: string): Locator {
  return page.getByRole('row').filter({ hasText: text }).first();
}

/** A button named `names[language]`, and the dialog it opens, titled the same. */
function creates(names: Record<Language, string>): NonNullable<AdminScreen['dialog']> {
  return {
    opener: (page, language) => page.getByRole('button', { name: names[language], exact: true }),
    title: names,
  };
}

/**
 * Every screen of the admin console: the sidebar's, the knoc type chooser, the application wizard's
 * review, and the backends and ACLs screens (reached by address; the spec's sidebar does not list them).
 */
export const ADMIN_SCREENS: readonly AdminScreen[] = [
  {
    path: 'home',
    heading: { en: 'Home', de: 'Startseite' },
    // The recent-activity table has a row once anything was audited (the arranging did plenty).
    ready: (page) => page.getByRole('table').getByRole('row').nth(1),
    menu: (page, language) => page.getByRole('button', { name: SHELL_TEXTS[language].changeScheme }),
  },
  {
    path: 'agents',
    heading: { en: 'Agents', de: 'Agenten' },
    ready: (page) => row(page, ARRANGED.agent),
    menu: (page, language) =>
      page.getByRole('button', { name: `${language === 'en' ? 'Actions for' : 'Aktionen für'} ${ARRANGED.agent}` }),
    dialog: creates({ en: 'Create agent', de: 'Agent anlegen' }),
  },
  {
    path: 'users',
    heading: { en: 'Users', de: 'Benutzer' },
    ready: (page) => row(page, ARRANGED.users[1]),
    // The header's language switch.
    menu: (page, language) => page.getByRole('button', { name: language === 'en' ? /^Language: / : /^Sprache: / }),
    dialog: { ...creates({ en: 'Create user', de: 'Benutzer anlegen' }), submitEmpty: { en: 'Create', de: 'Anlegen' } },
  },
  {
    path: 'admins',
    heading: { en: 'Admins', de: 'Administratoren' },
    ready: (page) => row(page, 'postern-admin'),
    dialog: creates({ en: 'Create admin', de: 'Administrator anlegen' }),
  },
  {
    path: 'knocs',
    heading: { en: 'Knocs', de: 'Knocs' },
    ready: (page) => row(page, 'Billing database'),
    dialog: {
      opener: (page) => page.getByRole('button', { name: 'Billing database', exact: true }),
      title: { en: 'Billing database', de: 'Billing database' },
    },
  },
  {
    path: 'knocs/new',
    heading: { en: 'New knoc', de: 'Neuer Knoc' },
    ready: (page) => page.getByRole('link', { name: /^(New Linux knoc|Neuer Linux-Knoc)$/ }),
  },
  {
    path: 'knocs/new/application',
    name: 'knocs-new-application-review',
    heading: { en: 'New application knoc', de: 'Neuer Anwendungs-Knoc' },
    ready: (page) => page.getByRole('radio', { name: /^(Passive|Passiv)$/ }),
    walkTo: reachApplicationReview,
  },
  {
    path: 'backends',
    heading: { en: 'Backends', de: 'Backends' },
    ready: (page) => row(page, 'published list'),
    dialog: creates({ en: 'Create backend', de: 'Backend anlegen' }),
  },
  {
    path: 'acls',
    heading: { en: 'ACLs', de: 'ACLs' },
    ready: (page) => row(page, 'Build server'),
    dialog: creates({ en: 'Create ACL', de: 'ACL anlegen' }),
  },
  {
    path: 'groups',
    heading: { en: 'Groups', de: 'Gruppen' },
    ready: (page) => row(page, ARRANGED.group),
    dialog: creates({ en: 'Create group', de: 'Gruppe anlegen' }),
  },
  {
    path: 'api-keys',
    heading: { en: 'API keys', de: 'API-Schlüssel' },
    ready: (page) => row(page, ARRANGED.apiKey),
    dialog: creates({ en: 'Create API key', de: 'API-Schlüssel erstellen' }),
  },
  {
    path: 'logs',
    heading: { en: 'Logs', de: 'Protokolle' },
    ready: (page) => page.getByRole('table').getByRole('row').nth(1),
    dialog: {
      opener: (page, language) =>
        page
          .getByRole('button', {
            name: language === 'en' ? /^Show details of the entry of / : /^Details des Eintrags vom .* anzeigen$/,
          })
          .first(),
      title: { en: 'Audit entry', de: 'Audit-Eintrag' },
    },
  },
  {
    path: 'settings',
    heading: { en: 'Settings', de: 'Einstellungen' },
    // The licence summary ("Postern 1.9.0 · 2 of 50 users · …"), a button that opens the licence dialog.
    ready: (page) => page.getByRole('button', { name: /^Postern \d/ }),
    dialog: {
      opener: (page) => page.getByRole('button', { name: /^Postern \d/ }),
      title: { en: 'Licence', de: 'Lizenz' },
    },
  },
];

/** The first admin, whose password the server printed, or another one the test created. */
export interface AdminAccount {
  userName: string;
  password: string;
}

/**
 * Signs an admin in at /admin in the page's language (its browser locale picks it). An admin with
 * TOTP on (the first one) postpones enrolment, as a newcomer may; the server allows that only five
 * times per admin, so tests that sign in often use an admin of their own with TOTP off.
 */
export async function signInToAdminConsoleIn(
  page: Page,
  server: PosternServer,
  language: Language,
  account: AdminAccount = { userName: 'postern-admin', password: server.adminPassword },
): Promise<void> {
  const texts = SHELL_TEXTS[language];
  await page.goto(`${server.url}/admin`);
  await page.getByLabel(texts.userName).fill(account.userName);
  await page.getByLabel(texts.password, { exact: true }).fill(account.password);
  await page.getByRole('button', { name: texts.signIn, exact: true }).click();
  await page.waitForURL(/\/admin\/(home|otp\/onboard)$/);
  if (page.url().endsWith('/otp/onboard')) {
    await page.getByRole('button', { name: texts.defer }).click();
    await page.waitForURL(`${server.url}/admin/home`);
  }
}

/** Picks the colour scheme in the header's menu, as an admin does, and waits until it applies. */
export async function chooseColourScheme(page: Page, scheme: 'light' | 'dark', language: Language): Promise<void> {
  const texts = SHELL_TEXTS[language];
  await page.getByRole('button', { name: texts.changeScheme }).click();
  await page.getByRole('menuitemradio', { name: scheme === 'light' ? texts.light : texts.dark }).click();
  await page.getByRole('menu').waitFor({ state: 'detached' });
  if ((await colorScheme(page)) !== scheme) throw new Error(`the console did not turn ${scheme}`);
}

/** Opens an admin screen and waits for its heading (in `language`) and its data. */
export async function openScreen(page: Page, server: PosternServer, screen: AdminScreen, language: Language) {
  await page.goto(`${server.url}/admin/${screen.path}`);
  await page.getByRole('heading', { level: 1, name: screen.heading[language], exact: true }).waitFor();
  await screen.ready(page).waitFor();
  await screen.walkTo?.(page, language);
}

/** Opens the screen's main dialog (its opener in `language`) and answers it once it is there. */
export async function openDialog(page: Page, screen: AdminScreen, language: Language = 'en'): Promise<Locator> {
  if (screen.dialog === undefined) throw new Error(`${screen.path} has no dialog`);
  await screen.dialog.opener(page, language).click();
  const dialog = page.getByRole('dialog', { name: screen.dialog.title[language] });
  await dialog.waitFor();
  return dialog;
}

/** Opens the screen's menu, answers it once it is there; Escape closes it again. */
export async function openMenu(page: Page, screen: AdminScreen, language: Language): Promise<Locator> {
  if (screen.menu === undefined) throw new Error(`${screen.path} has no menu`);
  await screen.menu(page, language).click();
  const menu = page.getByRole('menu');
  await menu.waitFor();
  return menu;
}

/** Closes the open dialog with Escape, as a keyboard user does, and waits until it has gone. */
export async function closeDialog(page: Page, dialog: Locator): Promise<void> {
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
}

/** A small PNG of `width` × `height` in vertical stripes of `colours`, so two logos differ visibly. */
export function stripedPng(width: number, height: number, colours: readonly [number, number, number][]): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const [r, g, b] = colours[x % colours.length] ?? [0, 0, 0];
      png.data.set([r, g, b, 255], (y * width + x) * 4);
    }
  }
  return PNG.sync.write(png);
}

/** A PNG's dimensions and RGBA pixels: the server re-encodes uploads, so bytes differ but pixels may not. */
export function pngPixels(bytes: Buffer): { width: number; height: number; data: Buffer } {
  const { width, height, data } = PNG.sync.read(bytes);
  return { width, height, data };
}

/** The few browser globals read inside page.evaluate (the root project compiles without DOM types). */
interface CellElement {
  scrollWidth: number;
  clientWidth: number;
  textContent: string | null;
  children: ArrayLike<CellElement>;
}

/**
 * The texts in the page's tables that are wider than the box showing them (cut to an ellipsis or
 * hidden): every element below a cell whose content overflows horizontally, by its text.
 */
export function truncatedTableTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const document = (
      globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<CellElement> } }
    ).document;
    const cut: string[] = [];
    const visit = (element: CellElement) => {
      // A text one pixel wide is hidden on purpose, for screen readers only; that is not cut short.
      const visuallyHidden = element.clientWidth <= 1;
      if (!visuallyHidden && element.scrollWidth > element.clientWidth + 1 && element.children.length === 0) {
        cut.push((element.textContent ?? '').trim());
      }
      Array.from(element.children).forEach(visit);
    };
    Array.from(document.querySelectorAll('table td')).forEach(visit);
    return cut.filter((text) => text !== '');
  });
}
