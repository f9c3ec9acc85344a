import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { waitFor, type RunningProcess } from '@postern/test-support';
import { AdminApi } from './support/admin-api.js';
import { signInToAdminConsole } from './support/admin-console.js';
import { missingStore } from './support/admin-flow.js';
import { stopAgent } from './support/grant-topology.js';
import { StepRecorder, chosenAgent, nextStep, pickOption, selectMember, stepHeading } from './support/knoc-console.js';
import { usePortal } from './support/portal.js';
import {
  PORTAL_SETTINGS,
  USER_PASSWORD,
  aclCard,
  dashboardShows,
  installLicence,
  signInToDashboard,
} from './support/user-portal.js';
import {
  VENDOR,
  startVendorAgent,
  startVendorFakes,
  vendorHolds,
  type VendorFakes,
  type VendorType,
} from './support/vendor-fakes.js';

/**
 * Issue 16 through the console, in real Chromium against the built server (PostgreSQL) and the built
 * agent: an admin creates an active application knoc for each of Sophos UTM, Sophos SFOS, AWS and
 * Azure in the application wizard (the vendor's connection and rule typed into the settings step),
 * a user grants the four from the dashboard, and each vendor's contract fake holds the user's
 * address. The AWS knoc leaves both keys empty: the agent signs its calls with its host's
 * credentials (here the environment's, the first link of the standard chain), as an agent on EC2
 * does with its instance role.
 */

const AGENT_NAME = 'cloud-edge';
const USER_NAME = 'hedy';
const USER_FULL_NAME = `${USER_NAME} (test)`;
/** The address the user's browser is presented as (a trusted proxy's X-Forwarded-For). */
const CLIENT = '198.51.100.42';

/** One vendor as the wizard asks for it: its name in the vendor select and its fields filled in. */
interface VendorWalk {
  type: VendorType;
  label: string;
  knoc: string;
  fill: (page: Page, fakes: VendorFakes) => Promise<void>;
}

const textbox = (page: Page, label: RegExp) => page.getByRole('textbox', { name: label });

const WALKS: readonly VendorWalk[] = [
  {
    type: 'sophosutm',
    label: 'Sophos UTM',
    knoc: 'Office VPN on Sophos UTM',
    fill: async (page, fakes) => {
      await textbox(page, /^Hostname/).fill(fakes.utm.hostname);
      await page.getByRole('checkbox', { name: 'Skip TLS certificate verification' }).check();
      await page.getByLabel(/^API key/).fill(VENDOR.utmKey);
      await textbox(page, /^Network group reference/).fill(VENDOR.utmGroup);
    },
  },
  {
    type: 'sophossfos',
    label: 'Sophos SFOS',
    knoc: 'Branch VPN on Sophos SFOS',
    fill: async (page, fakes) => {
      await textbox(page, /^Hostname/).fill(fakes.sfos.hostname);
      await page.getByRole('checkbox', { name: 'Skip TLS certificate verification' }).check();
      await textbox(page, /^User name/).fill(VENDOR.sfosUser);
      await page.getByLabel(/^Password/).fill(VENDOR.sfosPassword);
      await textbox(page, /^IPv4 host group/).fill(VENDOR.group);
    },
  },
  {
    type: 'aws',
    label: 'Amazon AWS',
    knoc: 'Bastion SSH on AWS',
    fill: async (page) => {
      // Both keys left empty: the agent's own credentials.
      await textbox(page, /^Region/).fill(VENDOR.awsRegion);
      await textbox(page, /^Security group ID/).fill(VENDOR.securityGroup);
    },
  },
  {
    type: 'azure',
    label: 'Azure NSG',
    knoc: 'Jump host HTTPS on Azure',
    fill: async (page) => {
      await textbox(page, /^Client ID/).fill(VENDOR.azure.clientId);
      await page.getByLabel(/^Client secret/).fill(VENDOR.azure.clientSecret);
      await textbox(page, /^Tenant ID/).fill(VENDOR.azure.tenantId);
      await textbox(page, /^Network security group/).fill(VENDOR.nsg.name);
      await textbox(page, /^Resource group/).fill(VENDOR.nsg.resourceGroup);
    },
  },
];

describe('application knocs for Sophos UTM, Sophos SFOS, AWS and Azure made in the wizard', () => {
  let fakes: VendorFakes | undefined;
  let agent: RunningProcess | undefined;
  let stateDir: string | undefined;
  let adminPage: Page | undefined;

  const portal = usePortal({
    store: 'postgres',
    settings: PORTAL_SETTINGS,
    alsoMissing: () => missingStore('postgres'),
    arrange: async ({ server }) => {
      fakes = await startVendorFakes();
      const admin = await AdminApi.signIn(server);
      await installLicence(admin);
      await admin.createLocalUser(USER_NAME, USER_PASSWORD, { TOTPEnabled: false, Duration: 480 });
      const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', {
        Name: AGENT_NAME,
      });
      stateDir = mkdtempSync(path.join(tmpdir(), 'postern-vendor-console-'));
      agent = startVendorAgent(fakes, {
        serverUrl: server.url,
        token: created.Token,
        stateDir,
        // The first link of the AWS credential chain, standing in for the instance role.
        env: { AWS_ACCESS_KEY_ID: VENDOR.awsKeyId, AWS_SECRET_ACCESS_KEY: VENDOR.awsSecret },
      });
      await waitFor(
        async () =>
          (await admin.call<{ Online: boolean; SealingKey?: unknown }>('GET', `/api/admin/agents/${created.ID}`))
            .Online,
        'the agent to connect',
        20_000,
      );
    },
  });
  afterAll(async () => {
    await stopAgent(agent);
    await fakes?.close();
    if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
  });

  const vendorFakes = () => {
    if (fakes === undefined) throw new Error('the fakes did not start');
    return fakes;
  };

  it.each(WALKS)('creates an active $label knoc in the application wizard', async (walk) => {
    const { server, newPage } = portal();
    if (adminPage === undefined) {
      // axe-core is injected as an inline script, which Postern's CSP rightly refuses unless bypassed.
      adminPage = await newPage({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
      adminPage.setDefaultTimeout(10_000);
      await signInToAdminConsole(adminPage, server);
    }
    const page = adminPage;
    const steps = new StepRecorder(page, `wizard-${walk.type}`);
    await page.goto(`${server.url}/admin/knocs/new/application`);
    await stepHeading(page, 'Settings').waitFor();
    await page.getByRole('radio', { name: 'Active', exact: true }).check();
    await pickOption(page, 'Vendor', walk.label);
    await page.getByRole('group', { name: `${walk.label} connection` }).waitFor();
    await textbox(page, /^Name/).fill(walk.knoc);
    await walk.fill(page, vendorFakes());
    await steps.record('1-settings');
    await nextStep(page, 'Knoc options');
    await nextStep(page, 'Agent');
    // The only agent, and it runs every vendor's driver: chosen on its own.
    await expect.poll(() => chosenAgent(page)).toBe(AGENT_NAME);
    await nextStep(page, 'Users and groups');
    await selectMember(page, `Select ${USER_FULL_NAME}`);
    await nextStep(page, 'Review');
    expect(await page.getByText(walk.knoc).first().isVisible()).toBe(true);
    await steps.record('5-review');
    await page.getByRole('button', { name: 'Create knoc', exact: true }).click();
    const detail = page.getByRole('dialog', { name: walk.knoc });
    await detail.waitFor();
    await detail.getByRole('button', { name: 'Close' }).first().click();
    expect(steps.violations).toEqual([]);
  });

  it('stores the AWS knoc without keys, so its agent uses its own credentials', async () => {
    const admin = await AdminApi.signIn(portal().server);
    const backends = await admin.call<{ Type: string; Config: Record<string, Record<string, unknown>> }[]>(
      'GET',
      '/api/admin/backends',
    );
    expect(backends.find((backend) => backend.Type === 'aws')?.Config.aws).toEqual({
      AccessKeyId: '',
      SecretAccessKey: '',
      Region: VENDOR.awsRegion,
    });
  });

  it("grants the four knocs from the user's dashboard, and each vendor holds the user's address", async () => {
    const { server, newPage } = portal();
    const page = await newPage({
      viewport: { width: 1280, height: 900 },
      extraHTTPHeaders: { 'x-forwarded-for': CLIENT },
      bypassCSP: true,
    });
    await signInToDashboard(page, server.url, USER_NAME);
    for (const walk of WALKS) {
      expect(vendorHolds(vendorFakes(), walk.type, CLIENT), walk.type).toBe(false);
      await dashboardShows(page, walk.knoc);
      const card = aclCard(page, walk.knoc);
      await card.getByRole('button', { name: 'Grant Access' }).click();
      await card.getByRole('button', { name: 'Revoke Access' }).waitFor({ timeout: 15_000 });
    }
    for (const walk of WALKS) {
      await waitFor(() => vendorHolds(vendorFakes(), walk.type, CLIENT), `the grant on ${walk.label}`, 15_000);
    }
    await new StepRecorder(page, 'dashboard-vendors').record('granted');
  });
});
