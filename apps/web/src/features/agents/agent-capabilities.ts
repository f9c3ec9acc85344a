import { ErrorCodes, type AgentCapabilities } from '@postern/protocol';

/** The four groups of the capabilities dialog, in the spec's order. */
export const CAPABILITY_IDS = ['ipset', 'script', 'haproxy', 'other'] as const;
export type CapabilityId = (typeof CAPABILITY_IDS)[number];

/** Backend types the first three groups stand for; every other type the agent reports is "Other". */
const OWN_GROUP_TYPES: ReadonlySet<string> = new Set(['ipset', 'script', 'haproxy']);

/** One group of the capabilities dialog, as data: whether it is available and what to say about it. */
export type CapabilityView =
  | {
      id: 'ipset';
      available: boolean;
      /** Why not, as an error key the app already translates; null when available. */
      reason: string | null;
      sets: { name: string; family: 'inet' | 'inet6' }[];
    }
  | { id: 'script'; available: boolean }
  | { id: 'haproxy'; available: boolean; socket: string | null }
  | { id: 'other'; available: boolean; types: string[] };

/**
 * What the agent can do, from its hello. IPSet needs the command and the right to run it (the same
 * two reasons the knoc wizard gives); HAProxy needs a runtime API socket; scripts must be enabled in
 * the agent's configuration; "Other" lists the remaining backend types its build can drive.
 */
export function capabilityViews(capabilities: AgentCapabilities): CapabilityView[] {
  const { ipset, script, haproxy, backend_types: types } = capabilities;
  const ipsetReason = !ipset.command_available
    ? ErrorCodes.ipsetNoCommand
    : !ipset.sudo_enabled
      ? ErrorCodes.ipsetNoSudo
      : null;
  const socket = haproxy.socket_location.trim();
  const others = [...new Set(types.filter((type) => !OWN_GROUP_TYPES.has(type)))].sort();
  return [
    {
      id: 'ipset',
      available: ipsetReason === null,
      reason: ipsetReason,
      sets: ipset.ipsets.map((set) => ({ name: set.name, family: set.address_family })),
    },
    { id: 'script', available: script.enabled },
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
    capabilities.haproxy.socket_location,
    ...capabilities.backend_types,
  ].filter((text) => text !== '');
}
