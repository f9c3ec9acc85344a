import {
  BACKEND_TYPES,
  agentIncapability,
  agentVersionCompatible,
  ErrorCodes,
  type AgentRecord,
  type BackendType,
  type ErrorCode,
} from '@postern/protocol';

/** The text key of a backend type's label. */
export function backendTypeLabelKey(type: BackendType): string {
  return `backendsScreen.types.${type}`;
}

/** Whether a type needs an agent: all but allowlist, which the server publishes itself. */
export function needsAgent(type: BackendType): boolean {
  return type !== 'allowlist';
}

/** Whether a choice is offered, and why not (an error key the app translates). */
export interface Availability {
  disabled: boolean;
  reason: ErrorCode | null;
}

/**
 * A backend type can be chosen when at least one agent can drive it (spec §5); allowlist needs no
 * agent and is always available.
 */
export function backendTypeAvailability(type: BackendType, agents: readonly AgentRecord[]): Availability {
  if (!needsAgent(type)) return { disabled: false, reason: null };
  const capable = agents.some((agent) => agentIncapability(agent.Capabilities, type) === null);
  return capable ? { disabled: false, reason: null } : { disabled: true, reason: ErrorCodes.backendTypeNoAgents };
}

/** Every backend type with its availability, in the protocol's order. */
export function backendTypeOptions(agents: readonly AgentRecord[]): ({ type: BackendType } & Availability)[] {
  return BACKEND_TYPES.map((type) => ({ type, ...backendTypeAvailability(type, agents) }));
}

/** A type an agent reported that this server cannot drive: listed, never chosen. */
export interface UnsupportedTypeOption {
  type: string;
  reason: ErrorCode;
}

/**
 * The backend types agents report that this server does not know (a newer agent build), in name
 * order. With the enhanced-custom-script experimental feature the type choice lists them disabled
 * with their reason (spec §5), so an admin sees why a driver the agent has is not offered.
 */
export function unsupportedAgentTypes(agents: readonly AgentRecord[]): UnsupportedTypeOption[] {
  const known = new Set<string>(BACKEND_TYPES);
  const reported = agents.flatMap((agent) => agent.Capabilities?.backend_types ?? []);
  return [...new Set(reported)]
    .filter((type) => !known.has(type))
    .sort()
    .map((type) => ({ type, reason: ErrorCodes.agentBackendTypeNotSupportedByServer }));
}

/** An agent as a choice for a backend type. */
export interface AgentOption extends Availability {
  agent: AgentRecord;
  /** Its version is below the type's minimum: the form warns to update it with the OS package manager. */
  versionWarning: boolean;
}

/** The agents as choices for a backend type: each enabled or disabled with the reason it cannot. */
export function agentOptions(agents: readonly AgentRecord[], type: BackendType): AgentOption[] {
  return agents.map((agent) => {
    const reason = agentIncapability(agent.Capabilities, type);
    return {
      agent,
      disabled: reason !== null,
      reason,
      versionWarning: !agentVersionCompatible(agent.Version, type),
    };
  });
}

/** The agent to pick without asking: the only capable one, or null when there are none or several. */
export function autoPickedAgentId(options: readonly AgentOption[]): string | null {
  const capable = options.filter((option) => !option.disabled);
  return capable.length === 1 && capable[0] !== undefined ? capable[0].agent.ID : null;
}
