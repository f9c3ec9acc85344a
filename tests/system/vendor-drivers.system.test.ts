import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, waitFor, type RunningProcess } from '@postern/test-support';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AdminApi } from './support/admin-api.js';
import { installLicence, PORTAL_SETTINGS } from './support/user-portal.js';
import { stopAgent } from './support/grant-topology.js';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { endSessionsSoon } from './support/session-end.js';
import { missingBuild, requireTool } from './support/requirements.js';
import {
  VENDOR,
  VENDOR_TYPES,
  startVendorAgent,
  startVendorFakes,
  vendorHolds,
  type VendorFakes,
  type VendorType,
} from './support/vendor-fakes.js';

/**
 * The vendor drivers end to end: the built server, the built agent (a real process on this host) and
 * each vendor's contract fake over HTTPS with a self-signed certificate (the backends' Insecure). A
 * user's grant on each vendor's knoc shows on its fake, the revoke takes it off, a passive+ grant
 * makes the agent ask PAN-OS to fetch the list again (and the list it fetches holds the address),
 * and grants whose session ends while the server is dead are still taken off by the agent on time.
 */
const EDL = 'postern-edl';
const CLIENT = '198.51.100.23';
const missing = missingBuild(REPO_ROOT);

let server: PosternServer | undefined;
let agent: RunningProcess | undefined;
let fakes: VendorFakes;
let admin: AdminApi;
let stateDir: string;
/** The knocs alice and bob are given, by vendor. */
const knocIds: Record<string, string> = {};
let passivePlusId: string;
const password = 'correct horse battery staple';

const VENDORS = VENDOR_TYPES;
const holdsClient = (vendor: VendorType) => vendorHolds(fakes, vendor, CLIENT);

async function signIn(userName: string): Promise<string> {
  const response = await fetch(`${server?.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': CLIENT },
    body: JSON.stringify({ UserName: userName, Password: password, KioskMode: false }),
  });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith('__Host-postern_session='));
  return cookie?.split(';')[0] ?? '';
}

async function userCall(cookie: string, method: string, url: string, body?: unknown): Promise<void> {
  const response = await fetch(`${server?.url}${url}`, {
    method,
    headers: {
      cookie,
      'x-forwarded-for': CLIENT,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${await response.text()}`);
}

describe('a FortiOS knoc through the real server and agent', () => {
  beforeAll(async () => {
    if (missing !== null) return;
    fakes = await startVendorFakes();
    server = await startPosternServer(
      {
        ...PORTAL_SETTINGS,
      },
      'sqlite',
    );
    stateDir = mkdtempSync(path.join(tmpdir(), 'postern-vendors-'));
    admin = await AdminApi.signIn(server);
    await installLicence(admin);
    const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', {
      Name: 'fortigate-agent',
    });
    agent = startVendorAgent(fakes, { serverUrl: server.url, token: created.Token, stateDir });
    await waitFor(
      async () => {
        const seen = await admin.call<{ Online: boolean; Capabilities: { backend_types: string[] } | null }>(
          'GET',
          `/api/admin/agents/${created.ID}`,
        );
        return seen.Online && VENDORS.every((type) => seen.Capabilities?.backend_types.includes(type) ?? false);
      },
      'the agent to connect and offer every vendor',
      20_000,
    );
    const vendorKnocs = {
      fortios: {
        backend: { Url: fakes.fortios.url, Insecure: true, Bearer: VENDOR.fortiosToken },
        acl: { Name: VENDOR.group },
      },
      fortimanager: {
        backend: { Hostname: fakes.fortimanager.hostname, Insecure: true, ApiKey: VENDOR.fortimanagerKey },
        acl: { Name: VENDOR.group },
      },
      panos: {
        backend: { Hostname: fakes.panos.hostname, Insecure: true, ApiKey: VENDOR.panosKey },
        acl: { GroupName: VENDOR.group },
      },
      firepower: {
        backend: {
          Hostname: fakes.fmc.hostname,
          Insecure: true,
          Username: VENDOR.fmcUser,
          Password: VENDOR.fmcPassword,
        },
        acl: { GroupUUID: VENDOR.dynamicObject },
      },
      sophosutm: {
        backend: { Hostname: fakes.utm.hostname, Insecure: true, ApiKey: VENDOR.utmKey },
        acl: { GroupReference: VENDOR.utmGroup },
      },
      sophossfos: {
        backend: {
          Hostname: fakes.sfos.hostname,
          Insecure: true,
          Username: VENDOR.sfosUser,
          Password: VENDOR.sfosPassword,
        },
        acl: { GroupName: VENDOR.group },
      },
      aws: {
        backend: { AccessKeyId: VENDOR.awsKeyId, SecretAccessKey: VENDOR.awsSecret, Region: VENDOR.awsRegion },
        acl: { SecurityGroupId: VENDOR.securityGroup, Port: 22 },
      },
      azure: {
        backend: {
          ClientId: VENDOR.azure.clientId,
          ClientSecret: VENDOR.azure.clientSecret,
          TenantId: VENDOR.azure.tenantId,
          NoCache: false,
        },
        acl: {
          NsgDirection: 'Inbound',
          NsgName: VENDOR.nsg.name,
          NsgPort: 443,
          ResourceGroup: VENDOR.nsg.resourceGroup,
        },
      },
    };
    for (const [type, config] of Object.entries(vendorKnocs)) {
      const backend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
        Name: `${type} firewall`,
        AgentID: created.ID,
        Config: { [type]: config.backend },
      });
      knocIds[type] = (
        await admin.call<{ ID: string }>('POST', '/api/admin/acls', {
          Description: `${type} VPN`,
          BackendID: backend.ID,
          Config: { [type]: config.acl },
        })
      ).ID;
    }
    // Passive+ as the application wizard makes it: a published list read by address, and a hidden
    // PAN-OS child that asks the firewall to fetch it again.
    const passivePlus = await admin.call<{ KnocID: string; AllowlistURL: string }>('POST', '/api/admin/knocs', {
      Backend: { Name: 'partner list', Config: { allowlist: {} } },
      ApiKey: { Option: 'none' },
      Knoc: {
        Description: 'Partner portal',
        Config: { allowlist: { AllowAccessByIp: true, AllowedIpAddresses: ['127.0.0.1/32'] } },
      },
      PassivePlus: {
        Backend: {
          Name: 'partner firewall refresh',
          AgentID: created.ID,
          Config: { panos: { Hostname: fakes.panos.hostname, Insecure: true, ApiKey: VENDOR.panosKey } },
        },
        Config: { panos: { EDLName: EDL } },
      },
      UserIDs: [],
      GroupIDs: [],
    });
    passivePlusId = passivePlus.KnocID;
    fakes.panos.addEdl(EDL, { sourceUrl: new URL(passivePlus.AllowlistURL, server.url).href });
    for (const [userName, Duration] of [
      ['alice', 480],
      // Bob's sessions last one minute: his grant ends while the test watches.
      ['bob', 1],
    ] as const) {
      const user = (await admin.createLocalUser(userName, password, { TOTPEnabled: false, Duration })) as {
        User: { ID: string };
      };
      await admin.call('POST', '/api/admin/groups', {
        Name: `${userName} vpn`,
        Type: 'local',
        ACLIDs: [...Object.values(knocIds), ...(userName === 'alice' ? [passivePlusId] : [])],
        UserIDs: [user.User.ID],
      });
    }
  }, 90_000);

  afterAll(async () => {
    await stopAgent(agent);
    await server?.stop();
    await fakes?.close();
    if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
  });

  beforeEach((context) => requireTool(context, missing));

  it.each(VENDORS)("puts the user's address on %s on a grant, and takes it off on revoke", async (vendor) => {
    const aclId = knocIds[vendor] ?? '';
    const alice = await signIn('alice');
    await userCall(alice, 'POST', '/api/grant', { ACLID: aclId, IPs: [] });
    await waitFor(() => holdsClient(vendor), `the grant on ${vendor}`, 15_000);

    await userCall(alice, 'DELETE', `/api/sessions/current/granted-acls/${aclId}`);
    await waitFor(() => !holdsClient(vendor), `the revoke on ${vendor}`, 15_000);
  });

  it('asks PAN-OS to fetch a passive+ list again after a grant, and the list it fetches holds the address', async () => {
    const alice = await signIn('alice');
    const before = fakes.panos.edlRefreshes(EDL).length;
    await userCall(alice, 'POST', '/api/grant', { ACLID: passivePlusId, IPs: [] });
    await waitFor(() => fakes.panos.edlRefreshes(EDL).length > before, 'the list refresh on PAN-OS', 15_000);
    await waitFor(
      () => (fakes.panos.edlContent(EDL) ?? []).some((line) => line.includes(CLIENT)),
      'the fetched list',
      15_000,
    );

    await userCall(alice, 'DELETE', `/api/sessions/current/granted-acls/${passivePlusId}`);
    await waitFor(
      () => !(fakes.panos.edlContent(EDL) ?? []).some((line) => line.includes(CLIENT)),
      'the list without the address',
      15_000,
    );
  });

  it('takes grants off every vendor when their session ends, with the server killed', async () => {
    const bob = await signIn('bob');
    if (server === undefined) throw new Error('no server');
    const bobEnds = await endSessionsSoon(server.storeLocation, 'bob', 15_000);
    for (const vendor of VENDORS) await userCall(bob, 'POST', '/api/grant', { ACLID: knocIds[vendor], IPs: [] });
    await waitFor(() => VENDORS.every(holdsClient), 'the grants on every vendor', 10_000);
    if (server.process.child.pid !== undefined) process.kill(server.process.child.pid, 'SIGKILL');
    await server.process.finished.catch(() => undefined);
    expect(Date.now()).toBeLessThan(bobEnds);

    // Bob's session ends; only the agent's own timers can take the address off now.
    await waitFor(() => !VENDORS.some(holdsClient), 'the agent to expire the grants on its own', 30_000);
    expect(fakes.fortios.members(VENDOR.group)).toEqual(['none']);
  }, 90_000);
});
