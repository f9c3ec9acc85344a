import type { AgentCapabilities } from '@postern/protocol';
import type { AgentConfig } from '../config/config.js';
import { findExecutable, runCommand, runningAsRoot } from '../drivers/command.js';
import { allowedSetKey, parseSetListing, type ListedSet } from '../drivers/nftables/nft-json.js';

export type NftablesCapabilities = NonNullable<AgentCapabilities['nftables']>;
type ReportedSet = NftablesCapabilities['sets'][number];

export interface NftablesProbe {
  /** The argv that runs nft the way the driver will (sudo included when configured). */
  command: readonly string[];
  /** Whether the nft program is installed; default: found in PATH or the sbin directories. */
  installed?: () => boolean;
  /** Whether the agent runs as root; default: its uid is 0. */
  isRoot?: () => boolean;
}

const PROBE_TIMEOUT_MS = 10_000;

/**
 * What the server needs to know about nftables on this host, as for ipset:
 * - command_available: the nft program is installed;
 * - sudo_enabled: the agent may change sets: as root without sudo, or through `sudo -n` when
 *   nftables.useSudo is on and sudo lets it (`nft -j list sets` run that way succeeds);
 * - sets: the sets that exist and that the configuration allows, read from that same listing, with
 *   their family, table, element type and whether they have `flags timeout` (sets of other element
 *   types cannot hold grants and are left out).
 */
export async function detectNftables(
  config: Partial<Pick<AgentConfig, 'nftables'>>,
  probe: NftablesProbe,
): Promise<NftablesCapabilities> {
  const installed = (probe.installed ?? (() => findExecutable('nft') !== null))();
  if (!installed) return { command_available: false, sudo_enabled: false, sets: [] };

  const mayRun = config.nftables?.useSudo === true || (probe.isRoot ?? runningAsRoot)();
  const listing = mayRun ? await run([...probe.command, '-j', 'list', 'sets']) : null;
  if (listing?.code !== 0) return { command_available: true, sudo_enabled: false, sets: [] };

  const allowed = new Set(config.nftables?.allowedSets ?? []);
  let listed: ListedSet[] = [];
  try {
    listed = parseSetListing(listing.stdout);
  } catch {
    // nft ran but printed something else: no set can be vouched for.
  }
  const sets = listed.filter((set) => allowed.has(allowedSetKey(set))).flatMap(reported);
  return { command_available: true, sudo_enabled: true, sets };
}

function reported(set: ListedSet): ReportedSet[] {
  if (set.type !== 'ipv4_addr' && set.type !== 'ipv6_addr') return [];
  return [
    { family: set.family, table: set.table, name: set.name, type: set.type, timeout: set.flags.includes('timeout') },
  ];
}

async function run(argv: string[]) {
  try {
    return await runCommand(argv, { timeoutMs: PROBE_TIMEOUT_MS });
  } catch {
    return null;
  }
}
