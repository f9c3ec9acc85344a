import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { SHELL_RETRY_AFTER_MS } from './nft-channel.js';
import { NftablesDriver } from './nftables-driver.js';
import { ALLOWED, BOTH, entry, givenNft, knoc, type FakeNft, type SentBatch } from './fake-nft.test-support.js';

let nft: FakeNft;
let driver: NftablesDriver;
beforeEach(() => {
  ({ nft, driver } = givenNft());
});

describe('nftables driver: through the long-lived nft -j -i', () => {
  let clock: number;
  let shelled: NftablesDriver;
  beforeEach(() => {
    clock = 1_000_000;
    shelled = new NftablesDriver({
      allowedSets: ALLOWED,
      command: ['/usr/sbin/nft'],
      logger: pino({ level: 'silent' }),
      run: nft.run,
      shell: nft.shell,
      now: () => clock,
    });
  });
  const set = (name: string) => ({ family: 'inet', table: 'postern', name });
  const listLine = (name: string) => JSON.stringify({ nftables: [{ list: { set: set(name) } }] });

  it('applies in one round trip: the batch, then a listing of each set written, spawning nothing', async () => {
    const outcomes = await shelled.apply(BOTH, [entry('203.0.113.7', 300), entry('2001:db8::7', 60)]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(nft.spawned()).toEqual([]);
    expect(nft.shellRuns).toHaveLength(1);
    const [batch, ...listings] = nft.shellRuns[0] ?? [];
    expect((JSON.parse(batch ?? '') as SentBatch).nftables.map((command) => Object.keys(command)[0])).toEqual([
      'add',
      'delete',
      'add',
      'add',
      'delete',
      'add',
    ]);
    expect(listings).toEqual([listLine('allow4'), listLine('allow6')]);
    expect(nft.elements('allow4').get('203.0.113.7')).toBe(300);
  });

  it('removes in one shell batch, spawning nothing', async () => {
    await shelled.apply(BOTH, [entry('203.0.113.7'), entry('203.0.113.8')]);
    nft.shellRuns.length = 0;

    const outcomes = await shelled.remove(BOTH, [entry('203.0.113.7'), entry('198.51.100.1')]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect([...nft.elements('allow4').keys()]).toEqual(['203.0.113.8']);
    expect(nft.shellRuns).toHaveLength(1);
    expect(nft.spawned()).toEqual([]);
  });

  it('puts the same error on each entry as nft -f does: an absent set, a set without timeouts, one bad element', async () => {
    const calls = [
      () => [knoc({ V4SetName: 'absent', V6SetName: 'allow6' }), [entry('203.0.113.1'), entry('2001:db8::1')]] as const,
      () => [knoc({ V4SetName: 'plain4' }), [entry('203.0.113.2')]] as const,
      () => [BOTH, [entry('203.0.113.3'), entry('10.9.0.0/16'), entry('203.0.113.4')]] as const,
    ];
    for (const call of calls) {
      const [target, entries] = call();
      const throughShell = await shelled.apply(target, entries);
      expect(nft.spawned()).toEqual([]);
      nft.sets.forEach((held) => held.elements.clear());
      expect(throughShell).toEqual(await driver.apply(target, entries));
      expect(throughShell.some((outcome) => !outcome.ok)).toBe(true);
      nft.calls.length = 0;
    }
  });

  it('reports an address the set does not hold right after the shell’s batch', async () => {
    nft.afterShellBatch = () => nft.elements('allow4').delete('192.0.2.99');

    const outcomes = await shelled.apply(BOTH, [entry('192.0.2.98'), entry('192.0.2.99')]);

    expect(outcomes).toEqual([
      { ip: '192.0.2.98', ok: true, error: '' },
      { ip: '192.0.2.99', ok: false, error: 'set inet postern allow4 does not hold 192.0.2.99 after adding it' },
    ]);
  });

  it('spawns nft when the shell fails, keeps spawning for a while, then uses the shell again', async () => {
    nft.shellFailure = 'the nft shell ended (SIGKILL)';

    expect((await shelled.apply(BOTH, [entry('203.0.113.7')]))[0]?.ok).toBe(true);
    expect(nft.spawned()).toEqual(['-j -f -', '-j list set inet postern allow4']);
    expect(nft.shellRuns).toHaveLength(1);

    nft.shellFailure = null;
    clock += SHELL_RETRY_AFTER_MS - 1;
    expect((await shelled.remove(BOTH, [entry('203.0.113.7')]))[0]?.ok).toBe(true);
    expect(nft.shellRuns).toHaveLength(1);
    expect(nft.spawned()).toHaveLength(3);

    clock += 1;
    expect((await shelled.apply(BOTH, [entry('203.0.113.8')]))[0]?.ok).toBe(true);
    expect(nft.shellRuns).toHaveLength(2);
    expect(nft.spawned()).toHaveLength(3);
    expect([...nft.elements('allow4').keys()]).toEqual(['203.0.113.8']);
  });

  it('writes a call of more than 64 entries (a reconcile) through nft -j -f -, not the shell', async () => {
    const entries = Array.from({ length: 65 }, (_, index) => entry(`10.20.0.${index + 1}`));

    expect((await shelled.apply(BOTH, entries)).every((outcome) => outcome.ok)).toBe(true);
    expect((await shelled.remove(BOTH, entries)).every((outcome) => outcome.ok)).toBe(true);

    expect(nft.shellRuns).toEqual([]);
    expect(nft.spawned()).toEqual(['-j -f -', '-j list set inet postern allow4', '-j -f -']);
  });

  it('lists, reads timeouts and flushes through the shell', async () => {
    await shelled.apply(BOTH, [entry('203.0.113.7', 300)]);

    expect(await shelled.list(BOTH)).toEqual(['203.0.113.7']);
    expect(await shelled.remainingSeconds(BOTH)).toEqual(new Map([['203.0.113.7', 299]]));
    await shelled.flush(BOTH);
    await expect(shelled.list(knoc({ V4SetName: 'absent' }))).rejects.toThrow(
      'nft list set inet postern absent: No such file or directory',
    );

    expect(nft.elements('allow4').size).toBe(0);
    expect(nft.spawned()).toEqual([]);
  });

  it('closes the shell when the driver closes', async () => {
    await shelled.close();

    expect(nft.shellClosed).toBe(true);
  });
});
