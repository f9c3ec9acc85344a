import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AgentKnocOf } from '@postern/protocol';
import { REPO_ROOT, waitFor } from '@postern/test-support';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { detectCapabilities } from '../../apps/agent/src/capabilities/index.js';
import { createDrivers, type Driver, type DriverEntry } from '../../apps/agent/src/drivers/index.js';
import { NftablesDriver } from '../../apps/agent/src/drivers/nftables/nftables-driver.js';
import { createNamespace, missingNetnsSupport, removeAllNamespaces, type Namespace } from './support/netns.js';
import { requireTool } from './support/requirements.js';

/**
 * The nftables driver against the real kernel (nft 1.0.6 on Debian 12). The ruleset is per network
 * namespace, so every table lives in a namespace this file creates and the driver runs
 * `ip netns exec <ns> nft`: the host's own ruleset is never read or changed.
 */
const missing = missingNetnsSupport({ nft: 'nftables' });
const execFileAsync = promisify(execFile);

/** The ruleset of docs/agents.md (both families in one inet table), plus sets the tests need. */
const RULESET = `
table inet postern {
  set allow4 { type ipv4_addr; flags timeout; }
  set allow6 { type ipv6_addr; flags timeout; }
  chain input {
    type filter hook input priority filter; policy accept;
    tcp dport 22 ip saddr @allow4 accept
    tcp dport 22 ip6 saddr @allow6 accept
    tcp dport 22 drop
  }
  set nets4 { type ipv4_addr; flags interval, timeout; }
  set plain4 { type ipv4_addr; }
  set not_allowed { type ipv4_addr; flags timeout; }
}
table ip filter4 {
  set a4 { type ipv4_addr; flags timeout; }
}
table ip6 filter6 {
  set a6 { type ipv6_addr; flags timeout; }
}
`;
const ALLOWED = [
  'inet/postern/allow4',
  'inet/postern/allow6',
  'inet/postern/nets4',
  'inet/postern/plain4',
  'inet/postern/absent',
  'ip/filter4/a4',
  'ip6/filter6/a6',
];
const SETS = ['inet postern allow4', 'inet postern allow6', 'inet postern nets4', 'inet postern not_allowed'];

let ns: Namespace;
let nft: Driver;

beforeAll(async () => {
  if (missing !== null) return;
  ns = await createNamespace('nft');
  await ns.exec(['nft', '-f', '-'], RULESET);
  const config = {
    ipset: { allowedSets: [], useSudo: false },
    nftables: { allowedSets: ALLOWED, useSudo: false },
    haproxy: { socket: null },
    scripts: { enabled: false, directory: '/nonexistent', timeoutSeconds: 5 },
    knocproxy: { tlsCertFile: null, tlsKeyFile: null },
  };
  const drivers = createDrivers(config, pino({ level: 'silent' }), { nftablesCommand: [...ns.prefix, 'nft'] });
  const driver = drivers.get('nftables');
  if (driver === undefined) throw new Error('createDrivers made no nftables driver');
  nft = driver;
});
afterAll(async () => {
  await nft?.close();
  await removeAllNamespaces();
});
beforeEach(async (context) => {
  requireTool(context, missing);
  for (const set of [...SETS, 'ip filter4 a4', 'ip6 filter6 a6']) {
    await ns.exec(['nft', 'flush', 'set', ...set.split(' ')]);
  }
});

function knoc(
  acl: { V4SetName?: string; V6SetName?: string },
  backend: { Family?: 'inet' | 'ip' | 'ip6'; Table?: string } = {},
): AgentKnocOf<'nftables'> {
  return {
    aclId: 'acl-nft',
    name: 'Office SSH',
    url: '',
    backendId: 'backend-nft',
    backendType: 'nftables',
    backend: { Table: 'postern', ...backend },
    acl: { V4SetName: acl.V4SetName ?? '', V6SetName: acl.V6SetName ?? '' },
  };
}

const BOTH = knoc({ V4SetName: 'allow4', V6SetName: 'allow6' });
const entry = (ip: string, ttlSeconds = 300): DriverEntry => ({ ip, ttlSeconds, userName: 'alice' });

/** The set's elements and the seconds each has left (-1: no timeout), as the kernel reports them. */
async function members(set: string): Promise<Map<string, number>> {
  const { stdout } = await ns.exec(['nft', '-j', 'list', 'set', ...set.split(' ')]);
  const found = new Map<string, number>();
  const listing = JSON.parse(stdout) as { nftables: { set?: { elem?: unknown[] } }[] };
  for (const item of listing.nftables) {
    for (const element of item.set?.elem ?? []) {
      const detail = (element as { elem?: { val: unknown; expires?: number } }).elem;
      const val = detail === undefined ? element : detail.val;
      const prefix = (val as { prefix?: { addr: string; len: number } }).prefix;
      found.set(prefix === undefined ? String(val) : `${prefix.addr}/${prefix.len}`, detail?.expires ?? -1);
    }
  }
  return found;
}

describe('nftables driver in an inet table', () => {
  it("adds an IPv4 address to the knoc's V4 set with the grant's remaining time as its kernel timeout", async () => {
    const outcomes = await nft.apply(BOTH, [entry('203.0.113.7', 300)]);

    expect(outcomes).toEqual([{ ip: '203.0.113.7', ok: true, error: '' }]);
    const expires = (await members('inet postern allow4')).get('203.0.113.7');
    expect(expires).toBeGreaterThan(290);
    expect(expires).toBeLessThanOrEqual(300);
  });

  it('resets the deadline of an address already in the set, later and earlier', async () => {
    await nft.apply(BOTH, [entry('203.0.113.7', 60)]);
    expect((await nft.apply(BOTH, [entry('203.0.113.7', 7200)]))[0]?.ok).toBe(true);

    const set = await members('inet postern allow4');
    expect(set.size).toBe(1);
    expect(set.get('203.0.113.7')).toBeGreaterThan(7100);

    await nft.apply(BOTH, [entry('203.0.113.7', 30)]);
    expect((await members('inet postern allow4')).get('203.0.113.7')).toBeLessThanOrEqual(30);
  });

  it("adds an IPv6 address to the knoc's V6 set, not the V4 one", async () => {
    const outcomes = await nft.apply(BOTH, [entry('2001:DB8::7', 300)]);

    expect(outcomes[0]).toEqual({ ip: '2001:DB8::7', ok: true, error: '' });
    expect([...(await members('inet postern allow6')).keys()]).toEqual(['2001:db8::7']);
    expect((await members('inet postern allow4')).size).toBe(0);
  });

  it('never writes timeout 0 (forever): an entry with no time left still expires', async () => {
    await nft.apply(BOTH, [entry('203.0.113.9', 0)]);

    await waitFor(
      async () => !(await members('inet postern allow4')).has('203.0.113.9'),
      'the kernel to expire the entry',
      5000,
    );
  });

  it('removes an address, and removing an absent one is a success', async () => {
    await nft.apply(BOTH, [entry('203.0.113.7'), entry('203.0.113.8'), entry('2001:db8::8')]);

    const outcomes = await nft.remove(BOTH, [entry('203.0.113.7'), entry('198.51.100.1'), entry('2001:db8::9')]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true]);
    expect([...(await members('inet postern allow4')).keys()]).toEqual(['203.0.113.8']);
    expect([...(await members('inet postern allow6')).keys()]).toEqual(['2001:db8::8']);
  });

  it('lists what the kernel holds in both of the knoc’s sets, with the seconds each has left', async () => {
    await nft.apply(BOTH, [entry('203.0.113.7', 300), entry('2001:db8:0::7', 90)]);

    expect((await nft.list(BOTH)).sort()).toEqual(['2001:db8::7', '203.0.113.7']);
    const remaining = await nft.remainingSeconds?.(BOTH);
    expect(remaining?.get('203.0.113.7')).toBeGreaterThan(290);
    expect(remaining?.get('2001:db8::7')).toBeGreaterThan(80);
    expect(remaining?.get('2001:db8::7')).toBeLessThanOrEqual(90);
  });

  it("refuses a set that is not in the agent's allowed sets, touching nothing", async () => {
    const outcomes = await nft.apply(knoc({ V4SetName: 'not_allowed' }), [entry('203.0.113.7')]);

    expect(outcomes).toEqual([
      {
        ip: '203.0.113.7',
        ok: false,
        error: "set inet postern not_allowed is not allowed by this agent's configuration",
        permanent: true,
      },
    ]);
    expect((await members('inet postern not_allowed')).size).toBe(0);
  });

  it('fails an address whose family the knoc has no set for, and still adds the others', async () => {
    const outcomes = await nft.apply(knoc({ V4SetName: 'allow4' }), [entry('2001:db8::1'), entry('203.0.113.7')]);

    expect(outcomes).toEqual([
      { ip: '2001:db8::1', ok: false, error: 'this knoc has no IPv6 set (V6SetName) for 2001:db8::1', permanent: true },
      { ip: '203.0.113.7', ok: true, error: '' },
    ]);
  });

  it('names a set that does not exist and one without flags timeout, and applies the other set', async () => {
    const absent = await nft.apply(knoc({ V4SetName: 'absent', V6SetName: 'allow6' }), [
      entry('203.0.113.1'),
      entry('2001:db8::1'),
    ]);
    const plain = await nft.apply(knoc({ V4SetName: 'plain4' }), [entry('203.0.113.2')]);

    expect(absent).toEqual([
      { ip: '203.0.113.1', ok: false, error: 'set inet postern absent: No such file or directory' },
      { ip: '2001:db8::1', ok: true, error: '' },
    ]);
    expect(plain[0]?.error).toBe('set inet postern plain4 has no "flags timeout": its elements would never expire');
    expect(await members('inet postern plain4')).toEqual(new Map());
  });

  it('writes a network into an interval set, and fails only that entry in a set without intervals', async () => {
    const intervals = await nft.apply(knoc({ V4SetName: 'nets4' }), [entry('10.1.2.3/24')]);
    const plainSet = await nft.apply(BOTH, [entry('203.0.113.1'), entry('10.1.0.0/16'), entry('203.0.113.2')]);

    expect(intervals[0]?.ok).toBe(true);
    expect([...(await members('inet postern nets4')).keys()]).toEqual(['10.1.2.0/24']);
    expect(plainSet.map((outcome) => outcome.ok)).toEqual([true, false, true]);
    expect(plainSet[1]?.error).toContain("You must add 'flags interval'");
    expect([...(await members('inet postern allow4')).keys()].sort()).toEqual(['203.0.113.1', '203.0.113.2']);
  });

  it('adds 2,000 addresses in one apply (a reconcile after a restart), and removes them in one', async () => {
    const entries = Array.from({ length: 2000 }, (_, index) => entry(`10.20.${index >> 8}.${index & 255}`, 600));

    expect((await nft.apply(BOTH, entries)).every((outcome) => outcome.ok)).toBe(true);
    expect((await members('inet postern allow4')).size).toBe(2000);
    expect((await nft.remove(BOTH, entries)).every((outcome) => outcome.ok)).toBe(true);
    expect((await members('inet postern allow4')).size).toBe(0);
  });

  it("flushes the knoc's sets and leaves other sets alone", async () => {
    await nft.apply(BOTH, [entry('203.0.113.7'), entry('2001:db8::7')]);
    await ns.exec(['nft', 'add', 'element', 'inet', 'postern', 'not_allowed', '{ 203.0.113.7 timeout 5m }']);

    await nft.flush(BOTH);

    expect((await members('inet postern allow4')).size).toBe(0);
    expect((await members('inet postern allow6')).size).toBe(0);
    expect((await members('inet postern not_allowed')).size).toBe(1);
  });
});

describe('nftables driver in ip and ip6 tables', () => {
  it('writes IPv4 to a set of an ip table and IPv6 to a set of an ip6 table', async () => {
    const v4 = await nft.apply(knoc({ V4SetName: 'a4' }, { Family: 'ip', Table: 'filter4' }), [entry('192.0.2.1')]);
    const v6 = await nft.apply(knoc({ V6SetName: 'a6' }, { Family: 'ip6', Table: 'filter6' }), [entry('2001:db8::1')]);

    expect([v4[0]?.ok, v6[0]?.ok]).toEqual([true, true]);
    expect([...(await members('ip filter4 a4')).keys()]).toEqual(['192.0.2.1']);
    expect([...(await members('ip6 filter6 a6')).keys()]).toEqual(['2001:db8::1']);
    expect(await nft.list(knoc({ V4SetName: 'a4' }, { Family: 'ip', Table: 'filter4' }))).toEqual(['192.0.2.1']);
  });
});

describe('closed-loop verification: an add counts only once the kernel holds it', () => {
  // A device that accepts a change and does not keep it: this wrapper ends every batch that adds
  // with a delete of one address (in the long-lived shell and in `nft -j -f -` alike), as if another
  // process had removed it at once.
  const drop99 = '{"delete":{"element":{"family":"inet","table":"postern","name":"allow4","elem":["192.0.2.99"]}}}';
  const dropping = () => [...ns.prefix, 'sh', '-c', `sed -u '/"add"/s/]}$/,${drop99}]}/' | nft "$@"`, 'nft-dropping'];

  it.each([
    ['the long-lived nft -j -i', undefined],
    ['nft -j -f -', false as const],
  ])(
    'through %s, reports the address the set does not hold after the batch, and only that one',
    async (_mode, shell) => {
      const before = await shellProcesses();
      const driver = new NftablesDriver({
        allowedSets: ALLOWED,
        command: dropping(),
        logger: pino({ level: 'silent' }),
        ...(shell === undefined ? {} : { shell }),
      });
      try {
        const outcomes = await driver.apply(BOTH, [entry('192.0.2.98'), entry('192.0.2.99')]);

        expect(outcomes).toEqual([
          { ip: '192.0.2.98', ok: true, error: '' },
          { ip: '192.0.2.99', ok: false, error: 'set inet postern allow4 does not hold 192.0.2.99 after adding it' },
        ]);
        expect([...(await members('inet postern allow4')).keys()]).toEqual(['192.0.2.98']);
      } finally {
        await driver.close();
        // The wrapper's nft ends when sed sees the end of its input, just after the wrapper.
        await waitFor(async () => (await shellProcesses()).length === before.length, 'the wrapped nft to end', 5000);
      }
    },
  );
});

describe('the long-lived nft -j -i', () => {
  it('is one nft process kept between calls', async () => {
    await nft.apply(BOTH, [entry('203.0.113.7')]);
    const first = await shellProcesses();
    await nft.apply(BOTH, [entry('203.0.113.8')]);
    await nft.remove(BOTH, [entry('203.0.113.7')]);

    expect(first).toHaveLength(1);
    expect(await shellProcesses()).toEqual(first);
  });

  it('killed, the next grant still lands, and the shell is started again', async () => {
    let clock = 0;
    const others = await shellProcesses();
    const driver = new NftablesDriver({
      allowedSets: ALLOWED,
      command: [...ns.prefix, 'nft'],
      logger: pino({ level: 'silent' }),
      now: () => clock,
    });
    try {
      await driver.apply(BOTH, [entry('203.0.113.7')]);
      const killed = (await shellProcesses()).filter((pid) => !others.includes(pid));
      expect(killed).toHaveLength(1);
      for (const pid of killed) process.kill(pid, 'SIGKILL');
      await waitFor(async () => (await shellProcesses()).length === others.length, 'the shell to be gone', 5000);

      // Through a new shell, or by spawning nft when the driver learns of the death only now.
      expect(await driver.apply(BOTH, [entry('203.0.113.8')])).toEqual([{ ip: '203.0.113.8', ok: true, error: '' }]);
      clock += 60_000;
      expect(await driver.apply(BOTH, [entry('203.0.113.9')])).toEqual([{ ip: '203.0.113.9', ok: true, error: '' }]);

      expect([...(await members('inet postern allow4')).keys()].sort()).toEqual([
        '203.0.113.7',
        '203.0.113.8',
        '203.0.113.9',
      ]);
      const started = (await shellProcesses()).filter((pid) => !others.includes(pid));
      expect(started).toHaveLength(1);
      expect(started).not.toEqual(killed);
    } finally {
      await driver.close();
    }
  });

  it('dying mid-batch, the grant lands by spawning nft; after the retry time the shell runs again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'postern-nft-shell-'));
    const died = path.join(dir, 'died');
    // The first interactive nft reads the batch and dies before answering; everything else is nft.
    const dyingOnce = [
      ...ns.prefix,
      'sh',
      '-c',
      `if [ "$2" = "-i" ] && [ ! -e ${died} ]; then touch ${died}; head -n 1 >/dev/null; exit 1; fi; exec nft "$@"`,
      'nft-dying-once',
    ];
    let clock = 0;
    const others = await shellProcesses();
    const driver = new NftablesDriver({
      allowedSets: ALLOWED,
      command: dyingOnce,
      logger: pino({ level: 'silent' }),
      now: () => clock,
    });
    try {
      const first = await driver.apply(BOTH, [entry('203.0.113.7'), entry('2001:db8::7')]);

      expect(existsSync(died)).toBe(true);
      expect(first.map((outcome) => outcome.ok)).toEqual([true, true]);
      expect([...(await members('inet postern allow4')).keys()]).toEqual(['203.0.113.7']);
      expect(await shellProcesses()).toEqual(others);

      clock += 60_000;
      const second = await driver.apply(BOTH, [entry('203.0.113.8')]);

      expect(second).toEqual([{ ip: '203.0.113.8', ok: true, error: '' }]);
      expect([...(await members('inet postern allow4')).keys()].sort()).toEqual(['203.0.113.7', '203.0.113.8']);
      expect((await shellProcesses()).length).toBe(others.length + 1);
    } finally {
      await driver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ends with the driver: no nft of it is left running', async () => {
    const driver = new NftablesDriver({
      allowedSets: ALLOWED,
      command: [...ns.prefix, 'nft'],
      logger: pino({ level: 'silent' }),
    });
    const before = await shellProcesses();
    await driver.apply(BOTH, [entry('203.0.113.9')]);
    expect((await shellProcesses()).length).toBe(before.length + 1);

    await driver.close();

    expect(await shellProcesses()).toEqual(before);
  });
});

/** The processes running in the namespace. */
async function namespacePids(): Promise<number[]> {
  const { stdout } = await execFileAsync('ip', ['netns', 'pids', ns.name]);
  return stdout
    .split('\n')
    .map(Number)
    .filter((value) => value > 0)
    .sort((a, b) => a - b);
}

/** The `nft -j -i` processes running in the namespace. */
async function shellProcesses(): Promise<number[]> {
  const pids: number[] = [];
  for (const pid of await namespacePids()) {
    try {
      const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
      if (path.basename(argv[0] ?? '') === 'nft' && argv.includes('-j') && argv.includes('-i')) pids.push(pid);
    } catch {
      // Ended meanwhile.
    }
  }
  return pids;
}

describe('expiry with no Postern process alive', () => {
  it('the kernel removes an element at its timeout after the process that wrote it has exited', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'postern-nft-expiry-'));
    // This file's own driver keeps its long-lived nft in the namespace; nothing else may run there.
    const ours = await shellProcesses();
    try {
      // A separate agent process: it applies one grant of 2 s and exits; nothing runs afterwards.
      const script = path.join(dir, 'apply-and-exit.mts');
      writeFileSync(
        script,
        [
          `import { NftablesDriver } from ${JSON.stringify(path.join(REPO_ROOT, 'apps/agent/src/drivers/nftables/nftables-driver.ts'))};`,
          `const driver = new NftablesDriver({ allowedSets: ${JSON.stringify(ALLOWED)}, command: ${JSON.stringify([...ns.prefix, 'nft'])}, logger: { warn() {} } as never });`,
          `const outcomes = await driver.apply(${JSON.stringify(BOTH)}, [{ ip: '203.0.113.50', ttlSeconds: 2, userName: 'alice' }, { ip: '2001:db8::50', ttlSeconds: 2, userName: 'alice' }]);`,
          // As the agent does when it stops: the long-lived nft ends with the driver.
          'await driver.close();',
          'process.stdout.write(JSON.stringify(outcomes));',
        ].join('\n'),
      );
      const { stdout } = await execFileAsync(process.execPath, ['--conditions=source', '--import', 'tsx', script], {
        cwd: REPO_ROOT,
      });
      expect(JSON.parse(stdout)).toEqual([
        { ip: '203.0.113.50', ok: true, error: '' },
        { ip: '2001:db8::50', ok: true, error: '' },
      ]);
      // The writer is gone and nothing of Postern runs in the namespace.
      expect(await namespacePids()).toEqual(ours);
      expect((await members('inet postern allow4')).has('203.0.113.50')).toBe(true);
      expect((await members('inet postern allow6')).has('2001:db8::50')).toBe(true);

      await waitFor(
        async () =>
          !(await members('inet postern allow4')).has('203.0.113.50') &&
          !(await members('inet postern allow6')).has('2001:db8::50'),
        'the kernel to expire both elements',
        6000,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('nftables capabilities', () => {
  it('reports the allowed sets that exist, with family, table, type and timeout flag', async () => {
    const capabilities = await detectCapabilities(
      {
        ipset: { allowedSets: [], useSudo: false },
        nftables: { allowedSets: ALLOWED, useSudo: false },
        haproxy: { socket: null },
        scripts: { enabled: false, directory: '/nonexistent', timeoutSeconds: 5 },
      },
      { nftablesCommand: [...ns.prefix, 'nft'] },
    );

    expect(capabilities.nftables?.command_available).toBe(true);
    expect(capabilities.nftables?.sudo_enabled).toBe(true);
    expect(capabilities.nftables?.sets).toEqual([
      { family: 'inet', table: 'postern', name: 'allow4', type: 'ipv4_addr', timeout: true },
      { family: 'inet', table: 'postern', name: 'allow6', type: 'ipv6_addr', timeout: true },
      { family: 'inet', table: 'postern', name: 'nets4', type: 'ipv4_addr', timeout: true },
      { family: 'inet', table: 'postern', name: 'plain4', type: 'ipv4_addr', timeout: false },
      { family: 'ip', table: 'filter4', name: 'a4', type: 'ipv4_addr', timeout: true },
      { family: 'ip6', table: 'filter6', name: 'a6', type: 'ipv6_addr', timeout: true },
    ]);
    expect(capabilities.backend_types).toContain('nftables');
  });
});
