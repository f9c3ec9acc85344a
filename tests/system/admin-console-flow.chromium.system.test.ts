import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { POSTERN_VERSION, type V1UserSession } from '@postern/protocol';
import { drivenBackendTypes } from '../../apps/agent/src/drivers/registry.js';
import { AdminApi } from './support/admin-api.js';
import {
  cellTexts,
  createAgentInConsole,
  hostOperatingSystem,
  localDate,
  missingAgentNamespace,
  missingStore,
  openFromNavigation,
  parseCsv,
  rowWith,
  startNamespacedAgent,
  type NamespacedAgent,
} from './support/admin-flow.js';
import { signInToAdminConsole } from './support/admin-console.js';
import { accessibilityViolations } from './support/axe.js';
import { screenshotPath } from './support/browser.js';
import { usePortal } from './support/portal.js';
import {
  PORTAL_SETTINGS,
  USER_PASSWORD,
  colorScheme,
  fillUserLogin,
  horizontalOverflow,
  installLicence,
} from './support/user-portal.js';
import { backendsScreen } from '../../apps/web/src/i18n/locales/en/backends-screen.js';

/**
 * The admin console's main flow in real Chromium against the built server, once per store: an admin
 * creates an agent and reads its install command, the real agent connects and its row shows what it
 * reported; a user made in the Users dialog signs in at /; a group and an API key are created (the
 * key shown once, then working); the audit log lists all of it and downloads as CSV. The tests of a
 * store build on each other in order, on one server and one admin page.
 */

const AGENT_NAME = 'edge-gateway-01';
/** What the capabilities dialog lists under Other: every type the agent's build drives but the four of its own. */
/** The other types the agent drives, by the names the console gives them (in the agent's order: by code). */
const OTHER_TYPES = drivenBackendTypes()
  .filter((type) => !['ipset', 'nftables', 'script', 'haproxy'].includes(type))
  .sort()
  .map((type) => backendsScreen.backendsScreen.types[type]);
const USER_FULL_NAME = 'Ada Lovelace';
/** What the Users dialog derives from the name (spec: lowercase, spaces to dots). */
const USER_NAME = 'ada.lovelace';
const GROUP_NAME = 'On-call engineers';
const API_KEY_NAME = 'Session monitor';
/** A 390 px phone; axe is injected as an inline script, which Postern's CSP (rightly) refuses. */
const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  bypassCSP: true,
};

/** Opens the agent's install dialog again from its row's menu on the Agents screen. */
async function viewToken(page: Page): Promise<Locator> {
  const row = rowWith(page.getByRole('table', { name: 'Agents' }), AGENT_NAME);
  await row.getByRole('button', { name: `Actions for ${AGENT_NAME}` }).click();
  await page.getByRole('menuitem', { name: 'View token' }).click();
  const install = page.getByRole('dialog', { name: `Install agent ${AGENT_NAME}` });
  await install.waitFor();
  return install;
}

/**
 * What is wrong with the install dialog on the phone as it is now: axe's findings, sideways
 * scrolling of the page, and the dialog or its Close button reaching past the screen's edges.
 */
async function phoneDialogProblems(page: Page, install: Locator, where: string): Promise<string[]> {
  const found = (await accessibilityViolations(page)).map((line) => `${where}: ${line}`);
  const overflow = await horizontalOverflow(page);
  if (overflow > 0) found.push(`${where}: the page is ${overflow} px too wide`);
  for (const box of [
    await install.boundingBox(),
    await install.getByRole('button', { name: 'Close' }).last().boundingBox(),
  ]) {
    if (box === null || box.x < 0 || box.x + box.width > PHONE.viewport.width) {
      found.push(`${where}: outside the screen: ${JSON.stringify(box)}`);
    }
  }
  return found;
}

describe.each(['sqlite', 'postgres'] as const)('the admin console’s main flow on %s', (store) => {
  const portal = usePortal({
    store,
    settings: PORTAL_SETTINGS,
    alsoMissing: () => missingStore(store) ?? missingAgentNamespace(),
    // Licensed, as a real installation is: users then get their sessions and the dialog its limits.
    arrange: async ({ server }) => installLicence(await AdminApi.signIn(server)),
  });
  /** A screenshot of this step, with Mantine's transitions run to their end (no half-faded dialogs). */
  const snap = (page: Page, step: string) =>
    page.screenshot({ path: screenshotPath(`admin-flow-${store}-${step}`), fullPage: true, animations: 'disabled' });

  let adminPage: Page | undefined;
  let agent: NamespacedAgent | undefined;
  afterAll(async () => {
    await agent?.dispose();
  });
  /** The admin's page, signed in by the first test and kept by the later ones. */
  const adminConsole = () => {
    if (adminPage === undefined) throw new Error('the admin did not sign in (the first test failed)');
    return adminPage;
  };

  it('creates an agent whose install command carries the token, and lists it connected with its OS, version and capabilities', async () => {
    const { server, newPage } = portal();
    expect(server.store).toBe(store);
    // axe is injected as an inline script, which Postern's CSP (rightly) refuses.
    adminPage = await newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
    const page = adminPage;
    // A step that cannot happen fails in seconds, not after Playwright's 30, so a broken flow stays fast.
    page.setDefaultTimeout(10_000);
    await signInToAdminConsole(page, server);
    await openFromNavigation(page, 'Agents');

    // The token dialog follows at once: the one-liner names this server and carries the token. The
    // server has no POSTERN_PUBLIC_URL, so the command names it with --server, marked as a guess.
    const { token, install } = await createAgentInConsole(page, AGENT_NAME);
    expect(token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect((await install.getByLabel('Install command', { exact: true }).innerText()).trim()).toBe(
      `curl -fsSL ${server.url}/api/agent/install.sh | sudo sh -s -- --token ${token} --server ${server.url}`,
    );
    await install.getByText('Check the server address in this command').waitFor();
    expect(await install.getByText('You can view this token again later', { exact: false }).isVisible()).toBe(true);
    // The command is one line that scrolls sideways inside its block, never broken inside the token.
    // (As tall as the one-line token's block, and wider inside than it shows.)
    const commandBlock = install.getByLabel('Install command', { exact: true });
    const [commandBox, tokenBox] = await Promise.all([
      commandBlock.boundingBox(),
      install.getByLabel('Token', { exact: true }).boundingBox(),
    ]);
    expect(commandBox?.height).toBe(tokenBox?.height);
    const scrolls = await commandBlock.evaluate((block) => {
      const box = block as unknown as { scrollWidth: number; clientWidth: number };
      return box.scrollWidth > box.clientWidth;
    });
    expect(scrolls).toBe(true);
    await install.getByRole('region', { name: 'Waiting for the agent to connect…' }).waitFor();
    await snap(page, 'agent-token');
    await install.getByRole('button', { name: 'Close' }).last().click();
    await install.waitFor({ state: 'hidden' });

    const table = page.getByRole('table', { name: 'Agents' });
    const row = rowWith(table, AGENT_NAME);
    expect(await row.getByText('Awaiting connection').isVisible()).toBe(true);
    expect(await row.getByText('Not reported yet').isVisible()).toBe(true);

    // The same dialog on a 390 px phone, in the console's dark default, while it waits for the agent.
    const phone = await newPage(PHONE);
    phone.setDefaultTimeout(10_000);
    await signInToAdminConsole(phone, server);
    await phone.goto(`${server.url}/admin/agents`);
    const phoneInstall = await viewToken(phone);
    await phoneInstall.getByRole('region', { name: 'Waiting for the agent to connect…' }).waitFor();
    expect(await colorScheme(phone)).toBe('dark');
    const onPhone = await phoneDialogProblems(phone, phoneInstall, 'install dialog, waiting (phone, dark)');
    await phone.screenshot({ path: screenshotPath(`admin-flow-${store}-agent-token-phone`), animations: 'disabled' });

    // The admin opens the install dialog again and runs the command; the dialog shows the agent
    // enrol while it is open: connected, with its key's fingerprint and what it found on the host.
    await row.getByRole('button', { name: `Actions for ${AGENT_NAME}` }).click();
    await page.getByRole('menuitem', { name: 'View token' }).click();
    await install.getByRole('region', { name: 'Waiting for the agent to connect…' }).waitFor();
    agent = await startNamespacedAgent(Number(new URL(server.url).port), token);
    const enrolled = install.getByRole('region', { name: `${AGENT_NAME} is connected` });
    await enrolled.waitFor({ timeout: 20_000 });
    expect(await enrolled.getByText(/^SHA256:/).innerText()).toMatch(/^SHA256:[A-Za-z0-9+/]{43}=?$/);
    expect(await enrolled.getByText('no ipsets found', { exact: true }).isVisible()).toBe(true);
    expect(await enrolled.getByText('Disabled in the agent configuration', { exact: true }).isVisible()).toBe(true);
    expect(await enrolled.getByText(hostOperatingSystem(), { exact: true }).isVisible()).toBe(true);
    await snap(page, 'agent-enrolled');
    await install.getByRole('button', { name: 'Close' }).last().click();
    await install.waitFor({ state: 'hidden' });

    // The phone's dialog, still open, saw the agent enrol too: its live panel fits there as well.
    await phoneInstall.getByRole('region', { name: `${AGENT_NAME} is connected` }).waitFor({ timeout: 20_000 });
    await phoneInstall.getByText(/^SHA256:/).waitFor();
    onPhone.push(...(await phoneDialogProblems(phone, phoneInstall, 'install dialog, connected (phone, dark)')));
    await phone.screenshot({
      path: screenshotPath(`admin-flow-${store}-agent-enrolled-phone`),
      animations: 'disabled',
    });
    expect(onPhone).toEqual([]);
    await phone.close();

    // The list refreshes every 5 seconds; the agent connects within one or two.
    await expect.poll(() => row.getByText('Connected', { exact: true }).count(), { timeout: 20_000 }).toBe(1);
    const os = hostOperatingSystem();
    const capabilities = row.getByRole('button', { name: `Show the capabilities of ${AGENT_NAME}` });
    expect(await capabilities.innerText()).toBe(os);
    const [, , , version, address] = await cellTexts(row);
    // The version badge, with its state written under it.
    expect(version).toBe(`${POSTERN_VERSION}Up to date`);
    expect(await row.getByText(POSTERN_VERSION, { exact: true }).isVisible()).toBe(true);
    // It reaches the server through the test's relay on loopback, so that is the address it has.
    expect(address).toBe('127.0.0.1');
    expect(agent.process.stderr()).toBe('');
    await snap(page, 'agent-connected');
    // The connected row's capabilities button is named by the OS it shows first (WCAG 2.5.3).
    expect(await capabilities.getAttribute('aria-label')).toBe(`${os}: show the capabilities of ${AGENT_NAME}`);
    expect(await accessibilityViolations(page)).toEqual([]);

    await capabilities.click();
    const dialog = page.getByRole('dialog', { name: `Capabilities of ${AGENT_NAME}` });
    await dialog.waitFor();
    expect(await dialog.getByText(`Operating system: ${os}`).isVisible()).toBe(true);
    // As root in its namespace with no sets allowed, no scripts and no HAProxy socket configured.
    const expected = [
      ['IPSet', 'Available', 'no ipsets found'],
      ['Custom Script', 'Unavailable', 'Disabled in the agent configuration'],
      ['HAProxy', 'Unavailable', 'No runtime API socket configured'],
      ['Other', 'Available', `Also drives: ${OTHER_TYPES.join(', ')}`],
    ] as const;
    for (const [title, state, detail] of expected) {
      const card = dialog.getByRole('region', { name: title, exact: true });
      expect(await card.getByRole('img', { name: state, exact: true }).isVisible(), title).toBe(true);
      expect(await card.getByText(detail, { exact: true }).isVisible(), title).toBe(true);
    }
    await snap(page, 'agent-capabilities');
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('creates a local user through the dialog, who then signs in at / and lands in the portal', async () => {
    const { server, newPage } = portal();
    const page = adminConsole();
    await openFromNavigation(page, 'Users');

    await page.getByRole('button', { name: 'Create user' }).click();
    const form = page.getByRole('dialog', { name: 'Create user' });
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill(USER_FULL_NAME);
    expect(await form.getByLabel('Username').inputValue()).toBe(USER_NAME);
    expect(await form.getByRole('radio', { name: 'Local' }).isChecked()).toBe(true);
    // The licence's session limit is the default; one hour sessions instead of the default eight.
    expect(await form.getByLabel('Session limit').inputValue()).toBe('20');
    await form.getByLabel('Session duration (minutes)').fill('60');
    await form.getByLabel(/^Password\b/).fill(USER_PASSWORD);
    await form.getByLabel('Confirm password').fill(USER_PASSWORD);
    await snap(page, 'user-dialog');
    await form.getByRole('button', { name: 'Create', exact: true }).click();
    await form.waitFor({ state: 'hidden' });

    const table = page.getByRole('table', { name: 'Users' });
    const row = rowWith(table, USER_NAME);
    await row.waitFor();
    expect(await cellTexts(row)).toEqual(
      expect.arrayContaining([USER_FULL_NAME, '60 min', 'Local', USER_NAME, 'Never', 'No']),
    );

    // The new user, in a browser of their own.
    const userPage = await newPage({ viewport: { width: 1280, height: 900 } });
    await fillUserLogin(userPage, server.url, USER_NAME);
    await userPage.waitForURL(`${server.url}/home/new`);
    await expect.poll(() => userPage.getByRole('heading', { level: 1 }).innerText()).toBe(`Hello, ${USER_FULL_NAME}`);
    await snap(userPage, 'user-portal');

    // Back in the console, the user now has a session.
    await page.reload();
    await expect.poll(async () => (await cellTexts(row)).at(-2)).toBe('Yes');
  });

  it('creates a group with the new user as its member', async () => {
    const page = adminConsole();
    await openFromNavigation(page, 'Groups');

    await page.getByRole('button', { name: 'Create group' }).click();
    const form = page.getByRole('dialog', { name: 'Create group' });
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill(GROUP_NAME);
    await form.getByLabel('Description').fill('Who answers the pager');
    expect(await form.getByLabel('Type').inputValue()).toBe('local');
    await form.getByRole('checkbox', { name: `${USER_FULL_NAME} (${USER_NAME})` }).check();
    await snap(page, 'group-dialog');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'hidden' });

    const row = rowWith(page.getByRole('table', { name: 'Groups' }), GROUP_NAME);
    await row.waitFor();
    expect((await cellTexts(row)).slice(0, 5)).toEqual([GROUP_NAME, 'Local', 'Who answers the pager', '0', '1']);
  });

  it('creates an API key shown once, which then reads the user sessions', async () => {
    const { server } = portal();
    const page = adminConsole();
    await openFromNavigation(page, 'API keys');

    await page.getByRole('button', { name: 'Create API key' }).click();
    const form = page.getByRole('dialog', { name: 'Create API key' });
    await form.getByRole('textbox', { name: 'Name', exact: true }).fill(API_KEY_NAME);
    await form.getByLabel('Purpose').selectOption({ label: 'Read user sessions' });
    await form.getByLabel('Expires after').selectOption({ label: '12 months' });
    await form.getByRole('button', { name: 'Create', exact: true }).click();

    const reveal = page.getByRole('dialog', { name: `New API key: ${API_KEY_NAME}` });
    await reveal.waitFor();
    expect(await reveal.getByText('This key is shown only once.', { exact: false }).isVisible()).toBe(true);
    // The key is the dialog's one code block (a <pre>, which has no role of its own).
    const key = (await reveal.locator('pre').innerText()).trim();
    expect(key.length).toBeGreaterThanOrEqual(32);
    await snap(page, 'api-key-once');
    await reveal.getByRole('button', { name: 'Close' }).last().click();
    await reveal.waitFor({ state: 'hidden' });

    const row = rowWith(page.getByRole('table', { name: 'API keys' }), API_KEY_NAME);
    await row.waitFor();
    expect(await row.getByText('User sessions').isVisible()).toBe(true);
    // Shown once: once closed, the plaintext is nowhere in the page, not even hidden.
    expect(await page.content()).not.toContain(key);

    // And it works: the sessions it may read include the one the new user just started.
    const response = await fetch(`${server.url}/api/v1/user_sessions`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: V1UserSession[] };
    expect(data.map((session) => session.UserName)).toContain(USER_NAME);
    // The console records the use.
    await page.reload();
    await row.waitFor();
    expect((await cellTexts(row))[4]).not.toBe('Never');
  });

  it('finds the audit entries of all of this and downloads the log as CSV', async () => {
    const page = adminConsole();
    await openFromNavigation(page, 'Logs');
    const table = page.getByRole('table', { name: 'Audit log' });
    const search = page.getByRole('textbox', { name: 'Search the audit log' });
    await table.getByRole('row').nth(1).waitFor();

    // Who acted and what it was done to, in columns of their own.
    const expected = [
      ['Agent created', 'postern-admin', AGENT_NAME],
      ['User created', 'postern-admin', USER_NAME],
      ['Group created', 'postern-admin', GROUP_NAME],
      ['API key created', 'postern-admin', API_KEY_NAME],
    ] as const;
    for (const [action, actor, target] of expected) {
      await search.fill(action);
      const rows = table.getByRole('row').filter({ has: page.getByRole('cell', { name: action, exact: true }) });
      await expect.poll(() => rows.count(), { message: action }).toBe(1);
      expect((await cellTexts(rows)).slice(1, 3), action).toEqual([actor, target]);
    }
    // The detail names what was created.
    await search.fill('Agent created');
    const created = table
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: 'Agent created', exact: true }) });
    await created.getByRole('button', { name: /^Show details of the entry of / }).click();
    const detail = page.getByRole('dialog', { name: 'Audit entry' });
    // Waits for the dialog to show it (fails after the time limit when it never does).
    await detail.getByRole('row', { name: `Agent name ${AGENT_NAME}` }).waitFor();
    await snap(page, 'audit-entry');
    await detail.getByRole('button', { name: 'Close' }).last().click();
    await detail.waitFor({ state: 'hidden' });

    await search.fill('');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    // Spec: named by the current date with a fixed part.
    expect(download.suggestedFilename()).toBe(`${localDate()}-postern-audit.csv`);
    await page.getByText(`Saved ${download.suggestedFilename()}`).waitFor();
    const text = readFileSync(await download.path(), 'utf8');
    // A byte order mark first, so spreadsheets read it as UTF-8.
    expect(text.startsWith('\uFEFF')).toBe(true);
    const [header, ...lines] = parseCsv(text.slice(1));
    expect(header).toEqual([
      'Date',
      'Action',
      'ActionText',
      'Actor',
      'Target',
      'UserName',
      'AdminName',
      'AgentName',
      'IpAddress',
      'AclDescription',
      'Description',
      'ErrorMessage',
    ]);
    const entries = lines.map((cells) => Object.fromEntries((header ?? []).map((name, index) => [name, cells[index]])));
    expect(entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Action: 'AgentCreated', ActionText: 'Agent created', AgentName: AGENT_NAME }),
        expect.objectContaining({ Action: 'UserCreated', ActionText: 'User created', UserName: USER_NAME }),
        expect.objectContaining({ Action: 'GroupCreated', ActionText: 'Group created', Description: GROUP_NAME }),
        expect.objectContaining({ Action: 'ApiKeyCreated', ActionText: 'API key created', Description: API_KEY_NAME }),
      ]),
    );
    // Every line has the header's cells and an ISO date.
    for (const cells of lines) {
      expect(cells).toHaveLength(header?.length ?? 0);
      expect(Number.isNaN(Date.parse(cells[0] ?? ''))).toBe(false);
    }
    await snap(page, 'logs');

    // Filtered by the actor and an action, the table and the download hold only those entries.
    const filters = page.getByRole('search', { name: 'Filter the audit log' });
    await filters.getByRole('textbox', { name: 'Target' }).fill(GROUP_NAME);
    const groupRows = table.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Group created' }) });
    await expect.poll(() => table.getByRole('row').count()).toBe(2);
    expect(await groupRows.count()).toBe(1);
    const [filtered] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const [, ...filteredLines] = parseCsv(readFileSync(await filtered.path(), 'utf8').slice(1));
    expect(filteredLines.map((cells) => [cells[1], cells[4]])).toEqual([['GroupCreated', GROUP_NAME]]);
    await filters.getByRole('button', { name: 'Clear filters' }).click();
  });
});
