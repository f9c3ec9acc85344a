import { afterEach, describe, expect, it, vi } from 'vitest';
import { inBatches } from '../store/batches.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { useGrantEngineWorld } from '../test-support/grant-engine-world.js';
import { LastSeenRecorder } from './last-seen-recorder.js';

describe('recording when agents were last seen (sqlite)', () => {
  const t = useTestApp('sqlite');
  // The spies sit on the file's store; the next test gets the store's own methods back.
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const lastSeenOf = async (id: string) =>
    (await t.ctx.db.selectFrom('agents').select('lastSeen').where('id', '=', id).executeTakeFirstOrThrow()).lastSeen;

  it('writes the agents heard from at the flush, with its time, and no others', async () => {
    const heard = await givenAgent(t.ctx);
    const silent = await givenAgent(t.ctx);
    const recorder = new LastSeenRecorder(t.ctx);

    recorder.heard(heard.id);
    recorder.heard(heard.id);
    t.clock.advance(7_000);
    expect(await lastSeenOf(heard.id)).toBeNull();
    await recorder.flush();

    expect(Number(await lastSeenOf(heard.id))).toBe(t.clock.now());
    expect(await lastSeenOf(silent.id)).toBeNull();
    // Nothing heard since: the next flush writes nothing.
    t.clock.advance(10_000);
    await recorder.flush();
    expect(Number(await lastSeenOf(heard.id))).toBe(t.clock.now() - 10_000);
  });

  it('writes a fleet in a few statements rather than one a heartbeat', async () => {
    const now = t.clock.now();
    const ids = Array.from({ length: 1_200 }, (_, index) => `agent-${index}`);
    for (const batch of inBatches(ids)) {
      await t.ctx.db
        .insertInto('agents')
        .values(
          batch.map((id) => ({
            id,
            name: id,
            tokenHash: `hash-${id}`,
            tokenSecret: 'unused',
            createdAt: now,
            updatedAt: now,
          })),
        )
        .execute();
    }
    const recorder = new LastSeenRecorder(t.ctx);
    for (const id of ids) recorder.heard(id);
    const updates = vi.spyOn(t.ctx.db, 'updateTable');

    await recorder.flush();

    expect(updates.mock.calls.length).toBe(3);
    const seen = await t.ctx.db
      .selectFrom('agents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('lastSeen', '=', t.clock.now())
      .executeTakeFirstOrThrow();
    expect(Number(seen.n)).toBe(1_200);
  });

  it('keeps what it could not write for the next flush', async () => {
    const agent = await givenAgent(t.ctx);
    const recorder = new LastSeenRecorder(t.ctx);
    recorder.heard(agent.id);
    const failing = vi.spyOn(t.ctx.db, 'updateTable').mockImplementationOnce(() => {
      throw new Error('the store went away');
    });

    await recorder.flush();
    expect(await lastSeenOf(agent.id)).toBeNull();
    failing.mockRestore();
    await recorder.flush();
    expect(Number(await lastSeenOf(agent.id))).toBe(t.clock.now());
  });
});

describe('an agent’s heartbeats (sqlite)', () => {
  const world = useGrantEngineWorld('sqlite');

  it('reach LastSeen when the server stops, even before the next periodic flush', async () => {
    const { t, agent, agentId } = world;
    await agent.connect();
    const connectedAt = Number(
      (await t.ctx.db.selectFrom('agents').select('lastSeen').where('id', '=', agentId).executeTakeFirstOrThrow())
        .lastSeen,
    );
    t.clock.advance(20_000);
    agent.heartbeat();
    await agent.waitFor(() => agent.messages.some((message) => message.type === 'heartbeat-ack'), 'the ack');

    await t.hub.close();

    const row = await t.ctx.db
      .selectFrom('agents')
      .select('lastSeen')
      .where('id', '=', agentId)
      .executeTakeFirstOrThrow();
    expect(Number(row.lastSeen)).toBe(connectedAt + 20_000);
  });
});
