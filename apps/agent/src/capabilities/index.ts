import type { AgentCapabilities, BackendType } from '@postern/protocol';
import type { AgentConfig } from '../config/config.js';
import { formatHaproxySocket } from '../config/describe.js';
import { drivenBackendTypes, ipsetCommand } from '../drivers/index.js';
import { detectIpset, type IpsetProbe } from './ipset-capabilities.js';
import { OS_RELEASE_FILES, readOsRelease } from './os-release.js';

export { parseOsRelease, readOsRelease } from './os-release.js';
export { detectIpset } from './ipset-capabilities.js';

/** Where detection looks; tests point it at a namespace's ipset or another os-release. */
export interface DetectOptions {
  ipsetCommand?: readonly string[];
  osReleaseFiles?: readonly string[];
  ipsetInstalled?: IpsetProbe['installed'];
  isRoot?: IpsetProbe['isRoot'];
}

export type CapabilitiesConfig = Pick<AgentConfig, 'ipset' | 'haproxy' | 'scripts'>;

/**
 * What this agent can do on this host, for `hello` (the admin console shows it and offers only the
 * backends an agent can run). Detection never fails: what cannot be probed is reported as absent.
 */
export async function detectCapabilities(
  config: CapabilitiesConfig,
  options: DetectOptions = {},
): Promise<AgentCapabilities> {
  const [osRelease, ipset] = await Promise.all([
    readOsRelease(options.osReleaseFiles ?? OS_RELEASE_FILES),
    detectIpset(config, {
      command: options.ipsetCommand ?? ipsetCommand(config),
      ...(options.ipsetInstalled === undefined ? {} : { installed: options.ipsetInstalled }),
      ...(options.isRoot === undefined ? {} : { isRoot: options.isRoot }),
    }),
  ]);
  return {
    'os-release': osRelease,
    ipset,
    script: { enabled: config.scripts.enabled },
    haproxy: { socket_location: config.haproxy.socket === null ? '' : formatHaproxySocket(config.haproxy.socket) },
    backend_types: backendTypes(config, ipset.command_available),
  };
}

/** The types whose driver depends on this host; every other driven type is a remote API. */
const HOST_TYPES: ReadonlySet<BackendType> = new Set(['ipset', 'haproxy', 'knocproxy', 'script']);

/**
 * The backend types this agent can drive here. haproxy and knocproxy need nothing installed (a
 * backend names its own socket or address); ipset needs the program; scripts need to be enabled;
 * a vendor's API needs only its driver in this build (the registry says which).
 */
function backendTypes(config: Pick<AgentConfig, 'scripts'>, ipsetAvailable: boolean): BackendType[] {
  const types: BackendType[] = [];
  if (ipsetAvailable) types.push('ipset');
  types.push('haproxy', 'knocproxy');
  if (config.scripts.enabled) types.push('script');
  types.push(...drivenBackendTypes().filter((type) => !HOST_TYPES.has(type)));
  return types;
}
