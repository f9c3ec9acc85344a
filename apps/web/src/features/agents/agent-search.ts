import type { AgentRecord } from '@postern/protocol';
import { displayAddress } from './agent-address';
import { capabilityTexts } from './agent-capabilities';

/**
 * The texts of an agent a search looks through ("filters rows by any field"): every value shown in
 * its row (name, OS, version, address, plus the translated words of its state in `shown`) and what
 * the capabilities dialog and its backends name. The token is left out on purpose: typing a secret
 * into a search box is a habit to avoid, not to reward.
 */
export function agentSearchTexts(agent: AgentRecord, shown: readonly string[] = []): string[] {
  return [
    agent.Name,
    agent.Version ?? '',
    displayAddress(agent.ExternalIP) ?? '',
    ...capabilityTexts(agent.Capabilities),
    ...agent.Backends.map((backend) => backend.Name),
    agent.KeyFingerprint ?? '',
    ...shown,
  ].filter((text) => text !== '');
}

/**
 * The agents any of whose texts contain `query`, ignoring case and surrounding spaces (like the
 * shared table search). `shown` gives the translated texts of a row that are not in the record.
 */
export function filterAgents(
  agents: readonly AgentRecord[],
  query: string,
  shown: (agent: AgentRecord) => readonly string[] = () => [],
): AgentRecord[] {
  const needle = query.trim().toLocaleLowerCase();
  if (needle === '') return [...agents];
  return agents.filter((agent) =>
    agentSearchTexts(agent, shown(agent)).some((text) => text.toLocaleLowerCase().includes(needle)),
  );
}
