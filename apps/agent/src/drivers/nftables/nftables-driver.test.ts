import type { AgentKnocOf } from '@postern/protocol';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CommandResult, RunOptions } from '../command.js';
import type { DriverEntry } from '../driver.js';
import { SHELL_RETRY_AFTER_MS } from './nft-channel.js';
import type { NftShellAnswer, NftShellPort } from './nft-shell.js';
import { NftablesDriver } from './nftables-driver.js';

/**
 * A stand-in for nft and the kernel's sets, as nft 1.0.6 behaves (tests/system/drivers-nftables
 * checks the real one): a batch is all or nothing; `delete` of an absent element and any command on
 * an absent set fail it with "No such file or directory"; `add` of a present element keeps its old
 * timeout (as older kernels do); a timeout on a set without `flags timeout` is "Invalid argument".
 */
/** A document sent to `nft -j -f -`: commands such as `{"add": {"element": {…}}}`. */
interface SentBatch {
  nftables: Record<string, { element?: Record<string, unknown>; set?: Record<string, unknown> }>[];
}

class FakeNft {
  readonly calls: { argv: string[]; input: string | undefined }[] = [];
  readonly sets = new Map<string, { type: string; flags: string[]; elements: Map<string, number | null> }>();
  /** Makes every run fail with this stderr (a missing permission). */
  failEverythingWith: string | null = null;
  /** The lines of each call to the shell, in order. */
  readonly shellRuns: string[][] = [];
  /** Makes the shell itself fail (it died, did not answer) with this. */
  shellFailure: string | null = null;
  shellClosed = false;
  /** Runs after each batch the shell took (another process changing the set at once). */
  afterShellBatch: () => void = () => undefined;

  /**
   * The same kernel seen through the long-lived `nft -j -i`: each line a batch document (answered
   * with its error) or a JSON `list set` (answered with the listing, or its error and no line).
   */
  readonly shell: NftShellPort = {
    run: (commands) => {
      this.shellRuns.push(commands.map((command) => command.line));
      if (this.shellFailure !== null) return Promise.reject(new Error(this.shellFailure));
      return Promise.resolve(commands.map((command) => this.#answer(command.line)));
    },
    close: () => {
      this.shellClosed = true;
      return Promise.resolve();
    },
  };

  /** The calls that spawned nft (not the shell's). */
  spawned(): string[] {
    return this.calls.map((call) => call.argv.slice(1).join(' '));
  }

  addSet(name: string, type: string, flags = ['timeout'], table = 'inet postern'): void {
    this.sets.set(`${table} ${name}`, { type, flags, elements: new Map() });
  }

  elements(name: string, table = 'inet postern'): Map<string, number | null> {
    return this.sets.get(`${table} ${name}`)?.elements ?? new Map<string, number | null>();
  }

  /** The documents sent to `nft -j -f -`, parsed. */
  batches(): SentBatch[] {
    return this.calls
      .filter((call) => call.input !== undefined)
      .map((call) => JSON.parse(call.input ?? '') as SentBatch);
  }

  readonly run = (argv: readonly string[], options: RunOptions): Promise<CommandResult> => {
    this.calls.push({ argv: [...argv], input: options.input });
    const result = (code: number, stdout: string, stderr = '') =>
      Promise.resolve({ code, signal: null, stdout, stderr });
    if (this.failEverythingWith !== null) return result(1, '', this.failEverythingWith);
    const args = argv.slice(1);
    if (args.join(' ') === '-j -f -') {
      const error = this.#batch(JSON.parse(options.input ?? '') as SentBatch);
      return error === null ? result(0, '') : result(1, '', `internal:0:0-0: Error: ${error}\n\n`);
    }
    if (args.slice(0, 3).join(' ') === '-j list set') {
      const key = args.slice(3).join(' ');
      const set = this.sets.get(key);
      if (set === undefined) return result(1, '', `Error: No such file or directory\nlist set ${key}\n   ^^^\n`);
      return result(0, JSON.stringify({ nftables: [{ metainfo: {} }, { set: this.#listed(key, set) }] }));
    }
    return result(1, '', 'Error: syntax error');
  };

  #answer(line: string): NftShellAnswer {
    if (this.failEverythingWith !== null) return { stderr: this.failEverythingWith, stdout: null };
    const document = JSON.parse(line) as SentBatch & { nftables: { list?: { set?: Record<string, unknown> } }[] };
    const listing = document.nftables[0]?.list?.set;
    if (listing !== undefined) {
      const key = `${String(listing.family)} ${String(listing.table)} ${String(listing.name)}`;
      const set = this.sets.get(key);
      if (set === undefined) return { stderr: 'internal:0:0-0: Error: No such file or directory', stdout: null };
      return { stderr: '', stdout: JSON.stringify({ nftables: [{ metainfo: {} }, { set: this.#listed(key, set) }] }) };
    }
    const error = this.#batch(document);
    if (error === null) this.afterShellBatch();
    return { stderr: error === null ? '' : `internal:0:0-0: Error: ${error}`, stdout: null };
  }

  #listed(key: string, set: { type: string; flags: string[]; elements: Map<string, number | null> }) {
    const [family, table, name] = key.split(' ');
    const elem = [...set.elements].map(([address, timeout]) => {
      const val = address.includes('/')
        ? { prefix: { addr: address.split('/')[0], len: Number(address.split('/')[1]) } }
        : address;
      return timeout === null ? val : { elem: { val, timeout, expires: timeout - 1 } };
    });
    return { family, table, name, type: set.type, handle: 1, flags: set.flags, ...(elem.length ? { elem } : {}) };
  }

  /** Applies a batch to a copy of the sets and keeps the copy only when every command worked. */
  #batch(document: SentBatch): string | null {
    const copy = new Map([...this.sets].map(([key, set]) => [key, { ...set, elements: new Map(set.elements) }]));
    for (const command of document.nftables) {
      const [verb, body] = Object.entries(command)[0] ?? [];
      const target = body?.element ?? body?.set;
      const set = copy.get(`${String(target?.family)} ${String(target?.table)} ${String(target?.name)}`);
      if (set === undefined) return 'No such file or directory';
      if (verb === 'flush') {
        set.elements.clear();
        continue;
      }
      for (const { elem } of target?.elem as { elem: { val: unknown; timeout?: number } }[]) {
        const val = elem.val as string | { prefix: { addr: string; len: number } };
        const address = typeof val === 'string' ? val : `${val.prefix.addr}/${val.prefix.len}`;
        if (typeof val !== 'string' && !set.flags.includes('interval')) {
          return "You must add 'flags interval' to your set declaration if you want to add prefix elements";
        }
        if (verb === 'delete') {
          if (!set.elements.delete(address)) return 'Could not process rule: No such file or directory';
        } else if (elem.timeout !== undefined && !set.flags.includes('timeout')) {
          return 'Could not process rule: Invalid argument';
        } else if (!set.elements.has(address)) {
          // timeout 0 or none: the element never expires.
          set.elements.set(address, elem.timeout === undefined || elem.timeout === 0 ? null : elem.timeout);
        }
      }
    }
    for (const [key, set] of copy) this.sets.set(key, set);
    return null;
  }
}

const ALLOWED = ['inet/postern/allow4', 'inet/postern/allow6', 'inet/postern/plain4', 'inet/postern/absent'];

function knoc(acl: { V4SetName?: string; V6SetName?: string }, backend: Record<string, unknown> = {}) {
  return {
    aclId: 'acl-nft',
    name: 'Office SSH',
    url: '',
    backendId: 'backend-nft',
    backendType: 'nftables',
    backend: { Table: 'postern', ...backend },
    acl,
  } as AgentKnocOf<'nftables'>;
}

const BOTH = knoc({ V4SetName: 'allow4', V6SetName: 'allow6' });
const entry = (ip: string, ttlSeconds = 300): DriverEntry => ({ ip, ttlSeconds, userName: 'alice' });

let nft: FakeNft;
let driver: NftablesDriver;
beforeEach(() => {
  nft = new FakeNft();
  nft.addSet('allow4', 'ipv4_addr');
  nft.addSet('allow6', 'ipv6_addr');
  nft.addSet('plain4', 'ipv4_addr', []);
  nft.addSet('not_allowed', 'ipv4_addr');
  driver = new NftablesDriver({
    allowedSets: ALLOWED,
    command: ['/usr/sbin/nft'],
    logger: pino({ level: 'silent' }),
    run: nft.run,
  });
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
