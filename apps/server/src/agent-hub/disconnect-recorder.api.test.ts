import { AuditActions } from '@postern/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inBatches } from '../store/batches.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { DisconnectRecorder } from './disconnect-recorder.js';

describe.each(bothStores())('recording a burst of agent disconnects (%s)', (kind) => {
  const t = useTestApp(kind);
  // The spy sits on the file's store; whatever runs next gets the store's own method back.
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('writes each one, in a few transactions rather than one each, clearing only connections still current', async () => {
    const now = t.clock.now();
    const agents = Array.from({ length: 1_200 }, (_, index) => ({ id: `agent-${index}`, name: `edge-${index}` }));
    for (const batch of inBatches(agents)) {
      await t.ctx.db
        .insertInto('agents')
        .values(
          batch.map((agent) => ({
            ...agent,
            tokenHash: `hash-${agent.id}`,
            tokenSecret: 'unused',
            createdAt: now,
            updatedAt: now,
            connectionId: `old-${agent.id.slice('agent-'.length)}`,
          })),
        )
        .execute();
    }
    // One agent has already reconnected (here or on another server): its newer connection stays.
    const [moved] = agents;
    await t.ctx.db.updateTable('agents').set({ connectionId: 'newer' }).where('id', '=', moved!.id).execute();
    const transactions = vi.spyOn(t.ctx.db, 'transaction');

    const recorder = new DisconnectRecorder(t.ctx);
    await Promise.all(
      agents.map((agent, index) =>
        recorder.record({ agentId: agent.id, agentName: agent.name, connectionId: `old-${index}` }),
      ),
    );

    const still = await t.ctx.db
      .selectFrom('agents')
      .select(['id', 'connectionId'])
      .where('connectionId', 'is not', null)
      .execute();
    expect(still).toEqual([{ id: moved!.id, connectionId: 'newer' }]);
    const audited = await t.ctx.db
      .selectFrom('auditLog')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('action', '=', AuditActions.AgentDisconnected)
      .executeTakeFirstOrThrow();
    expect(Number(audited.n)).toBe(1_200);
    // 1,200 disconnects, a few hundred per transaction.
    expect(transactions.mock.calls.length).toBeLessThanOrEqual(3);
    expect(transactions.mock.calls.length).toBeGreaterThan(0);
  });
});
