import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DriverEntry } from '../driver.js';
import { NftablesDriver } from './nftables-driver.js';
import { ALLOWED, BOTH, entry, givenNft, knoc, type FakeNft } from './fake-nft.test-support.js';

let nft: FakeNft;
let driver: NftablesDriver;
beforeEach(() => {
  ({ nft, driver } = givenNft());
});

describe('nftables driver: the batches it sends', () => {
  it('applies in one `nft -j -f -` batch per call: add, delete, add per set, every element with its timeout', async () => {
    const outcomes = await driver.apply(BOTH, [entry('203.0.113.7', 300), entry('2001:DB8::7', 60.9)]);

    expect(outcomes).toEqual([
      { ip: '203.0.113.7', ok: true, error: '' },
      { ip: '2001:DB8::7', ok: true, error: '' },
    ]);
    const writes = nft.calls.filter((call) => call.input !== undefined);
    expect(writes.map((call) => call.argv)).toEqual([['/usr/sbin/nft', '-j', '-f', '-']]);
    const set = (name: string) => ({ family: 'inet', table: 'postern', name });
    const v4 = [{ elem: { val: '203.0.113.7', timeout: 300 } }];
    const v6 = [{ elem: { val: '2001:db8::7', timeout: 60 } }];
    expect(JSON.parse(writes[0]?.input ?? '')).toEqual({
      nftables: [
        { add: { element: { ...set('allow4'), elem: v4 } } },
        { delete: { element: { ...set('allow4'), elem: [{ elem: { val: '203.0.113.7' } }] } } },
        { add: { element: { ...set('allow4'), elem: v4 } } },
        { add: { element: { ...set('allow6'), elem: v6 } } },
        { delete: { element: { ...set('allow6'), elem: [{ elem: { val: '2001:db8::7' } }] } } },
        { add: { element: { ...set('allow6'), elem: v6 } } },
      ],
    });
    // Then each set is read back once.
    expect(nft.calls.slice(1).map((call) => call.argv.slice(1).join(' '))).toEqual([
      '-j list set inet postern allow4',
      '-j list set inet postern allow6',
    ]);
  });

  it('resets the deadline of an element the set already holds (a bare add would keep the old one)', async () => {
    await driver.apply(BOTH, [entry('203.0.113.7', 60)]);
    await driver.apply(BOTH, [entry('203.0.113.7', 7200)]);

    expect(nft.elements('allow4').get('203.0.113.7')).toBe(7200);
    await driver.apply(BOTH, [entry('203.0.113.7', 30)]);
    expect(nft.elements('allow4').get('203.0.113.7')).toBe(30);
  });

  it.each([0, -5, 0.4, Number.NaN, Number.NEGATIVE_INFINITY])(
    'never writes timeout 0 (permanent): ttl %s becomes 1 s',
    async (ttl) => {
      await driver.apply(BOTH, [entry('203.0.113.9', ttl)]);

      const timeouts = nft
        .batches()
        .flatMap((batch) => batch.nftables.flatMap((command) => Object.values(command)))
        .flatMap((body) => (body.element?.elem as { elem: { timeout?: number } }[]) ?? [])
        .map(({ elem }) => elem.timeout)
        .filter((timeout) => timeout !== undefined);
      expect(timeouts).toEqual([1, 1]);
      expect(nft.elements('allow4').get('203.0.113.9')).toBe(1);
    },
  );

  it('clamps a timeout above the kernel limit to 2147483 s', async () => {
    await driver.apply(BOTH, [entry('203.0.113.9', 10 ** 12)]);

    expect(nft.elements('allow4').get('203.0.113.9')).toBe(2_147_483);
  });

  it('writes a network as a prefix element', async () => {
    nft.addSet('allow4', 'ipv4_addr', ['interval', 'timeout']);

    const outcomes = await driver.apply(BOTH, [entry('10.1.2.3/24')]);

    expect(outcomes[0]?.ok).toBe(true);
    const first = nft.batches()[0]?.nftables[0]?.add?.element?.elem;
    expect(first).toEqual([{ elem: { val: { prefix: { addr: '10.1.2.0', len: 24 } }, timeout: 300 } }]);
    expect(await driver.list(BOTH)).toEqual(['10.1.2.0/24']);
  });

  it('puts 2,000 entries (a reconcile after a restart) in one batch', async () => {
    const entries = Array.from({ length: 2000 }, (_, index) => entry(`10.20.${index >> 8}.${index & 255}`, 600));

    const outcomes = await driver.apply(BOTH, entries);

    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(nft.batches()).toHaveLength(1);
    expect(nft.elements('allow4').size).toBe(2000);
  });

  it('writes an address granted twice once, with the later deadline', async () => {
    const outcomes = await driver.apply(BOTH, [entry('203.0.113.7', 60), entry('203.0.113.7', 900)]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(nft.batches()[0]?.nftables[0]?.add?.element?.elem).toEqual([{ elem: { val: '203.0.113.7', timeout: 900 } }]);
  });

  it('removes with add (1 s) + delete, so an absent element is a success, in one batch', async () => {
    await driver.apply(BOTH, [entry('203.0.113.7'), entry('203.0.113.8')]);
    nft.calls.length = 0;

    const outcomes = await driver.remove(BOTH, [entry('203.0.113.7'), entry('198.51.100.1')]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect([...nft.elements('allow4').keys()]).toEqual(['203.0.113.8']);
    const set = { family: 'inet', table: 'postern', name: 'allow4' };
    expect(nft.batches()).toEqual([
      {
        nftables: [
          {
            add: {
              element: {
                ...set,
                elem: [{ elem: { val: '203.0.113.7', timeout: 1 } }, { elem: { val: '198.51.100.1', timeout: 1 } }],
              },
            },
          },
          {
            delete: {
              element: { ...set, elem: [{ elem: { val: '203.0.113.7' } }, { elem: { val: '198.51.100.1' } }] },
            },
          },
        ],
      },
    ]);
  });

  it('flushes both of the knoc’s sets in one batch and leaves other sets alone', async () => {
    await driver.apply(BOTH, [entry('203.0.113.7'), entry('2001:db8::7')]);
    nft.elements('not_allowed').set('203.0.113.7', 300);

    await driver.flush(BOTH);

    expect(nft.elements('allow4').size).toBe(0);
    expect(nft.elements('allow6').size).toBe(0);
    expect(nft.elements('not_allowed').size).toBe(1);
    expect(nft.batches().at(-1)).toEqual({
      nftables: [
        { flush: { set: { family: 'inet', table: 'postern', name: 'allow4' } } },
        { flush: { set: { family: 'inet', table: 'postern', name: 'allow6' } } },
      ],
    });
  });

  it('uses the backend’s family and table', async () => {
    nft.addSet('a4', 'ipv4_addr', ['timeout'], 'ip filter');
    const ipKnoc = knoc({ V4SetName: 'a4' }, { Family: 'ip', Table: 'filter' });
    const ipDriver = new NftablesDriver({
      allowedSets: ['ip/filter/a4'],
      command: ['nft'],
      logger: pino({ level: 'silent' }),
      run: nft.run,
    });

    expect((await ipDriver.apply(ipKnoc, [entry('192.0.2.1')]))[0]?.ok).toBe(true);
    expect([...nft.elements('a4', 'ip filter').keys()]).toEqual(['192.0.2.1']);
    // The same names in another family are another set, which this agent may not touch.
    expect(await driver.apply(knoc({ V4SetName: 'allow4' }, { Family: 'ip' }), [entry('192.0.2.1')])).toEqual([
      {
        ip: '192.0.2.1',
        ok: false,
        error: "set ip postern allow4 is not allowed by this agent's configuration",
        permanent: true,
      },
    ]);
  });
});

describe('nftables driver: what it refuses and how errors land on entries', () => {
  it("refuses a set the agent's configuration does not allow, sending nothing", async () => {
    const outcomes = await driver.apply(knoc({ V4SetName: 'not_allowed' }), [entry('203.0.113.7')]);

    expect(outcomes).toEqual([
      {
        ip: '203.0.113.7',
        ok: false,
        error: "set inet postern not_allowed is not allowed by this agent's configuration",
        permanent: true,
      },
    ]);
    expect(nft.calls).toEqual([]);
  });

  it('routes IPv4 to V4SetName and IPv6 to V6SetName, failing a family the knoc has no set for', async () => {
    const outcomes = await driver.apply(knoc({ V4SetName: 'allow4' }), [
      entry('2001:db8::1'),
      entry('203.0.113.7'),
      entry('::ffff:198.51.100.9'),
    ]);

    expect(outcomes).toEqual([
      {
        ip: '2001:db8::1',
        ok: false,
        error: 'this knoc has no IPv6 set (V6SetName) for 2001:db8::1',
        permanent: true,
      },
      { ip: '203.0.113.7', ok: true, error: '' },
      { ip: '::ffff:198.51.100.9', ok: true, error: '' },
    ]);
    expect([...nft.elements('allow4').keys()]).toEqual(['203.0.113.7', '198.51.100.9']);
    expect(nft.elements('allow6').size).toBe(0);
  });

  it('never passes what is not an address to nft (nft would resolve a host name)', async () => {
    const outcomes = await driver.apply(BOTH, [entry('example.com'), entry('203.0.113.2"}]}')]);

    expect(outcomes.map((outcome) => outcome.error)).toEqual([
      'example.com is not an IPv4 or IPv6 address',
      '203.0.113.2"}]} is not an IPv4 or IPv6 address',
    ]);
    expect(nft.calls).toEqual([]);
  });

  it.each([
    [{ Table: 'my table' }, 'nftables: the backend\'s Table "my table" is not a table name'],
    [{ Table: '' }, "nftables: the backend's Table is empty"],
  ])('fails the whole call on a table it cannot name (%o)', async (backend, message) => {
    await expect(driver.apply(knoc({ V4SetName: 'allow4' }, backend), [entry('203.0.113.7')])).rejects.toThrow(message);
    expect(nft.calls).toEqual([]);
  });

  it('fails an entry whose set name nft could misread, before it reaches nft', async () => {
    const outcomes = await driver.apply(knoc({ V4SetName: 'allow4; flush ruleset' }), [entry('203.0.113.7')]);

    expect(outcomes[0]?.error).toBe(
      'V4SetName "allow4; flush ruleset" is not a set name (a letter, then up to 63 letters, digits, _ or -)',
    );
    expect(nft.calls).toEqual([]);
  });

  it('fails the entries of a set that does not exist and still applies the other set', async () => {
    const outcomes = await driver.apply(knoc({ V4SetName: 'absent', V6SetName: 'allow6' }), [
      entry('203.0.113.1'),
      entry('2001:db8::1'),
    ]);

    expect(outcomes).toEqual([
      { ip: '203.0.113.1', ok: false, error: 'set inet postern absent: No such file or directory' },
      { ip: '2001:db8::1', ok: true, error: '' },
    ]);
    expect([...nft.elements('allow6').keys()]).toEqual(['2001:db8::1']);
  });

  it('names a set without flags timeout on each of its entries', async () => {
    const outcomes = await driver.apply(knoc({ V4SetName: 'plain4' }), [entry('203.0.113.1'), entry('203.0.113.2')]);

    for (const outcome of outcomes) {
      expect(outcome).toEqual({
        ip: outcome.ip,
        ok: false,
        error: 'set inet postern plain4 has no "flags timeout": its elements would never expire',
      });
    }
    expect(nft.elements('plain4').size).toBe(0);
  });

  it('finds the one bad element of a big batch by halving, and writes all the others', async () => {
    const entries = [...Array.from({ length: 99 }, (_, index) => entry(`10.30.0.${index + 1}`)), entry('10.9.0.0/16')];
    entries.splice(40, 0, entries.pop() as DriverEntry);

    const outcomes = await driver.apply(BOTH, entries);

    const failures = outcomes.filter((outcome) => !outcome.ok);
    expect(failures).toEqual([
      {
        ip: '10.9.0.0/16',
        ok: false,
        error: "You must add 'flags interval' to your set declaration if you want to add prefix elements",
      },
    ]);
    expect(nft.elements('allow4').size).toBe(99);
    expect(nft.batches().length).toBeLessThan(20);
  });

  it('fails every entry with nft’s message when nft may not run at all', async () => {
    nft.failEverythingWith = 'netlink: Error: cache initialization failed: Operation not permitted\n';

    const outcomes = await driver.apply(BOTH, [entry('203.0.113.1'), entry('2001:db8::1')]);

    expect(outcomes.map((outcome) => outcome.error)).toEqual([
      'cache initialization failed: Operation not permitted',
      'cache initialization failed: Operation not permitted',
    ]);
    expect(nft.batches()).toHaveLength(1);
  });

  it('fails every entry once when nft is stopped at the time limit, without trying parts of the batch', async () => {
    const runs: string[][] = [];
    const hanging = new NftablesDriver({
      allowedSets: ALLOWED,
      command: ['nft'],
      logger: pino({ level: 'silent' }),
      commandTimeoutMs: 2000,
      run: (argv) => {
        runs.push([...argv]);
        return Promise.resolve({ code: null, signal: 'SIGKILL', stdout: '', stderr: '' });
      },
    });

    const outcomes = await hanging.apply(BOTH, [entry('203.0.113.1'), entry('2001:db8::1')]);

    expect(outcomes.map((outcome) => outcome.error)).toEqual([
      'nft did not finish within 2 s and was stopped',
      'nft did not finish within 2 s and was stopped',
    ]);
    expect(runs).toHaveLength(1);
  });

  it('reports an address the set does not hold after the batch (closed-loop verification)', async () => {
    const run = nft.run;
    const dropping = new NftablesDriver({
      allowedSets: ALLOWED,
      command: ['nft'],
      logger: pino({ level: 'silent' }),
      // As if another process deleted 192.0.2.99 at once.
      run: async (argv, options) => {
        const result = await run(argv, options);
        nft.elements('allow4').delete('192.0.2.99');
        return result;
      },
    });

    const outcomes = await dropping.apply(BOTH, [entry('192.0.2.98'), entry('192.0.2.99')]);

    expect(outcomes).toEqual([
      { ip: '192.0.2.98', ok: true, error: '' },
      { ip: '192.0.2.99', ok: false, error: 'set inet postern allow4 does not hold 192.0.2.99 after adding it' },
    ]);
  });

  it('fails the call when nft cannot be started', async () => {
    const missing = new NftablesDriver({
      allowedSets: ALLOWED,
      command: ['/nonexistent/nft'],
      logger: pino({ level: 'silent' }),
    });

    await expect(missing.apply(BOTH, [entry('203.0.113.1')])).rejects.toThrow(/^cannot run \/nonexistent\/nft: /);
  });
});

describe('nftables driver: reading the sets back', () => {
  it('lists canonical addresses of the knoc’s allowed sets and their remaining seconds', async () => {
    await driver.apply(BOTH, [entry('203.0.113.7', 300), entry('2001:DB8:0::7', 90)]);
    nft.elements('allow4').set('198.51.100.1', null);

    expect((await driver.list(BOTH)).sort()).toEqual(['198.51.100.1', '2001:db8::7', '203.0.113.7']);
    expect(await driver.remainingSeconds(BOTH)).toEqual(
      new Map([
        ['203.0.113.7', 299],
        ['2001:db8::7', 89],
      ]),
    );
  });

  it('does not read a set the agent may not touch', async () => {
    expect(await driver.list(knoc({ V4SetName: 'not_allowed' }))).toEqual([]);
    expect(nft.calls).toEqual([]);
  });

  it('throws when a set cannot be read', async () => {
    await expect(driver.list(knoc({ V4SetName: 'absent' }))).rejects.toThrow(
      'nft list set inet postern absent: No such file or directory',
    );
  });
});
