import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { AgentKnocOf } from '@postern/protocol';
import { waitFor } from '@postern/test-support';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { detectCapabilities } from '../../apps/agent/src/capabilities/index.js';
import { createDrivers, type Driver, type DriverEntry } from '../../apps/agent/src/drivers/index.js';
import { IpsetDriver } from '../../apps/agent/src/drivers/ipset/ipset-driver.js';
import { createNamespace, missingNetnsSupport, removeAllNamespaces, type Namespace } from './support/netns.js';
import { requireTool } from './support/requirements.js';

/**
 * The ipset driver against the real kernel. ipset is per network namespace, so every set lives in a
 * namespace this file creates and the driver runs `ip netns exec <ns> ipset`: the host's own sets
 * are never read or changed.
 */
const missing = missingNetnsSupport({ ipset: 'ipset' });
const ALLOWED = ['granted_v4', 'granted_v6', 'no_timeout', 'absent_set'];
const execFileAsync = promisify(execFile);

let ns: Namespace;
/** The driver as the agent makes it: small batches through a long-lived `ipset -exist -`. */
let withShell: Driver;
/** The same driver with every batch through one `ipset restore`, as big batches always go. */
let withRestore: Driver;

beforeAll(async () => {
  if (missing !== null) return;
  ns = await createNamespace('ipset');
  for (const create of [
    'create granted_v4 hash:ip family inet timeout 0',
    'create granted_v6 hash:ip family inet6 timeout 0',
    'create no_timeout hash:ip family inet',
    'create not_allowed hash:ip family inet timeout 0',
  ]) {
    await ns.exec(['ipset', ...create.split(' ')]);
  }
  const config = {
    ipset: { allowedSets: ALLOWED, useSudo: false },
    haproxy: { socket: null },
    scripts: { enabled: false, directory: '/nonexistent', timeoutSeconds: 5 },
    knocproxy: { tlsCertFile: null, tlsKeyFile: null },
  };
  const drivers = createDrivers(config, pino({ level: 'silent' }), { ipsetCommand: [...ns.prefix, 'ipset'] });
  const driver = drivers.get('ipset');
  if (driver === undefined) throw new Error('createDrivers made no ipset driver');
  withShell = driver;
  withRestore = new IpsetDriver({
    allowedSets: ALLOWED,
    command: [...ns.prefix, 'ipset'],
    logger: pino({ level: 'silent' }),
    useShell: false,
  });
});
afterAll(async () => {
  await withShell?.close();
  await removeAllNamespaces();
});
beforeEach(async (context) => {
  requireTool(context, missing);
  for (const set of ['granted_v4', 'granted_v6', 'no_timeout', 'not_allowed']) await ns.exec(['ipset', 'flush', set]);
});

function knoc(acl: { V4SetName?: string; V6SetName?: string }): AgentKnocOf<'ipset'> {
  return {
    aclId: 'acl-ipset',
    name: 'Office SSH',
    url: '',
    backendId: 'backend-ipset',
    backendType: 'ipset',
    backend: {},
    acl: { V4SetName: acl.V4SetName ?? '', V6SetName: acl.V6SetName ?? '' },
  };
}

const BOTH = knoc({ V4SetName: 'granted_v4', V6SetName: 'granted_v6' });
const entry = (ip: string, ttlSeconds = 300): DriverEntry => ({ ip, ttlSeconds, userName: 'alice' });

/** The set's members and their remaining timeouts, as the kernel reports them. */
async function members(set: string): Promise<Map<string, number>> {
  const { stdout } = await ns.exec(['ipset', 'list', set, '-output', 'save']);
  const found = new Map<string, number>();
  for (const line of stdout.split('\n')) {
    const match = /^add \S+ (\S+)(?: timeout (\d+))?/.exec(line);
    if (match?.[1] !== undefined) found.set(match[1], Number(match[2] ?? -1));
  }
  return found;
}

describe.each([
  ['the long-lived ipset shell', () => withShell],
  ['ipset restore', () => withRestore],
])('ipset driver through %s', (_mode, driver) => {
  let ipset: Driver;
  beforeEach(() => {
    ipset = driver();
  });

  it("adds an IPv4 address to the knoc's V4 set with the grant's remaining time as its kernel timeout", async () => {
    const outcomes = await ipset.apply(BOTH, [entry('203.0.113.7', 300)]);

    expect(outcomes).toEqual([{ ip: '203.0.113.7', ok: true, error: '' }]);
    const timeout = (await members('granted_v4')).get('203.0.113.7');
    expect(timeout).toBeGreaterThan(290);
    expect(timeout).toBeLessThanOrEqual(300);
  });

  it('refreshes the timeout of an address already in the set instead of failing', async () => {
    await ipset.apply(BOTH, [entry('203.0.113.7', 60)]);
    const outcomes = await ipset.apply(BOTH, [entry('203.0.113.7', 7200)]);

    expect(outcomes[0]?.ok).toBe(true);
    const set = await members('granted_v4');
    expect(set.size).toBe(1);
    expect(set.get('203.0.113.7')).toBeGreaterThan(7100);
  });

  it("adds an IPv6 address to the knoc's V6 set, not the V4 one", async () => {
    const outcomes = await ipset.apply(BOTH, [entry('2001:DB8::7', 300)]);

    expect(outcomes[0]).toEqual({ ip: '2001:DB8::7', ok: true, error: '' });
    expect([...(await members('granted_v6')).keys()]).toEqual(['2001:db8::7']);
    expect((await members('granted_v4')).size).toBe(0);
  });

  it('never writes timeout 0 (forever): an entry with no time left still expires', async () => {
    await ipset.apply(BOTH, [entry('203.0.113.9', 0)]);

    await waitFor(
      async () => !(await members('granted_v4')).has('203.0.113.9'),
      'the kernel to expire the entry',
      5000,
    );
  });

  it('removes an address, and removing an absent one is a success', async () => {
    await ipset.apply(BOTH, [entry('203.0.113.7'), entry('203.0.113.8')]);

    const outcomes = await ipset.remove(BOTH, [entry('203.0.113.7'), entry('198.51.100.1')]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect([...(await members('granted_v4')).keys()]).toEqual(['203.0.113.8']);
  });

  it('lists what the kernel holds in both of the knoc’s sets', async () => {
    await ipset.apply(BOTH, [entry('203.0.113.7'), entry('2001:db8::7')]);

    expect((await ipset.list(BOTH)).sort()).toEqual(['2001:db8::7', '203.0.113.7']);
  });

  it("refuses a set that is not in the agent's allowed sets, touching nothing", async () => {
    const outcomes = await ipset.apply(knoc({ V4SetName: 'not_allowed' }), [entry('203.0.113.7')]);

    expect(outcomes).toEqual([
      { ip: '203.0.113.7', ok: false, error: "set not_allowed is not allowed by this agent's configuration" },
    ]);
    expect((await members('not_allowed')).size).toBe(0);
  });

  it('fails an address whose family the knoc has no set for, and still adds the others', async () => {
    const outcomes = await ipset.apply(knoc({ V4SetName: 'granted_v4' }), [entry('2001:db8::1'), entry('203.0.113.7')]);

    expect(outcomes).toEqual([
      { ip: '2001:db8::1', ok: false, error: 'this knoc has no IPv6 set (V6SetName) for 2001:db8::1' },
      { ip: '203.0.113.7', ok: true, error: '' },
    ]);
  });

  it('reports a set created without timeout support on each of its entries, and applies the rest of the batch', async () => {
    const outcomes = await ipset.apply(knoc({ V4SetName: 'no_timeout', V6SetName: 'granted_v6' }), [
      entry('203.0.113.1'),
      entry('2001:db8::1'),
      entry('203.0.113.2'),
    ]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([false, true, false]);
    for (const failure of [outcomes[0], outcomes[2]]) {
      expect(failure?.error).toBe('Timeout cannot be used: set was created without timeout support');
    }
    expect((await members('granted_v6')).has('2001:db8::1')).toBe(true);
    expect((await members('no_timeout')).size).toBe(0);
  });

  it('reports a set that does not exist', async () => {
    const outcomes = await ipset.apply(knoc({ V4SetName: 'absent_set' }), [entry('203.0.113.1')]);

    expect(outcomes[0]).toEqual({
      ip: '203.0.113.1',
      ok: false,
      error: 'The set with the given name does not exist',
    });
  });

  it('fails only the entry that is not an address, never passing it to ipset', async () => {
    const outcomes = await ipset.apply(BOTH, [
      entry('203.0.113.1'),
      entry('203.0.113.2\nflush granted_v4'),
      entry('203.0.113.3'),
    ]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, false, true]);
    expect(outcomes[1]?.error).toContain('is not an IPv4 or IPv6 address');
    expect([...(await members('granted_v4')).keys()].sort()).toEqual(['203.0.113.1', '203.0.113.3']);
  });

  it('adds 2,000 addresses in one apply', async () => {
    const entries = Array.from({ length: 2000 }, (_, index) => entry(`10.20.${index >> 8}.${index & 255}`, 600));

    const outcomes = await ipset.apply(BOTH, entries);

    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect((await members('granted_v4')).size).toBe(2000);
  });

  it("flushes the knoc's addresses from its sets and leaves other sets alone", async () => {
    await ipset.apply(BOTH, [entry('203.0.113.7'), entry('2001:db8::7')]);
    await ns.exec(['ipset', 'add', 'not_allowed', '203.0.113.7']);

    await ipset.flush(BOTH);

    expect((await members('granted_v4')).size).toBe(0);
    expect((await members('granted_v6')).size).toBe(0);
    expect((await members('not_allowed')).size).toBe(1);
  });
});

describe('closed-loop verification: an add counts only once the kernel holds it', () => {
  // A device that accepts a change and does not keep it: this wrapper drops the add of one address
  // on its way to ipset (in the interactive shell and in `ipset restore` alike), as if another
  // process had removed it at once.
  const dropping = () => [...ns.prefix, 'sh', '-c', 'sed -u "/ 192.0.2.99 timeout/d" | ipset "$@"', 'ipset-dropping'];

  it.each([
    ['the long-lived ipset shell', true],
    ['ipset restore', false],
  ])('through %s, reports the address the set does not hold, and only that one', async (_mode, useShell) => {
    const driver = new IpsetDriver({
      allowedSets: ALLOWED,
      command: dropping(),
      logger: pino({ level: 'silent' }),
      useShell,
    });
    try {
      const outcomes = await driver.apply(BOTH, [entry('192.0.2.98'), entry('192.0.2.99')]);
      expect(outcomes).toEqual([
        { ip: '192.0.2.98', ok: true, error: '' },
        { ip: '192.0.2.99', ok: false, error: 'set granted_v4 does not hold 192.0.2.99 after adding it' },
      ]);
      expect([...(await members('granted_v4')).keys()]).toEqual(['192.0.2.98']);
    } finally {
      await driver.close();
    }
  });
});

describe('the long-lived ipset shell', () => {
  it('is one ipset process kept between calls', async () => {
    await withShell.apply(BOTH, [entry('203.0.113.7')]);
    const first = await shellProcesses();
    await withShell.apply(BOTH, [entry('203.0.113.8')]);

    expect(first).toHaveLength(1);
    expect(await shellProcesses()).toEqual(first);
  });

  it('is started again after it died', async () => {
    await withShell.apply(BOTH, [entry('203.0.113.7')]);
    for (const pid of await shellProcesses()) process.kill(pid, 'SIGKILL');
    await waitFor(async () => (await shellProcesses()).length === 0, 'the shell to be gone', 5000);

    const outcomes = await withShell.apply(BOTH, [entry('203.0.113.8')]);

    expect(outcomes[0]?.ok).toBe(true);
    expect((await members('granted_v4')).has('203.0.113.8')).toBe(true);
  });
});

/** The `ipset -exist -` processes running in the namespace. */
async function shellProcesses(): Promise<number[]> {
  const { stdout } = await execFileAsync('ip', ['netns', 'pids', ns.name]);
  const pids: number[] = [];
  for (const pid of stdout
    .split('\n')
    .map(Number)
    .filter((value) => value > 0)) {
    try {
      const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
      if (argv.includes('ipset') && argv.includes('-exist') && argv.includes('-')) pids.push(pid);
    } catch {
      // Ended meanwhile.
    }
  }
  return pids;
}

describe('ipset capabilities', () => {
  it('reports the allowed sets that exist, with their address families', async () => {
    const capabilities = await detectCapabilities(
      {
        ipset: { allowedSets: ALLOWED, useSudo: false },
        haproxy: { socket: null },
        scripts: { enabled: false, directory: '/nonexistent', timeoutSeconds: 5 },
      },
      { ipsetCommand: [...ns.prefix, 'ipset'] },
    );

    expect(capabilities.ipset.command_available).toBe(true);
    expect(capabilities.ipset.sudo_enabled).toBe(true);
    expect(capabilities.ipset.ipsets).toEqual([
      { name: 'granted_v4', address_family: 'inet' },
      { name: 'granted_v6', address_family: 'inet6' },
      { name: 'no_timeout', address_family: 'inet' },
    ]);
    expect(capabilities.backend_types).toContain('ipset');
  });
});
