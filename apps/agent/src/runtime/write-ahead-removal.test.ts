import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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
import {
  JOURNAL_EMPTY_AT_BYTES,
  readRemovalJournal,
  removalJournalFile,
  replayRemovalJournal,
} from './removal-journal.js';
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
 * A reconciler whose write-ahead records the entries it was given (with their state then), what the
 * state file would say about them then, and how many driver removals had run by then.
 */
function writeAheadHarness() {
  const ipset = new FakeDriver('ipset');
  const writes: { entries: string[]; content: StateFileContent; removalsBefore: number }[] = [];
  const t = reconcilerHarness([ipset], {
    writeAhead: (entries) => {
      writes.push({
        entries: entries.map((entry) => `${entry.aclId} ${entry.ip} ${entry.removing ? 'removing' : 'held'}`),
        content: stateFileContentOf(t.store, t.clock),
        removalsBefore: ipset.callsOf('remove').length,
      });
      return Promise.resolve();
    },
  });
  return { ...t, writes };
}

describe('write-ahead removal: the disk holds a removal before the device is touched', () => {
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
    expect(write?.entries).toEqual(['acl-a 10.0.0.1 removing', 'acl-a 10.0.0.2 removing', 'acl-b 10.0.0.3 removing']);
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

    expect(t.writes.map((write) => [write.removalsBefore, write.entries])).toEqual([[0, ['acl-a 10.0.0.9 removing']]]);
    expect(t.ipset.callsOf('remove').map((call) => call.ips)).toEqual([['10.0.0.9']]);
    expect(t.held()).toEqual([]);
  });

  it('writes ahead an expiry-driven removal', async () => {
    const t = writeAheadHarness();
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1', 10)]);
    t.writes.splice(0);

    await t.advance(10_000);

    expect(t.writes.map((write) => [write.removalsBefore, write.entries])).toEqual([[0, ['acl-a 10.0.0.1 removing']]]);
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

/** The state file, the removal journal and the device as a SIGKILL at a fault point would leave them. */
interface Crash {
  stateFile: string | null;
  journal: string | null;
  device: Map<string, FakeDeviceEntry>;
}

const readIfThere = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : null);

/** Puts a file back as a dead process left it (absent: removed). */
function leaveAs(file: string, text: string | null): void {
  if (text === null) rmSync(file, { force: true });
  else writeFileSync(file, text);
}

describe('write-ahead removal: a crash at each point of a revoke never brings the address back', () => {
  it('holds the removal in the removal journal on the disk when the driver’s remove is called', async () => {
    const t = await setup();
    const journalFile = removalJournalFile(t.config.stateFile);
    let journalSeenByDriver: string | null = null;
    t.driver.fail = (action) => {
      if (action === 'remove') journalSeenByDriver = readIfThere(journalFile);
      return null;
    };
    await t.start();
    await t.server.waitForConnections(1);
    t.server.sendState(1, [A], [testEntry('acl-a', '10.0.0.1'), testEntry('acl-a', '10.0.0.2')]);
    await t.server.result(1);
    await waitFor(() => readIfThere(t.config.stateFile)?.includes('10.0.0.1') === true, 'the grant to be written');
    const before = JSON.parse(readFileSync(t.config.stateFile, 'utf8')) as StateFileContent;

    t.server.sendApply(2, [], [{ aclId: 'acl-a', ip: '10.0.0.1' }]);
    await t.server.result(2);

    // The journal alone, over the state file from before the revoke, makes the restore remove it.
    expect(journalSeenByDriver).not.toBeNull();
    const copy = path.join(t.fixture.dir, 'journal-copy');
    writeFileSync(copy, journalSeenByDriver ?? '');
    const replayed = replayRemovalJournal(before, await readRemovalJournal(copy, t.log.logger, 0));
    expect(recorded(before, 'acl-a', '10.0.0.1')).toBe('held');
    expect(recorded(replayed.content, 'acl-a', '10.0.0.1')).toBe('removing');
    expect(recorded(replayed.content, 'acl-a', '10.0.0.2')).toBe('held');
  });

  it('names the journal records it includes in the state file, and empties a grown journal once included', async () => {
    const t = await setup();
    const journalFile = removalJournalFile(t.config.stateFile);
    const ips = Array.from({ length: 1000 }, (_, index) => `10.0.${index >> 8}.${index & 255}`);
    await t.start();
    await t.server.waitForConnections(1);
    t.server.sendState(1, [A], [...ips.map((ip) => testEntry('acl-a', ip)), testEntry('acl-a', '10.9.0.1')]);
    await t.server.result(1);
    const stateSays = () => JSON.parse(readIfThere(t.config.stateFile) ?? '{}') as Partial<StateFileContent>;

    // One revoke: the journal keeps its record (short of its emptying size); the state file includes it.
    t.server.sendApply(2, [], [{ aclId: 'acl-a', ip: '10.9.0.1' }]);
    await t.server.result(2);
    // The first state file to include it may still say `removing` (the device had not confirmed yet).
    await waitFor(
      () =>
        stateSays().journalSeq === 1 && recorded(stateSays() as StateFileContent, 'acl-a', '10.9.0.1') === 'tombstone',
      'a state file that includes the revoke, done on the device',
    );
    expect(readIfThere(journalFile)).toContain('"seq":1,');

    // A thousand more outgrow it: emptied whenever a state file includes all it holds. That may come
    // while the revokes are still being journaled, so what stays is at most the records since then.
    t.server.sendApply(
      3,
      [],
      ips.map((ip) => ({ aclId: 'acl-a', ip })),
    );
    await t.server.result(3);
    const emptiedSinceTheFirst = () => {
      const left = readIfThere(journalFile) ?? '';
      return !left.includes('"seq":1,') && Buffer.byteLength(left) < JOURNAL_EMPTY_AT_BYTES;
    };
    await waitFor(
      () => stateSays().journalSeq === 1001 && emptiedSinceTheFirst(),
      'a state file that includes every revoke, and the grown journal emptied',
    );
    expect(stateSays().entries).toEqual([]);
  });

  it.each(FAULT_POINTS)('restarts with the server down after a crash %s and keeps the address off', async (point) => {
    const t = await setup();
    const clock = new ManualClock();
    const journalFile = removalJournalFile(t.config.stateFile);
    let crash: Crash | null = null;
    const faults = new FaultPoints(point satisfies FaultPoint, () => {
      crash ??= {
        stateFile: readIfThere(t.config.stateFile),
        journal: readIfThere(journalFile),
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
    // What the dead process left: its last state file and journal, and the device as it was then.
    leaveAs(t.config.stateFile, died.stateFile);
    leaveAs(journalFile, died.journal);
    expect(died.device.has('10.0.0.1')).toBe(point === 'before-device-remove');
    expect(died.journal).toContain('"type":"removing"');
    const device = new FakeDriver('ipset');
    device.keepsTimeouts = true;
    device.device.set('acl-a', died.device);
    t.server.refuseWith = 503;

    const second = await t.start({ clock, drivers: new Map([['ipset', device]]) });

    expect(device.ips('acl-a')).toEqual(['10.0.0.2']);
    expect(device.callsOf('apply').flatMap((call) => call.ips)).not.toContain('10.0.0.1');
    expect(second.snapshot().entries.map((entry) => entry.ip)).toEqual(['10.0.0.2']);
  });

  it('removes every entry after a restart with a corrupt journal, and the server’s state puts back what is granted', async () => {
    const t = await setup();
    const clock = new ManualClock();
    const first = await t.start({ clock });
    await t.server.waitForConnections(1);
    t.server.sendState(1, [A], [testEntry('acl-a', '10.0.0.1', 3600), testEntry('acl-a', '10.0.0.2', 3600)]);
    await t.server.result(1);
    await first.stop();
    writeFileSync(removalJournalFile(t.config.stateFile), '{"type":"journal","formatVersion":1}\n{"type":"rem\u0000\n');
    t.server.refuseWith = 503;
    const device = new FakeDriver('ipset');
    device.device.set('acl-a', new Map(t.driver.device.get('acl-a')));

    const second = await t.start({ clock, drivers: new Map([['ipset', device]]) });

    expect(device.ips('acl-a')).toEqual([]);
    expect(device.callsOf('apply')).toEqual([]);
    expect(second.snapshot().entries).toEqual([]);
    expect(t.log.find('removal journal is corrupt')).toHaveLength(1);
    t.server.refuseWith = null;
    await t.server.waitForConnections(2);
    t.server.sendState(1, [A], [testEntry('acl-a', '10.0.0.2', 3000)]);
    await t.server.result(1);
    expect(device.ips('acl-a')).toEqual(['10.0.0.2']);
  });
});
