import type { AgentEntryKey, AgentSync } from '../grants/agent-sync.js';

/** One call made to an AgentSync, with copies of its arguments. */
export type AgentSyncCall =
  | { method: 'entriesChanged'; keys: AgentEntryKey[] }
  | { method: 'deliverEntryChanges'; keys: AgentEntryKey[] }
  | { method: 'agentsChanged'; agentIds: string[] }
  | { method: 'disconnectAgent'; agentId: string; reason: string };

export interface RecordingAgentSync extends AgentSync {
  /** Every call, in order. */
  readonly calls: AgentSyncCall[];
  /** The keys of every entriesChanged and deliverEntryChanges call, in order. */
  changedEntries(): AgentEntryKey[];
  /** The ids of every agentsChanged call, in order (repeats kept). */
  changedAgents(): string[];
  /** Every disconnectAgent call. */
  disconnects(): { agentId: string; reason: string }[];
  /** Forgets the calls so far (after a test's setup, say). */
  clear(): void;
}

/**
 * An AgentSync for service and API tests that records what it is told instead of telling agents.
 * Like the hub it never throws, and deliverEntryChanges resolves at once (as with no agent connected).
 *
 *     const sync = recordingAgentSync();
 *     t.ctx.agentSync = sync;
 *     await deleteAgent(t.ctx, actor, id);
 *     expect(sync.disconnects()).toEqual([{ agentId: id, reason: expect.any(String) }]);
 */
export function recordingAgentSync(): RecordingAgentSync {
  const calls: AgentSyncCall[] = [];
  const copyKeys = (keys: readonly AgentEntryKey[]) => keys.map((key) => ({ ...key }));
  return {
    calls,
    entriesChanged: (keys) => {
      calls.push({ method: 'entriesChanged', keys: copyKeys(keys) });
    },
    deliverEntryChanges: (keys) => {
      calls.push({ method: 'deliverEntryChanges', keys: copyKeys(keys) });
      return Promise.resolve();
    },
    agentsChanged: (agentIds) => {
      calls.push({ method: 'agentsChanged', agentIds: [...agentIds] });
    },
    disconnectAgent: (agentId, reason) => {
      calls.push({ method: 'disconnectAgent', agentId, reason });
    },
    changedEntries: () =>
      calls.flatMap((call) =>
        call.method === 'entriesChanged' || call.method === 'deliverEntryChanges' ? call.keys : [],
      ),
    changedAgents: () => calls.flatMap((call) => (call.method === 'agentsChanged' ? call.agentIds : [])),
    disconnects: () =>
      calls.flatMap((call) =>
        call.method === 'disconnectAgent' ? [{ agentId: call.agentId, reason: call.reason }] : [],
      ),
    clear: () => {
      calls.length = 0;
    },
  };
}
