import { agentIncapability, type AgentCapabilities } from '@postern/protocol';

/** The groups of the capabilities dialog: the spec's four, with nftables beside IPSet. */
export const CAPABILITY_IDS = ['ipset', 'nftables', 'script', 'haproxy', 'other'] as const;
export type CapabilityId = (typeof CAPABILITY_IDS)[number];

/** Backend types the groups before "Other" stand for; every other type the agent reports is "Other". */
const OWN_GROUP_TYPES: ReadonlySet<string> = new Set(['ipset', 'nftables', 'script', 'haproxy']);

/** An nftables set the agent reported, as the dialog lists it. */
export type NftablesSetView = NonNullable<AgentCapabilities['nftables']>['sets'][number];

/** One group of the capabilities dialog, as data: whether it is available and what to say about it. */
export type CapabilityView =
  | {
      id: 'ipset';
      available: boolean;
      /** Why not, as an error key the app already translates; null when available. */
      reason: string | null;
      sets: { name: string; family: 'inet' | 'inet6' }[];
    }
  | {
      id: 'nftables';
      available: boolean;
      reason: string | null;
      /** The agent reported nftables at all (older agents do not). */
      reported: boolean;
      command: boolean;
      sudo: boolean;
      sets: NftablesSetView[];
    }
  | { id: 'script'; available: boolean }
  | { id: 'haproxy'; available: boolean; socket: string | null }
  | { id: 'other'; available: boolean; types: string[] };

/**
 * What the agent can do, from its hello. IPSet and scripts follow the eligibility rule the server
 * enforces and the knoc wizard shows (agentIncapability: the type in the agent's build, the ipset
 * command and the right to run it, scripts enabled in its configuration), so the dialog never
 * calls available what a knoc would be refused (nftables likewise, with the sets it found); HAProxy needs a runtime API socket; "Other" lists
 * the remaining backend types its build can drive.
 */
export function capabilityViews(capabilities: AgentCapabilities): CapabilityView[] {
  const { ipset, nftables, haproxy, backend_types: types } = capabilities;
  const ipsetReason = agentIncapability(capabilities, 'ipset');
  const nftablesReason = agentIncapability(capabilities, 'nftables');
  const socket = haproxy.socket_location.trim();
  const others = [...new Set(types.filter((type) => !OWN_GROUP_TYPES.has(type)))].sort();
  return [
    {
      id: 'ipset',
      available: ipsetReason === null,
      reason: ipsetReason,
      sets: ipset.ipsets.map((set) => ({ name: set.name, family: set.address_family })),
    },
    {
      id: 'nftables',
      available: nftablesReason === null,
      reason: nftablesReason,
      reported: nftables !== undefined,
      command: nftables?.command_available ?? false,
      sudo: nftables?.sudo_enabled ?? false,
      sets: nftables?.sets ?? [],
    },
    { id: 'script', available: agentIncapability(capabilities, 'script') === null },
    { id: 'haproxy', available: socket !== '', socket: socket === '' ? null : socket },
    { id: 'other', available: others.length > 0, types: others },
  ];
}

/** "Debian GNU/Linux 12 (bookworm)": the OS name and version the Capabilities column shows, or null. */
export function operatingSystem(capabilities: AgentCapabilities | null): string | null {
  if (capabilities === null) return null;
  const { NAME, VERSION } = capabilities['os-release'];
  const text = `${NAME} ${VERSION}`.trim();
  return text === '' ? null : text;
}

/** Every text in the capabilities worth finding by search: OS, set names, socket, backend types. */
export function capabilityTexts(capabilities: AgentCapabilities | null): string[] {
  if (capabilities === null) return [];
  return [
    operatingSystem(capabilities) ?? '',
    ...capabilities.ipset.ipsets.map((set) => set.name),
    ...(capabilities.nftables?.sets ?? []).map((set) => set.name),
    capabilities.haproxy.socket_location,
    ...capabilities.backend_types,
  ].filter((text) => text !== '');
}
