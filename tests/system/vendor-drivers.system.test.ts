import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { capture, REPO_ROOT, waitFor, type RunningProcess } from '@postern/test-support';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AwsEc2Fake } from '../../apps/agent/test/fakes/aws-ec2-fake.js';
import { AzureNsgFake } from '../../apps/agent/test/fakes/azure-nsg-fake.js';
import { FmcFake } from '../../apps/agent/test/fakes/fmc-fake.js';
import { FortimanagerFake } from '../../apps/agent/test/fakes/fortimanager-fake.js';
import { FortiosFake } from '../../apps/agent/test/fakes/fortios-fake.js';
import { PanosFake } from '../../apps/agent/test/fakes/panos-fake.js';
import { SophosSfosFake } from '../../apps/agent/test/fakes/sophos-sfos-fake.js';
import { SophosUtmFake } from '../../apps/agent/test/fakes/sophos-utm-fake.js';
import { selfSignedCertificate } from '../../apps/agent/test/support/self-signed.js';
import { AdminApi } from './support/admin-api.js';
import { installLicence, PORTAL_SETTINGS } from './support/user-portal.js';
import { stopAgent } from './support/grant-topology.js';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { missingBuild, requireTool } from './support/requirements.js';

/**
 * The vendor drivers end to end: the built server, the built agent (a real process on this host) and
 * each vendor's contract fake over HTTPS with a self-signed certificate (the backends' Insecure). A
 * user's grant on each vendor's knoc shows on its fake, the revoke takes it off, a passive+ grant
 * makes the agent ask PAN-OS to fetch the list again (and the list it fetches holds the address),
 * and grants whose session ends while the server is dead are still taken off by the agent on time.
 */
const TOKEN = 'forti-api-token-5f2a9c';
const FMG_KEY = 'fmg-api-key-0b7e1d';
const PANOS_KEY = 'panos-api-key-93c4aa';
const FMC_USER = 'postern-api';
const FMC_PASSWORD = 'fmc-password-6d2f';
const UTM_KEY = 'utm-api-token-1c9e';
const SFOS_USER = 'postern';
const SFOS_PASSWORD = 'sfos-password-72ab';
const UTM_GROUP = 'REF_NetGroPosternVpn';
const AWS_KEY_ID = 'AKIAPOSTERNTEST00001';
const AWS_SECRET = 'aws-secret-key-3e8f0b';
const AWS_REGION = 'eu-central-1';
const SECURITY_GROUP = 'sg-0123456789abcdef0';
const AZURE = { tenantId: 'tenant-7c1e', clientId: 'client-2b9d', clientSecret: 'azure-secret-5a0c' };
const AZURE_SUBSCRIPTION = 'sub-postern';
const NSG = { resourceGroup: 'rg-vpn', name: 'nsg-vpn' };
const GROUP = 'postern-vpn';
const DYNAMIC_OBJECT = '005056b3-5f6a-0ed3-0000-000000001234';
const EDL = 'postern-edl';
const CLIENT = '198.51.100.23';
const missing = missingBuild(REPO_ROOT);

let server: PosternServer | undefined;
let agent: RunningProcess | undefined;
let fake: FortiosFake;
let fortimanager: FortimanagerFake;
let panos: PanosFake;
let fmc: FmcFake;
let utm: SophosUtmFake;
let sfos: SophosSfosFake;
let aws: AwsEc2Fake;
let azure: AzureNsgFake;
let admin: AdminApi;
let stateDir: string;
/** The knocs alice and bob are given, by vendor. */
const knocIds: Record<string, string> = {};
let passivePlusId: string;
const password = 'correct horse battery staple';

/** The client's address as each fake holds it for its knoc (empty when it does not). */
const onDevice: Record<string, () => string[]> = {
  fortios: () => (fake.members(GROUP) ?? []).filter((name) => name.startsWith('kk_')),
  fortimanager: () => (fortimanager.members(GROUP) ?? []).filter((name) => name.startsWith('kk_')),
  panos: () => panos.registered(`kk-${GROUP}`),
  firepower: () => fmc.mappings(DYNAMIC_OBJECT) ?? [],
  sophosutm: () => utm.memberNames(UTM_GROUP).filter((name) => name.startsWith('kk_')),
  sophossfos: () => (sfos.hosts(GROUP) ?? []).filter((name) => name.startsWith('kk_')),
  aws: () =>
    aws
      .rules(SECURITY_GROUP)
      .filter((rule) => rule.description.startsWith('postern:'))
      .map((rule) => rule.cidr),
  azure: () =>
    (azure.rules(AZURE_SUBSCRIPTION, NSG.resourceGroup, NSG.name) ?? [])
      .filter((rule) => rule.name.startsWith('postern-'))
      .map((rule) => String(rule.properties.sourceAddressPrefix)),
};
const VENDORS = Object.keys(onDevice);
const holdsClient = (vendor: string) => onDevice[vendor]?.().some((held) => held.includes(CLIENT)) ?? false;

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

function startAgent(token: string): RunningProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/agent/dist/main.js'), 'run'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      POSTERN_AGENT_SERVER_URL: server?.url ?? '',
      POSTERN_AGENT_TOKEN: token,
      POSTERN_AGENT_STATE_FILE: path.join(stateDir, 'state.json'),
      POSTERN_AGENT_KEY_FILE: path.join(stateDir, 'agent-key.pem'),
      POSTERN_AGENT_HEARTBEAT_SECONDS: '5',
      POSTERN_AGENT_LOG_LEVEL: 'warn',
      // The clouds' endpoints, as GovCloud, VPC endpoints or Azure China would set them.
      POSTERN_AGENT_AWS_ENDPOINT: aws.url,
      POSTERN_AGENT_AZURE_AUTHORITY_HOST: azure.url,
      POSTERN_AGENT_AZURE_MANAGEMENT_ENDPOINT: azure.url,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return capture(child);
}

describe('a FortiOS knoc through the real server and agent', () => {
  beforeAll(async () => {
    if (missing !== null) return;
    const tls = selfSignedCertificate();
    fake = await FortiosFake.start({ token: TOKEN, tls });
    fake.addGroup(GROUP, { members: ['none'] });
    fortimanager = await FortimanagerFake.start({ apiKey: FMG_KEY, tls });
    fortimanager.addGroup(GROUP, { members: ['none'] });
    panos = await PanosFake.start({ key: PANOS_KEY, tls });
    fmc = await FmcFake.start({ username: FMC_USER, password: FMC_PASSWORD, tls });
    fmc.addDynamicObject(DYNAMIC_OBJECT, 'postern-vpn');
    utm = await SophosUtmFake.start({ apiKey: UTM_KEY, tls });
    utm.addGroup(UTM_GROUP, GROUP, [utm.addHost('office-lan', '192.0.2.200')]);
    sfos = await SophosSfosFake.start({ username: SFOS_USER, password: SFOS_PASSWORD, tls });
    sfos.addGroup(GROUP, 'IPv4');
    aws = await AwsEc2Fake.start({ keys: { [AWS_KEY_ID]: AWS_SECRET }, region: AWS_REGION });
    aws.addGroup(SECURITY_GROUP);
    azure = await AzureNsgFake.start({ ...AZURE, subscriptions: ['sub-other', AZURE_SUBSCRIPTION] });
    azure.addNsg(AZURE_SUBSCRIPTION, NSG.resourceGroup, NSG.name);
    server = await startPosternServer(
      {
        ...PORTAL_SETTINGS,
      },
      'sqlite',
    );
    stateDir = mkdtempSync(path.join(tmpdir(), 'postern-fortios-'));
    admin = await AdminApi.signIn(server);
    await installLicence(admin);
    const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', {
      Name: 'fortigate-agent',
    });
    agent = startAgent(created.Token);
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
      fortios: { backend: { Url: fake.url, Insecure: true, Bearer: TOKEN }, acl: { Name: GROUP } },
      fortimanager: {
        backend: { Hostname: fortimanager.hostname, Insecure: true, ApiKey: FMG_KEY },
        acl: { Name: GROUP },
      },
      panos: { backend: { Hostname: panos.hostname, Insecure: true, ApiKey: PANOS_KEY }, acl: { GroupName: GROUP } },
      firepower: {
        backend: { Hostname: fmc.hostname, Insecure: true, Username: FMC_USER, Password: FMC_PASSWORD },
        acl: { GroupUUID: DYNAMIC_OBJECT },
      },
      sophosutm: {
        backend: { Hostname: utm.hostname, Insecure: true, ApiKey: UTM_KEY },
        acl: { GroupReference: UTM_GROUP },
      },
      sophossfos: {
        backend: { Hostname: sfos.hostname, Insecure: true, Username: SFOS_USER, Password: SFOS_PASSWORD },
        acl: { GroupName: GROUP },
      },
      aws: {
        backend: { AccessKeyId: AWS_KEY_ID, SecretAccessKey: AWS_SECRET, Region: AWS_REGION },
        acl: { SecurityGroupId: SECURITY_GROUP, Port: 22 },
      },
      azure: {
        backend: {
          ClientId: AZURE.clientId,
          ClientSecret: AZURE.clientSecret,
          TenantId: AZURE.tenantId,
          NoCache: false,
        },
        acl: { NsgDirection: 'Inbound', NsgName: NSG.name, NsgPort: 443, ResourceGroup: NSG.resourceGroup },
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
          Config: { panos: { Hostname: panos.hostname, Insecure: true, ApiKey: PANOS_KEY } },
        },
        Config: { panos: { EDLName: EDL } },
      },
      UserIDs: [],
      GroupIDs: [],
    });
    passivePlusId = passivePlus.KnocID;
    panos.addEdl(EDL, { sourceUrl: new URL(passivePlus.AllowlistURL, server.url).href });
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
    await Promise.all([
      fake?.close(),
      fortimanager?.close(),
      panos?.close(),
      fmc?.close(),
      utm?.close(),
      sfos?.close(),
    ]);
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
    const before = panos.edlRefreshes(EDL).length;
    await userCall(alice, 'POST', '/api/grant', { ACLID: passivePlusId, IPs: [] });
    await waitFor(() => panos.edlRefreshes(EDL).length > before, 'the list refresh on PAN-OS', 15_000);
    await waitFor(
      () => (panos.edlContent(EDL) ?? []).some((line) => line.includes(CLIENT)),
      'the fetched list',
      15_000,
    );

    await userCall(alice, 'DELETE', `/api/sessions/current/granted-acls/${passivePlusId}`);
    await waitFor(
      () => !(panos.edlContent(EDL) ?? []).some((line) => line.includes(CLIENT)),
      'the list without the address',
      15_000,
    );
  });

  it('takes grants off every vendor when their session ends, with the server killed', async () => {
    const bob = await signIn('bob');
    for (const vendor of VENDORS) await userCall(bob, 'POST', '/api/grant', { ACLID: knocIds[vendor], IPs: [] });
    await waitFor(() => VENDORS.every(holdsClient), 'the grants on every vendor', 15_000);
    if (server?.process.child.pid !== undefined) process.kill(server.process.child.pid, 'SIGKILL');

    // Bob's one-minute session ends; only the agent's own timers can take the address off now.
    await waitFor(() => !VENDORS.some(holdsClient), 'the agent to expire the grants on its own', 75_000);
    expect(fake.members(GROUP)).toEqual(['none']);
  }, 90_000);
});
