import { describe, expect, it } from 'vitest';
import {
  AGENT_PROTOCOL_VERSION,
  type AgentKnoc,
  type BackendType,
  type DesiredEntry,
  type EntryKey,
  type EntryResult,
} from '@postern/protocol';
import type { Driver, DriverEntry, EntryOutcome } from '../drivers/driver.js';
import { KeyedSerialQueue } from '../drivers/kit/keyed-serial-queue.js';
import { agentMetrics } from '../metrics/agent-metrics.js';
import { FakeDriver } from '../test-support/fake-driver.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { capturedLogger, testEntry, testKnoc } from '../test-support/runtime-fixtures.js';
import { APPLY_RETRY_BACKOFF } from './apply-retries.js';
import { EntryStore } from './entry-store.js';
import { Reconciler } from './reconciler.js';
import { SerialQueue } from './serial-queue.js';

const A = testKnoc('acl-a');

/** A fake device whose answers a test scripts per apply call: a failure, a permanent refusal, or a hang. */
class ScriptedDriver extends FakeDriver {
  /** What each next apply call does for every entry; `ok` once the script is used up. */
  readonly script: ('transient' | 'permanent' | 'hang' | 'ok')[] = [];
  readonly #queue = new KeyedSerialQueue();

  override apply(knoc: AgentKnoc, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    const next = this.script.shift() ?? 'ok';
    if (next === 'hang') {
      this.calls.push({ action: 'apply', aclId: knoc.aclId, knoc, ips: entries.map((e) => e.ip), ttls: [] });
      // A device that never answers, behind the per-target queue as a vendor driver's call is.
      return this.#queue.run(knoc.aclId, () => new Promise<EntryOutcome[]>(() => undefined));
    }
    if (next === 'ok') return super.apply(knoc, entries);
    return super
      .apply(knoc, entries)
      .then((outcomes) =>
        outcomes.map((outcome) =>
          next === 'permanent'
            ? { ip: outcome.ip, ok: false, error: 'vendor: HTTP 403 (the token may not do this)', permanent: true }
            : { ip: outcome.ip, ok: false, error: 'vendor: HTTP 503 (try later)' },
        ),
      );
  }
}

/** A reconciler that retries failed applies (random 1: every wait is its ceiling), on a manual clock. */
function setup(options: { callBudgetMs?: number } = {}) {
  const clock = new ManualClock();
  const log = capturedLogger();
  const queue = new SerialQueue();
  const driver = new ScriptedDriver('ipset');
  const reported: EntryResult[][] = [];
  const store = new EntryStore(
    clock,
    () => undefined,
    () => undefined,
  );
  const reconciler = new Reconciler({
    store,
    drivers: new Map<BackendType, Driver>([['ipset', driver]]),
    clock,
    logger: log.logger,
    retries: {
      enqueue: (job) => void queue.run(job),
      report: (results) => reported.push(results),
      random: () => 1,
    },
    ...options,
  });
  return {
    clock,
    store,
    log,
    driver,
    reported,
    reconciler,
    state: (generation: number, knocs: AgentKnoc[], entries: DesiredEntry[]) =>
      queue.run(() =>
        reconciler.applyState(
          { type: 'state', version: AGENT_PROTOCOL_VERSION, generation, knocs, entries },
          clock.monotonicMs(),
        ),
      ),
    apply: (generation: number, add: DesiredEntry[], remove: EntryKey[] = []) =>
      queue.run(() =>
        reconciler.applyIncrement(
          { type: 'apply', version: AGENT_PROTOCOL_VERSION, generation, add, remove },
          clock.monotonicMs(),
        ),
      ),
    /** Moves the clock and waits for the retry rounds it started. */
    advance: async (ms: number) => {
      clock.advance(ms);
      await queue.idle();
    },
    applyCalls: () => driver.callsOf('apply').length,
  };
}

const summary = (results: readonly EntryResult[]) =>
  results.map((result) => `${result.action} ${result.ip} ${result.ok ? 'ok' : result.error}`);

describe('apply retries', () => {
  it('retries a failed apply with doubling back-off until the device takes it, and reports each outcome', async () => {
    const t = setup();
    t.driver.script.push('transient', 'transient', 'transient');
    await t.state(1, [A], []);

    expect(summary(await t.apply(2, [testEntry('acl-a', '10.0.0.1')]))).toEqual([
      'add 10.0.0.1 vendor: HTTP 503 (try later)',
    ]);
    // First retry after the base (2 s), the next after 4 s: each failure is reported, so the
    // grant shows the latest error meanwhile.
    await t.advance(APPLY_RETRY_BACKOFF.baseMs - 1);
    expect(t.applyCalls()).toBe(1);
    await t.advance(1);
    expect(t.applyCalls()).toBe(2);
    await t.advance(4_000);
    expect(t.applyCalls()).toBe(3);
    await t.advance(8_000);
    expect(t.reported.map(summary)).toEqual([
      ['add 10.0.0.1 vendor: HTTP 503 (try later)'],
      ['add 10.0.0.1 vendor: HTTP 503 (try later)'],
      ['add 10.0.0.1 ok'],
    ]);
    expect(t.store.entries.size).toBe(1);
    expect(t.driver.ips('acl-a')).toEqual(['10.0.0.1']);
    expect(t.reconciler.retries?.size).toBe(0);
    // Nothing more is tried once it worked.
    await t.advance(600_000);
    expect(t.applyCalls()).toBe(4);
    expect(t.log.find('failed applies succeeded on retry')).toHaveLength(1);
  });

  it('never waits longer than the cap between retries', async () => {
    const t = setup();
    t.driver.script.push(...Array.from({ length: 12 }, () => 'transient' as const));
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1', 36_000)]);
    // 2, 4, …, 64 s, then 120 s each.
    for (const wait of [2, 4, 8, 16, 32, 64, 120, 120]) await t.advance(wait * 1000);
    expect(t.applyCalls()).toBe(9);
  });

  it('does not retry a permanent failure', async () => {
    const t = setup();
    t.driver.script.push('permanent');
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1')]);
    expect(t.reconciler.retries?.size).toBe(0);
    await t.advance(600_000);
    expect(t.applyCalls()).toBe(1);
    expect(t.reported).toEqual([]);
  });

  it('retries in one driver call per knoc, with the time the grant has left', async () => {
    const t = setup();
    t.driver.script.push('transient');
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1', 60), testEntry('acl-a', '10.0.0.2', 60)]);
    await t.advance(2_000);
    const retry = t.driver.callsOf('apply')[1];
    expect(retry?.ips).toEqual(['10.0.0.1', '10.0.0.2']);
    // 58 s left: never more than the server gave.
    expect(retry?.ttls).toEqual([58, 58]);
  });

  it('a newer message supersedes the retry: a removal, a state without the entry, a new apply', async () => {
    const t = setup();
    t.driver.script.push('transient', 'transient');
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1'), testEntry('acl-a', '10.0.0.2')]);
    expect(t.reconciler.retries?.size).toBe(2);
    await t.apply(2, [], [{ aclId: 'acl-a', ip: '10.0.0.1' }]);
    expect(t.reconciler.retries?.pendingOf('acl-a').map((p) => p.entry.ip)).toEqual(['10.0.0.2']);
    // The state of generation 3 no longer lists 10.0.0.2 (its grant was revoked meanwhile).
    await t.state(3, [A], [testEntry('acl-a', '10.0.0.3')]);
    expect(t.reconciler.retries?.size).toBe(1);
    expect(t.reconciler.retries?.pendingOf('acl-a').map((p) => [p.entry.ip, p.generation])).toEqual([['10.0.0.3', 3]]);
    await t.advance(2_000);
    await t.advance(600_000);
    expect(t.driver.ips('acl-a')).toEqual(['10.0.0.3']);
    expect(t.reported.flat().map((result) => result.ip)).toEqual(['10.0.0.3']);
  });

  it('stops retrying when the grant ends, and when its knoc is no longer sent', async () => {
    const t = setup();
    t.driver.script.push(...Array.from({ length: 20 }, () => 'transient' as const));
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1', 5)]);
    await t.advance(2_000);
    await t.advance(4_000);
    await t.advance(600_000);
    // At 2 s (3 s left) and 6 s (past the end): only the first retry ran.
    expect(t.applyCalls()).toBe(2);
    expect(t.reconciler.retries?.size).toBe(0);

    const B = testKnoc('acl-b', { acl: { V4SetName: 'other4' } });
    await t.state(2, [A, B], [testEntry('acl-b', '10.0.0.9')]);
    expect(t.reconciler.retries?.size).toBe(1);
    await t.state(3, [A], []);
    expect(t.reconciler.retries?.size).toBe(0);
  });

  it('retries an apply whose device did not answer within the call budget (transient)', async () => {
    const t = setup({ callBudgetMs: 20 });
    t.driver.script.push('hang');
    const [result] = await t.state(1, [A], [testEntry('acl-a', '10.0.0.1')]);
    expect(result?.ok).toBe(false);
    expect(result?.error).toMatch(/no answer within 20 ms \(call budget spent\)/);
    await t.advance(2_000);
    expect(summary(t.reported.flat())).toEqual(['add 10.0.0.1 ok']);
  });

  it('counts retries in the metrics and stops every timer on shutdown', async () => {
    const t = setup();
    t.driver.script.push('transient', 'transient');
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1')]);
    const before = await agentMetrics.registry.getSingleMetricAsString('postern_agent_apply_retries_total');
    await t.advance(2_000);
    const after = await agentMetrics.registry.getSingleMetricAsString('postern_agent_apply_retries_total');
    expect(after).not.toEqual(before);
    expect(after).toMatch(/postern_agent_apply_retries_total\{backend_type="ipset",result="error"\} \d+/);

    t.reconciler.stopRetries();
    expect(t.clock.pendingTimers).toBe(0);
    await t.advance(600_000);
    expect(t.applyCalls()).toBe(2);
  });
});
