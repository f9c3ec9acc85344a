import { describe, expect, it } from 'vitest';
import { agentMetrics } from '../metrics/agent-metrics.js';
import { FakeDriver } from '../test-support/fake-driver.js';
import { reconcilerHarness } from '../test-support/reconciler-harness.js';
import { testEntry, testKnoc } from '../test-support/runtime-fixtures.js';
import { allowedDeadline, type DeadlineInput } from './deadline-rule.js';

const HOUR = 3_600_000;
const END = Date.UTC(2030, 0, 1, 8);

describe('allowedDeadline', () => {
  const cases: [string, DeadlineInput, number][] = [
    [
      'a new grant gets what the server offers',
      { offeredMs: 600_000, offeredEndsAt: END, held: undefined, deviceDeadlineMs: undefined },
      600_000,
    ],
    [
      'a held entry resent with the same end keeps its deadline (a server clock set back)',
      {
        offeredMs: 600_000 + HOUR,
        offeredEndsAt: END,
        held: { deadlineMs: 600_000, endsAt: END },
        deviceDeadlineMs: undefined,
      },
      600_000,
    ],
    [
      'a held entry resent with a shorter ttl gets the shorter one (a server clock set forward)',
      {
        offeredMs: 300_000,
        offeredEndsAt: END,
        held: { deadlineMs: 600_000, endsAt: END },
        deviceDeadlineMs: undefined,
      },
      300_000,
    ],
    [
      'a held entry whose end grew by 10 min is extended by the ttl',
      {
        offeredMs: 1_200_000,
        offeredEndsAt: END + 600_000,
        held: { deadlineMs: 600_000, endsAt: END },
        deviceDeadlineMs: undefined,
      },
      1_200_000,
    ],
    [
      'an extension sent by a clock set back an hour extends by what the end grew, not by the step',
      {
        offeredMs: 1_200_000 + HOUR,
        offeredEndsAt: END + 600_000,
        held: { deadlineMs: 600_000, endsAt: END },
        deviceDeadlineMs: undefined,
      },
      1_200_000,
    ],
    [
      'without an end from the server (an older server) a held entry is never raised',
      {
        offeredMs: 900_000,
        offeredEndsAt: undefined,
        held: { deadlineMs: 600_000, endsAt: END },
        deviceDeadlineMs: undefined,
      },
      600_000,
    ],
    [
      'a held entry from an older state file (no end) is never raised',
      {
        offeredMs: 900_000,
        offeredEndsAt: END,
        held: { deadlineMs: 600_000, endsAt: undefined },
        deviceDeadlineMs: undefined,
      },
      600_000,
    ],
    [
      'an entry not held that the device has with a timeout keeps the device’s time',
      { offeredMs: 3_980_000, offeredEndsAt: END, held: undefined, deviceDeadlineMs: 393_000 },
      393_000,
    ],
    [
      'an entry not held whose device timeout is longer gets the server’s shorter time',
      { offeredMs: 300_000, offeredEndsAt: END, held: undefined, deviceDeadlineMs: 393_000 },
      300_000,
    ],
  ];

  it.each(cases)('%s', (_name, input, expected) => {
    const decision = allowedDeadline(input);
    expect(decision.deadlineMs).toBe(expected);
    expect(decision.refusedMs).toBe(input.offeredMs - expected);
  });
});

const A = testKnoc('acl-a');

/** The sum of the refused-raise counter over its labels. */
async function refusedCount(): Promise<number> {
  const metric = await agentMetrics.registry.getSingleMetric('postern_agent_raises_refused_total')?.get();
  return (metric?.values ?? []).reduce((sum, value) => sum + value.value, 0);
}

describe('Reconciler: an entry on a device is never lengthened except by an extension', () => {
  it('keeps a held entry’s deadline and device timeout when a resync after a server clock step back offers an hour more', async () => {
    const t = reconcilerHarness();
    await t.state(1, [A], [{ ...testEntry('acl-a', '10.0.0.1', 393), endsAt: END }]);
    await t.advance(100_000);
    const before = await refusedCount();

    await t.state(2, [A], [{ ...testEntry('acl-a', '10.0.0.1', 293 + 3600), endsAt: END }]);
    await t.state(3, [A], [{ ...testEntry('acl-a', '10.0.0.1', 293 + 3600), endsAt: END }]);

    expect(t.ipset.callsOf('apply').map((call) => call.ttls)).toEqual([[393], [293], [293]]);
    expect(t.log.find('refused to lengthen an entry')).toHaveLength(1);
    expect((await refusedCount()) - before).toBe(1);
    await t.advance(293_000);
    expect(t.ipset.ips('acl-a')).toEqual([]);
  });

  it('keeps the device’s remaining timeout for an entry it does not hold (a lost state file)', async () => {
    const ipset = new FakeDriver('ipset');
    ipset.keepsTimeouts = true;
    ipset.device.set('acl-a', new Map([['10.0.0.1', { ttlSeconds: 393, userName: 'alice' }]]));
    const t = reconcilerHarness([ipset]);

    await t.state(1, [A], [{ ...testEntry('acl-a', '10.0.0.1', 3980), endsAt: END }]);

    expect(ipset.device.get('acl-a')?.get('10.0.0.1')?.ttlSeconds).toBe(393);
    expect(t.log.find('refused to lengthen an entry')).toMatchObject([{ ip: '10.0.0.1', against: 'device' }]);
    await t.advance(393_000);
    expect(ipset.ips('acl-a')).toEqual([]);
  });

  it('gives a re-grant of an address whose removal failed the server’s time, not the device’s old timeout', async () => {
    const ipset = new FakeDriver('ipset');
    ipset.keepsTimeouts = true;
    const t = reconcilerHarness([ipset]);
    await t.state(1, [A], [{ ...testEntry('acl-a', '10.0.0.1', 60), endsAt: END }]);
    ipset.fail = (action) => (action === 'remove' ? 'device busy' : null);
    await t.apply(2, [], [{ aclId: 'acl-a', ip: '10.0.0.1' }]);
    ipset.fail = () => null;

    await t.state(3, [A], [{ ...testEntry('acl-a', '10.0.0.1', 3600), endsAt: END + HOUR }]);

    expect(ipset.device.get('acl-a')?.get('10.0.0.1')?.ttlSeconds).toBe(3600);
    expect(t.held()).toEqual(['acl-a 10.0.0.1']);
  });

  it('applies a real extension: a shared address whose end moved later while the agent was offline', async () => {
    const t = reconcilerHarness();
    await t.state(1, [A], [{ ...testEntry('acl-a', '10.0.0.1', 600), endsAt: END }]);
    await t.advance(60_000);

    // Reconnected: a second session on the address ends two hours later.
    await t.state(2, [A], [{ ...testEntry('acl-a', '10.0.0.1', 540 + 7200), endsAt: END + 2 * HOUR }]);

    expect(t.ipset.device.get('acl-a')?.get('10.0.0.1')?.ttlSeconds).toBe(540 + 7200);
    expect(t.log.find('refused to lengthen an entry')).toEqual([]);
    await t.advance((540 + 7200) * 1000 - 1);
    expect(t.ipset.ips('acl-a')).toEqual(['10.0.0.1']);
    await t.advance(1);
    expect(t.ipset.ips('acl-a')).toEqual([]);
  });

  it('never raises a held entry for an older server that sends no end', async () => {
    const t = reconcilerHarness();
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1', 600)]);

    await t.apply(2, [testEntry('acl-a', '10.0.0.1', 4200)]);

    expect(t.ipset.device.get('acl-a')?.get('10.0.0.1')?.ttlSeconds).toBe(600);
    await t.advance(600_000);
    expect(t.ipset.ips('acl-a')).toEqual([]);
  });

  it('keeps the device’s time on a restart whose wall clock was set back while the agent was down', async () => {
    const ipset = new FakeDriver('ipset');
    ipset.keepsTimeouts = true;
    ipset.device.set('acl-a', new Map([['10.0.0.1', { ttlSeconds: 300, userName: 'alice' }]]));
    const t = reconcilerHarness([ipset]);

    await t.restore({
      formatVersion: 1,
      generation: 1,
      stateGeneration: 1,
      knocs: [A],
      entries: [
        {
          aclId: 'acl-a',
          ip: '10.0.0.1',
          userName: 'alice',
          // Written an hour "later" than the clock now says: the clock went back an hour.
          expiresAt: t.clock.wallMs() + 300_000 + HOUR,
          endsAt: END,
          generation: 1,
          knoc: 0,
          removing: false,
        },
      ],
      tombstones: [],
    });

    expect(ipset.device.get('acl-a')?.get('10.0.0.1')?.ttlSeconds).toBe(300);
    expect(t.store.entries.get('acl-a\u000010.0.0.1')?.endsAt).toBe(END);
  });
});
