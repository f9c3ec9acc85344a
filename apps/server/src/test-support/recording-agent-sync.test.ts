import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentResponse } from '@postern/protocol';
import { createTestApp, type TestApp } from './test-app.js';
import { givenAdmin } from './factories.js';
import { signInAdmin } from './http.js';
import { adminClient } from './admin-client.js';
import { recordingAgentSync } from './recording-agent-sync.js';

describe('recordingAgentSync', () => {
  const key = { agentId: 'agent-1', aclId: 'acl-1', ip: '192.0.2.7' };

  it('records every call in order, with copies of its arguments', async () => {
    const sync = recordingAgentSync();
    const keys = [key];
    sync.entriesChanged(keys);
    await expect(sync.deliverEntryChanges([{ ...key, ip: '192.0.2.8' }])).resolves.toBeUndefined();
    sync.agentsChanged(['agent-1', 'agent-2']);
    sync.disconnectAgent('agent-2', 'deleted');
    keys.push({ ...key, ip: '192.0.2.9' });

    expect(sync.calls).toEqual([
      { method: 'entriesChanged', keys: [key] },
      { method: 'deliverEntryChanges', keys: [{ ...key, ip: '192.0.2.8' }] },
      { method: 'agentsChanged', agentIds: ['agent-1', 'agent-2'] },
      { method: 'disconnectAgent', agentId: 'agent-2', reason: 'deleted' },
    ]);
    expect(sync.changedEntries().map((entry) => entry.ip)).toEqual(['192.0.2.7', '192.0.2.8']);
    expect(sync.changedAgents()).toEqual(['agent-1', 'agent-2']);
    expect(sync.disconnects()).toEqual([{ agentId: 'agent-2', reason: 'deleted' }]);
  });

  it('forgets what it recorded on clear', () => {
    const sync = recordingAgentSync();
    sync.agentsChanged(['agent-1']);
    sync.clear();
    sync.disconnectAgent('agent-1', 'token rotated');
    expect(sync.calls).toEqual([{ method: 'disconnectAgent', agentId: 'agent-1', reason: 'token rotated' }]);
    expect(sync.changedAgents()).toEqual([]);
  });
});

describe.each(['sqlite'] as const)('recordingAgentSync in an app (%s)', (kind) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(kind);
  });
  afterEach(async () => {
    await t.close();
  });

  it('hears what the services tell the agents in place of the hub', async () => {
    const sync = recordingAgentSync();
    t.ctx.agentSync = sync;
    const account = await givenAdmin(t.ctx, { userName: 'ops' });
    const admin = adminClient(t.app, await signInAdmin(t.app, 'ops', account.password));
    const agent = await admin.data('POST', '/api/admin/agents', AgentResponse, { Name: 'edge-fw' });
    sync.clear();

    await admin.delete(`/api/admin/agents/${agent.ID}`);

    expect(sync.disconnects()).toEqual([{ agentId: agent.ID, reason: expect.any(String) as string }]);
  });
});
