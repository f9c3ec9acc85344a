import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, waitFor, type RunningProcess } from '@postern/test-support';
import { AdminApi } from './support/admin-api.js';
import { screenshotPath } from './support/browser.js';
import {
  CLIENT_ADDRESSES,
  SET_NAME,
  createGrantTopology,
  startTopologyAgent,
  stopAgent,
  type GrantTopology,
} from './support/grant-topology.js';
import { missingNetnsSupport } from './support/netns.js';
import { usePortal } from './support/portal.js';
import { missingBuild, missingChromium, requireTool } from './support/requirements.js';
import {
  PORTAL_SETTINGS,
  aclCard,
  countdownSeconds,
  createUserWithAcls,
  dashboardShows,
  installLicence,
  signInToDashboard,
} from './support/user-portal.js';

/**
 * The user portal on a real firewall, in real Chromium against the built server (spec sections 2
 * and 4): in network namespaces, a grant from the dashboard lands in a real ipset and opens the
 * iptables rule, and a revoke takes it out again. Screenshots are kept in test-results/screenshots.
 */

const netnsMissing =
  missingChromium() ??
  missingBuild(REPO_ROOT) ??
  missingNetnsSupport({ ipset: 'ipset', iptables: 'iptables', haproxy: 'haproxy' });

describe('granting from the browser on a real firewall', () => {
  const [clientAddress] = CLIENT_ADDRESSES;
  let topology: GrantTopology | undefined;
  let agent: RunningProcess | undefined;
  let stateDir: string | undefined;

  const portal = usePortal({
    alsoMissing: () => netnsMissing,
    settings: PORTAL_SETTINGS,
    arrange: async ({ server }) => {
      topology = await createGrantTopology(Number(new URL(server.url).port));
      stateDir = mkdtempSync(path.join(tmpdir(), 'postern-agent-state-'));
      const admin = await AdminApi.signIn(server);
      await installLicence(admin);
      const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', {
        Name: 'edge-firewall',
      });
      agent = startTopologyAgent(topology, created.Token, path.join(stateDir, 'state.json'));
      await waitFor(
        async () => {
          const seen = await admin.call<{ Online: boolean; Capabilities: unknown }>(
            'GET',
            `/api/admin/agents/${created.ID}`,
          );
          return seen.Online && seen.Capabilities !== null;
        },
        'the agent to connect and report its capabilities',
        20_000,
      );
      const backend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
        Name: 'protected host ipset',
        AgentID: created.ID,
        Config: { ipset: {} },
      });
      const acl = await admin.call<{ ID: string }>('POST', '/api/admin/acls', {
        Description: 'Protected service',
        BackendID: backend.ID,
        Config: { ipset: { V4SetName: SET_NAME } },
      });
      await createUserWithAcls(admin, 'grace', [acl.ID]);
    },
  });

  afterAll(async () => {
    await stopAgent(agent);
    await topology?.dispose();
    if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
  });
  beforeEach((context) => requireTool(context, netnsMissing));

  const topo = () => {
    if (topology === undefined) throw new Error('the topology did not start');
    return topology;
  };

  it('grants a knoc into the real ipset, shows the badge and countdown, and revokes it', async () => {
    const { server, newPage } = portal();
    // The browser runs on the host; the server is told (as by a trusted proxy) it is the client namespace.
    const page = await newPage({
      viewport: { width: 1280, height: 900 },
      extraHTTPHeaders: { 'x-forwarded-for': clientAddress },
    });
    await signInToDashboard(page, server.url, 'grace');
    await dashboardShows(page, 'Protected service');
    expect((await topo().setMembers()).has(clientAddress)).toBe(false);
    expect(await topo().canConnect(clientAddress)).toBe(false);

    const card = aclCard(page, 'Protected service');
    expect(await card.getByText(/^Access for /).count()).toBe(0);
    await card.getByRole('button', { name: 'Grant Access' }).click();
    const revoke = card.getByRole('button', { name: 'Revoke Access' });
    await revoke.waitFor({ timeout: 15_000 });
    // The grant lasts as long as the eight-hour session, and the header counts that down.
    await card.getByText('Access for 8 hours', { exact: true }).waitFor();
    const left = await countdownSeconds(page);
    expect(left).toBeGreaterThan(480 * 60 - 120);
    await expect.poll(() => countdownSeconds(page), { timeout: 3_000 }).toBeLessThan(left);

    // On the device: the entry is in the kernel's set, and the iptables rule now lets the client through.
    await waitFor(async () => (await topo().setMembers()).has(clientAddress), 'the address in the ipset', 15_000);
    expect(await topo().canConnect(clientAddress)).toBe(true);
    await page.screenshot({ path: screenshotPath('user-dashboard-granted'), fullPage: true });

    await revoke.click();
    // Settled: Grant Access again, no badge, and no Pending left behind.
    await card.getByRole('button', { name: 'Grant Access' }).waitFor({ timeout: 15_000 });
    expect(await card.getByText(/^Access for /).count()).toBe(0);
    expect(await card.getByRole('button', { name: 'Pending' }).count()).toBe(0);
    await waitFor(
      async () => !(await topo().setMembers()).has(clientAddress),
      'the address to leave the ipset',
      15_000,
    );
    expect(await topo().canConnect(clientAddress)).toBe(false);
  });
});
