import { beforeEach, describe, expect, it } from 'vitest';
import { AGENT_PROTOCOL_VERSION, GrantStatus, type EntryResult } from '@postern/protocol';
import { waitFor } from '@postern/test-support';
import type { FakeAgent } from '../test-support/fake-agent.js';
import { ALICE_ADDRESS, givenIpsetKnoc, useGrantEngineWorld } from '../test-support/grant-engine-world.js';
import type { TestApp } from '../test-support/test-app.js';

// An agent retries a failed apply on its own (apps/agent/src/runtime/apply-retries.ts) and reports
// each retry's outcome in a result message nobody asked for, at its current generation: the grant
// shows the latest error meanwhile and turns Granted once the device takes the entry. Result handling
// is the grant engine's, which its both-stores files cover; this file runs on SQLite.
describe('agent results after a retry', () => {
  const world = useGrantEngineWorld('sqlite');
  const { signIn, aclOf, grant, revoke, settle } = world;
  let t: TestApp, agent: FakeAgent, agentId: string, userId: string;
  beforeEach(() => {
    ({ t, agent, agentId, userId } = world);
  });

  /** What the agent sends after a retry round: one result message at the generation it is at. */
  const retried = (aclId: string, outcome: Pick<EntryResult, 'ok' | 'error'>) => {
    const generation = agent.applies().at(-1)?.generation ?? 0;
    agent.send({
      type: 'result',
      version: AGENT_PROTOCOL_VERSION,
      generation,
      results: [{ aclId, ip: ALICE_ADDRESS, action: 'add', ...outcome }],
    });
  };

  it('keeps the latest error of a failing grant, then turns it Granted when a retry succeeds', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    agent.decide = (entry) => ({ ...entry, ok: false, error: 'fortios: no answer within 10 s (call budget spent)' });
    await agent.connect();
    const alice = await signIn();
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    await settle();
    expect((await aclOf(alice, aclId)).Status).toBe(GrantStatus.GrantError);

    retried(aclId, { ok: false, error: 'fortios: HTTP 503' });
    await waitFor(async () => (await aclOf(alice, aclId)).Error === 'fortios: HTTP 503', 'the latest error');
    expect((await aclOf(alice, aclId)).Status).toBe(GrantStatus.GrantError);

    retried(aclId, { ok: true, error: '' });
    await waitFor(async () => (await aclOf(alice, aclId)).Status === GrantStatus.Granted, 'the grant applied on retry');
    expect((await aclOf(alice, aclId)).Error ?? '').toBe('');
    // Nothing more was sent to the agent for it: the agent's own retry closed the loop.
    expect(agent.applies()).toHaveLength(1);
  });

  it('does not bring back a grant that ended while the agent was retrying', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    const otherAclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    agent.decide = (entry) =>
      entry.action === 'add' ? { ...entry, ok: false, error: 'fortios: HTTP 503' } : { ...entry, ok: true, error: '' };
    const alice = await signIn();
    await grant(alice, aclId);
    await grant(alice, otherAclId);
    await agent.waitFor(() => agent.applies().length === 2);
    await settle();
    await revoke(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 3, 'the revoke');
    await settle();
    const ended = (await aclOf(alice, aclId)).Status;
    expect(ended).not.toBe(GrantStatus.Granted);

    // A retry result that crossed the revoke on the wire, in one message with a newer error for the
    // other grant: once that error shows, the whole message was recorded.
    agent.send({
      type: 'result',
      version: AGENT_PROTOCOL_VERSION,
      generation: agent.applies().at(-1)?.generation ?? 0,
      results: [
        { aclId, ip: ALICE_ADDRESS, action: 'add', ok: true, error: '' },
        { aclId: otherAclId, ip: ALICE_ADDRESS, action: 'add', ok: false, error: 'fortios: HTTP 502' },
      ],
    });
    await waitFor(async () => (await aclOf(alice, otherAclId)).Error === 'fortios: HTTP 502', 'the message recorded');
    expect((await aclOf(alice, aclId)).Status).toBe(ended);
  });
});
