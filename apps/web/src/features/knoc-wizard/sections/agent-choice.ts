import { agentOptions } from '@/features/backends/backend-types';
import { minimumAgentVersion, type AgentRecord, type BackendType } from '@postern/protocol';

/** One agent in the agent select: whether it can be chosen and why not. */
export interface AgentChoice {
  agent: AgentRecord;
  /** The translation key of why the agent cannot be chosen; null when it can. */
  reasonKey: string | null;
  /** Its version meets the type's minimum (an unknown version does). */
  versionCompatible: boolean;
}

/** The key of the reason an agent too old for a wizard that requires the minimum version is disabled. */
export const VERSION_TOO_OLD_KEY = 'knocWizard.agent.versionTooOld';

/**
 * Every agent with whether it can drive a backend of `type` (the backends screen's eligibility). With
 * `requireVersion` (the script wizard), an agent older than the type's minimum version is disabled
 * too; otherwise it stays selectable and the section warns.
 */
export function agentChoices(
  agents: readonly AgentRecord[],
  type: BackendType,
  { requireVersion = false }: { requireVersion?: boolean } = {},
): AgentChoice[] {
  return agentOptions(agents, type).map(({ agent, reason, versionWarning }) => ({
    agent,
    reasonKey: reason ?? (requireVersion && versionWarning ? VERSION_TOO_OLD_KEY : null),
    versionCompatible: !versionWarning,
  }));
}

/** The agent to choose without asking: the only one that can be chosen, or null. */
export function autoPickedAgent(choices: readonly AgentChoice[]): string | null {
  const selectable = choices.filter((choice) => choice.reasonKey === null);
  return selectable.length === 1 ? (selectable[0]?.agent.ID ?? null) : null;
}

/** The minimum version an agent needs for the type, for the warning's text. */
export const minimumVersionFor = minimumAgentVersion;
