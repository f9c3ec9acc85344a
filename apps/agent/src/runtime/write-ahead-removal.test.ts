import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '@postern/test-support';
import { FakeDriver, type FakeDeviceEntry } from '../test-support/fake-driver.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { reconcilerHarness } from '../test-support/reconciler-harness.js';
import { testEntry, testKnoc } from '../test-support/runtime-fixtures.js';
import { runtimeHarness } from '../test-support/runtime-harness.js';
import { stateFileContentOf } from './entry-store.js';
import { FAULT_POINTS, FaultPoints, TEST_ONLY_KILL_AT_ENV, type FaultPoint } from './fault-points.js';
import { capturedLogger } from '../test-support/runtime-fixtures.js';
import type { StateFileContent } from './state-file.js';

const A = testKnoc('acl-a');
const B = testKnoc('acl-b', { acl: { V4SetName: 'other4' } });

/** What the state file says about one address: absent, held, removing, or a tombstone. */
function recorded(content: StateFileContent, aclId: string, ip: string): string {
  const entry = content.entries.find((stored) => stored.aclId === aclId && stored.ip === ip);
  if (entry !== undefined) return entry.removing ? 'removing' : 'held';
  return content.tombstones.some((tombstone) => tombstone.aclId === aclId && tombstone.ip === ip)
    ? 'tombstone'
    : 'absent';
}

/**
 * A reconciler whose persist records the state file content it would write and how many driver
 * removals had run by then.
 */
function writeAheadHarness() {
  const ipset = new FakeDriver('ipset');
  const writes: { content: StateFileContent; removalsBefore: number }[] = [];
  const t = reconcilerHarness([ipset], {
    persist: () => {
      writes.push({ content: stateFileContentOf(t.store, t.clock), removalsBefore: ipset.callsOf('remove').length });
      return Promise.resolve();
    },
  });
  return { ...t, writes };
}

describe('write-ahead removal: the state file holds a removal before the device is touched', () => {
  it('writes a batch of removals on several knocs once, before the first driver remove', async () => {
    const t = writeAheadHarness();
    await t.state(
      1,
      [A, B],
      [testEntry('acl-a', '10.0.0.1'), testEntry('acl-a', '10.0.0.2'), testEntry('acl-b', '10.0.0.3')],
    );
    t.writes.splice(0);

    await t.apply(
      2,
      [],
      [
        { aclId: 'acl-a', ip: '10.0.0.1' },
        { aclId: 'acl-a', ip: '10.0.0.2' },
        { aclId: 'acl-b', ip: '10.0.0.3' },
      ],
    );

    expect(t.writes).toHaveLength(1);
    const [write] = t.writes;
    expect(write?.removalsBefore).toBe(0);
    expect(t.ipset.callsOf('remove')).toHaveLength(2);
    for (const [aclId, ip] of [
      ['acl-a', '10.0.0.1'],
      ['acl-a', '10.0.0.2'],
      ['acl-b', '10.0.0.3'],
    ] as const) {
      expect(recorded(write?.content ?? ({} as StateFileContent), aclId, ip)).toBe('removing');
    }
  });

  it('writes ahead the removal of an address it does not hold (the device may have it)', async () => {
    const t = writeAheadHarness();
    await t.state(1, [A], []);
    t.writes.splice(0);

    await t.apply(2, [], [{ aclId: 'acl-a', ip: '10.0.0.9' }]);

    expect(t.writes.map((write) => [write.removalsBefore, recorded(write.content, 'acl-a', '10.0.0.9')])).toEqual([
      [0, 'removing'],
    ]);
    expect(t.ipset.callsOf('remove').map((call) => call.ips)).toEqual([['10.0.0.9']]);
    expect(t.held()).toEqual([]);
  });

  it('writes ahead an expiry-driven removal', async () => {
    const t = writeAheadHarness();
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1', 10)]);
    t.writes.splice(0);

    await t.advance(10_000);

    expect(t.writes.map((write) => [write.removalsBefore, recorded(write.content, 'acl-a', '10.0.0.1')])).toEqual([
      [0, 'removing'],
    ]);
    expect(t.ipset.ips('acl-a')).toEqual([]);
  });

  it('keeps a failed removal written as removing, and retries it with back-off', async () => {
    const t = writeAheadHarness();
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1')]);
    t.ipset.fail = (action) => (action === 'remove' ? 'device busy' : null);

    await t.apply(2, [], [{ aclId: 'acl-a', ip: '10.0.0.1' }]);
    expect(recorded(stateFileContentOf(t.store, t.clock), 'acl-a', '10.0.0.1')).toBe('removing');
    t.ipset.fail = () => null;
    await t.advance(5_000);

    expect(t.ipset.callsOf('remove')).toHaveLength(2);
    expect(recorded(stateFileContentOf(t.store, t.clock), 'acl-a', '10.0.0.1')).toBe('tombstone');
  });

  it('never re-adds a removal written ahead, even when its wall-clock expiry lies in the future', async () => {
    const t = reconcilerHarness();
    const content: StateFileContent = {
      formatVersion: 1,
      generation: 3,
      stateGeneration: 2,
      knocs: [A],
      entries: [
        {
          aclId: 'acl-a',
          ip: '10.0.0.1',
          userName: 'alice',
          expiresAt: t.clock.wallMs() + 3_600_000,
          generation: 3,
          knoc: 0,
          removing: true,
        },
      ],
      tombstones: [],
    };
    t.ipset.device.set('acl-a', new Map([['10.0.0.1', { ttlSeconds: 3600, userName: 'alice' }]]));

    await t.restore(content);

    expect(t.ipset.callsOf('apply')).toEqual([]);
    expect(t.ipset.ips('acl-a')).toEqual([]);
    expect(t.held()).toEqual([]);
  });
});

describe('the test-only fault points', () => {
  it('are off unless their variable names a point, and refuse a value that names none', () => {
    const log = capturedLogger();
    expect(FaultPoints.fromEnvironment({}, log.logger)).toBe(FaultPoints.none);
    expect(() => FaultPoints.fromEnvironment({ [TEST_ONLY_KILL_AT_ENV]: 'before-remove' }, log.logger)).toThrow(
      TEST_ONLY_KILL_AT_ENV,
    );
    expect(FaultPoints.fromEnvironment({ [TEST_ONLY_KILL_AT_ENV]: 'after-device-remove' }, log.logger)).not.toBe(
      FaultPoints.none,
    );
    expect(log.find('test-only fault point is set')).toHaveLength(1);
  });
});

const setup = runtimeHarness();

/** The state file and the device as a SIGKILL at a fault point would leave them. */
interface Crash {
  stateFile: string | null;
  device: Map<string, FakeDeviceEntry>;
}

describe('write-ahead removal: a crash at each point of a revoke never brings the address back', () => {
  it('holds the removal in the state file on the disk when the driver’s remove is called', async () => {
    const t = await setup();
    let seenByDriver: StateFileContent | null = null;
    t.driver.fail = (action) => {
      if (action === 'remove') seenByDriver = JSON.parse(readFileSync(t.config.stateFile, 'utf8')) as StateFileContent;
      return null;
    };
    await t.start();
    await t.server.waitForConnections(1);
    t.server.sendState(1, [A], [testEntry('acl-a', '10.0.0.1')]);
    await t.server.result(1);

    t.server.sendApply(2, [], [{ aclId: 'acl-a', ip: '10.0.0.1' }]);
    await t.server.result(2);

    expect(seenByDriver).not.toBeNull();
    expect(recorded(seenByDriver as unknown as StateFileContent, 'acl-a', '10.0.0.1')).toBe('removing');
  });

  it.each(FAULT_POINTS)('restarts with the server down after a crash %s and keeps the address off', async (point) => {
    const t = await setup();
    const clock = new ManualClock();
    let crash: Crash | null = null;
    const faults = new FaultPoints(point satisfies FaultPoint, () => {
      crash ??= {
        stateFile: existsSync(t.config.stateFile) ? readFileSync(t.config.stateFile, 'utf8') : null,
        device: new Map(t.driver.device.get('acl-a')),
      };
    });
    const first = await t.start({ clock, faults });
    await t.server.waitForConnections(1);
    t.server.sendState(1, [A], [testEntry('acl-a', '10.0.0.1', 3600), testEntry('acl-a', '10.0.0.2', 3600)]);
    await t.server.result(1);
    // The grant is in the state file (the coalesced write after the state), as long before a revoke.
    await waitFor(
      () =>
        existsSync(t.config.stateFile) &&
        recorded(JSON.parse(readFileSync(t.config.stateFile, 'utf8')) as StateFileContent, 'acl-a', '10.0.0.1') ===
          'held',
      'the grant to be written',
    );

    t.server.sendApply(2, [], [{ aclId: 'acl-a', ip: '10.0.0.1' }]);
    await waitFor(() => crash !== null, `the crash ${point}`);
    await first.stop();
    const died = crash as unknown as Crash;
    // What the dead process left: its last state file, and the device as it was at that moment.
    if (died.stateFile !== null) writeFileSync(t.config.stateFile, died.stateFile);
    expect(died.device.has('10.0.0.1')).toBe(point === 'before-device-remove');
    const device = new FakeDriver('ipset');
    device.keepsTimeouts = true;
    device.device.set('acl-a', died.device);
    t.server.refuseWith = 503;

    const second = await t.start({ clock, drivers: new Map([['ipset', device]]) });

    expect(device.ips('acl-a')).toEqual(['10.0.0.2']);
    expect(device.callsOf('apply').flatMap((call) => call.ips)).not.toContain('10.0.0.1');
    expect(second.snapshot().entries.map((entry) => entry.ip)).toEqual(['10.0.0.2']);
  });
});
