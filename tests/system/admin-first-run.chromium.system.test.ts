import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor, type RunningProcess } from '@postern/test-support';
import { AdminApi } from './support/admin-api.js';
import { signInToAdminConsole } from './support/admin-console.js';
import { chooseColourScheme, signInToAdminConsoleIn } from './support/admin-screens.js';
import { accessibilityViolations } from './support/axe.js';
import { screenshotPath } from './support/browser.js';
import { startHostAgent, stopAgent } from './support/grant-topology.js';
import { usePortal } from './support/portal.js';
import { PORTAL_SETTINGS, USER_PASSWORD, horizontalOverflow, installLicence } from './support/user-portal.js';

/**
 * Issue 32's first run in real Chromium against the built server: the admin home's checklist starts
 * with nothing done, its agent step opening the create dialog, then (an agent created) that agent's
 * install dialog, which shows the real agent connect; the list collapses to one line once a licence,
 * a connected agent, a knoc and a user exist; then "Test this knoc" in the knoc's details grants the
 * admin's own address for a minute through the real agent, whose script backend runs, shows the
 * read-back and revokes. The browser is presented to the server as a documentation address by a
 * trusted proxy (never loopback, which no grant opens).
 */

/** Where the admin's browser is, as the trusted proxy tells the server (RFC 5737). */
const ADMIN_ADDRESS = '203.0.113.9';
const KNOC_NAME = 'First-run test knoc';

/** A scripts directory with one script that records each run as `<action>-<address>` and succeeds. */
function recordingScripts(root: string) {
  const directory = path.join(root, 'scripts');
  const records = path.join(root, 'records');
  mkdirSync(directory, { recursive: true });
  mkdirSync(records, { recursive: true });
  // The agent refuses a directory or script writable by group or others.
  chmodSync(directory, 0o755);
  writeFileSync(path.join(directory, 'record.sh'), `#!/bin/sh\necho "$@" > "${records}/$1-$3"\n`, { mode: 0o755 });
  return { directory, ran: (action: string, ip: string) => existsSync(path.join(records, `${action}-${ip}`)) };
}

describe('the admin console’s first run', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'postern-first-run-'));
  const scripts = recordingScripts(root);
  let agent: RunningProcess | undefined;
  const portal = usePortal({ settings: PORTAL_SETTINGS, store: 'sqlite' });

  afterAll(async () => {
    await stopAgent(agent);
    rmSync(root, { recursive: true, force: true });
  });

  it('ticks the checklist from live state and tests a knoc through the real agent', { timeout: 30_000 }, async () => {
    const { server, newPage } = portal();
    const page = await newPage({
      viewport: { width: 1280, height: 900 },
      // axe-core is injected as an inline script, which the server's CSP rightly refuses otherwise.
      bypassCSP: true,
      extraHTTPHeaders: { 'x-forwarded-for': ADMIN_ADDRESS },
    });
    await signInToAdminConsole(page, server);
    const checklist = page.getByRole('region', { name: 'Getting started' });
    await checklist.getByText('0 of 4 done').waitFor();
    await expect(checklist.getByRole('link', { name: 'Install your licence' }).getAttribute('href')).resolves.toBe(
      '/admin/settings?tab=licence',
    );
    // With no agent yet, the agent step opens the agents page's create dialog. The page drops the
    // query once it has, replacing the history entry: Back returns home, not to the dialog.
    await checklist.getByText('To do: create an agent').waitFor();
    await checklist.getByRole('link', { name: 'Connect an agent' }).click();
    await page.getByRole('dialog', { name: 'Create agent' }).waitFor();
    await page.waitForURL(`${server.url}/admin/agents`);
    await page.goBack();
    await checklist.getByText('0 of 4 done').waitFor();

    // The four steps, done the way an admin would, through the API.
    const admin = await AdminApi.signIn(server);
    await installLicence(admin);
    const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', { Name: 'edge' });
    // An agent that never connected: the step opens its install dialog, which watches it connect.
    await page.reload();
    await checklist.getByText('To do: install the agent “edge”').waitFor();
    await checklist.getByRole('link', { name: 'Connect an agent' }).click();
    const install = page.getByRole('dialog', { name: 'Install agent edge' });
    await install.getByRole('region', { name: 'Waiting for the agent to connect…' }).waitFor();
    await page.waitForURL(`${server.url}/admin/agents`);
    agent = startHostAgent(server.url, created.Token, path.join(root, 'state.json'), {
      POSTERN_AGENT_SCRIPTS_ENABLED: 'true',
      POSTERN_AGENT_SCRIPTS_DIR: scripts.directory,
    });
    await install.getByRole('region', { name: 'edge is connected' }).waitFor({ timeout: 15_000 });
    await page.goto(`${server.url}/admin/home`);
    await checklist.getByText('2 of 4 done').waitFor();
    await page.screenshot({ path: screenshotPath('admin-first-run-checklist'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);

    const backend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
      Name: 'edge script',
      AgentID: created.ID,
      Config: { script: { Command: 'record.sh' } },
    });
    await admin.call('POST', '/api/admin/acls', {
      Description: KNOC_NAME,
      BackendID: backend.ID,
      Config: { script: { Name: 'first_run' } },
    });
    await admin.createLocalUser('grace', USER_PASSWORD);
    await page.reload();
    await page.getByRole('status', { name: 'Getting started' }).getByText('Postern is set up').waitFor();
    expect(await checklist.count()).toBe(0);
    await page.screenshot({ path: screenshotPath('admin-first-run-set-up'), fullPage: true });

    // Test this knoc: the admin's own address (as the proxy presents it), granted, read back, revoked.
    await page.goto(`${server.url}/admin/knocs`);
    await page.getByRole('button', { name: KNOC_NAME, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: KNOC_NAME });
    const section = dialog.getByRole('region', { name: 'Test this knoc' });
    await section.getByRole('button', { name: 'Test this knoc' }).click();
    await section.getByText(`The device took ${ADMIN_ADDRESS}`).waitFor({ timeout: 20_000 });
    // A script backend has nothing to list: the report says the write was accepted and why no read-back.
    await section
      .getByText(/the device could not be read back: script backends cannot be read back/)
      .scrollIntoViewIfNeeded();
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('admin-knoc-tested'), fullPage: true });
    expect(scripts.ran('add', ADMIN_ADDRESS)).toBe(true);
    await waitFor(() => scripts.ran('remove', ADMIN_ADDRESS), 'the script to remove the address', 10_000);
    expect(readFileSync(path.join(root, 'records', `add-${ADMIN_ADDRESS}`), 'utf8')).toContain(ADMIN_ADDRESS);
  });

  // Runs on what the test above set up: the licence, the connected agent, the knoc and the user.
  it('says so in German on a 390 px phone in light mode, and tests the knoc there', { timeout: 30_000 }, async () => {
    const { server, newPage } = portal();
    const page = await newPage({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      locale: 'de-DE',
      bypassCSP: true,
      extraHTTPHeaders: { 'x-forwarded-for': ADMIN_ADDRESS },
    });
    await signInToAdminConsoleIn(page, server, 'de');
    await chooseColourScheme(page, 'light', 'de');
    await page.getByRole('status', { name: 'Erste Schritte' }).getByText('Postern ist eingerichtet').waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('admin-first-run-set-up-de-phone'), fullPage: true });

    await page.goto(`${server.url}/admin/knocs`);
    await page.getByRole('button', { name: KNOC_NAME, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: KNOC_NAME });
    const section = dialog.getByRole('region', { name: 'Diesen Knoc testen' });
    await section.getByRole('button', { name: 'Diesen Knoc testen' }).click();
    await section.getByText(`Das Gerät hat ${ADMIN_ADDRESS} übernommen`).waitFor({ timeout: 20_000 });
    await section
      .getByText(/das Gerät ließ sich nicht auslesen: script backends cannot be read back/)
      .scrollIntoViewIfNeeded();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshotPath('admin-knoc-tested-de-phone'), fullPage: true });
  });
});
