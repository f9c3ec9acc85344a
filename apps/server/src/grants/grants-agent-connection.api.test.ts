import { beforeEach, describe, expect, it } from 'vitest';
import { type TestApp } from '../test-support/test-app.js';
import { FakeAgent } from '../test-support/fake-agent.js';
import { ALICE_ADDRESS, givenIpsetKnoc, useGrantEngineWorld } from '../test-support/grant-engine-world.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';

// The agent connection: the state on hello and on reconnect, message generations, knoc contents, tokens.
describe.each(['sqlite'] as const)('grant engine (%s)', (kind) => {
  const world = useGrantEngineWorld(kind);
  const { signIn, grant, revoke, settle } = world;
  let t: TestApp, agent: FakeAgent, agentId: string, userId: string, baseUrl: string;
  beforeEach(() => {
    ({ t, agent, agentId, userId, baseUrl } = world);
  });

  it('resends the whole state when an agent reconnects, at a newer generation', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn();
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    await settle();
    const lastGeneration = agent.applies()[0]?.generation ?? Infinity;
    await agent.disconnect();

    await agent.connect();
    const state = agent.states().at(-1);
    expect(state?.generation).toBeGreaterThan(lastGeneration);
    expect(state?.entries.map((entry) => entry.ip)).toEqual([ALICE_ADDRESS]);
  });

  it('numbers messages in sending order, never above what the store has reserved', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn();
    for (let round = 1; round <= 3; round += 1) {
      await grant(alice, aclId);
      await agent.waitFor(() => agent.applies().length === 2 * round - 1);
      await revoke(alice, aclId);
      await agent.waitFor(() => agent.applies().length === 2 * round);
    }
    const sent = [...agent.states(), ...agent.applies()].map((message) => message.generation);
    expect(sent).toEqual([...sent].sort((a, b) => a - b));
    expect(new Set(sent).size).toBe(sent.length);
    const stored = await t.ctx.db
      .selectFrom('agents')
      .select('generation')
      .where('id', '=', agentId)
      .executeTakeFirstOrThrow();
    // A replica or a later connection starts above this, so above everything sent here.
    expect(Number(stored.generation)).toBeGreaterThanOrEqual(Math.max(...sent));
  });

  it('sends each knoc with its backend’s fields and secrets opened for the driver', async () => {
    const backend = await givenBackend(t.ctx, {
      type: 'haproxy',
      agentId,
      config: { Protocol: 'unix', Address: '/run/haproxy/admin.sock' },
    });
    const knoc = await givenEnforcedKnoc(t.ctx, { backendId: backend.id, type: 'haproxy', aclConfig: { ID: '7' } });
    await agent.connect();
    expect(agent.states()[0]?.knocs).toEqual([
      {
        aclId: knoc.id,
        name: knoc.description,
        url: '',
        backendId: backend.id,
        backendType: 'haproxy',
        backend: { Protocol: 'unix', Address: '/run/haproxy/admin.sock' },
        acl: { ID: '7' },
      },
    ]);
  });

  it('moves its generation past the agent’s when the agent has seen a later one (a restored store)', async () => {
    await agent.connect(undefined, 5_000);
    expect(agent.states()[0]?.generation).toBeGreaterThan(5_000);
  });

  it('refuses an agent connection with an unknown token', async () => {
    const stranger = new FakeAgent(baseUrl, 'x'.repeat(43));
    await expect(stranger.connect()).rejects.toThrow(/401/);
  });
});
