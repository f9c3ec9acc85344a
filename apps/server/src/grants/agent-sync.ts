/** An address on a knoc, on the agent that enforces the knoc. */
export interface AgentEntryKey {
  agentId: string;
  aclId: string;
  ip: string;
}

/**
 * How services tell the agent hub that desired state changed. Call these only after the
 * transaction that made the change has committed: the hub reads the store to compute what to send,
 * so it never acts on a change that was rolled back. Calls never throw; failures are the hub's to
 * log and retry (the next full state on reconnect repairs anything missed).
 */
export interface AgentSync {
  /** Grants on these addresses started or ended: send the agent the entries' new state. */
  entriesChanged(keys: readonly AgentEntryKey[]): void;
  /**
   * entriesChanged, resolving once the change has left for the agents connected to this server
   * (at once when none is); it never rejects. A user's grant or revoke answers after this, so
   * writing the reply never delays the message that opens or closes the firewall.
   */
  deliverEntryChanges(keys: readonly AgentEntryKey[]): Promise<void>;
  /** Knocs or backends of these agents were created, changed or deleted: resend their whole state. */
  agentsChanged(agentIds: readonly string[]): void;
  /** An agent was deleted or its token rotated: close its connection. */
  disconnectAgent(agentId: string, reason: string): void;
}

/** For contexts without a hub (CLI commands, unit tests of other features). */
export const NO_AGENT_SYNC: AgentSync = {
  entriesChanged: () => undefined,
  deliverEntryChanges: () => Promise.resolve(),
  agentsChanged: () => undefined,
  disconnectAgent: () => undefined,
};
