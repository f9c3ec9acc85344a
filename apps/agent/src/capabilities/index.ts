import type { AgentCapabilities, BackendType } from '@postern/protocol';
import type { AgentConfig } from '../config/config.js';
import { formatHaproxySocket } from '../config/describe.js';
import { drivenBackendTypes, ipsetCommand, nftablesCommand } from '../drivers/index.js';
import { detectIpset, type IpsetProbe } from './ipset-capabilities.js';
import { detectNftables, type NftablesProbe } from './nftables-capabilities.js';
import { OS_RELEASE_FILES, readOsRelease } from './os-release.js';

export { parseOsRelease, readOsRelease } from './os-release.js';
export { detectIpset } from './ipset-capabilities.js';
export { detectNftables } from './nftables-capabilities.js';

/** Where detection looks; tests point it at a namespace's ipset and nft or another os-release. */
export interface DetectOptions {
  ipsetCommand?: readonly string[];
  nftablesCommand?: readonly string[];
  osReleaseFiles?: readonly string[];
  ipsetInstalled?: IpsetProbe['installed'];
  nftablesInstalled?: NftablesProbe['installed'];
  isRoot?: IpsetProbe['isRoot'];
}

export type CapabilitiesConfig = Pick<AgentConfig, 'ipset' | 'haproxy' | 'scripts'> &
  Partial<Pick<AgentConfig, 'nftables'>>;

/**
 * What this agent can do on this host, for `hello` (the admin console shows it and offers only the
 * backends an agent can run). Detection never fails: what cannot be probed is reported as absent.
 */
export async function detectCapabilities(
  config: CapabilitiesConfig,
  options: DetectOptions = {},
): Promise<AgentCapabilities> {
  const isRoot = options.isRoot === undefined ? {} : { isRoot: options.isRoot };
  const [osRelease, ipset, nftables] = await Promise.all([
    readOsRelease(options.osReleaseFiles ?? OS_RELEASE_FILES),
    detectIpset(config, {
      command: options.ipsetCommand ?? ipsetCommand(config),
      ...(options.ipsetInstalled === undefined ? {} : { installed: options.ipsetInstalled }),
      ...isRoot,
    }),
    detectNftables(config, {
      command: options.nftablesCommand ?? nftablesCommand(config),
      ...(options.nftablesInstalled === undefined ? {} : { installed: options.nftablesInstalled }),
      ...isRoot,
    }),
  ]);
  return {
    'os-release': osRelease,
    ipset,
    nftables,
    script: { enabled: config.scripts.enabled },
    haproxy: { socket_location: config.haproxy.socket === null ? '' : formatHaproxySocket(config.haproxy.socket) },
    backend_types: backendTypes(config, {
      ipset: ipset.command_available,
      nftables: nftables.command_available,
    }),
  };
}

/** The types whose driver depends on this host; every other driven type is a remote API. */
const HOST_TYPES: ReadonlySet<BackendType> = new Set(['ipset', 'nftables', 'haproxy', 'knocproxy', 'script']);

/**
 * The backend types this agent can drive here. haproxy and knocproxy need nothing installed (a
 * backend names its own socket or address); ipset and nftables need their program (and nftables
 * its driver in this build); scripts need to be enabled; a vendor's API needs only its driver in
 * this build (the registry says which).
 */
function backendTypes(
  config: Pick<AgentConfig, 'scripts'>,
  available: { ipset: boolean; nftables: boolean },
): BackendType[] {
  const driven = new Set(drivenBackendTypes());
  const types: BackendType[] = [];
  if (available.ipset) types.push('ipset');
  if (available.nftables && driven.has('nftables')) types.push('nftables');
  types.push('haproxy', 'knocproxy');
  if (config.scripts.enabled) types.push('script');
  types.push(...[...driven].filter((type) => !HOST_TYPES.has(type)));
  return types;
}
