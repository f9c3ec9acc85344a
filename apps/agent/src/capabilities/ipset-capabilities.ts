import type { AgentCapabilities } from '@postern/protocol';
import type { AgentConfig } from '../config/config.js';
import { findExecutable, runCommand, runningAsRoot } from '../drivers/command.js';
import { parseSetHeaders } from '../drivers/ipset/ipset-output.js';

export type IpsetCapabilities = AgentCapabilities['ipset'];

export interface IpsetProbe {
  /** The argv that runs ipset the way the driver will (sudo included when configured). */
  command: readonly string[];
  /** Whether the ipset program is installed; default: found in PATH or the sbin directories. */
  installed?: () => boolean;
  /** Whether the agent runs as root; default: its uid is 0. */
  isRoot?: () => boolean;
}

const PROBE_TIMEOUT_MS = 10_000;

/**
 * What the server needs to know about ipset on this host:
 * - command_available: the ipset program is installed;
 * - sudo_enabled: the agent may change sets: as root without sudo, or through `sudo -n` when
 *   ipset.useSudo is on and sudo lets it (`ipset version` run that way succeeds);
 * - ipsets: the sets that exist and that the configuration allows, with their address family, read
 *   from `ipset list -terse` (sets without a family, like list:set, cannot hold grants and are left out).
 */
export async function detectIpset(config: Pick<AgentConfig, 'ipset'>, probe: IpsetProbe): Promise<IpsetCapabilities> {
  const installed = (probe.installed ?? (() => findExecutable('ipset') !== null))();
  if (!installed) return { command_available: false, sudo_enabled: false, ipsets: [] };

  const mayRun = config.ipset.useSudo || (probe.isRoot ?? runningAsRoot)();
  const works = mayRun && (await succeeds([...probe.command, 'version']));
  if (!works) return { command_available: true, sudo_enabled: false, ipsets: [] };

  const allowed = new Set(config.ipset.allowedSets);
  const ipsets: IpsetCapabilities['ipsets'] = [];
  if (allowed.size > 0) {
    const listing = await run([...probe.command, 'list', '-terse']);
    for (const set of parseSetHeaders(listing?.code === 0 ? listing.stdout : '')) {
      if (allowed.has(set.name) && set.family !== null) ipsets.push({ name: set.name, address_family: set.family });
    }
  }
  return { command_available: true, sudo_enabled: true, ipsets };
}

async function run(argv: string[]) {
  try {
    return await runCommand(argv, { timeoutMs: PROBE_TIMEOUT_MS });
  } catch {
    return null;
  }
}

async function succeeds(argv: string[]): Promise<boolean> {
  return (await run(argv))?.code === 0;
}
