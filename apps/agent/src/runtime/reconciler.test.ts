import { describe, expect, it } from 'vitest';
import type { AgentKnoc, AgentKnocOf, EntryResult } from '@postern/protocol';
import { FakeDriver } from '../test-support/fake-driver.js';
import { reconcilerHarness as setup } from '../test-support/reconciler-harness.js';
import { testEntry, testKnoc } from '../test-support/runtime-fixtures.js';
import { stateFileContentOf } from './entry-store.js';
import { emptyStateFile, type StateFileContent } from './state-file.js';

const A = testKnoc('acl-a');
const B = testKnoc('acl-b', { acl: { V4SetName: 'other4' } });

const outcome = (result: EntryResult) =>
  `${result.action} ${result.aclId} ${result.ip} ${result.ok ? 'ok' : result.error}`;

describe('Reconciler: desired state', () => {
  it('tells each driver the knocs it serves on every state, before the first grant', async () => {
    const t = setup();
    await t.state(1, [A, B], []);
    await t.state(2, [B], []);
    expect(t.ipset.configured).toEqual([['acl-a', 'acl-b'], ['acl-b']]);
  });

  it('adds listed entries, refreshes held ones and removes held entries that are no longer listed', async () => {
    const t = setup();
    const endsAt = Date.UTC(2030, 0, 1, 1);
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1'), { ...testEntry('acl-a', '10.0.0.2'), endsAt }]);

    // 10.0.0.2's end moved 300 s later (a second session on the address): its refresh extends it.
    const results = await t.state(
      2,
      [A],
      [{ ...testEntry('acl-a', '10.0.0.2', 900), endsAt: endsAt + 300_000 }, testEntry('acl-a', '10.0.0.3')],
    );

    expect(t.ipset.ips('acl-a')).toEqual(['10.0.0.2', '10.0.0.3']);
    expect(t.held()).toEqual(['acl-a 10.0.0.2', 'acl-a 10.0.0.3']);
    expect(results.map(outcome).sort()).toEqual([
      'add acl-a 10.0.0.2 ok',
      'add acl-a 10.0.0.3 ok',
      'remove acl-a 10.0.0.1 ok',
    ]);
    expect(t.ipset.device.get('acl-a')?.get('10.0.0.2')?.ttlSeconds).toBe(900);
    expect(t.store.generation).toBe(2);
    expect(t.store.stateGeneration).toBe(2);
  });

  it('makes one driver call per knoc and action, however many entries', async () => {
    const t = setup();
    const entries = Array.from({ length: 10_000 }, (_, index) =>
      testEntry(index % 2 === 0 ? 'acl-a' : 'acl-b', `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`),
    );

    const results = await t.state(1, [A, B], entries);

    expect(results.filter((result) => result.ok)).toHaveLength(10_000);
    expect(t.ipset.callsOf('apply').map((call) => [call.aclId, call.ips.length])).toEqual([
      ['acl-a', 5_000],
      ['acl-b', 5_000],
    ]);
  });

  it('removes the entries of a knoc that is no longer listed one by one, then flushes the knoc', async () => {
    const t = setup();
    await t.state(1, [A, B], [testEntry('acl-a', '10.0.0.1'), testEntry('acl-b', '10.0.0.9')]);
    t.ipset.device.get('acl-b')?.set('192.0.2.77', { ttlSeconds: 5, userName: 'forgotten by a lost state file' });

    const results = await t.state(2, [A], [testEntry('acl-a', '10.0.0.1')]);

    expect(results.map(outcome)).toContain('remove acl-b 10.0.0.9 ok');
    // State 1: list (leftovers), apply. State 2: remove the held entry, then flush the knoc.
    expect(t.ipset.calls.filter((call) => call.aclId === 'acl-b').map((call) => call.action)).toEqual([
      'list',
      'apply',
      'remove',
      'flush',
    ]);
    expect(t.ipset.ips('acl-b')).toEqual([]);
    expect(t.ipset.callsOf('flush').map((call) => call.aclId)).toEqual(['acl-b']);
    expect(t.held()).toEqual(['acl-a 10.0.0.1']);
  });

  it('empties a knoc under its old configuration before filling it under a changed one', async () => {
    const t = setup();
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1')]);
    const changed = testKnoc('acl-a', { acl: { V4SetName: 'renamed4' } });

    await t.state(2, [changed], [testEntry('acl-a', '10.0.0.1')]);

    const calls = t.ipset.calls.filter((call) => call.action === 'apply' || call.action === 'remove');
    expect(calls.map((call) => [call.action, (call.knoc as AgentKnocOf<'ipset'>).acl.V4SetName])).toEqual([
      ['apply', 'postern4'],
      ['remove', 'postern4'],
      ['apply', 'renamed4'],
    ]);
    expect(
      (t.store.entries.get('acl-a\u000010.0.0.1')?.knoc.acl as AgentKnocOf<'ipset'>['acl'] | undefined)?.V4SetName,
    ).toBe('renamed4');
  });

  it('does not touch the device again for an unchanged knoc whose fields arrive in another order', async () => {
    const t = setup();
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1')]);
    const reordered: AgentKnoc = {
      acl: { V6SetName: 'postern6', V4SetName: 'postern4' },
      backend: {},
      backendType: 'ipset',
      backendId: 'backend-acl-a',
      url: 'https://app.example.com',
      name: 'Knoc acl-a',
      aclId: 'acl-a',
    };

    await t.state(2, [reordered], [testEntry('acl-a', '10.0.0.1')]);

    expect(t.ipset.callsOf('remove')).toEqual([]);
  });

  it("answers 'this agent cannot drive <type> backends' for a knoc without a driver", async () => {
    const t = setup();
    const proxy = testKnoc('acl-p', { backendType: 'haproxy' });

    const results = await t.state(1, [A, proxy], [testEntry('acl-p', '10.0.0.5'), testEntry('acl-a', '10.0.0.1')]);

    expect(results.map(outcome).sort()).toEqual([
      'add acl-a 10.0.0.1 ok',
      'add acl-p 10.0.0.5 this agent cannot drive haproxy backends',
    ]);
    expect(t.held()).toEqual(['acl-a 10.0.0.1']);
  });

  it('reports what the device said for a failed entry, and does not hold it', async () => {
    const t = setup();
    t.ipset.fail = (action, ip) => (action === 'apply' && ip === '10.0.0.2' ? 'ipset v7.1: set is full' : null);

    const results = await t.state(1, [A], [testEntry('acl-a', '10.0.0.1'), testEntry('acl-a', '10.0.0.2')]);

    expect(results.map(outcome).sort()).toEqual([
      'add acl-a 10.0.0.1 ok',
      'add acl-a 10.0.0.2 ipset v7.1: set is full',
    ]);
    expect(t.held()).toEqual(['acl-a 10.0.0.1']);
  });

  it('fails every entry of a call with the message of a driver that throws', async () => {
    const t = setup();
    t.ipset.unavailable = 'spawn ipset ENOENT';

    const results = await t.state(1, [A], [testEntry('acl-a', '10.0.0.1')]);

    expect(results.map(outcome)).toEqual(['add acl-a 10.0.0.1 ipset apply failed: spawn ipset ENOENT']);
  });

  it('removes addresses the device holds without a grant, sparing those of another knoc on the same set', async () => {
    const t = setup();
    const shared = testKnoc('acl-s');
    t.ipset.device.set('acl-a', new Map([['10.0.0.66', { ttlSeconds: 50, userName: 'crash leftover' }]]));
    t.ipset.device.set('acl-s', new Map([['10.0.0.7', { ttlSeconds: 50, userName: 'granted on acl-a' }]]));

    const results = await t.state(1, [A, shared], [testEntry('acl-a', '10.0.0.7/32')]);

    expect(t.ipset.ips('acl-a')).toEqual(['10.0.0.7/32']);
    expect(t.ipset.ips('acl-s')).toEqual(['10.0.0.7']);
    // Leftovers are nobody's grant, so they are not reported.
    expect(results.map(outcome)).toEqual(['add acl-a 10.0.0.7/32 ok']);
  });

  it('spares a granted network that the device lists by its network address', async () => {
    const t = setup();
    t.ipset.device.set('acl-a', new Map([['10.0.0.0/24', { ttlSeconds: 50, userName: 'alice' }]]));

    await t.state(1, [A], [testEntry('acl-a', '10.0.0.5/24')]);

    expect(t.ipset.callsOf('remove')).toEqual([]);
  });

  it('ignores a whole state older than the newest one applied', async () => {
    const t = setup();
    await t.state(10, [A], [testEntry('acl-a', '10.0.0.1')]);

    const results = await t.state(8, [A], [testEntry('acl-a', '10.0.0.2')]);

    expect(results).toEqual([]);
    expect(t.held()).toEqual(['acl-a 10.0.0.1']);
    expect(t.store.stateGeneration).toBe(10);
    expect(t.log.find('older than one already applied')).toHaveLength(1);
  });

  it('keeps the changes of a newer apply when an older (but newest) state arrives late', async () => {
    const t = setup();
    await t.state(5, [A], [testEntry('acl-a', '10.0.0.1'), testEntry('acl-a', '10.0.0.2')]);
    await t.apply(7, [testEntry('acl-a', '10.0.0.3')], [{ aclId: 'acl-a', ip: '10.0.0.1' }]);

    // Computed at generation 6, before the apply at 7: it still lists .1 and does not list .3.
    const results = await t.state(6, [A], [testEntry('acl-a', '10.0.0.1'), testEntry('acl-a', '10.0.0.2')]);

    expect(t.held()).toEqual(['acl-a 10.0.0.2', 'acl-a 10.0.0.3']);
    expect(t.ipset.ips('acl-a')).toEqual(['10.0.0.2', '10.0.0.3']);
    expect(results.map(outcome)).toEqual(['add acl-a 10.0.0.2 ok']);
  });
});

describe('Reconciler: apply', () => {
  it('adds and removes entries incrementally', async () => {
    const t = setup();
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1')]);

    const results = await t.apply(
      2,
      [testEntry('acl-a', '2001:db8::1', 60, 'bob')],
      [{ aclId: 'acl-a', ip: '10.0.0.1' }],
    );

    expect(results.map(outcome)).toEqual(['remove acl-a 10.0.0.1 ok', 'add acl-a 2001:db8::1 ok']);
    expect(t.ipset.ips('acl-a')).toEqual(['2001:db8::1']);
    expect(t.ipset.device.get('acl-a')?.get('2001:db8::1')).toEqual({ ttlSeconds: 60, userName: 'bob' });
    expect(t.store.generation).toBe(2);
    expect(t.store.stateGeneration).toBe(1);
  });

  it('never re-adds a removed entry from a replayed older apply (add 5, remove 6, add 5 again)', async () => {
    const t = setup();
    await t.state(1, [A], []);
    await t.apply(5, [testEntry('acl-a', '10.0.0.1')]);
    await t.apply(6, [], [{ aclId: 'acl-a', ip: '10.0.0.1' }]);

    const replay = await t.apply(5, [testEntry('acl-a', '10.0.0.1')]);

    expect(replay).toEqual([]);
    expect(t.ipset.ips('acl-a')).toEqual([]);
    expect(t.held()).toEqual([]);
    expect(t.ipset.callsOf('apply')).toHaveLength(1);
  });

  it('ignores an add or remove at the same generation as the entry’s last change', async () => {
    const t = setup();
    await t.state(1, [A], []);
    await t.apply(3, [testEntry('acl-a', '10.0.0.1')]);

    expect(await t.apply(3, [], [{ aclId: 'acl-a', ip: '10.0.0.1' }])).toEqual([]);
    expect(t.held()).toEqual(['acl-a 10.0.0.1']);
  });

  it('ignores an apply that a newer or equal state already included', async () => {
    const t = setup();
    await t.state(4, [A], []);

    expect(await t.apply(4, [testEntry('acl-a', '10.0.0.1')])).toEqual([]);
    expect(await t.apply(3, [testEntry('acl-a', '10.0.0.1')])).toEqual([]);
    expect(t.ipset.ips('acl-a')).toEqual([]);
  });

  it('removes an address it does not hold from the device anyway, and reports success', async () => {
    const t = setup();
    await t.state(1, [A], []);
    t.ipset.device.set('acl-a', new Map([['10.0.0.9', { ttlSeconds: 100, userName: 'lost' }]]));

    const results = await t.apply(2, [], [{ aclId: 'acl-a', ip: '10.0.0.9' }]);

    expect(results.map(outcome)).toEqual(['remove acl-a 10.0.0.9 ok']);
    expect(t.ipset.ips('acl-a')).toEqual([]);
  });

  it('fails an add for a knoc it was never sent', async () => {
    const t = setup();
    await t.state(1, [A], []);

    const results = await t.apply(2, [testEntry('acl-x', '10.0.0.1')]);

    expect(results.map(outcome)).toEqual(['add acl-x 10.0.0.1 the knoc is not among the knocs sent to this agent']);
  });
});

describe('Reconciler: own expiry', () => {
  it('removes an entry through the driver when its ttl runs out, not before', async () => {
    const t = setup();
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1', 10)]);

    await t.advance(9_999);
    expect(t.ipset.ips('acl-a')).toEqual(['10.0.0.1']);
    await t.advance(1);

    expect(t.ipset.ips('acl-a')).toEqual([]);
    expect(t.expired.map(outcome)).toEqual(['remove acl-a 10.0.0.1 ok']);
    expect(t.held()).toEqual([]);
  });

  it('counts an extended ttl from the refresh', async () => {
    const t = setup();
    const endsAt = Date.UTC(2030, 0, 1, 0, 0, 10);
    await t.state(1, [A], [{ ...testEntry('acl-a', '10.0.0.1', 10), endsAt }]);
    await t.advance(8_000);
    await t.apply(2, [{ ...testEntry('acl-a', '10.0.0.1', 10), endsAt: endsAt + 8_000 }]);

    await t.advance(9_000);
    expect(t.ipset.ips('acl-a')).toEqual(['10.0.0.1']);
    await t.advance(1_000);
    expect(t.ipset.ips('acl-a')).toEqual([]);
  });

  it('expires ten thousand entries due together in one driver call', async () => {
    const t = setup();
    const entries = Array.from({ length: 10_000 }, (_, index) =>
      testEntry('acl-a', `10.0.${index >> 8}.${index & 255}`, 30),
    );
    await t.state(1, [A], entries);

    await t.advance(30_000);

    expect(t.ipset.ips('acl-a')).toEqual([]);
    expect(t.ipset.callsOf('remove').map((call) => call.ips.length)).toEqual([10_000]);
  });

  it('keeps a replayed add of an expired entry out (the expiry leaves a tombstone)', async () => {
    const t = setup();
    await t.state(1, [A], []);
    await t.apply(2, [testEntry('acl-a', '10.0.0.1', 5)]);
    await t.advance(5_000);

    expect(await t.apply(2, [testEntry('acl-a', '10.0.0.1', 5)])).toEqual([]);
    expect(t.ipset.ips('acl-a')).toEqual([]);
  });

  it('retries a failed removal with back-off until the device accepts it', async () => {
    const t = setup();
    await t.state(1, [A], [testEntry('acl-a', '10.0.0.1', 10)]);
    t.ipset.fail = (action) => (action === 'remove' ? 'device busy' : null);

    await t.advance(10_000);
    expect(t.expired.map(outcome)).toEqual(['remove acl-a 10.0.0.1 device busy']);
    expect(t.store.entries.get('acl-a\u000010.0.0.1')?.removing).toBe(true);
    await t.advance(5_000);
    expect(t.expired).toHaveLength(2);
    t.ipset.fail = () => null;
    await t.advance(9_999);
    expect(t.ipset.ips('acl-a')).toEqual(['10.0.0.1']);
    await t.advance(1);

    expect(t.ipset.ips('acl-a')).toEqual([]);
    expect(t.expired.map(outcome).at(-1)).toBe('remove acl-a 10.0.0.1 ok');
    expect(t.store.entries.size).toBe(0);
  });
});

describe('Reconciler: restore from the state file', () => {
  it('re-applies unexpired entries with their remaining time and removes expired ones', async () => {
    const t = setup();
    const now = t.clock.wallMs();
    const content: StateFileContent = {
      ...emptyStateFile(),
      generation: 12,
      stateGeneration: 10,
      knocs: [A],
      entries: [
        {
          aclId: 'acl-a',
          ip: '10.0.0.1',
          userName: 'alice',
          expiresAt: now + 100_000,
          generation: 11,
          knoc: 0,
          removing: false,
        },
        {
          aclId: 'acl-a',
          ip: '10.0.0.2',
          userName: 'bob',
          expiresAt: now - 1,
          generation: 9,
          knoc: 0,
          removing: false,
        },
      ],
      tombstones: [{ aclId: 'acl-a', ip: '10.0.0.3', generation: 12 }],
    };
    t.ipset.device.set('acl-a', new Map([['10.0.0.2', { ttlSeconds: 1, userName: 'bob' }]]));

    await t.restore(content);

    expect(t.ipset.ips('acl-a')).toEqual(['10.0.0.1']);
    expect(t.ipset.device.get('acl-a')?.get('10.0.0.1')).toEqual({ ttlSeconds: 100, userName: 'alice' });
    expect(t.store.generation).toBe(12);
    expect(t.store.stateGeneration).toBe(10);
    expect(t.store.lastChange('acl-a', '10.0.0.3')).toBe(12);
    await t.advance(99_999);
    expect(t.ipset.ips('acl-a')).toEqual(['10.0.0.1']);
    await t.advance(1);
    expect(t.ipset.ips('acl-a')).toEqual([]);
  });

  it('drops an entry of a backend type it no longer has a driver for instead of retrying forever', async () => {
    const t = setup();
    const proxy = testKnoc('acl-p', { backendType: 'haproxy' });
    const now = t.clock.wallMs();

    await t.restore({
      ...emptyStateFile(),
      knocs: [proxy],
      entries: [
        {
          aclId: 'acl-p',
          ip: '10.0.0.1',
          userName: 'alice',
          expiresAt: now - 1,
          generation: 1,
          knoc: 0,
          removing: false,
        },
      ],
    });

    expect(t.store.entries.size).toBe(0);
    expect(t.store.lastChange('acl-p', '10.0.0.1')).toBe(1);
  });

  it('writes wall-clock expiry instants that restore to the same remaining time', async () => {
    const t = setup();
    await t.state(3, [A, B], [testEntry('acl-a', '10.0.0.1', 100), testEntry('acl-b', '10.0.0.2', 50)]);
    await t.advance(20_000);
    const content = stateFileContentOf(t.store, t.clock);

    const later = setup();
    later.clock.jumpWall(t.clock.wallMs() - later.clock.wallMs() + 30_000);
    await later.restore(content);

    const remaining = Object.fromEntries(
      [...later.store.entries.values()].map((entry) => [entry.ip, entry.deadlineMs - later.clock.monotonicMs()]),
    );
    // 100 s - 20 s running - 30 s down = 50 s left; the 50 s entry ran out while the agent was down.
    expect(remaining).toEqual({ '10.0.0.1': 50_000 });
    expect(later.ipset.callsOf('remove').map((call) => call.ips)).toEqual([['10.0.0.2']]);
    expect(content.knocs).toHaveLength(2);
  });
});

describe('Reconciler: drift repair between states', () => {
  it('puts back a grant the device lost, with its remaining time, and says so to the server', async () => {
    const t = setup();
    await t.state(1, [A], [testEntry('acl-a', '192.0.2.1', 600), testEntry('acl-a', '192.0.2.2', 600)]);
    await t.advance(100_000);
    t.ipset.device.get('acl-a')?.delete('192.0.2.2');

    const report = await t.repairDrift();
    expect(report).toMatchObject({ checked: 1, unlisted: 0, readded: 1, removed: 0, failed: 0 });
    expect(report.results.map(outcome)).toEqual(['add acl-a 192.0.2.2 ok']);
    expect(t.ipset.device.get('acl-a')?.get('192.0.2.2')).toEqual({ ttlSeconds: 500, userName: 'alice' });
    expect(t.log.lines.join('\n')).toContain('repaired drift');
  });

  it('removes an address nobody granted, and spares one another knoc of the type holds', async () => {
    const t = setup();
    await t.state(1, [A, B], [testEntry('acl-a', '192.0.2.1'), testEntry('acl-b', '198.51.100.9')]);
    const stray = { ttlSeconds: 600, userName: '' };
    t.ipset.device.get('acl-a')?.set('203.0.113.66', stray);
    // A device set two knocs share lists the other knoc's grant too: not drift.
    t.ipset.device.get('acl-a')?.set('198.51.100.9', stray);

    const report = await t.repairDrift();
    expect(report).toMatchObject({ checked: 2, readded: 0, removed: 1, failed: 0, results: [] });
    expect([...(t.ipset.device.get('acl-a')?.keys() ?? [])].sort()).toEqual(['192.0.2.1', '198.51.100.9']);
  });

  it('does nothing to a device that holds what the agent holds', async () => {
    const t = setup();
    await t.state(1, [A], [testEntry('acl-a', '192.0.2.1')]);
    const callsBefore = t.ipset.calls.length;
    expect(await t.repairDrift()).toMatchObject({ checked: 1, readded: 0, removed: 0, failed: 0 });
    expect(t.ipset.calls.slice(callsBefore).map((call) => call.action)).toEqual(['list']);
  });

  it('reports a grant the device refuses to take back as failed, and skips a device it cannot list', async () => {
    const t = setup();
    await t.state(1, [A], [testEntry('acl-a', '192.0.2.1')]);
    t.ipset.device.get('acl-a')?.clear();
    t.ipset.fail = (action) => (action === 'apply' ? 'set is full' : null);
    expect((await t.repairDrift()).results.map(outcome)).toEqual(['add acl-a 192.0.2.1 set is full']);

    t.ipset.unavailable = 'ipset: command not found';
    expect(await t.repairDrift()).toMatchObject({ checked: 0, unlisted: 1, readded: 0, removed: 0 });
  });

  it('counts a grant the device lets through by an admin’s own rule as held, and never takes that address off', async () => {
    const t = setup();
    await t.state(1, [A], [testEntry('acl-a', '192.0.2.1')]);
    // The device holds no rule of Postern's for it, but an equal one someone else made.
    t.ipset.device.get('acl-a')?.clear();
    t.ipset.othersRules.set('acl-a', ['192.0.2.1', '198.51.100.7']);
    const callsBefore = t.ipset.calls.length;

    for (let check = 0; check < 3; check += 1) {
      expect(await t.repairDrift()).toMatchObject({ checked: 1, readded: 0, removed: 0, failed: 0, results: [] });
    }
    expect(t.ipset.calls.slice(callsBefore).map((call) => call.action)).toEqual(['list', 'list', 'list']);
    expect(t.log.lines.join('\n')).not.toContain('repaired drift');

    // Once that rule is gone, the grant is Postern's to put back.
    t.ipset.othersRules.delete('acl-a');
    expect(await t.repairDrift()).toMatchObject({ readded: 1 });
    expect(t.ipset.ips('acl-a')).toEqual(['192.0.2.1']);
  });

  it('leaves a knoc alone whose device cannot be read back (a script)', async () => {
    const script = new FakeDriver('script');
    script.readsBack = () => false;
    const t = setup([script]);
    const S = testKnoc('acl-s', { backendType: 'script', acl: { Name: 'door' } });
    await t.state(1, [S], [testEntry('acl-s', '192.0.2.1')]);
    script.device.get('acl-s')?.clear();
    const callsBefore = script.calls.length;
    expect(await t.repairDrift()).toMatchObject({ checked: 0, readded: 0, results: [] });
    expect(script.calls.slice(callsBefore)).toEqual([]);
  });

  it('leaves expired entries and removals in progress to the expiry timers', async () => {
    const t = setup();
    await t.state(1, [A], [testEntry('acl-a', '192.0.2.1', 60)]);
    t.ipset.fail = (action) => (action === 'remove' ? 'busy' : null);
    await t.advance(61_000);
    t.ipset.device.get('acl-a')?.clear();
    expect(await t.repairDrift()).toMatchObject({ readded: 0, removed: 0, results: [] });
  });
});
