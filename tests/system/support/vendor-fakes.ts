import { spawn } from 'node:child_process';
import path from 'node:path';
import { capture, REPO_ROOT, selfSignedCertificate, type RunningProcess } from '@postern/test-support';
import { AwsEc2Fake } from '../../../apps/agent/test/fakes/aws-ec2-fake.js';
import { AzureNsgFake } from '../../../apps/agent/test/fakes/azure-nsg-fake.js';
import { FmcFake } from '../../../apps/agent/test/fakes/fmc-fake.js';
import { FortimanagerFake } from '../../../apps/agent/test/fakes/fortimanager-fake.js';
import { FortiosFake } from '../../../apps/agent/test/fakes/fortios-fake.js';
import { PanosFake } from '../../../apps/agent/test/fakes/panos-fake.js';
import { SophosSfosFake } from '../../../apps/agent/test/fakes/sophos-sfos-fake.js';
import { SophosUtmFake } from '../../../apps/agent/test/fakes/sophos-utm-fake.js';

/**
 * Every vendor's contract fake, started with the credentials and objects the system tests configure
 * their knocs with (the firewalls over HTTPS with a self-signed certificate, hence the backends'
 * Insecure), what each holds for a knoc, and the real agent pointed at the clouds' fakes.
 */

/** The credentials and device objects the fakes are started with, and the knocs name. */
export const VENDOR = {
  fortiosToken: 'forti-api-token-5f2a9c',
  fortimanagerKey: 'fmg-api-key-0b7e1d',
  panosKey: 'panos-api-key-93c4aa',
  fmcUser: 'postern-api',
  fmcPassword: 'fmc-password-6d2f',
  utmKey: 'utm-api-token-1c9e',
  sfosUser: 'postern',
  sfosPassword: 'sfos-password-72ab',
  /** The UTM network group's reference (REF_…), as its REST API names it. */
  utmGroup: 'REF_NetGroPosternVpn',
  awsKeyId: 'AKIAPOSTERNTEST00001',
  awsSecret: 'aws-secret-key-3e8f0b',
  awsRegion: 'eu-central-1',
  securityGroup: 'sg-0123456789abcdef0',
  azure: { tenantId: 'tenant-7c1e', clientId: 'client-2b9d', clientSecret: 'azure-secret-5a0c' },
  azureSubscription: 'sub-postern',
  nsg: { resourceGroup: 'rg-vpn', name: 'nsg-vpn' },
  /** The address group (FortiOS, FortiManager, PAN-OS tag, SFOS host group, UTM group name). */
  group: 'postern-vpn',
  dynamicObject: '005056b3-5f6a-0ed3-0000-000000001234',
} as const;

/** The backend types the fakes stand in for: every vendor backend of the spec. */
export const VENDOR_TYPES = [
  'fortios',
  'fortimanager',
  'panos',
  'firepower',
  'sophosutm',
  'sophossfos',
  'aws',
  'azure',
] as const;
export type VendorType = (typeof VENDOR_TYPES)[number];

/** The eight fakes, running. */
export interface VendorFakes {
  fortios: FortiosFake;
  fortimanager: FortimanagerFake;
  panos: PanosFake;
  fmc: FmcFake;
  utm: SophosUtmFake;
  sfos: SophosSfosFake;
  aws: AwsEc2Fake;
  azure: AzureNsgFake;
  /** What each vendor's device holds for its knoc: the names or addresses Postern put there. */
  held: Record<VendorType, () => string[]>;
  close(): Promise<void>;
}

/** Starts every fake with the objects of {@link VENDOR} in place. */
export async function startVendorFakes(): Promise<VendorFakes> {
  const tls = selfSignedCertificate();
  const fortios = await FortiosFake.start({ token: VENDOR.fortiosToken, tls });
  fortios.addGroup(VENDOR.group, { members: ['none'] });
  const fortimanager = await FortimanagerFake.start({ apiKey: VENDOR.fortimanagerKey, tls });
  fortimanager.addGroup(VENDOR.group, { members: ['none'] });
  const panos = await PanosFake.start({ key: VENDOR.panosKey, tls });
  const fmc = await FmcFake.start({ username: VENDOR.fmcUser, password: VENDOR.fmcPassword, tls });
  fmc.addDynamicObject(VENDOR.dynamicObject, VENDOR.group);
  const utm = await SophosUtmFake.start({ apiKey: VENDOR.utmKey, tls });
  utm.addGroup(VENDOR.utmGroup, VENDOR.group, [utm.addHost('office-lan', '192.0.2.200')]);
  const sfos = await SophosSfosFake.start({ username: VENDOR.sfosUser, password: VENDOR.sfosPassword, tls });
  sfos.addGroup(VENDOR.group, 'IPv4');
  const aws = await AwsEc2Fake.start({ keys: { [VENDOR.awsKeyId]: VENDOR.awsSecret }, region: VENDOR.awsRegion });
  aws.addGroup(VENDOR.securityGroup);
  const azure = await AzureNsgFake.start({ ...VENDOR.azure, subscriptions: ['sub-other', VENDOR.azureSubscription] });
  azure.addNsg(VENDOR.azureSubscription, VENDOR.nsg.resourceGroup, VENDOR.nsg.name);

  const held: Record<VendorType, () => string[]> = {
    fortios: () => (fortios.members(VENDOR.group) ?? []).filter((name) => name.startsWith('kk_')),
    fortimanager: () => (fortimanager.members(VENDOR.group) ?? []).filter((name) => name.startsWith('kk_')),
    panos: () => panos.registered(`kk-${VENDOR.group}`),
    firepower: () => fmc.mappings(VENDOR.dynamicObject) ?? [],
    sophosutm: () => utm.memberNames(VENDOR.utmGroup).filter((name) => name.startsWith('kk_')),
    sophossfos: () => (sfos.hosts(VENDOR.group) ?? []).filter((name) => name.startsWith('kk_')),
    aws: () =>
      aws
        .rules(VENDOR.securityGroup)
        .filter((rule) => rule.description.startsWith('postern:'))
        .map((rule) => rule.cidr),
    azure: () =>
      (azure.rules(VENDOR.azureSubscription, VENDOR.nsg.resourceGroup, VENDOR.nsg.name) ?? [])
        .filter((rule) => rule.name.startsWith('postern-'))
        .map((rule) => String(rule.properties.sourceAddressPrefix)),
  };
  return {
    fortios,
    fortimanager,
    panos,
    fmc,
    utm,
    sfos,
    aws,
    azure,
    held,
    close: async () => {
      await Promise.all([fortios, fortimanager, panos, fmc, utm, sfos, aws, azure].map((fake) => fake.close()));
    },
  };
}

/** Whether the vendor's device holds `address` for its knoc (as an object name or a CIDR). */
export function vendorHolds(fakes: VendorFakes, vendor: VendorType, address: string): boolean {
  return fakes.held[vendor]().some((held) => held.includes(address));
}

/**
 * The built agent as a process on this host, connected to `serverUrl` with `token`, its state and
 * key in `stateDir`, and the clouds' endpoints set to their fakes, as GovCloud, VPC endpoints or
 * Azure China would set them. `env` adds to its environment (the AWS credential chain's keys, say).
 */
export function startVendorAgent(
  fakes: VendorFakes,
  options: { serverUrl: string; token: string; stateDir: string; env?: Record<string, string> },
): RunningProcess {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/agent/dist/main.js'), 'run'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      // No shared credentials file of whoever runs the tests: HOME is the agent's own directory.
      HOME: options.stateDir,
      POSTERN_AGENT_SERVER_URL: options.serverUrl,
      POSTERN_AGENT_TOKEN: options.token,
      POSTERN_AGENT_STATE_FILE: path.join(options.stateDir, 'state.json'),
      POSTERN_AGENT_KEY_FILE: path.join(options.stateDir, 'agent-key.pem'),
      POSTERN_AGENT_HEARTBEAT_SECONDS: '5',
      POSTERN_AGENT_LOG_LEVEL: 'warn',
      POSTERN_AGENT_AWS_ENDPOINT: fakes.aws.url,
      POSTERN_AGENT_AZURE_AUTHORITY_HOST: fakes.azure.url,
      POSTERN_AGENT_AZURE_MANAGEMENT_ENDPOINT: fakes.azure.url,
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return capture(child);
}
