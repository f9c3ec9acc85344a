import { beforeEach, describe, expect, it } from 'vitest';
import { GrantStatus } from '@postern/protocol';
import { type TestApp } from '../test-support/test-app.js';
import type { FakeAgent } from '../test-support/fake-agent.js';
import { useGrantEngineWorld } from '../test-support/grant-engine-world.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';

// A passive+ knoc: an allowlist the user sees, and a hidden PAN-OS child on the agent that asks the
// firewall to fetch the list again. The child's outcome is the user's to see.
describe.each(['sqlite'] as const)('passive+ grants (%s)', (kind) => {
  const world = useGrantEngineWorld(kind);
  const { signIn, grant, settle, aclOf } = world;
  let t: TestApp, agent: FakeAgent, agentId: string, userId: string;
  beforeEach(() => {
    ({ t, agent, agentId, userId } = world);
  });

  async function givenPassivePlusKnoc() {
    const list = await givenBackend(t.ctx, { type: 'allowlist' });
    const parent = await givenEnforcedKnoc(t.ctx, { backendId: list.id, type: 'allowlist', aclConfig: {} });
    const firewall = await givenBackend(t.ctx, {
      type: 'panos',
      agentId,
      config: { Hostname: 'fw.example.net', ApiKey: 'panos-key', VSys: 'vsys1' },
    });
    const child = await givenEnforcedKnoc(t.ctx, {
      backendId: firewall.id,
      type: 'panos',
      aclConfig: { EDLName: 'postern-edl' },
      options: { ParentID: parent.id, HideFromUsers: true },
    });
    await t.ctx.db.insertInto('userAcls').values({ userId, aclId: parent.id }).execute();
    return { parentId: parent.id, childId: child.id };
  }

  it('shows the firewall’s refusal to refresh its list as the knoc’s grant error', async () => {
    const { parentId, childId } = await givenPassivePlusKnoc();
    agent.decide = (entry) => ({
      ...entry,
      ok: entry.aclId !== childId,
      error: entry.aclId === childId ? 'External list postern-edl not found' : '',
    });
    await agent.connect();
    const alice = await signIn();
    await grant(alice, parentId);
    await agent.waitFor(() => agent.applies().some((apply) => apply.add.some((entry) => entry.aclId === childId)));
    await settle();

    const entry = await aclOf(alice, parentId);
    expect(entry.Status).toBe(GrantStatus.GrantError);
    expect(entry.Error).toBe('External list postern-edl not found');
  });

  it('shows the list’s own status while the refresh succeeds', async () => {
    const { parentId, childId } = await givenPassivePlusKnoc();
    await agent.connect();
    const alice = await signIn();
    await grant(alice, parentId);
    await agent.waitFor(() => agent.applies().some((apply) => apply.add.some((entry) => entry.aclId === childId)));
    await settle();

    const entry = await aclOf(alice, parentId);
    expect(entry.Status).toBe(GrantStatus.Published);
    expect(entry.Error).toBe('');
    expect((await world.status(alice)).ACLs.map((acl) => acl.ACLID)).toEqual([parentId]);
  });
});
